// Systems for the cuda platform's force tests, and the comparison of two ForceResults (the
// device pipeline's against the CPU platform's): Lennard-Jones lattices (two types, jittered, in
// orthorhombic or sheared boxes), SPC/E water, random charges with small bonded molecules, and a
// molecule set with every bonded term split across the faces of a triclinic box.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "science/sponge/bonded.h"
#include "science/sponge/force_field.h"
#include "science/sponge/lattice.h"
#include "science/sponge/lennard_jones.h"
#include "tests/science/sponge/support_charges.h"

namespace spire::sponge::cuda::testing {

using sponge::testing::Cell;
using sponge::testing::Charges;
using sponge::testing::random_charges;

// An fcc lattice of cells^3 cells at reduced density 0.8442 (types A and B, one in three B),
// jittered by up to 0.05, in its cubic box or (triclinic) the same fractional positions in a
// sheared box of the same volume.
inline Charges lj_lattice(int cells, bool triclinic, uint64_t seed) {
  const Lattice lattice = Lattice::with_density(LatticeType::fcc, 0.8442);
  State s = create_lattice(lattice, cells, cells, cells);
  Charges c;
  const double l = cells * lattice.constant;
  c.state.box = triclinic ? Box::triclinic({l, 0, 0}, {0.2 * l, l, 0}, {-0.15 * l, 0.1 * l, l}) : s.box;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> jitter(-0.05, 0.05);
  for (size_t i = 0; i < s.positions.size(); ++i) {
    c.system.add_particle(1.0, 0.0, i % 3 == 0 ? "B" : "A");
    const Vec3 r = c.state.box.from_fractional(s.positions[i] / l);
    c.state.positions.push_back(r + Vec3{jitter(rng), jitter(rng), jitter(rng)});
  }
  return c;
}

// Moves particles apart until no two that the nonbonded terms see (not excluded; minimum image)
// are closer than `d`: uniform random positions put some pair almost on top of each other, whose
// Lennard-Jones force would exceed the fixed-point range (and any physical one). The chains'
// particles (0-7) stay where they are.
inline void spread_apart(Charges& c, double d) {
  const int n = int(c.system.size());
  std::vector<Vec3>& r = c.state.positions;
  for (int sweep = 0; sweep < 50; ++sweep) {
    bool moved = false;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        if (j < 8 || c.system.topology.excluded(i, j)) continue;
        const Vec3 v = c.state.box.periodic() ? c.state.box.min_image(r[size_t(j)] - r[size_t(i)]) : r[size_t(j)] - r[size_t(i)];
        const double dist = norm(v);
        if (dist >= d) continue;
        const Vec3 away = dist > 0 ? v / dist : Vec3{0.6, 0.48, 0.64};
        r[size_t(j)] += away * (1.05 * (d - dist));
        moved = true;
      }
    if (!moved) return;
  }
}

inline std::shared_ptr<LennardJones> lj_ab(double cutoff, LJCutoffMode mode, double switch_distance, bool tail) {
  auto lj = std::make_shared<LennardJones>(cutoff, mode, switch_distance);
  lj->set_type("A", 1.0, 1.0);
  lj->set_type("B", 0.8, 0.9);
  lj->set_pair("A", "B", 0.9, 0.97);
  lj->set_tail_correction(tail);
  return lj;
}

// Random charges (support_charges.h) with every bonded term on its two chains (particles 0-3 and
// 4-7), restraints and a field; chain 0 is moved to a corner of the box and every particle wrapped,
// so that the terms straddle the box's faces.
inline Charges bonded_molecules(uint64_t seed) {
  Charges c = random_charges(40, Cell::triclinic, 0.0, seed);
  spread_apart(c, 0.09);
  const Vec3 corner = c.state.box.from_fractional({0.99, 0.985, 0.99});
  const Vec3 shift = corner - c.state.positions[0];
  for (int i = 0; i < 4; ++i) c.state.positions[size_t(i)] += shift;
  for (Vec3& r : c.state.positions) r = c.state.box.wrap(r);
  Topology& t = c.system.topology;
  t.angles = {{0, 1, 2, 1.9, 400.0}, {1, 2, 3, 2.1, 350.0}, {4, 5, 6, 1.7, 420.0}, {5, 6, 7, 2.0, 380.0}};
  t.torsions = {{0, 1, 2, 3, 3, 0.3, 2.5}, {4, 5, 6, 7, 2, M_PI, 1.2}, {4, 5, 6, 7, 1, 0.1, 0.7}};
  t.impropers = {{0, 1, 2, 3, 0.4, 30.0}, {7, 6, 5, 4, -2.9, 25.0}};
  return c;
}

inline void add_bonded_terms(ForceField& ff, const State& state) {
  ff.add(std::make_shared<HarmonicBonds>());
  ff.add(std::make_shared<HarmonicAngles>());
  ff.add(std::make_shared<PeriodicTorsions>());
  ff.add(std::make_shared<HarmonicImpropers>());
  // One reference across the box from its particle, one near it.
  const Box& box = state.box;
  ff.add(std::make_shared<PositionRestraints>(std::vector<PositionRestraint>{
      {1, state.positions[1] + box.a() * 0.97 + Vec3{0.03, -0.02, 0.01}, 500.0},
      {9, state.positions[9] + Vec3{0.04, 0.05, -0.03}, 800.0}}));
  ff.add(std::make_shared<ExternalField>(Vec3{0.5, -0.3, 0.2}, Vec3{0.0, 0.1, -0.2}));
}

// |a - b| <= rel * scale + abs for every energy (scale its own size; figures relative to at least 1), force component (scale the
// largest force component) and virial component (scale the largest component). Returns the
// largest error of each kind relative to its scale, for the record.
struct Agreement {
  double energy = 0, force = 0, virial = 0;
};

inline Agreement expect_agree(const ForceResult& got, const ForceResult& want, double rel, double abs) {
  Agreement a;
  EXPECT_EQ(got.energies.size(), want.energies.size());
  for (size_t t = 0; t < std::min(got.energies.size(), want.energies.size()); ++t) {
    EXPECT_EQ(got.energies[t].first, want.energies[t].first);
    const double e = want.energies[t].second, err = std::fabs(got.energies[t].second - e);
    EXPECT_LE(err, rel * std::fabs(e) + abs) << want.energies[t].first << ": " << got.energies[t].second << " vs " << e;
    a.energy = std::max(a.energy, err / std::max(std::fabs(e), 1.0));
  }
  EXPECT_EQ(got.forces.size(), want.forces.size());
  double scale = 0, worst = 0;
  for (const Vec3& f : want.forces) scale = std::max({scale, std::fabs(f.x), std::fabs(f.y), std::fabs(f.z)});
  for (size_t i = 0; i < std::min(got.forces.size(), want.forces.size()); ++i)
    for (int k = 0; k < 3; ++k) {
      const double err = std::fabs(got.forces[i][k] - want.forces[i][k]);
      worst = std::max(worst, err);
      EXPECT_LE(err, rel * scale + abs) << "particle " << i << " axis " << k;
    }
  a.force = worst / std::max(scale, 1e-300);
  double vscale = 0, vworst = 0;
  for (double w : want.virial.m) vscale = std::max(vscale, std::fabs(w));
  for (int k = 0; k < 9; ++k) {
    const double err = std::fabs(got.virial.m[size_t(k)] - want.virial.m[size_t(k)]);
    vworst = std::max(vworst, err);
    EXPECT_LE(err, rel * vscale + abs) << "virial component " << k;
  }
  a.virial = vworst / std::max(vscale, 1e-300);
  return a;
}

}  // namespace spire::sponge::cuda::testing
