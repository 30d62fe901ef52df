// Lumped ports (port.h): the gap's samples and Ampere loop, its resistor in the material arrays, its
// source, and the running DFTs of V and I.
#include "science/elec/port.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numbers>
#include <string>
#include <utility>

#include "engine/core/error.h"
#include "science/elec/units.h"

namespace spire::elec {

namespace {

// The samples of component c along one axis that a gap or width covers.
std::vector<int64_t> axis_samples(const YeeLattice& lattice, Component c, int axis, double center, double extent,
                                  bool range) {
  const int64_t n = lattice.n(axis);
  const double dx = lattice.dx(), offset = lattice.offset(c)[axis];
  const double origin = -0.5 * double(n) * dx;
  std::vector<int64_t> out;
  if (!range) {
    // The nearest sample (sample n is sample 0).
    const double u = (center - origin) / dx - offset;
    out.push_back(((int64_t(std::llround(u)) % n) + n) % n);
    return out;
  }
  const double tol = 1e-6 * dx, lo = center - extent / 2 - tol, hi = center + extent / 2 + tol;
  for (int64_t i = 0; i < n; ++i) {
    const double p = origin + (double(i) + offset) * dx;
    // Sample 0 is also the sample at the far end of the cell (its periodic image).
    if ((p >= lo && p <= hi) || (p + double(n) * dx >= lo && p + double(n) * dx <= hi)) out.push_back(i);
  }
  return out;
}

std::string axis_name(int a) { return std::string(1, "xyz"[a]); }

// Wraps index i of the lattice one sample down along axis a.
int64_t step_down(const YeeLattice& lattice, int64_t index, int a) {
  const std::array<int64_t, 3> stride{lattice.n(1) * lattice.n(2), lattice.n(2), 1};
  const int64_t coord = (index / stride[size_t(a)]) % lattice.n(a);
  return coord > 0 ? index - stride[size_t(a)] : index + (lattice.n(a) - 1) * stride[size_t(a)];
}

double normalised_resistance(const LumpedPort& port) { return port.resistance / si::kVacuumImpedance; }

}  // namespace

PortLayout port_layout(const LumpedPort& port, const YeeLattice& lattice, size_t which) {
  const Component c = port.component;
  const std::string name = detail::cat("port ", which, " (", to_string(c), ")");
  SPIRE_CHECK(is_electric(c), ValueError, name, ": a port's gap is an E component (Ex, Ey or Ez), not ",
              to_string(c));
  SPIRE_CHECK(lattice.has(c), ValueError, name, ": a ", to_string(lattice.dimensions()), " problem does not carry ",
              to_string(c));
  SPIRE_CHECK(std::isfinite(port.resistance) && port.resistance > 0, ValueError, name,
              ": the resistance must be finite and > 0 ohms, got ", port.resistance);
  SPIRE_CHECK(std::isfinite(port.amplitude.real()) && std::isfinite(port.amplitude.imag()), ValueError, name,
              ": the amplitude must be finite");
  const int ca = axis_of(c);
  const Vec3 cell = lattice.size();
  PortLayout out;
  out.component = c;
  out.length = 1;
  out.area = 1;
  std::array<std::vector<int64_t>, 3> along;
  for (int a = 0; a < 3; ++a) {
    SPIRE_CHECK(std::isfinite(port.center[a]) && std::isfinite(port.size[a]) && port.size[a] >= 0, ValueError, name,
                ": center and size along ", axis_name(a), " must be finite and size >= 0, got center ", port.center[a],
                ", size ", port.size[a]);
    if (!lattice.has_axis(a)) {
      along[size_t(a)] = {0};
      continue;
    }
    SPIRE_CHECK(a != ca || port.size[a] > 0, ValueError, name, ": the gap's length (size along ", axis_name(a),
                ") must be > 0");
    const double lo = port.center[a] - port.size[a] / 2, hi = port.center[a] + port.size[a] / 2;
    const double tol = 1e-6 * lattice.dx();
    SPIRE_CHECK(lo >= -cell[a] / 2 - tol && hi <= cell[a] / 2 + tol, ValueError, name, ": the gap spans [", lo, ", ",
                hi, "] along ", axis_name(a), ", outside the cell [", -cell[a] / 2, ", ", cell[a] / 2, "]");
    along[size_t(a)] = axis_samples(lattice, c, a, port.center[a], port.size[a], a == ca || port.size[a] > 0);
    SPIRE_CHECK(!along[size_t(a)].empty(), ValueError, name, ": no ", to_string(c), " sample lies in the gap's [", lo,
                ", ", hi, "] along ", axis_name(a), " (samples are ", lattice.dx(), " apart there)");
    const double extent = double(along[size_t(a)].size()) * lattice.dx();
    if (a == ca)
      out.length = extent;
    else
      out.area *= extent;
  }
  out.cells = int64_t(along[size_t(ca)].size());
  out.columns = int64_t(along[0].size() * along[1].size() * along[2].size()) / out.cells;
  // Columns in storage order, each column's cells from low to high along the gap.
  const int a1 = (ca + 1) % 3, a2 = (ca + 2) % 3;
  const int lo_axis = std::min(a1, a2), hi_axis = std::max(a1, a2);
  std::vector<int64_t> middle;  // the middle sample of each column
  for (int64_t u : along[size_t(lo_axis)])
    for (int64_t v : along[size_t(hi_axis)])
      for (size_t k = 0; k < along[size_t(ca)].size(); ++k) {
        std::array<int64_t, 3> ijk{};
        ijk[size_t(lo_axis)] = u;
        ijk[size_t(hi_axis)] = v;
        ijk[size_t(ca)] = along[size_t(ca)][k];
        const int64_t index = lattice.index(ijk[0], ijk[1], ijk[2]);
        out.samples.push_back(index);
        if (int64_t(k) == (out.cells - 1) / 2) middle.push_back(index);
      }
  // Ampere's law over the middle plane: I = sum over its samples of area * (curl H)_c, where
  // (curl H)_c = d_a H_b - d_b H_a with (a, b, c) cyclic; H_b sits half a cell above the E sample
  // along a (index i: the + side, i - 1: the - side), H_a likewise along b. The interior terms
  // cancel, leaving the loop around the cross-section; axes the problem lacks have no derivative.
  const int a = (ca + 1) % 3, b = (ca + 2) % 3;
  const Component Ha = Component(3 + a), Hb = Component(3 + b);
  const double ext_a = lattice.has_axis(a) ? lattice.dx() : 1, ext_b = lattice.has_axis(b) ? lattice.dx() : 1;
  std::map<std::pair<int, int64_t>, double> terms;
  for (int64_t s : middle) {
    if (lattice.has_axis(a)) {
      terms[{int(Hb), s}] += ext_b;
      terms[{int(Hb), step_down(lattice, s, a)}] -= ext_b;
    }
    if (lattice.has_axis(b)) {
      terms[{int(Ha), s}] -= ext_a;
      terms[{int(Ha), step_down(lattice, s, b)}] += ext_a;
    }
  }
  for (const auto& [key, weight] : terms)
    if (weight != 0) out.loop.push_back({Component(key.first), key.second, weight});
  return out;
}

namespace {

// Whether the boundaries hold component c at sample `index` at zero (a pec wall's plane).
bool on_pec_wall(const YeeLattice& lattice, const ResolvedBoundaries& bc, Component c, int64_t index) {
  const std::array<int64_t, 3> stride{lattice.n(1) * lattice.n(2), lattice.n(2), 1};
  for (int a = 0; a < 3; ++a) {
    const AxisBoundary& ax = bc.axis[size_t(a)];
    if (!ax.active || ax.wall != Wall::pec || axis_of(c) == a) continue;
    if ((index / stride[size_t(a)]) % lattice.n(a) == 0) return true;
  }
  return false;
}

void check_walls(const PortLayout& layout, const Simulation& sim, const std::string& name) {
  for (int64_t s : layout.samples)
    SPIRE_CHECK(!on_pec_wall(sim.lattice(), sim.boundaries(), layout.component, s), ValueError, name, " (",
                to_string(layout.component), "): its gap sample ", s,
                " lies on a pec wall, which holds it at zero; move the gap off the wall");
}

}  // namespace

void load_ports(MaterialArrays& materials, const YeeLattice& lattice, const std::vector<LumpedPort>& ports) {
  std::array<std::map<int64_t, size_t>, 3> owner;  // per electric component: sample -> port
  for (size_t p = 0; p < ports.size(); ++p) {
    const PortLayout layout = port_layout(ports[p], lattice, p);
    const size_t ci = size_t(int(layout.component));
    std::vector<double>& inv = materials.inverse[ci];
    SPIRE_CHECK(int64_t(inv.size()) == lattice.samples(), ValueError, "load_ports: the material arrays have ",
                inv.size(), " inv_eps samples of ", to_string(layout.component), ", the lattice ", lattice.samples());
    std::vector<double>& sigma = materials.conductivity[ci];
    if (sigma.empty()) sigma.assign(size_t(lattice.samples()), 0.0);
    const double conductivity = layout.length / (normalised_resistance(ports[p]) * layout.area);
    for (int64_t s : layout.samples) {
      SPIRE_CHECK(inv[size_t(s)] > 0, ValueError, "port ", p, " (", to_string(layout.component), "): its gap sample ",
                  s, " lies inside a perfect electric conductor (inv_eps = 0)");
      const auto [it, fresh] = owner[ci].emplace(s, p);
      SPIRE_CHECK(fresh, ValueError, "ports ", it->second, " and ", p, " share the ", to_string(layout.component),
                  " sample ", s, ": each port needs a gap of its own");
      // The D-conductivity of a resistor J = sigma E in a medium of permittivity 1 / inv_eps.
      sigma[size_t(s)] += conductivity * inv[size_t(s)];
    }
  }
}

void add_port_sources(Simulation& sim, const std::vector<LumpedPort>& ports) {
  for (size_t p = 0; p < ports.size(); ++p) {
    const PortLayout layout = port_layout(ports[p], sim.lattice(), p);
    check_walls(layout, sim, detail::cat("port ", p));
    if (!ports[p].profile) continue;
    SourceSamples s;
    s.component = layout.component;
    s.index = layout.samples;
    // J = V_s / (R A): the short-circuit current V_s / R spread over the gap's cross-section.
    s.weight.assign(layout.samples.size(), ports[p].amplitude / (normalised_resistance(ports[p]) * layout.area));
    s.profile = ports[p].profile;
    sim.add_source(std::move(s));
  }
}

struct PortMonitor::Impl {
  Simulation* sim = nullptr;
  int callback = -1;
  PortLayout layout;
  double resistance = 0;  // ohms
  std::vector<double> omega;
  std::vector<std::complex<double>> v, i;  // the DFTs
  std::complex<double> v_now = 0, i_now = 0;

  void on_step(const Simulation& s) {
    const double dx_c = layout.length / double(layout.cells);
    std::complex<double> e_sum = 0;
    const FieldView e = s.field(layout.component);
    for (int64_t idx : layout.samples) e_sum += e.at(idx);
    v_now = -dx_c * e_sum / double(layout.columns);
    std::array<FieldView, 3> h;
    for (Component c : {Component::Hx, Component::Hy, Component::Hz})
      if (s.lattice().has(c)) h[size_t(int(c) - 3)] = s.field(c);
    i_now = 0;
    for (const PortLayout::LoopTerm& t : layout.loop) i_now += t.weight * h[size_t(int(t.component) - 3)].at(t.index);
    const double t_e = s.time(), t_h = s.time() - s.dt() / 2, dt = s.dt();
    for (size_t f = 0; f < omega.size(); ++f) {
      v[f] += v_now * std::polar(dt, omega[f] * t_e);
      i[f] += i_now * std::polar(dt, omega[f] * t_h);
    }
  }
};

PortMonitor::PortMonitor(Simulation& sim, const LumpedPort& port, std::vector<double> frequencies)
    : impl_(std::make_unique<Impl>()), frequencies_(std::move(frequencies)) {
  SPIRE_CHECK(!frequencies_.empty(), ValueError, "PortMonitor: no frequencies");
  for (double f : frequencies_)
    SPIRE_CHECK(std::isfinite(f) && f >= 0, ValueError, "PortMonitor: frequencies must be finite and >= 0, got ", f);
  SPIRE_CHECK(sim.steps() == 0, ValueError, "PortMonitor: attach before the first step (", sim.steps(),
              " steps taken)");
  impl_->layout = port_layout(port, sim.lattice());
  check_walls(impl_->layout, sim, "PortMonitor: the port");
  impl_->resistance = port.resistance;
  for (double f : frequencies_) impl_->omega.push_back(2 * std::numbers::pi * f);
  impl_->v.assign(frequencies_.size(), 0.0);
  impl_->i.assign(frequencies_.size(), 0.0);
  impl_->sim = &sim;
  Impl* impl = impl_.get();
  impl_->callback = sim.add_step_callback(1, [impl](Simulation& s) { impl->on_step(s); });
}

PortMonitor::~PortMonitor() {
  if (impl_ && impl_->sim) impl_->sim->remove_step_callback(impl_->callback);
}

const PortLayout& PortMonitor::layout() const { return impl_->layout; }
double PortMonitor::resistance() const { return impl_->resistance; }
std::vector<std::complex<double>> PortMonitor::voltage() const { return impl_->v; }
std::vector<std::complex<double>> PortMonitor::current() const { return impl_->i; }
std::complex<double> PortMonitor::instant_voltage() const { return impl_->v_now; }
std::complex<double> PortMonitor::instant_current() const { return impl_->i_now; }

std::vector<std::complex<double>> PortMonitor::impedance() const {
  std::vector<std::complex<double>> z(frequencies_.size());
  for (size_t f = 0; f < z.size(); ++f) z[f] = si::kVacuumImpedance * impl_->v[f] / impl_->i[f];
  return z;
}

namespace {

std::vector<std::complex<double>> power_wave(const std::vector<std::complex<double>>& v,
                                             const std::vector<std::complex<double>>& i, double z0_ohms, double sign) {
  const double z0 = z0_ohms / si::kVacuumImpedance;
  std::vector<std::complex<double>> out(v.size());
  for (size_t f = 0; f < v.size(); ++f) out[f] = (v[f] + sign * z0 * i[f]) / (2 * std::sqrt(z0));
  return out;
}

}  // namespace

std::vector<std::complex<double>> PortMonitor::incident_wave(double z0) const {
  return power_wave(impl_->v, impl_->i, z0 > 0 ? z0 : impl_->resistance, +1);
}

std::vector<std::complex<double>> PortMonitor::reflected_wave(double z0) const {
  return power_wave(impl_->v, impl_->i, z0 > 0 ? z0 : impl_->resistance, -1);
}

SimulationState PortMonitor::save_state() const {
  auto pack = [](const std::vector<std::complex<double>>& x) {
    std::vector<double> out;
    for (const std::complex<double>& z : x) out.insert(out.end(), {z.real(), z.imag()});
    return out;
  };
  return {{"port/V", pack(impl_->v)}, {"port/I", pack(impl_->i)}};
}

void PortMonitor::load_state(const SimulationState& state) {
  const int64_t n = 2 * int64_t(frequencies_.size());
  auto unpack = [&](const std::string& name, std::vector<std::complex<double>>& into) {
    const std::vector<double>& a = find_state(state, name, n).values;
    for (size_t f = 0; f < into.size(); ++f) into[f] = {a[2 * f], a[2 * f + 1]};
  };
  unpack("port/V", impl_->v);
  unpack("port/I", impl_->i);
}

}  // namespace spire::elec
