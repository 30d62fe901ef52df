// Building a Simulation from a Problem (problem.h).
#include "science/elec/problem.h"

#include <algorithm>

#include <cmath>
#include <string>

#include "engine/core/error.h"

namespace spire::elec {

bool is_dispersive(const Geometry& geometry) {
  for (const Medium& m : geometry.media())
    if (!m.E_susceptibilities.empty()) return true;
  return false;
}

namespace {

// Which medium failed: the stability check works per sample on averaged strengths and cannot name a
// medium, so name each dispersive medium of the geometry with the Nyquist permittivity it would
// present on its own (eps_N = eps_inf + sum_j s_j chi_j(z = -1), smallest axis).
std::string describe_dispersive_media(const Geometry& geometry, double dt) {
  std::string out;
  for (size_t m = 0; m < geometry.media().size(); ++m) {
    const Medium& medium = geometry.media()[m];
    if (medium.E_susceptibilities.empty()) continue;
    double worst = INFINITY;
    for (int a = 0; a < 3; ++a) {
      double eps_n = medium.epsilon_diag[a];
      for (const Susceptibility& s : medium.E_susceptibilities) eps_n += s.sigma_diag[a] * nyquist_susceptibility(s, dt);
      worst = std::min(worst, eps_n);
    }
    std::string terms;
    for (const Susceptibility& s : medium.E_susceptibilities) terms += (terms.empty() ? "" : " + ") + s.describe();
    out += detail::cat(out.empty() ? "" : "; ", m == 0 ? std::string("the default medium") : detail::cat("medium ", m),
                       " (", terms, ") presents eps_N = ", worst, " alone");
  }
  return out;
}

}  // namespace

Simulation build(const Problem& problem) { return build(problem, {}); }

Simulation build(const Problem& problem, const std::function<void(MaterialArrays&)>& edit_materials) {
  const YeeLattice lattice(problem.dimensions, problem.cell_size, problem.resolution);
  // Resolving the boundaries here (the Simulation does it again) gives the periodic axes for the
  // sampling, so that objects crossing a periodic side are repeated as Meep's ensure_periodicity.
  const ResolvedBoundaries resolved = resolve(problem.boundaries, lattice);
  SubpixelOptions options = problem.subpixel;
  for (int a = 0; a < 3; ++a)
    options.periodic[size_t(a)] = resolved.axis[size_t(a)].active && resolved.axis[size_t(a)].wall == Wall::periodic;
  SampledMedia media = sample_media(lattice, problem.geometry, options);
  load_ports(media.arrays, lattice, problem.ports);
  if (edit_materials) edit_materials(media.arrays);

  Simulation sim(lattice, std::move(media.arrays), problem.boundaries, problem.courant, problem.precision,
                 problem.platform);
  if (!media.susceptibilities.empty()) {
    try {
      check_dispersive_stability(lattice, sim.materials(), media.susceptibilities, sim.dt());
    } catch (const ValueError& e) {
      throw ValueError(detail::cat(e.what(), ". Dispersive media: ", describe_dispersive_media(problem.geometry, sim.dt()),
                                   " (Courant number ", sim.courant(), ", dt = ", sim.dt(), ")"));
    }
    sim.set_polarization(std::make_shared<DispersiveHook>(lattice, media.susceptibilities, sim.dt(), problem.precision,
                                                          sim.complex_fields()));
  }
  for (size_t i = 0; i < problem.sources.size(); ++i) {
    try {
      sim.add_source(problem.sources[i]);
    } catch (const Error& e) {
      throw ValueError(detail::cat("source ", i, ": ", e.what()));
    }
  }
  for (size_t i = 0; i < problem.plane_waves.size(); ++i) {
    try {
      add_plane_wave(sim, problem.plane_waves[i]);
    } catch (const Error& e) {
      throw ValueError(detail::cat("plane wave ", i, ": ", e.what()));
    }
  }
  add_port_sources(sim, problem.ports);
  return sim;
}

DispersiveHook::DispersiveHook(const YeeLattice& lattice, const std::vector<SusceptibilityArrays>& terms, double dt,
                               Precision precision, bool complex_fields) {
  // Only the parts the run has carry state: one real part, and an imaginary part for complex fields.
  const int parts = complex_fields ? 2 : 1;
  for (int p = 0; p < parts; ++p) {
    if (precision == Precision::float64)
      double_[size_t(p)] = Polarizations<double>(lattice, terms, dt);
    else
      float_[size_t(p)] = Polarizations<float>(lattice, terms, dt);
  }
}

void DispersiveHook::step(Component c, FieldPart part, const double* e_now, double* p_total, int64_t n) {
  // (A model whose strengths are zero everywhere leaves pol without state: p_total stays zero.)
  Polarizations<double>& pol = double_[size_t(part)];
  if (pol.has(c)) pol.advance_into(c, e_now, p_total);
}

void DispersiveHook::step(Component c, FieldPart part, const float* e_now, float* p_total, int64_t n) {
  Polarizations<float>& pol = float_[size_t(part)];
  if (pol.has(c)) pol.advance_into(c, e_now, p_total);
}

namespace {

// Visits every state array of a set of polarisations: (name, array) for P and its history.
template <class T, class F>
void each_polarization_array(std::array<Polarizations<T>, 2>& parts, F visit) {
  for (size_t p = 0; p < parts.size(); ++p)
    for (size_t t = 0; t < parts[p].size(); ++t)
      for (Component c : {Component::Ex, Component::Ey, Component::Ez}) {
        if (!parts[p].has(c) || parts[p].sample_indices(t, c).empty()) continue;
        const std::string name = "pol/" + std::to_string(t) + "/" + to_string(c) + "/" + (p == 0 ? "re" : "im");
        visit(name + "/p", parts[p].polarization(t, c));
        visit(name + "/history", parts[p].history(t, c));
      }
}

template <class T>
void save_polarizations(std::array<Polarizations<T>, 2>& parts, SimulationState& out) {
  each_polarization_array(parts, [&](const std::string& name, const std::vector<T>& v) {
    out.push_back({name, std::vector<double>(v.begin(), v.end())});
  });
}

template <class T>
void load_polarizations(std::array<Polarizations<T>, 2>& parts, const SimulationState& in) {
  each_polarization_array(parts, [&](const std::string& name, std::vector<T>& v) {
    const StateArray& a = find_state(in, name, int64_t(v.size()));
    std::transform(a.values.begin(), a.values.end(), v.begin(), [](double x) { return T(x); });
  });
}

}  // namespace

void DispersiveHook::save_state(SimulationState& out) const {
  auto& self = const_cast<DispersiveHook&>(*this);  // the accessors are non-const; nothing changes
  save_polarizations(self.double_, out);
  save_polarizations(self.float_, out);
}

void DispersiveHook::load_state(const SimulationState& in) {
  load_polarizations(double_, in);
  load_polarizations(float_, in);
}

}  // namespace spire::elec
