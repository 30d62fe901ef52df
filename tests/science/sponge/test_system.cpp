// System and Topology: bonded exclusions and 1-4 pairs against hand-listed chains and rings and
// against all-pairs shortest paths (Floyd-Warshall) on random graphs; degrees of freedom counted
// by hand; the checks naming the offending entry. ForceResult's bookkeeping.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include "engine/core/error.h"
#include "science/sponge/force.h"
#include "science/sponge/system.h"
#include "tests/science/sponge/support_errors.h"

namespace spire::sponge {
namespace {

using testing::message_of;
using Pairs = std::vector<std::pair<int, int>>;

Pairs pairs14_of(const Topology& t) {
  Pairs p;
  for (const Pair14& q : t.pairs14) p.emplace_back(q.i, q.j);
  return p;
}

TEST(Topology, ChainExclusionsAndPairs) {
  // Pentane's carbon chain 0-1-2-3-4: every pair but (0, 4) is within three bonds.
  Topology t;
  for (int i = 0; i < 4; ++i) t.bonds.push_back({i, i + 1, 0.153, 1000});
  t.exclude_bonded(0.5, 0.5);
  EXPECT_EQ(t.exclusions, (Pairs{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {1, 4}, {2, 3}, {2, 4}, {3, 4}}));
  EXPECT_EQ(pairs14_of(t), (Pairs{{0, 3}, {1, 4}}));
  EXPECT_EQ(t.pairs14[0].coulomb_scale, 0.5);
  EXPECT_EQ(t.pairs14[1].lj_scale, 0.5);
  EXPECT_TRUE(t.excluded(4, 1));
  EXPECT_FALSE(t.excluded(0, 4));
  // Running it again adds nothing.
  t.exclude_bonded(0.5, 0.5);
  EXPECT_EQ(t.exclusions.size(), 9u);
  EXPECT_EQ(t.pairs14.size(), 2u);
}

TEST(Topology, RingsTakeTheShortestPath) {
  // Cyclohexane (bonds as constraints, which are bonds too): para atoms are 1-4 both ways round,
  // and listed once; every other pair is 1-2 or 1-3.
  Topology six;
  for (int i = 0; i < 6; ++i) six.constraints.push_back({i, (i + 1) % 6, 0.153});
  six.exclude_bonded(1 / 1.2, 0.5);
  EXPECT_EQ(six.exclusions.size(), 15u);
  EXPECT_EQ(pairs14_of(six), (Pairs{{0, 3}, {1, 4}, {2, 5}}));
  // Cyclopentane: no pair is 1-4.
  Topology five;
  for (int i = 0; i < 5; ++i) five.bonds.push_back({(i + 1) % 5, i, 0.153, 1});
  five.exclude_bonded(0.5, 0.5);
  EXPECT_EQ(five.exclusions.size(), 10u);
  EXPECT_TRUE(five.pairs14.empty());
}

TEST(Topology, RigidWaterIsOneMolecule) {
  Topology t;
  t.waters.push_back({3, 4, 5, 0.1, 0.16330});
  t.exclude_bonded(0.5, 0.5);
  EXPECT_EQ(t.exclusions, (Pairs{{3, 4}, {3, 5}, {4, 5}}));
  EXPECT_TRUE(t.pairs14.empty());
}

TEST(Topology, MatchesFloydWarshallOnRandomGraphs) {
  std::mt19937_64 rng(3);
  for (int g = 0; g < 20; ++g) {
    const int n = 30;
    Topology t;
    std::uniform_int_distribution<int> pick(0, n - 1);
    std::set<std::pair<int, int>> edges;
    for (int e = 0; e < 35; ++e) {
      int i = pick(rng), j = pick(rng);
      if (i == j) continue;
      edges.insert(std::minmax(i, j));
      if (e % 3 == 0)
        t.constraints.push_back({j, i, 0.1});
      else
        t.bonds.push_back({i, j, 0.1, 1});
    }
    t.exclusions.push_back({7, 29});  // kept
    t.exclude_bonded(0.25, 0.75);
    const int inf = 1 << 20;
    std::vector<std::vector<int>> dist(n, std::vector<int>(n, inf));
    for (int i = 0; i < n; ++i) dist[i][i] = 0;
    for (auto [i, j] : edges) dist[i][j] = dist[j][i] = 1;
    for (int k = 0; k < n; ++k)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) dist[i][j] = std::min(dist[i][j], dist[i][k] + dist[k][j]);
    Pairs excl, p14;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        if (dist[i][j] <= 3 || (i == 7 && j == 29)) excl.emplace_back(i, j);
        if (dist[i][j] == 3) p14.emplace_back(i, j);
      }
    EXPECT_EQ(t.exclusions, excl);
    EXPECT_EQ(pairs14_of(t), p14);
  }
}

TEST(Topology, NormalizeAndCheck) {
  Topology t;
  t.exclusions = {{5, 2}, {1, 3}, {2, 5}, {0, 1}};
  t.normalize_exclusions();
  EXPECT_EQ(t.exclusions, (Pairs{{0, 1}, {1, 3}, {2, 5}}));
  EXPECT_NO_THROW(t.check(6));
  std::string m = message_of([&] { t.check(5); });
  EXPECT_NE(m.find("exclusion 2 (2, 5)"), std::string::npos) << m;
  EXPECT_NE(m.find("outside [0, 5)"), std::string::npos) << m;

  Topology a;
  a.angles.push_back({1, 2, 3, 1.9, 300});
  a.angles.push_back({1, 2, 1, 1.9, 300});
  m = message_of([&] { a.check(10); });
  EXPECT_NE(m.find("angle 1 (1, 2, 1)"), std::string::npos) << m;
  EXPECT_NE(m.find("appears twice"), std::string::npos) << m;

  Topology d;
  d.torsions.push_back({0, 1, 2, 3, 0, 0, 1});
  m = message_of([&] { d.check(4); });
  EXPECT_NE(m.find("periodicity n must be >= 1"), std::string::npos) << m;

  Topology w;
  w.waters.push_back({0, 1, 2, 0.1, 0.25});
  m = message_of([&] { w.check(3); });
  EXPECT_NE(m.find("d_hh < 2 d_oh"), std::string::npos) << m;
}

TEST(System, AddParticleAndTypes) {
  System s;
  EXPECT_EQ(s.add_particle(15.999, -0.8476, "OW"), 0);
  EXPECT_EQ(s.add_particle(1.008, 0.4238, "HW"), 1);
  EXPECT_EQ(s.add_particle(1.008, 0.4238, "HW"), 2);
  EXPECT_EQ(s.size(), 3);
  EXPECT_EQ(s.type, (std::vector<int>{0, 1, 1}));
  EXPECT_EQ(s.type_names, (std::vector<std::string>{"OW", "HW"}));
  EXPECT_NO_THROW(s.check());
}

TEST(System, DegreesOfFreedom) {
  System s;
  for (int i = 0; i < 10; ++i) s.add_particle(1, 0, "A");
  EXPECT_EQ(s.degrees_of_freedom(false), 30);
  EXPECT_EQ(s.degrees_of_freedom(true), 27);
  // Three rigid waters out of nine atoms, one constraint, one fixed particle (index 9) with a
  // constraint to it, one constraint between two fixed particles.
  System w;
  for (int i = 0; i < 9; ++i) w.add_particle(i % 3 ? 1.008 : 15.999, 0, i % 3 ? "HW" : "OW");
  for (int m = 0; m < 3; ++m) w.topology.waters.push_back({3 * m, 3 * m + 1, 3 * m + 2, 0.1, 0.1633});
  w.add_particle(12, 0, "C");
  w.add_particle(0, 0, "X");
  w.add_particle(0, 0, "X");
  w.add_particle(12, 0, "C");
  w.topology.constraints.push_back({9, 12, 0.15});
  w.topology.constraints.push_back({10, 12, 0.15});
  w.topology.constraints.push_back({10, 11, 0.15});
  // 11 moving atoms: 33 - 9 (waters) - 2 (constraints with a moving end) = 22.
  EXPECT_EQ(w.degrees_of_freedom(false), 22);
  EXPECT_EQ(w.degrees_of_freedom(true), 19);
  System empty;
  EXPECT_EQ(empty.degrees_of_freedom(true), 0);
}

TEST(System, CheckNamesTheProblem) {
  System s;
  s.add_particle(1, 0, "A");
  s.add_particle(1, 0, "A");
  s.charge.push_back(0);
  EXPECT_NE(message_of([&] { s.check(); }).find("3 charges for 2 particles"), std::string::npos);
  s.charge.pop_back();
  s.mass[1] = -1;
  EXPECT_NE(message_of([&] { s.check(); }).find("particle 1 has mass -1"), std::string::npos);
  s.mass[1] = 1;
  s.type[0] = 4;
  EXPECT_NE(message_of([&] { s.check(); }).find("type 4 outside [0, 1)"), std::string::npos);
  s.type[0] = 0;
  s.atom_name = {"A"};
  EXPECT_NE(message_of([&] { s.check(); }).find("either none or one per particle"), std::string::npos);
  s.atom_name.clear();
  s.topology.bonds.push_back({0, 2, 0.1, 1});
  EXPECT_NE(message_of([&] { s.check(); }).find("bond 0 (0, 2)"), std::string::npos);
  s.topology.bonds.clear();
  EXPECT_NO_THROW(s.check());
}

TEST(ForceResult, PerTermEnergies) {
  ForceResult r;
  r.reset(4);
  EXPECT_EQ(r.forces.size(), 4u);
  r.add_energy("lj", -3.5);
  r.add_energy("coulomb", 2.0);
  r.add_energy("lj", -0.5);
  r.virial(0, 1) = 2;
  r.forces[2] = {1, 2, 3};
  EXPECT_EQ(r.energies.size(), 2u);
  EXPECT_EQ(r.energies[0].first, "lj");
  EXPECT_EQ(r.energy_of("lj"), -4.0);
  EXPECT_EQ(r.energy_of("bonds"), 0.0);
  EXPECT_EQ(r.energy(), -2.0);
  r.reset(2);
  EXPECT_EQ(r.forces, (std::vector<Vec3>(2)));
  EXPECT_TRUE(r.energies.empty());
  EXPECT_EQ(r.virial.m, Mat3{}.m);
}

}  // namespace
}  // namespace spire::sponge
