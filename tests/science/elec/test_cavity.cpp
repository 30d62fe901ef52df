// PEC cavity modes against the exact discrete Yee dispersion relation
//   sin(w dt / 2) / dt = sqrt(sum_a sin^2(k_a dx / 2)) / dx        (c = 1)
// (support_cavity.h), in 1D, 2D TM, 2D TE and 3D, float64 and float32; and the frequency the
// simulation produces approaching the continuum mode |k| from below at second order in dx.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "science/elec/simulation.h"
#include "tests/science/elec/support_cavity.h"

namespace spire::elec {
namespace {

using testing::cavity_amplitude;
using testing::cavity_mode;
using testing::cavity_pattern;
using testing::CavityMode;
using testing::set_cavity_mode;

struct CavityCase {
  Dimensions dims;
  Vec3 size;
  double resolution;
  std::array<int, 3> m;
};

// Largest deviation of every E sample from e cos(w t) pattern over `steps` steps, checked every
// `every` steps, relative to the unit amplitude.
double cavity_error(const CavityCase& cc, Precision precision, int steps, int every) {
  Simulation sim(YeeLattice(cc.dims, cc.size, cc.resolution), MaterialArrays::vacuum(YeeLattice(cc.dims, cc.size, cc.resolution)),
                 Boundaries(), 0.5, precision);
  const CavityMode mode = cavity_mode(sim, cc.m);
  set_cavity_mode(sim, mode);
  const YeeLattice& L = sim.lattice();
  double worst = 0;
  for (int s = 0; s <= steps; s += every) {
    if (s > 0) sim.run_steps(every);
    const double phase = std::cos(mode.omega * sim.time());
    for (Component c : L.components()) {
      if (!is_electric(c)) continue;
      const FieldView v = sim.field(c);
      const double amp = cavity_amplitude(mode, c);
      for (int64_t i = 0; i < L.n(0); ++i)
        for (int64_t j = 0; j < L.n(1); ++j)
          for (int64_t k = 0; k < L.n(2); ++k) {
            const double want = amp * phase * cavity_pattern(mode, c, L.position(c, i, j, k));
            worst = std::max(worst, std::abs(v.real(L.index(i, j, k)) - want));
          }
    }
  }
  return worst;
}

// cavity_error, printed for the record.
double reported_error(const CavityCase& cc, Precision precision, int steps, int every) {
  const double e = cavity_error(cc, precision, steps, every);
  std::printf("%s cavity, %s, %d steps: largest deviation %.2e\n", to_string(cc.dims).c_str(),
              to_string(precision).c_str(), steps, e);
  return e;
}

const CavityCase kOne{Dimensions::one, {0, 0, 1.3}, 20, {0, 0, 3}};
const CavityCase kTm{Dimensions::two_tm, {1.0, 0.7, 0}, 20, {2, 1, 0}};
const CavityCase kTe{Dimensions::two_te, {0.9, 1.1, 0}, 20, {1, 2, 0}};
const CavityCase kThree{Dimensions::three, {0.8, 0.6, 0.7}, 10, {1, 2, 1}};

TEST(SimulationCavity, OneDimensionalModeFollowsDiscreteDispersionExactly) {
  EXPECT_LT(reported_error(kOne, Precision::float64, 600, 50), 1e-10);
  EXPECT_LT(reported_error(kOne, Precision::float32, 600, 50), 1e-5);
}

TEST(SimulationCavity, TwoDimensionalTmModeFollowsDiscreteDispersionExactly) {
  EXPECT_LT(reported_error(kTm, Precision::float64, 400, 50), 1e-10);
  EXPECT_LT(reported_error(kTm, Precision::float32, 400, 50), 1e-5);
}

TEST(SimulationCavity, TwoDimensionalTeModeFollowsDiscreteDispersionExactly) {
  EXPECT_LT(reported_error(kTe, Precision::float64, 400, 50), 1e-10);
  EXPECT_LT(reported_error(kTe, Precision::float32, 400, 50), 1e-5);
}

TEST(SimulationCavity, ThreeDimensionalModeFollowsDiscreteDispersionExactly) {
  EXPECT_LT(reported_error(kThree, Precision::float64, 300, 50), 1e-10);
  EXPECT_LT(reported_error(kThree, Precision::float32, 300, 50), 1e-5);
}

// The angular frequency of a single-mode series s_n = A cos(w n dt + phi), from the exact
// three-term recurrence s_{n+1} + s_{n-1} = 2 cos(w dt) s_n (least squares over the series).
double recurrence_frequency(const std::vector<double>& s, double dt) {
  double num = 0, den = 0;
  for (size_t n = 1; n + 1 < s.size(); ++n) {
    num += s[n] * (s[n + 1] + s[n - 1]);
    den += 2 * s[n] * s[n];
  }
  return std::acos(num / den) / dt;
}

// The mode's frequency as the simulation produces it, started from E alone (H = 0: no use of the
// discrete relation), at a sample away from the nodes.
double simulated_frequency(Dimensions dims, Vec3 size, double resolution, std::array<int, 3> m) {
  YeeLattice lattice(dims, size, resolution);
  Simulation sim(lattice, MaterialArrays::vacuum(lattice));
  const CavityMode mode = cavity_mode(sim, m);
  set_cavity_mode(sim, mode, false);
  const Component probe = dims == Dimensions::two_tm ? Component::Ez : Component::Ex;
  const int64_t idx = lattice.index(lattice.n(0) / 3, lattice.n(1) / 3, lattice.n(2) / 3);
  std::vector<double> series;
  for (int s = 0; s < 200; ++s) {
    series.push_back(sim.field(probe).real(idx));
    sim.step();
  }
  return recurrence_frequency(series, sim.dt());
}

TEST(SimulationCavity, FrequencyConvergesFromBelowAtSecondOrder) {
  struct Case {
    Dimensions dims;
    Vec3 size;
    std::array<int, 3> m;
    double resolution;
  };
  // Sizes that are whole numbers of cells at every resolution, so the cavity is the same one.
  const Case cases[] = {{Dimensions::two_tm, {1.0, 0.75, 0}, {1, 1, 0}, 8},
                        {Dimensions::three, {1.0, 5.0 / 6, 2.0 / 3}, {1, 1, 1}, 6}};
  for (const Case& c : cases) {
    double err[3];
    double continuum = 0;
    for (int r = 0; r < 3; ++r) {
      const double res = c.resolution * (1 << r);
      YeeLattice lattice(c.dims, c.size, res);
      Simulation probe(lattice, MaterialArrays::vacuum(lattice));
      continuum = cavity_mode(probe, c.m).continuum;
      const double w = simulated_frequency(c.dims, c.size, res, c.m);
      // Against the discrete relation too: the recurrence recovers it to rounding.
      EXPECT_NEAR(w, cavity_mode(probe, c.m).omega, 1e-9 * continuum);
      err[r] = continuum - w;
      EXPECT_GT(err[r], 0) << "from below at resolution " << res;
    }
    const double order1 = std::log2(err[0] / err[1]), order2 = std::log2(err[1] / err[2]);
    std::printf("%s cavity mode: relative frequency error %.3e, %.3e, %.3e; observed orders %.3f, %.3f\n",
                to_string(c.dims).c_str(), err[0] / continuum, err[1] / continuum, err[2] / continuum, order1, order2);
    EXPECT_NEAR(order1, 2.0, 0.1) << to_string(c.dims);
    EXPECT_NEAR(order2, 2.0, 0.1) << to_string(c.dims);
  }
}

TEST(SimulationCavity, PmcCavityHasTheDualModesExactly) {
  // By duality a pmc cavity's modes are the pec cavity's with E and H exchanged; the pmc walls lie
  // on the tangential-H planes, half a cell above the nominal edges (boundary.h), so the mode is
  // H = sin(k u) with u measured from -L/2 + dx/2. Started from H alone, the field stays that one
  // discrete mode: its shape is kept and its frequency is the discrete relation's.
  struct Case {
    Dimensions dims;
    Vec3 size;
    std::array<int, 3> m;
    Component h;
  };
  const Case cases[] = {{Dimensions::two_te, {1.0, 0.8, 0}, {2, 1, 0}, Component::Hz},
                        {Dimensions::one, {0, 0, 1.2}, {0, 0, 3}, Component::Hy}};
  for (const Case& c : cases) {
    YeeLattice lattice(c.dims, c.size, 20);
    Boundaries b;
    for (int a = 0; a < 3; ++a) b.set_pmc(a);
    Simulation sim(lattice, MaterialArrays::vacuum(lattice), b);
    const CavityMode mode = cavity_mode(sim, c.m);  // k and the discrete frequency
    auto pattern = [&](const Vec3& r) {
      double f = 1;
      for (int a = 0; a < 3; ++a)
        if (lattice.has_axis(a)) f *= std::sin(mode.k[size_t(a)] * (r[a] + 0.5 * lattice.size()[a] - 0.5 * lattice.dx()));
      return f;
    };
    sim.set_field(c.h, [&](const Vec3& r) { return std::complex<double>(pattern(r)); });
    const int64_t probe = lattice.index(lattice.n(0) / 3, lattice.n(1) / 3, lattice.n(2) / 3 + 1);  // off the nodes
    const double p0 = pattern(lattice.position(c.h, probe / (lattice.n(1) * lattice.n(2)),
                                               (probe / lattice.n(2)) % lattice.n(1), probe % lattice.n(2)));
    std::vector<double> series;
    double shape_error = 0;
    for (int s = 0; s < 300; ++s) {
      const FieldView v = sim.field(c.h);
      series.push_back(v.real(probe));
      const double amp = v.real(probe) / p0;
      for (int64_t i = 0; i < lattice.n(0); ++i)
        for (int64_t j = 0; j < lattice.n(1); ++j)
          for (int64_t k = 0; k < lattice.n(2); ++k)
            shape_error = std::max(shape_error, std::abs(v.real(lattice.index(i, j, k)) -
                                                         amp * pattern(lattice.position(c.h, i, j, k))));
      sim.step();
    }
    EXPECT_LT(shape_error, 1e-10) << to_string(c.dims);
    EXPECT_NEAR(recurrence_frequency(series, sim.dt()), mode.omega, 1e-9 * mode.omega) << to_string(c.dims);
  }
}

}  // namespace
}  // namespace spire::elec
