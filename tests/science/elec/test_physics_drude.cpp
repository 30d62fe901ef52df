// End to end: the reflectance of a Drude slab in 1D (a Problem whose geometry holds a dispersive
// medium, so build() installs the polarisation hook) by the two-run flux normalisation, against the
// transfer-matrix reflectance of the same slab (analytic.h) over a band through the plasma frequency:
// metallic below it (R near 1), transparent with Fabry-Perot fringes above. Two references:
//   - with the continuum permittivity eps(f) = 1 - f_p^2 / (f^2 + i f gamma): the Yee lattice's own
//     error, second order in dx and dt;
//   - with the permittivity the time-stepping scheme presents, 1 + discrete_susceptibility(f)
//     (dispersion.h): removes the time-discretisation part of that error.
// Measured at 80 cells per a, f = 0.5..1.5: worst |R - R_tm| 3.1e-4 against the continuum and
// 5.1e-4 against the scheme's permittivity (the spatial error of the two interfaces dominates;
// the two references differ by less than the lattice's error). Tolerance 2e-3 absolute.
// Also: an unstable Drude medium is refused at build() with a message naming the medium and the bound.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "engine/core/error.h"
#include "science/elec/analytic.h"
#include "tests/science/elec/support_reflection.h"

namespace spire::elec {
namespace {

using testing::reflectance;
using testing::ReflectionSetup;

TEST(PhysicsDrude, SlabReflectanceMatchesTheTransferMatrix) {
  const Susceptibility drude = Susceptibility::drude(1.0, 0.05, 1.0);  // f_p = 1, gamma = 0.05
  const Medium metal = Medium::vacuum().with_susceptibility(drude);
  const double thickness = 0.5;
  Block slab;
  slab.center = {0, 0, thickness / 2};
  slab.size = {kInfinity, kInfinity, thickness};
  ReflectionSetup s;  // 1D
  s.resolution = 80;
  s.fcen = 1.0;
  s.df = 1.2;
  s.nfreq = 25;
  s.run_after = 80;  // the slab's resonances above f_p ring for a while
  std::vector<double> f;
  const auto R = reflectance(s, {{slab, metal}}, &f);
  const double dt = 0.5 / s.resolution;
  double worst_continuum = 0, worst_discrete = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] < 0.5 || f[i] > 1.5) continue;
    LayeredMedium stack;
    stack.layers.push_back({metal.epsilon(f[i])[0], 1.0, thickness});
    const double continuum = transfer_matrix(stack, 2 * std::numbers::pi * f[i], 0, Polarization::s).R;
    stack.layers[0].epsilon = 1.0 + discrete_susceptibility(drude, f[i], dt);
    const double discrete = transfer_matrix(stack, 2 * std::numbers::pi * f[i], 0, Polarization::s).R;
    worst_continuum = std::max(worst_continuum, std::abs(R[i] - continuum));
    worst_discrete = std::max(worst_discrete, std::abs(R[i] - discrete));
  }
  EXPECT_LT(worst_continuum, 2e-3);
  EXPECT_LT(worst_discrete, 2e-3);
}

TEST(PhysicsDrude, UnstableMediumIsRefusedNamingItAndTheBound) {
  Problem p;
  p.dimensions = Dimensions::one;
  p.cell_size = {0, 0, 2};
  p.resolution = 10;
  // f_p = 30 c/a with dt = 0.05: omega_p dt = 9.4, far beyond the bound.
  Block b;
  b.size = {kInfinity, kInfinity, 0.5};
  p.geometry.add(b, Medium::vacuum().with_susceptibility(Susceptibility::drude(30, 0.1, 1)));
  try {
    build(p);
    FAIL() << "an unstable Drude medium was accepted";
  } catch (const ValueError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("DrudeSusceptibility"), std::string::npos) << what;
    EXPECT_NE(what.find("medium 1"), std::string::npos) << what;
    EXPECT_NE(what.find("at least"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace spire::elec
