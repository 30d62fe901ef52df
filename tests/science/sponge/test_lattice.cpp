// Lattices: LAMMPS's in.lj lattice spacing and atom count (from LAMMPS's published log of
// bench/in.lj: "Lattice spacing in x,y,z = 1.6795962 ..." and "Created 32000 atoms"), the order
// of create_atoms and its coordinates to the bit (LAMMPS 29 Sep 2021, run side by side:
//   lattice fcc 0.8442 / region box block 0 2 0 2 0 2 / create_box 1 box / create_atoms 1 box /
//   write_dump all custom dump id x y z modify format float %.17g sort id),
// density N/V, and nearest-neighbour shells found by brute force.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/error.h"
#include "science/sponge/lattice.h"

namespace spire::sponge {
namespace {

TEST(Lattice, LammpsInLj) {
  Lattice l = Lattice::with_density(LatticeType::fcc, 0.8442);
  EXPECT_NEAR(l.constant, 1.6795962, 5e-8);
  State s = create_lattice(l, 20, 20, 20);
  EXPECT_EQ(s.positions.size(), 32000u);
  EXPECT_EQ(s.velocities.size(), 32000u);
  EXPECT_EQ(s.box.a().x, 20 * l.constant);
  EXPECT_TRUE(s.box.orthorhombic());
  EXPECT_NEAR(32000 / s.box.volume(), 0.8442, 1e-12);
  // LAMMPS's first atoms: the basis of cell (0, 0, 0), then cell (1, 0, 0); cell (0, 1, 0) starts
  // at atom 4 * 20.
  const double a = l.constant, h = 0.5 * a;
  EXPECT_EQ(s.positions[0], (Vec3{0, 0, 0}));
  EXPECT_EQ(s.positions[1], (Vec3{h, h, 0}));
  EXPECT_EQ(s.positions[2], (Vec3{h, 0, h}));
  EXPECT_EQ(s.positions[3], (Vec3{0, h, h}));
  EXPECT_EQ(s.positions[5], (Vec3{1.5 * a, h, 0}));
  EXPECT_EQ(s.positions[80], (Vec3{0, a, 0}));
  EXPECT_EQ(s.positions[1600], (Vec3{0, 0, a}));
}

TEST(Lattice, LammpsBits) {
  State s = create_lattice(Lattice::with_density(LatticeType::fcc, 0.8442), 2, 2, 2);
  ASSERT_EQ(s.positions.size(), 32u);
  EXPECT_EQ(s.box.a().x, 3.3591923827650145);  // BOX BOUNDS 0 3.3591923827650145e+00
  // Atoms 2, 5, 6, 8 and 11 of the dump.
  EXPECT_EQ(s.positions[1], (Vec3{0.83979809569125363, 0.83979809569125363, 0}));
  EXPECT_EQ(s.positions[4], (Vec3{1.6795961913825073, 0, 0}));
  EXPECT_EQ(s.positions[5], (Vec3{2.5193942870737609, 0.83979809569125363, 0}));
  EXPECT_EQ(s.positions[7], (Vec3{1.6795961913825073, 0.83979809569125363, 0.83979809569125363}));
  EXPECT_EQ(s.positions[10], (Vec3{0.83979809569125363, 1.6795961913825073, 0.83979809569125363}));
}

// Counts neighbours of particle 0 within (1 +- 1e-9) of the nearest distance, and checks none is
// nearer: brute force with minimum image.
void check_shell(LatticeType type) {
  Lattice l = Lattice::with_constant(type, 1.3);
  State s = create_lattice(l, 3, 4, 5);
  EXPECT_EQ(s.positions.size(), 60 * l.basis().size());
  EXPECT_NEAR(s.positions.size() / s.box.volume(), l.density(), 1e-12);
  double d0 = l.nearest_neighbor_distance();
  for (size_t i : {size_t(0), s.positions.size() - 1}) {
    int shell = 0;
    for (size_t j = 0; j < s.positions.size(); ++j) {
      if (j == i) continue;
      double r = norm(s.box.min_image(s.positions[j] - s.positions[i]));
      EXPECT_GT(r, d0 * (1 - 1e-9));
      shell += r < d0 * (1 + 1e-9);
    }
    EXPECT_EQ(shell, l.coordination()) << to_string(type);
  }
}

TEST(Lattice, NeighbourShells) {
  check_shell(LatticeType::sc);
  check_shell(LatticeType::bcc);
  check_shell(LatticeType::fcc);
}

TEST(Lattice, DensityRoundTrip) {
  for (auto t : {LatticeType::sc, LatticeType::bcc, LatticeType::fcc}) {
    Lattice l = Lattice::with_density(t, 0.7);
    EXPECT_NEAR(l.density(), 0.7, 1e-14);
    EXPECT_EQ(lattice_type(to_string(t)), t);
  }
}

TEST(Lattice, Errors) {
  EXPECT_THROW(lattice_type("hcp"), ConfigError);
  try {
    lattice_type("diamond");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("allowed: sc, bcc, fcc"), std::string::npos);
  }
  EXPECT_THROW(Lattice::with_density(LatticeType::fcc, 0), ValueError);
  EXPECT_THROW(create_lattice(Lattice::with_constant(LatticeType::sc, 1), 0, 1, 1), ValueError);
}

TEST(Lattice, IdenticalParticles) {
  System sys = identical_particles(4, 1.0, "A", Units::lj());
  EXPECT_EQ(sys.size(), 4);
  EXPECT_EQ(sys.units.name, "lj");
  EXPECT_EQ(sys.type_names, std::vector<std::string>{"A"});
  EXPECT_NO_THROW(sys.check());
  EXPECT_EQ(sys.degrees_of_freedom(true), 9);
}

}  // namespace
}  // namespace spire::sponge
