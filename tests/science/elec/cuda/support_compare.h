// Whole runs on a platform against the same runs on "cpu", for the cuda platform's tests: the host
// tests run them on "cuda_host" (the cuda engine over host_backend.h), the GPU tests on "cuda".
// The problems carry everything the platform runs: CPML with kappa and alpha, pec / pmc / periodic
// walls, a dielectric and a conductor (so the updates use uniform, per-sample and lossy
// coefficients), electric and magnetic point dipoles off the lattice, a current sheet with a
// complex amplitude, two samples of one source on the same field sample, and stateful distributed
// currents (electric and magnetic) whose values depend on how often they are asked.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "science/elec/simulation.h"

namespace spire::elec::testing {

// Currents that change with every call: a platform that asked a different number of times, or in
// another order, would drive different fields.
class CountingCurrents : public DistributedCurrent {
 public:
  explicit CountingCurrents(size_t samples) : n_(samples) {}
  void currents(double t_mid, double dt, std::complex<double>* out) override {
    ++calls_;
    for (size_t i = 0; i < n_; ++i)
      out[i] = std::complex<double>(std::sin(7 * t_mid + 0.3 * double(i)), 0.2 * std::cos(5 * t_mid)) *
               (1 + 1e-3 * double(calls_)) * dt;
  }
  double start_time() const override { return 0; }
  double end_time() const override { return 1e9; }
  std::vector<double> save_state() const override { return {double(calls_)}; }
  void load_state(const std::vector<double>& s) override { calls_ = int64_t(s.at(0)); }

 private:
  size_t n_;
  int64_t calls_ = 0;
};

struct Scenario {
  std::string name;
  Dimensions dims;
  Vec3 size;
  Boundaries boundaries;
};

inline std::vector<Scenario> scenarios() {
  Boundaries pml = Boundaries::pml_cells(3);
  pml.pml_profile.kappa_max = 2;
  pml.pml_profile.alpha_max = 0.1;
  Boundaries mixed;  // pec along x, periodic along y, pml along z
  mixed.set_pec(0).set_periodic(1).set_pml_cells(2, 3);
  Boundaries te;  // pmc along x, pml along y
  te.set_pmc(0).set_pml_cells(1, 4);
  return {{"3d_pml", Dimensions::three, {1.2, 1.0, 1.4}, pml},
          {"3d_pec_periodic_pml", Dimensions::three, {1.0, 0.8, 1.2}, mixed},
          {"tm_pec", Dimensions::two_tm, {2.1, 1.7, 0}, Boundaries()},
          {"te_pmc_pml", Dimensions::two_te, {1.9, 2.2, 0}, te},
          {"1d_pml", Dimensions::one, {0, 0, 4.0}, pml}};
}

// Vacuum with a dielectric box (eps 2.25) and a conductor (sigma 0.7) in the cell's upper half.
inline MaterialArrays scenario_materials(const YeeLattice& lattice) {
  MaterialArrays m = MaterialArrays::vacuum(lattice);
  for (Component c : lattice.components()) {
    const size_t ci = size_t(int(c));
    if (is_electric(c)) m.conductivity[ci].assign(size_t(lattice.samples()), 0.0);
    for (int64_t i = 0; i < lattice.n(0); ++i)
      for (int64_t j = 0; j < lattice.n(1); ++j)
        for (int64_t k = 0; k < lattice.n(2); ++k) {
          const Vec3 r = lattice.position(c, i, j, k);
          const size_t idx = size_t(lattice.index(i, j, k));
          const bool box = std::abs(r.x + 0.2) < 0.3 && std::abs(r.y) < 0.35 && std::abs(r.z - 0.1) < 0.3;
          if (is_electric(c) && box) m.inverse[ci][idx] = 1 / 2.25;
          if (is_electric(c) && r.x + r.y + r.z > 0.5) m.conductivity[ci][idx] = 0.7;
        }
  }
  return m;
}

// The first carried electric and magnetic components.
inline Component first_of(const YeeLattice& lattice, bool electric) {
  for (Component c : lattice.components())
    if (is_electric(c) == electric) return c;
  return Component::Ez;
}

inline Simulation scenario_run(const Scenario& s, Precision precision, const std::string& platform) {
  const YeeLattice lattice(s.dims, s.size, 10);
  Simulation sim(lattice, scenario_materials(lattice), s.boundaries, 0.5, precision, platform);
  const Component e = first_of(lattice, true), h = first_of(lattice, false);
  auto pulse = std::make_shared<GaussianSource>(1.2, 0.8);
  const Vec3 p{lattice.has_axis(0) ? 0.13 : 0, lattice.has_axis(1) ? -0.07 : 0, lattice.has_axis(2) ? 0.21 : 0};
  sim.add_source(point_dipole(e, p, pulse));
  sim.add_source(point_dipole(h, {-p.x, p.y, -p.z}, std::make_shared<GaussianSource>(0.9, 0.6), 0.7));
  // A sheet across the first axis the problem has, with a complex amplitude (complex weights).
  Vec3 size{0, 0, 0};
  for (int a = 0; a < 3; ++a)
    if (lattice.has_axis(a) && a != (lattice.has_axis(0) ? 0 : 2)) size[a] = 0.4;
  sim.add_source(current_sheet(e, {0.05, 0.02, -0.15 * double(lattice.has_axis(2))}, size, pulse, {0.6, -0.8}));
  // Two samples of one source on one field sample (added in order), and a stateful source on each kind.
  SourceSamples twice;
  twice.component = e;
  const int64_t mid = lattice.samples() / 2 + 1;
  twice.index = {mid, mid + 1, mid};
  twice.weight = {1.0, {0.5, 0.25}, -2.0};
  twice.profile = pulse;
  sim.add_source(twice);
  for (Component c : {e, h}) {
    SourceSamples d;
    d.component = c;
    for (int64_t i = 0; i < 5; ++i) {
      d.index.push_back(lattice.samples() / 3 + (lattice.samples() / 20 + 1) * i);
      d.weight.push_back({1.0 + 0.1 * double(i), 0.05});
    }
    d.distributed = std::make_shared<CountingCurrents>(d.index.size());
    sim.add_source(d);
  }
  return sim;
}

template <class T>
int64_t differing_samples(const FieldView& a, const FieldView& b, int64_t n) {
  const T* x = a.real_data<T>();
  const T* y = b.real_data<T>();
  int64_t d = 0;
  for (int64_t i = 0; i < n; ++i) d += std::memcmp(&x[i], &y[i], sizeof(T)) != 0;
  return d;
}

// Samples whose bits differ, over every component.
inline int64_t differing(const Simulation& a, const Simulation& b) {
  int64_t d = 0;
  for (Component c : a.lattice().components())
    d += a.precision() == Precision::float32
             ? differing_samples<float>(a.field(c), b.field(c), a.lattice().samples())
             : differing_samples<double>(a.field(c), b.field(c), a.lattice().samples());
  return d;
}

// The largest |a - b| over every component, relative to the largest |a|.
inline double relative_gap(const Simulation& a, const Simulation& b) {
  double gap = 0, scale = 0;
  for (Component c : a.lattice().components()) {
    const FieldView x = a.field(c), y = b.field(c);
    for (int64_t i = 0; i < a.lattice().samples(); ++i) {
      gap = std::max(gap, std::abs(x.real(i) - y.real(i)));
      scale = std::max(scale, std::abs(x.real(i)));
    }
  }
  return scale > 0 ? gap / scale : gap;
}

// Two states with the same arrays, names and bits (distributed sources' states included).
inline void expect_same_state(const SimulationState& a, const SimulationState& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    ASSERT_EQ(a[i].values.size(), b[i].values.size()) << a[i].name;
    EXPECT_EQ(std::memcmp(a[i].values.data(), b[i].values.data(), a[i].values.size() * sizeof(double)), 0)
        << a[i].name;
  }
}

// `platform` against cpu on every scenario: fields after every few steps, energies (whose trial
// half step must leave the run as it was), the state, and a checkpoint taken on one platform and
// continued on the other.
inline void expect_platform_matches_cpu(const std::string& platform, Precision precision) {
  for (const Scenario& s : scenarios()) {
    SCOPED_TRACE(s.name + " " + to_string(precision) + " on " + platform);
    Simulation cpu = scenario_run(s, precision, "cpu");
    Simulation other = scenario_run(s, precision, platform);
    EXPECT_EQ(other.platform(), platform);
    for (int round = 0; round < 4; ++round) {
      cpu.run_steps(9);
      other.run_steps(9);
      EXPECT_EQ(differing(cpu, other), 0) << "after " << cpu.steps() << " steps";
      EXPECT_EQ(cpu.electric_energy(), other.electric_energy());
      EXPECT_EQ(cpu.magnetic_energy(), other.magnetic_energy());
    }
    // A step without an energy in between: the energy's trial half step leaves a magnetic
    // distributed source's currents cached for the coming step, which a resumed run would ask again.
    cpu.step();
    other.step();
    expect_same_state(cpu.save_state(), other.save_state());
    // Checkpoints cross platforms: cpu -> platform and platform -> cpu, then 20 more steps.
    Simulation from_cpu = scenario_run(s, precision, platform);
    from_cpu.load_state(cpu.save_state());
    Simulation to_cpu = scenario_run(s, precision, "cpu");
    to_cpu.load_state(other.save_state());
    cpu.run_steps(20);
    from_cpu.run_steps(20);
    to_cpu.run_steps(20);
    EXPECT_EQ(differing(cpu, from_cpu), 0);
    EXPECT_EQ(differing(cpu, to_cpu), 0);
    // set_field: a smooth pattern, walls held at zero.
    for (Component c : cpu.lattice().components()) {
      auto f = [&](const Vec3& r) { return std::complex<double>(std::sin(3 * r.x + 2 * r.y - r.z + int(c)), 1.0); };
      cpu.set_field(c, f);
      from_cpu.set_field(c, f);
    }
    EXPECT_EQ(differing(cpu, from_cpu), 0);
    cpu.run_steps(5);
    from_cpu.run_steps(5);
    EXPECT_EQ(differing(cpu, from_cpu), 0);
  }
}

}  // namespace spire::elec::testing
