// The cuda platform's per-sample update bodies (science/elec/cuda/yee_kernels.cuh) run on the host
// over copies of the CPU engine's own arrays (fields, CPML psi and tables, update coefficients),
// against the CPU kernels (fdtd_update.h step_h / step_e) from the same random state: every field
// and psi value must have the same bits, in float64 and float32, on 1D, 2D TM/TE and 3D lattices
// with CPML (kappa > 1 and alpha, so every table term is live), pec, pmc and periodic walls, and
// materials that exercise each form of the update (uniform scale, per-sample scale, per-sample
// decay and scale). The bodies write every fused multiply-add out; the CPU build's are GCC's
// contractions (-O3 -march=x86-64-v3): equal bits show the two round alike. Also: the plans'
// curl terms, the wall planes, and the traffic model's byte counts against counts made by hand.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "science/elec/cpml.h"
#include "science/elec/cuda/traffic.h"
#include "science/elec/cuda/update_plan.h"
#include "science/elec/cuda/yee_kernels.cuh"
#include "science/elec/fdtd_update.h"
#include "tests/science/elec/cuda/host_backend.h"

namespace spire::elec::cuda {
namespace {

struct Case {
  std::string name;
  Dimensions dims;
  Vec3 size;
  Boundaries boundaries;
};

std::vector<Case> cases() {
  PmlProfile graded;
  graded.kappa_max = 3;
  graded.alpha_max = 0.2;
  Boundaries pml_all = Boundaries::pml_cells(3);
  pml_all.pml_profile = graded;
  Boundaries mixed;  // pec along x, periodic along y, pml along z (one side thicker)
  mixed.set_pec(0).set_periodic(1).set(2, Side::low, {BoundaryKind::pml, 0, 2}).set(2, Side::high,
                                                                                   {BoundaryKind::pml, 0, 3});
  mixed.pml_profile = graded;
  Boundaries pmc_pml;  // pmc along x, pml along y
  pmc_pml.set_pmc(0).set_pml_cells(1, 3);
  pmc_pml.pml_profile = graded;
  return {
      {"3d_pml", Dimensions::three, {1.1, 0.9, 1.3}, pml_all},
      {"3d_pec_periodic_pml", Dimensions::three, {0.8, 0.7, 1.0}, mixed},
      {"3d_periodic", Dimensions::three, {0.6, 0.5, 0.7}, Boundaries::periodic()},
      {"tm_pml", Dimensions::two_tm, {1.3, 1.1, 0}, pml_all},
      {"te_pmc_pml", Dimensions::two_te, {1.2, 1.4, 0}, pmc_pml},
      {"1d_pml", Dimensions::one, {0, 0, 2.3}, pml_all},
  };
}

// inv_eps / inv_mu random in [0.3, 1] on some components, conductivity on others: the CPU keeps a
// uniform scale (vacuum), a per-sample scale, or per-sample decay and scale.
MaterialArrays random_materials(const YeeLattice& lattice, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> inv(0.3, 1.0), sigma(0.0, 2.0);
  MaterialArrays m = MaterialArrays::vacuum(lattice);
  for (Component c : lattice.components()) {
    const int form = int(c) % 3;  // 0: vacuum, 1: varying inverse, 2: varying inverse and lossy
    if (form == 0) continue;
    for (double& v : m.inverse[size_t(int(c))]) v = inv(rng);
    if (form == 2) {
      m.conductivity[size_t(int(c))].resize(size_t(lattice.samples()));
      for (double& v : m.conductivity[size_t(int(c))]) v = sigma(rng);
    }
  }
  return m;
}

template <class T>
void fill_random(T* p, int64_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int64_t i = 0; i < n; ++i) p[i] = T(u(rng));
}

// The plan's pointers into the CPU engine's structures.
template <class T>
ArrayPointers<T> pointers(const YeeLattice& lattice, const ResolvedBoundaries& bc, Fields<T>& f, Cpml<T>& cpml,
                          const UpdateCoefficients<T>& co) {
  ArrayPointers<T> p;
  for (Component c : lattice.components()) {
    const size_t ci = size_t(int(c));
    p.field[ci] = f.data(c);
    p.decay[ci] = co.decay[ci].empty() ? nullptr : co.decay[ci].data();
    p.scale[ci] = co.scale[ci].empty() ? nullptr : co.scale[ci].data();
    p.scale_uniform[ci] = co.scale_uniform[ci];
    for (int a = 0; a < 3; ++a) {
      p.psi[ci][size_t(a)] = cpml.psi(c, a);
      EXPECT_EQ(p.psi[ci][size_t(a)] != nullptr, has_psi(lattice, bc, c, a)) << to_string(c) << " axis " << a;
    }
  }
  for (int a = 0; a < 3; ++a) {
    const CpmlAxis<T>& ax = cpml.axis(a);
    if (!ax.active()) continue;
    p.pml_low[size_t(a)] = ax.pml_low;
    p.pml_high[size_t(a)] = ax.pml_high;
    for (size_t k = 0; k < 2; ++k) {
      p.pml_b[size_t(a)][k] = ax.b[k].data();
      p.pml_c[size_t(a)][k] = ax.c[k].data();
      p.pml_kappa_term[size_t(a)][k] = ax.kappa_term[k].data();
    }
  }
  return p;
}

template <class T>
int64_t differing(const T* a, const T* b, int64_t n) {
  int64_t d = 0;
  for (int64_t i = 0; i < n; ++i) d += std::memcmp(&a[i], &b[i], sizeof(T)) != 0;
  return d;
}

template <class T>
void expect_same(const YeeLattice& lattice, const ResolvedBoundaries& bc, Fields<T>& cpu, Cpml<T>& cpu_pml,
                 Fields<T>& body, Cpml<T>& body_pml, const std::string& when) {
  for (Component c : lattice.components()) {
    EXPECT_EQ(differing(cpu.data(c), body.data(c), lattice.samples()), 0) << when << ": " << to_string(c);
    for (int a = 0; a < 3; ++a)
      if (has_psi(lattice, bc, c, a))
        EXPECT_EQ(differing(cpu_pml.psi(c, a), body_pml.psi(c, a), psi_length(lattice, bc, a)), 0)
            << when << ": psi of " << to_string(c) << " along " << "xyz"[a];
  }
}

template <class T>
void check_case(const Case& k) {
  SCOPED_TRACE(k.name + (sizeof(T) == 4 ? " float32" : " float64"));
  const YeeLattice lattice(k.dims, k.size, 10);
  const ResolvedBoundaries bc = resolve(k.boundaries, lattice);
  std::mt19937_64 rng(7);
  const MaterialArrays m = random_materials(lattice, rng);
  const double dt = 0.5 * lattice.dx();
  const UpdateCoefficients<T> co = make_update_coefficients<T>(m, lattice, dt, false);
  Fields<T> cpu(lattice, false, false);
  Cpml<T> cpu_pml(lattice, bc, k.boundaries.pml_profile, dt, false);
  for (Component c : lattice.components()) {
    fill_random(cpu.data(c), lattice.samples(), rng);
    for (int a = 0; a < 3; ++a)
      if (T* psi = cpu_pml.psi(c, a)) fill_random(psi, psi_length(lattice, bc, a), rng);
  }
  Fields<T> body = cpu;
  Cpml<T> body_pml = cpu_pml;
  const ArrayPointers<T> ptr = pointers(lattice, bc, body, body_pml, co);
  const StepPlan<T> h = make_step_plan(lattice, bc, ptr, true), e = make_step_plan(lattice, bc, ptr, false);
  testing::HostBackend<T> backend;
  for (int step = 0; step < 3; ++step) {
    step_h(cpu, cpu_pml, co, bc);
    backend.update(h, true);
    expect_same(lattice, bc, cpu, cpu_pml, body, body_pml, "H of step " + std::to_string(step));
    step_e(cpu, cpu_pml, co, bc);
    backend.update(e, false);
    expect_same(lattice, bc, cpu, cpu_pml, body, body_pml, "E of step " + std::to_string(step));
  }
}

TEST(ElecCudaKernelsHost, UpdateBodiesHaveTheCpuBitsFloat64) {
  for (const Case& k : cases()) check_case<double>(k);
}

TEST(ElecCudaKernelsHost, UpdateBodiesHaveTheCpuBitsFloat32) {
  for (const Case& k : cases()) check_case<float>(k);
}

// The plans resolve the terms as the CPU does: TM's Ez has two terms, Hx one (along y), 1D's Ex one.
TEST(ElecCudaKernelsHost, PlansHaveTheCurlTerms) {
  const YeeLattice tm(Dimensions::two_tm, {1, 1, 0}, 5);
  const ResolvedBoundaries bc = resolve(Boundaries(), tm);
  ArrayPointers<double> p;
  const StepPlan<double> h = make_step_plan(tm, bc, p, true), e = make_step_plan(tm, bc, p, false);
  ASSERT_EQ(h.components, 2);
  ASSERT_EQ(e.components, 1);
  EXPECT_EQ(e.component[0].terms, 2);
  EXPECT_EQ(h.component[0].terms, 1);
  EXPECT_EQ(h.component[0].term[0].l, 2);  // TM's y is the contiguous logical axis
  EXPECT_FALSE(h.component[0].term[0].negative);
  EXPECT_EQ(h.component[1].terms, 1);
  EXPECT_EQ(h.component[1].term[0].l, 1);
  EXPECT_TRUE(h.component[1].term[0].negative);
  const YeeLattice one(Dimensions::one, {0, 0, 2}, 5);
  const StepPlan<double> e1 = make_step_plan(one, resolve(Boundaries(), one), p, false);
  ASSERT_EQ(e1.components, 1);
  EXPECT_EQ(e1.component[0].terms, 1);
}

// wall_index walks the plane at index 0 along the axis, in storage order.
TEST(ElecCudaKernelsHost, WallIndexWalksThePlane) {
  const YeeLattice lattice(Dimensions::three, {0.4, 0.5, 0.6}, 10);
  const int64_t n[3] = {lattice.n(0), lattice.n(1), lattice.n(2)};
  for (int axis = 0; axis < 3; ++axis) {
    std::vector<int64_t> want;
    for (int64_t i = 0; i < n[0]; ++i)
      for (int64_t j = 0; j < n[1]; ++j)
        for (int64_t k = 0; k < n[2]; ++k)
          if ((axis == 0 ? i : axis == 1 ? j : k) == 0) want.push_back(lattice.index(i, j, k));
    ASSERT_EQ(int64_t(want.size()), lattice.samples() / n[axis]);
    for (size_t t = 0; t < want.size(); ++t) EXPECT_EQ(wall_index(n, axis, int64_t(t)), want[t]) << axis;
  }
}

// Bytes per cell-update, counted by hand: a vacuum 3D step reads and writes six fields and reads
// each once more in the other half step (18 words); a 3-cell pml on every side of a 20-cell cube
// adds twelve psi arrays of 6/20 of the samples, read and written (7.2 words); a lossy dielectric
// adds decay and scale for the three E components (6 words); 2D TM has three fields (9 words).
TEST(ElecCudaKernelsHost, TrafficCountsTheArrays) {
  const YeeLattice cube(Dimensions::three, {2.0, 2.0, 2.0}, 10);
  const MaterialArrays vacuum = MaterialArrays::vacuum(cube);
  const double dt = 0.05;
  EXPECT_DOUBLE_EQ(step_traffic(cube, resolve(Boundaries::periodic(), cube), vacuum, dt, Precision::float64)
                       .bytes_per_cell_update, 18 * 8);
  EXPECT_DOUBLE_EQ(step_traffic(cube, resolve(Boundaries::periodic(), cube), vacuum, dt, Precision::float32)
                       .bytes_per_cell_update, 18 * 4);
  EXPECT_NEAR(step_traffic(cube, resolve(Boundaries::pml_cells(3), cube), vacuum, dt, Precision::float64)
                  .bytes_per_cell_update, (18 + 7.2) * 8, 1e-9);
  MaterialArrays lossy = vacuum;
  for (Component c : {Component::Ex, Component::Ey, Component::Ez}) {
    lossy.inverse[size_t(int(c))][0] = 0.5;
    lossy.conductivity[size_t(int(c))].assign(size_t(cube.samples()), 0.1);
  }
  EXPECT_DOUBLE_EQ(step_traffic(cube, resolve(Boundaries::periodic(), cube), lossy, dt, Precision::float64)
                       .bytes_per_cell_update, (18 + 6) * 8);
  const YeeLattice tm(Dimensions::two_tm, {2.0, 3.0, 0}, 10);
  EXPECT_DOUBLE_EQ(step_traffic(tm, resolve(Boundaries(), tm), MaterialArrays::vacuum(tm), dt, Precision::float64)
                       .bytes_per_cell_update, 9 * 8);
}

}  // namespace
}  // namespace spire::elec::cuda
