// LAMMPS's classic benchmark bench/in.lj at step 0: 32 000 atoms on an fcc lattice at reduced
// density 0.8442 (20 x 20 x 20 cells), lj/cut with rc = 2.5 (epsilon = sigma = 1), velocities at
// T = 1.44. LAMMPS prints (bench/log.*.lj.*, and Debian's lmp 29 Sep 2021 run on the same input)
//   Step Temp E_pair E_mol TotEng Press
//      0 1.44 -6.7733681 0 -4.6134356 -5.0197073
// E_pair is the potential energy per atom; Press = (2 K + tr W) / (3 V) with 2 K = N_dof k_B T,
// N_dof = 3N - 3 (LAMMPS's temperature removes the centre of mass). Both must agree to the last
// printed digit (8 significant digits).
// tests/validate/sponge_lammps.cpp runs lmp side by side at full precision.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "science/sponge/force_field.h"
#include "science/sponge/lattice.h"
#include "science/sponge/lennard_jones.h"

namespace spire::sponge {
namespace {

TEST(InLj, InitialEnergyAndPressureMatchLammps) {
  // lattice fcc 0.8442; region box block 0 20 0 20 0 20; create_box 1 box; create_atoms 1 box
  const State state = create_lattice(Lattice::with_density(LatticeType::fcc, 0.8442), 20, 20, 20);
  const System system = identical_particles(int64_t(state.positions.size()), 1.0, "1", Units::lj());
  ASSERT_EQ(system.size(), 32000);
  // pair_style lj/cut 2.5; pair_coeff 1 1 1.0 1.0 2.5; neighbor 0.3 bin
  auto lj = std::make_shared<LennardJones>(2.5, LJCutoffMode::cut);
  lj->set_type("1", 1.0, 1.0);
  ForceField forces(0.3);
  forces.add(lj);
  forces.check(system, state);
  const ForceResult& r = forces.compute(system, state);

  const double n = double(system.size()), volume = state.box.volume();
  const double e_pair = r.energy_of("lj") / n;
  const double temperature = 1.44;
  const double two_k = double(system.degrees_of_freedom(true)) * temperature;  // k_B = 1
  const double pressure = (two_k + r.virial.trace()) / (3 * volume);
  EXPECT_EQ(system.degrees_of_freedom(true), 3 * 32000 - 3);
  EXPECT_NEAR(e_pair, -6.7733681, 0.5e-7);
  EXPECT_NEAR(pressure, -5.0197073, 0.5e-7);
  // A perfect lattice: every atom's forces cancel, and the virial is isotropic.
  double fmax = 0;
  for (const Vec3& f : r.forces) fmax = std::max(fmax, norm(f));
  EXPECT_LT(fmax, 1e-11);
  EXPECT_NEAR(r.virial(0, 0), r.virial(1, 1), 1e-9 * std::fabs(r.virial(0, 0)));
  EXPECT_NEAR(r.virial(0, 1), 0, 1e-9 * std::fabs(r.virial(0, 0)));
  // The perfect lattice (a = 1.6796) has 78 neighbours per atom within 2.8, in shells of
  // 12, 6, 24, 12, 24 at a/sqrt 2, a, a sqrt(3/2), a sqrt 2, a sqrt(5/2); half of them listed.
  EXPECT_EQ(forces.neighbors()->pairs(), 32000 * 78 / 2);
}

}  // namespace
}  // namespace spire::sponge
