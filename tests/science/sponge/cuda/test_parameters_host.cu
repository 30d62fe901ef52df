// The host side of the cuda platform's forces (force_parameters.h) and the PME spline body: which
// terms it takes and refuses, energy slots in the CPU terms' order, the PME mesh the CPU term
// would choose, and B-spline weights and moduli against the explicit formula of the cardinal
// B-spline.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "science/sponge/ewald.h"
#include "science/sponge/pme.h"
#include "tests/science/sponge/cuda/support_force_systems.h"
#include "tests/science/sponge/cuda/support_host_forces.h"

namespace spire::sponge::cuda {
namespace {

// M_n(x) = 1/(n-1)! sum_k (-1)^k C(n, k) (x - k)_+^(n-1): the cardinal B-spline of order n, on
// the half of its support where the sum has fewer terms (M_n(x) = M_n(n - x)), which keeps the
// cancellation between them small.
double cardinal_bspline(int n, double x) {
  if (x > 0.5 * n) x = n - x;
  double sum = 0, binomial = 1, factorial = 1;
  for (int k = 1; k < n; ++k) factorial *= k;
  for (int k = 0; k <= n; ++k) {
    if (x > k) sum += (k % 2 ? -1 : 1) * binomial * std::pow(x - k, n - 1);
    binomial = binomial * (n - k) / (k + 1);
  }
  return sum / factorial;
}

void expect_config_error(const System& system, const ForceField& ff, const std::string& needle) {
  try {
    force_parameters(system, ff);
    ADD_FAILURE() << "accepted a force field with no CUDA kernel";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(needle), std::string::npos) << what;
    EXPECT_NE(what.find("PmeCoulomb or ReactionFieldCoulomb"), std::string::npos) << what;  // what there is
  }
}

struct Custom final : Force {
  std::string name() const override { return "custom"; }
  void add(const System&, const State&, const NeighborList*, ForceResult&) override {}
};

TEST(CudaSpongeHostParameters, TermsWithoutAKernelAreRefused) {
  const testing::Charges c = testing::random_charges(20, testing::Cell::orthorhombic, 0.0, 1);
  ForceField ewald;
  ewald.add(std::make_shared<HarmonicBonds>());
  ewald.add(std::make_shared<EwaldCoulomb>());
  expect_config_error(c.system, ewald, "force term 'coulomb' has no CUDA kernel");
  ForceField custom;
  custom.add(std::make_shared<Custom>());
  expect_config_error(c.system, custom, "force term 'custom' has no CUDA kernel");
}

TEST(CudaSpongeHostParameters, EnergySlotsFollowTheCpuTermsOrder) {
  const testing::Charges c = testing::random_charges(50, testing::Cell::orthorhombic, 0.0, 2);
  ForceField ff(0.1);
  ff.add(std::make_shared<HarmonicBonds>());
  auto lj = std::make_shared<LennardJones>(0.8);
  lj->set_type("X", 0.1, 0.1);
  ff.add(lj);
  ff.add(std::make_shared<PmeCoulomb>(PmeOptions{.cutoff = 0.8}));
  const ForceParameters p = force_parameters(c.system, ff);
  EXPECT_EQ(p.names, (std::vector<std::string>{"bonds", "lj", "coulomb"}));
  EXPECT_EQ(p.bonds_slot, 0);
  EXPECT_EQ(p.lj_slot, 1);
  EXPECT_EQ(p.coulomb_slot, 2);
  EXPECT_EQ(p.virial_slot, 3);
  EXPECT_EQ(p.slots(), 9);
  EXPECT_EQ(p.list_cutoff, 0.8);
  EXPECT_EQ(p.skin, 0.1);
  EXPECT_EQ(p.pairs14.size(), c.system.topology.pairs14.size());
  EXPECT_EQ(p.exclusions.size(), c.system.topology.exclusions.size());
  const ForceResult cpu = ff.compute(c.system, c.state);
  ForceResult out;
  const std::vector<long long> zero(size_t(p.slots()), 0);
  collect(p, zero.data(), c.state.box, out);
  ASSERT_EQ(out.energies.size(), cpu.energies.size());
  for (size_t t = 0; t < out.energies.size(); ++t) EXPECT_EQ(out.energies[t].first, cpu.energies[t].first);
}

TEST(CudaSpongeHostParameters, PmeMeshIsTheCpuTermsChoice) {
  const testing::Charges c = testing::random_charges(30, testing::Cell::triclinic, 0.0, 3);
  for (double tolerance : {5e-4, 1e-5}) {
    ForceField ff;
    auto pme = std::make_shared<PmeCoulomb>(PmeOptions{.cutoff = 0.8, .tolerance = tolerance, .order = 6});
    ff.add(pme);
    const ForceParameters p = force_parameters(c.system, ff);  // before the CPU term has chosen
    const std::array<int, 3> mesh = pme_mesh(p, c.state.box);
    ff.compute(c.system, c.state);
    EXPECT_EQ(mesh, pme->grid()) << "tolerance " << tolerance;
  }
  ForceField fixed;
  fixed.add(std::make_shared<PmeCoulomb>(PmeOptions{.cutoff = 0.8, .grid = {20, 18, 25}}));
  EXPECT_EQ(pme_mesh(force_parameters(c.system, fixed), c.state.box), (std::array<int, 3>{20, 18, 25}));
}

TEST(CudaSpongeHostParameters, BsplineWeightsAreTheCardinalSpline) {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> u(0, 1);
  for (int n = 3; n <= kPmeMaxOrder; ++n)
    for (int trial = 0; trial < 5; ++trial) {
      const double w = trial == 0 ? 0.0 : u(rng);
      double theta[kPmeMaxOrder], dtheta[kPmeMaxOrder];
      pme_bspline(n, w, theta, dtheta);
      for (int j = 0; j < n; ++j) {
        // theta_j = M_n(w + n - 1 - j), dtheta_j its derivative M_{n-1}(x) - M_{n-1}(x - 1).
        const double x = w + n - 1 - j;
        EXPECT_NEAR(theta[j], cardinal_bspline(n, x), 1e-13) << "order " << n << " w " << w << " j " << j;
        EXPECT_NEAR(dtheta[j], cardinal_bspline(n - 1, x) - cardinal_bspline(n - 1, x - 1), 1e-13)
            << "order " << n << " w " << w << " j " << j;
      }
    }
}

TEST(CudaSpongeHostParameters, BsplineModuliAreTheSplinesSpectrum) {
  for (int order : {4, 5}) {
    const std::array<int, 3> mesh{16, 15, 20};
    const std::vector<double> moduli = pme_moduli(order, mesh);
    ASSERT_EQ(moduli.size(), size_t(16 + 15 + 20));
    size_t at = 0;
    for (int k : mesh) {
      for (int m = 0; m < k; ++m, ++at) {
        // |sum_j M_n(j + 1) exp(2 pi i m j / K)|^2 (Essmann's eq. 4.4)
        double re = 0, im = 0;
        for (int j = 0; j < k; ++j) {
          const double v = cardinal_bspline(order, j + 1.0);
          re += v * std::cos(2 * M_PI * m * j / k);
          im += v * std::sin(2 * M_PI * m * j / k);
        }
        const double exact = re * re + im * im;
        if (exact > 1e-7) {
          EXPECT_NEAR(moduli[at], exact, 1e-12) << "order " << order << " K " << k << " m " << m;
        } else {  // odd orders vanish at the Nyquist frequency: the neighbours' mean stands in
          EXPECT_TRUE(order % 2 == 1 && 2 * m == k) << "order " << order << " K " << k << " m " << m;
          EXPECT_NEAR(moduli[at], 0.5 * (moduli[at - 1] + moduli[at + 1]), 1e-15);
        }
      }
    }
  }
}

}  // namespace
}  // namespace spire::sponge::cuda
