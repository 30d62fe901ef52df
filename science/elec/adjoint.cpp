// The differentiable FDTD run: forward with checkpoints, adjoint backwards by segments (adjoint.h).
#include "science/elec/adjoint.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "engine/core/error.h"
#include "science/elec/adjoint_step.h"
#include "science/elec/dft.h"

namespace spire::elec {

namespace {

// One output's gather (dft.h), whose transpose scatters the cotangents: the entries of
// DftFields::taps(), so that the adjoint weights are the forward run's by construction.
struct OutputTaps {
  Component component = Component::Ez;
  std::vector<double> frequencies;
  int64_t points = 0;
  std::vector<DftFields::Tap> taps;
};

}  // namespace

std::array<std::vector<double>, 3> flux_points(const YeeLattice& lattice, const FluxRegion& region) {
  // SurfaceDft places the common points (and checks the region); every transform shares them.
  const SurfaceDft surface(lattice, region, {1.0}, 1.0);
  return surface.transforms().front().positions();
}

struct DifferentiableRun::Impl {
  Problem problem;
  YeeLattice lattice;
  DesignRegion region;
  std::vector<DesignSample> design;
  std::vector<DftOutput> outputs;
  std::vector<OutputTaps> taps;
  double dt = 0;
  int64_t steps = 0, every = 1;
  // The last forward run.
  bool have_forward = false;
  std::vector<double> eps;
  std::unique_ptr<Simulation> sim;
  std::vector<SimulationState> checkpoints;
  int64_t peak = 0;

  Impl(Problem p, DesignRegion r, std::vector<DftOutput> o)
      : problem(std::move(p)),
        lattice(problem.dimensions, problem.cell_size, problem.resolution),
        region(std::move(r)),
        outputs(std::move(o)) {}

  // dL/du^n of the outputs at step n (state after n steps) into lambda.
  void add_output_cotangents(RunState& lambda, int64_t n, const std::vector<std::vector<double>>& g_re,
                             const std::vector<std::vector<double>>& g_im, std::vector<double>& a) const {
    const double t = double(n) * dt;
    for (size_t k = 0; k < taps.size(); ++k) {
      const OutputTaps& o = taps[k];
      const double tc = component_time(o.component, t, dt);
      const size_t nf = o.frequencies.size();
      std::vector<double> cs(nf), sn(nf);
      for (size_t f = 0; f < nf; ++f) {
        const double phase = 2 * std::numbers::pi * o.frequencies[f] * tc;
        cs[f] = std::cos(phase) * dt;
        sn[f] = std::sin(phase) * dt;
      }
      const int64_t np = o.points;
      a.assign(size_t(np), 0.0);
      const double* gr = g_re[k].data();
      const double* gi = g_im[k].data();
#pragma omp parallel for schedule(static) if (np * int64_t(nf) > 262144)
      for (int64_t p = 0; p < np; ++p) {
        double v = 0;
        for (size_t f = 0; f < nf; ++f) {
          const size_t i = f * size_t(np) + size_t(p);
          v += gr[i] * cs[f] + gi[i] * sn[f];
        }
        a[size_t(p)] = v;
      }
      double* l = lambda.field[size_t(int(o.component))].data();
      for (const DftFields::Tap& e : o.taps) l[e.sample] += a[size_t(e.point)] * e.weight;
    }
  }
};

DifferentiableRun::DifferentiableRun(Problem problem, DesignRegion region, std::vector<DftOutput> outputs,
                                     double until, AdjointOptions options) {
  const char* who = "DifferentiableRun";
  SPIRE_CHECK(problem.precision == Precision::float64, ConfigError, who,
              ": the adjoint run is float64 only; the problem asks for ", to_string(problem.precision));
  SPIRE_CHECK(!is_dispersive(problem.geometry), ConfigError, who,
              ": the geometry has dispersive media (susceptibilities); the adjoint run covers non-dispersive "
              "media only (eps, mu, conductivity, pec objects)");
  SPIRE_CHECK(std::isfinite(until), ValueError, who, ": until must be finite, got ", until);
  SPIRE_CHECK(options.checkpoint_every >= 0, ValueError, who, ": checkpoint_every must be >= 0 (0: about "
              "sqrt(steps)), got ", options.checkpoint_every);
  impl_ = std::make_unique<Impl>(std::move(problem), std::move(region), std::move(outputs));
  Impl& m = *impl_;
  const Problem& p = m.problem;
  const ResolvedBoundaries resolved = resolve(p.boundaries, m.lattice);
  SPIRE_CHECK(!resolved.complex_fields(), ConfigError, who,
              ": bloch boundaries make the fields complex; the adjoint run covers real fields only (pec, pmc, pml, "
              "periodic)");
  // The problem as build() makes it checks the Courant number, boundaries, platform, materials and
  // sources, and gives the sources on the lattice (plane waves' and ports' included).
  const Simulation base = build(p);
  m.dt = base.dt();
  m.design = m.region.samples(m.lattice);
  std::array<std::vector<char>, 3> in_design;
  for (const DesignSample& s : m.design) {
    auto& mask = in_design[size_t(int(s.component))];
    if (mask.empty()) mask.assign(size_t(m.lattice.samples()), 0);
    mask[size_t(s.index)] = 1;
  }
  for (size_t i = 0; i < base.sources().size(); ++i) {
    const SourceSamples& s = base.sources()[i];
    if (!is_electric(s.component)) continue;
    const auto& mask = in_design[size_t(int(s.component))];
    for (int64_t idx : s.index)
      SPIRE_CHECK(mask.empty() || !mask[size_t(idx)], ConfigError, who, ": source ", i, " (", to_string(s.component),
                  ", counting plane waves' and ports' currents after the sources) drives sample ", idx,
                  " inside the design region; an electric current there is scaled by inv_eps, which the adjoint "
                  "run does not differentiate: move the source out of the region");
  }
  for (size_t k = 0; k < m.outputs.size(); ++k) {
    const DftOutput& o = m.outputs[k];
    try {
      const DftFields gather(m.lattice, o.component, o.positions, o.frequencies, m.dt);
      m.taps.push_back({o.component, o.frequencies, gather.points(), gather.taps()});
    } catch (const Error& e) {
      throw ValueError(detail::cat(who, ": output ", k, ": ", e.what()));
    }
  }
  // The steps Simulation::run(until) takes: while time() < until - 1e-6 dt.
  while (double(m.steps) * m.dt < until - 1e-6 * m.dt) ++m.steps;
  m.every = options.checkpoint_every > 0
                ? options.checkpoint_every
                : std::max<int64_t>(1, std::llround(std::sqrt(double(m.steps))));
}

DifferentiableRun::~DifferentiableRun() = default;
DifferentiableRun::DifferentiableRun(DifferentiableRun&&) noexcept = default;
DifferentiableRun& DifferentiableRun::operator=(DifferentiableRun&&) noexcept = default;

int64_t DifferentiableRun::design_size() const { return impl_->region.values(); }
size_t DifferentiableRun::outputs() const { return impl_->outputs.size(); }
int64_t DifferentiableRun::steps() const { return impl_->steps; }
int64_t DifferentiableRun::checkpoint_every() const { return impl_->every; }
double DifferentiableRun::dt() const { return impl_->dt; }
const YeeLattice& DifferentiableRun::lattice() const { return impl_->lattice; }
int64_t DifferentiableRun::peak_stored_states() const { return impl_->peak; }

std::vector<int64_t> DifferentiableRun::output_shape(size_t k) const {
  SPIRE_CHECK(k < impl_->taps.size(), ValueError, "DifferentiableRun::output_shape: output ", k, " of ",
              impl_->taps.size());
  return {int64_t(impl_->taps[k].frequencies.size()), impl_->taps[k].points};
}

std::vector<std::vector<std::complex<double>>> DifferentiableRun::forward(const std::vector<double>& eps) {
  Impl& m = *impl_;
  m.region.check_values(eps);
  m.have_forward = false;
  m.sim = std::make_unique<Simulation>(
      build(m.problem, [&](MaterialArrays& materials) { m.region.apply(materials, m.design, eps); }));
  std::vector<DftFields> dfts;
  for (const DftOutput& o : m.outputs) dfts.emplace_back(m.lattice, o.component, o.positions, o.frequencies, m.dt);
  m.checkpoints.clear();
  for (int64_t n = 0; n < m.steps; ++n) {
    if (n % m.every == 0) m.checkpoints.push_back(m.sim->save_state());
    m.sim->step();
    for (DftFields& d : dfts) d.accumulate(m.sim->field(d.component()).real_data<double>(), m.sim->time());
  }
  m.eps = eps;
  m.have_forward = true;
  std::vector<std::vector<std::complex<double>>> out;
  for (const DftFields& d : dfts) out.push_back(d.data());
  return out;
}

std::vector<double> DifferentiableRun::gradient(const std::vector<std::vector<std::complex<double>>>& cotangents) {
  Impl& m = *impl_;
  const char* who = "DifferentiableRun::gradient";
  SPIRE_CHECK(m.have_forward, ValueError, who, ": call forward() first; the gradient is taken at its eps");
  SPIRE_CHECK(cotangents.size() == m.taps.size(), ValueError, who, ": ", cotangents.size(), " cotangents for ",
              m.taps.size(), " outputs");
  std::vector<std::vector<double>> g_re(m.taps.size()), g_im(m.taps.size());
  for (size_t k = 0; k < m.taps.size(); ++k) {
    const size_t want = m.taps[k].frequencies.size() * size_t(m.taps[k].points);
    SPIRE_CHECK(cotangents[k].size() == want, ValueError, who, ": cotangent ", k, " has ", cotangents[k].size(),
                " values; output ", k, " has ", m.taps[k].frequencies.size(), " frequencies x ", m.taps[k].points,
                " points = ", want);
    for (const std::complex<double>& g : cotangents[k]) {
      SPIRE_CHECK(std::isfinite(g.real()) && std::isfinite(g.imag()), ValueError, who, ": cotangent ", k,
                  " holds a non-finite value");
      g_re[k].push_back(g.real());
      g_im[k].push_back(g.imag());
    }
  }
  Simulation& sim = *m.sim;
  const AdjointStep adj(m.lattice, sim.materials(), m.problem.boundaries, m.dt);
  std::vector<std::pair<Component, int64_t>> where;
  for (const DesignSample& s : m.design) where.push_back({s.component, s.index});
  const AdjointStep::ElectricCurl curl(adj, where);
  // (dt/dx) / (1 + sigma dt/2): d scale / d inv_eps of the E update at each design sample.
  const size_t nd = m.design.size();
  std::vector<double> factor(nd);
  for (size_t q = 0; q < nd; ++q) {
    const auto& sigma = sim.materials().conductivity[size_t(int(m.design[q].component))];
    const double s = sigma.empty() ? 0.0 : sigma[size_t(m.design[q].index)];
    factor[q] = (m.dt / m.lattice.dx()) / (1 + 0.5 * s * m.dt);
  }

  RunState lambda = adj.zero_state();
  std::vector<double> d_inv(nd, 0.0), a;
  std::vector<double> buffer(size_t(std::min(m.every, m.steps)) * nd);
  m.peak = m.steps > 0 ? int64_t(m.checkpoints.size()) + std::min(m.every, m.steps) : 0;
  std::array<const double*, 6> fields{};
  std::array<std::array<const double*, 3>, 6> psi{};
  for (int64_t seg = int64_t(m.checkpoints.size()) - 1; seg >= 0; --seg) {
    const int64_t start = seg * m.every, end = std::min(m.steps, start + m.every);
    // Recompute the segment, keeping the curls the E updates applied at the design samples.
    sim.load_state(m.checkpoints[size_t(seg)]);
    for (int64_t n = start; n < end; ++n) {
      sim.step();
      for (Component c : m.lattice.components())
        if (!is_electric(c)) fields[size_t(int(c))] = sim.field(c).real_data<double>();
      SimulationState state;
      if (curl.needs_psi()) {
        state = sim.save_state();
        for (const StateArray& s : state)
          for (Component c : {Component::Ex, Component::Ey, Component::Ez})
            for (int ax = 0; ax < 3; ++ax)
              if (s.name == "psi/" + to_string(c) + "/" + "xyz"[ax] + "/re")
                psi[size_t(int(c))][size_t(ax)] = s.values.data();
      }
      curl.evaluate(fields, psi, buffer.data() + size_t(n - start) * nd);
    }
    // The adjoint back through the segment: at step n lambda enters as A^T lambda^{n+1} and becomes
    // lambda^n with dL/du^n added; P_E lambda^n pairs with the curl step n applied.
    for (int64_t n = end; n > start; --n) {
      m.add_output_cotangents(lambda, n, g_re, g_im, a);
      adj.project_electric(lambda);
      const double* cb = buffer.data() + size_t(n - 1 - start) * nd;
#pragma omp parallel for schedule(static) if (nd > 65536)
      for (size_t q = 0; q < nd; ++q)
        d_inv[q] += lambda.field[size_t(int(m.design[q].component))][size_t(m.design[q].index)] * factor[q] * cb[q];
      if (n > 1) adj.apply_projected(lambda);
    }
  }
  return m.region.chain(m.design, m.eps, d_inv);
}

}  // namespace spire::elec
