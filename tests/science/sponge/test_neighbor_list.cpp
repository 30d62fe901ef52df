// Neighbour lists against a brute-force O(N^2) search: every pair closer than cutoff + skin is
// listed once (i < j in row i), nothing farther, in orthorhombic, triclinic and small boxes (a
// search that covers a whole axis), without a box, with exclusions; the skin/2 rebuild trigger
// and, over a random walk, no pair within the cutoff ever missing; the same list on 1 and 2
// threads; O(N) cells for widely spread particles; a water box; the search's single-precision test
// (AVX2, AVX-512) against its double-precision one next to the range; and the errors.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "science/sponge/neighbor_list.h"
#include "science/sponge/neighbor_search.h"
#include "science/sponge/water.h"

namespace spire::sponge {
namespace {

using Pairs = std::set<std::pair<int, int>>;

System particles(int64_t n) {
  System system;
  for (int64_t i = 0; i < n; ++i) system.add_particle(1.0, 0.0, "A");
  return system;
}

State random_state(const Box& box, int64_t n, std::mt19937_64& rng, double spread = 1.0) {
  std::uniform_real_distribution<double> u(0, 1);
  State state;
  state.box = box;
  for (int64_t i = 0; i < n; ++i) {
    // Fractional coordinates in [-0.5, 1.5): some particles outside the cell, as an unwrapped
    // trajectory leaves them.
    Vec3 s{u(rng) * 2 - 0.5, u(rng) * 2 - 0.5, u(rng) * 2 - 0.5};
    state.positions.push_back(box.periodic() ? box.from_fractional(s) : s * spread);
  }
  return state;
}

// Every pair (i < j) closer than `range`, nearest images by rounding the fractional difference
// and then trying the 27 images around it (independent of Box::min_image).
Pairs brute_force(const State& state, double range, const Topology* topology = nullptr) {
  Pairs pairs;
  const Box& box = state.box;
  const int64_t n = int64_t(state.positions.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      Vec3 d = state.positions[size_t(j)] - state.positions[size_t(i)];
      double best = norm2(d);
      if (box.periodic()) {
        const Vec3 s = box.to_fractional(d);
        d -= std::round(s.x) * box.a() + std::round(s.y) * box.b() + std::round(s.z) * box.c();
        for (int a = -1; a <= 1; ++a)
          for (int b = -1; b <= 1; ++b)
            for (int c = -1; c <= 1; ++c)
              best = std::min(best, norm2(d + double(a) * box.a() + double(b) * box.b() + double(c) * box.c()));
      }
      if (best < range * range && !(topology && topology->excluded(int(i), int(j)))) pairs.insert({int(i), int(j)});
    }
  return pairs;
}

Pairs listed(const NeighborList& list) {
  Pairs pairs;
  for (int64_t i = 0; i < list.size(); ++i)
    for (int64_t k = list.offsets()[size_t(i)]; k < list.offsets()[size_t(i + 1)]; ++k) {
      int j = list.neighbors()[size_t(k)];
      EXPECT_GT(j, i) << "row " << i << " holds " << j;
      EXPECT_TRUE(pairs.insert({int(i), j}).second) << "pair (" << i << ", " << j << ") listed twice";
    }
  return pairs;
}

void expect_same(const Pairs& want, const Pairs& got) {
  EXPECT_EQ(want.size(), got.size());
  for (const auto& p : want)
    if (!got.count(p)) ADD_FAILURE() << "missing pair (" << p.first << ", " << p.second << ")";
  for (const auto& p : got)
    if (!want.count(p)) ADD_FAILURE() << "extra pair (" << p.first << ", " << p.second << ")";
}

TEST(NeighborList, OrthorhombicMatchesBruteForce) {
  std::mt19937_64 rng(1);
  const Box box = Box::orthorhombic(7.0, 8.5, 9.25);
  State state = random_state(box, 900, rng);
  System system = particles(900);
  NeighborList list(1.9, 0.3);
  EXPECT_TRUE(list.update(system, state));
  expect_same(brute_force(state, list.range()), listed(list));
  EXPECT_EQ(list.builds(), 1);
  EXPECT_DOUBLE_EQ(list.range(), 2.2);
}

TEST(NeighborList, TriclinicMatchesBruteForce) {
  std::mt19937_64 rng(2);
  // Strongly tilted (tilts at and near the reduced-form bounds): cells are sheared slabs.
  for (const Box& box : {Box::triclinic({8, 0, 0}, {4, 7, 0}, {-3.9, 3.4, 7.5}),
                         Box::triclinic({9, 0, 0}, {-2.5, 8, 0}, {1.0, -4.0, 8.5})}) {
    State state = random_state(box, 800, rng);
    System system = particles(800);
    NeighborList list(1.7, 0.4);
    list.build(system, state);
    ASSERT_LE(list.range(), box.max_cutoff());
    expect_same(brute_force(state, list.range()), listed(list));
  }
}

TEST(NeighborList, SmallBoxSearchCoversWholeAxes) {
  // Widths of 2 to 3 ranges: 4 to 6 cells per axis, reached whole from every cell; each pair
  // must still be found once, through its nearest image.
  std::mt19937_64 rng(3);
  for (const Box& box : {Box::orthorhombic(4.1, 5.3, 6.0), Box::triclinic({5.2, 0, 0}, {2.2, 4.9, 0}, {-1.8, 2.0, 4.6})}) {
    State state = random_state(box, 300, rng);
    System system = particles(300);
    NeighborList list(1.6, 0.4);
    ASSERT_LE(list.range(), box.max_cutoff());
    list.build(system, state);
    expect_same(brute_force(state, list.range()), listed(list));
  }
}

TEST(NeighborList, NoBoxMatchesBruteForce) {
  std::mt19937_64 rng(4);
  State state = random_state(Box::none(), 700, rng, 6.0);
  // A flat layer too: one cell thick along z.
  for (int i = 0; i < 100; ++i) state.positions.push_back({0.1 * i, 0.05 * (i % 7), 3.0});
  System system = particles(800);
  NeighborList list(1.2, 0.2);
  list.build(system, state);
  expect_same(brute_force(state, list.range()), listed(list));
}

TEST(NeighborList, SpreadParticlesKeepCellsBounded) {
  // Two clusters 1e9 apart: a grid of R/2 cells over that extent would not fit in memory; the
  // cells grow instead and the list is still exact.
  std::mt19937_64 rng(5);
  State state = random_state(Box::none(), 200, rng, 3.0);
  for (int i = 0; i < 200; ++i) state.positions.push_back(state.positions[size_t(i)] + Vec3{1e9, -2e9, 5e8});
  System system = particles(400);
  NeighborList list(1.0, 0.1);
  list.build(system, state);
  expect_same(brute_force(state, list.range()), listed(list));
}

TEST(NeighborList, ExclusionsAreLeftOut) {
  std::mt19937_64 rng(6);
  const Box box = Box::orthorhombic(6, 6, 6);
  State state = random_state(box, 400, rng);
  System system = particles(400);
  // Exclude a third of the pairs that are within range, given in either order.
  const Pairs all = brute_force(state, 2.0);
  int k = 0;
  for (const auto& [i, j] : all)
    if (k++ % 3 == 0) system.topology.exclusions.push_back(k % 2 ? std::make_pair(i, j) : std::make_pair(j, i));
  Topology normalized = system.topology;
  normalized.normalize_exclusions();
  NeighborList list(1.8, 0.2);
  list.build(system, state);
  const Pairs want = brute_force(state, list.range(), &normalized);
  EXPECT_LT(want.size(), all.size());
  expect_same(want, listed(list));
}

TEST(NeighborList, RebuildsWhenAParticleMovesMoreThanHalfTheSkin) {
  std::mt19937_64 rng(7);
  const Box box = Box::orthorhombic(8, 8, 8);
  State state = random_state(box, 300, rng);
  System system = particles(300);
  NeighborList list(2.0, 0.4);
  EXPECT_TRUE(list.update(system, state));
  EXPECT_FALSE(list.update(system, state));
  // Everyone moves 0.19 < skin/2 = 0.2 (in different directions): no rebuild.
  State moved = state;
  for (size_t i = 0; i < moved.positions.size(); ++i) moved.positions[i] += (i % 2 ? 0.19 : -0.19) * Vec3{0, 0.6, 0.8};
  EXPECT_FALSE(list.update(system, moved));
  // One particle at 0.21 > 0.2: rebuild.
  moved.positions[17] = state.positions[17] + Vec3{0.21, 0, 0};
  EXPECT_TRUE(list.update(system, moved));
  EXPECT_EQ(list.builds(), 2);
  // Displacements are measured from the last build, through the periodic boundary: a particle
  // wrapped by a box vector has not moved.
  State wrapped = moved;
  wrapped.positions[5] += box.a() - box.c();
  EXPECT_FALSE(list.update(system, wrapped));
  // A changed box rebuilds regardless.
  wrapped.box = Box::orthorhombic(8, 8, 8.001);
  EXPECT_TRUE(list.update(system, wrapped));
  EXPECT_EQ(list.builds(), 3);
}

TEST(NeighborList, RandomWalkNeverMissesAPairWithinTheCutoff) {
  std::mt19937_64 rng(8);
  const Box box = Box::triclinic({7, 0, 0}, {1.5, 7, 0}, {-2, 1, 7.5});
  State state = random_state(box, 200, rng);
  System system = particles(200);
  const double cutoff = 1.8;
  NeighborList list(cutoff, 0.3);
  std::normal_distribution<double> step(0, 0.03);
  int64_t rebuilds = 0;
  for (int s = 0; s < 40; ++s) {
    rebuilds += list.update(system, state);
    const Pairs got = listed(list);
    for (const auto& p : brute_force(state, cutoff))
      ASSERT_TRUE(got.count(p)) << "step " << s << ": pair (" << p.first << ", " << p.second << ") within the cutoff is missing";
    for (Vec3& r : state.positions) r += Vec3{step(rng), step(rng), step(rng)};
  }
  // The walk moves ~0.05 per step: rebuilds come every few steps, not every step.
  EXPECT_GT(rebuilds, 4);
  EXPECT_LT(rebuilds, 30);
}

TEST(NeighborList, SameListOnOneAndTwoThreads) {
  std::mt19937_64 rng(9);
  const Box box = Box::triclinic({12, 0, 0}, {3, 11, 0}, {-4, 2, 12});
  State state = random_state(box, 3000, rng);
  System system = particles(3000);
  const int threads = omp_get_max_threads();
  NeighborList one(2.5, 0.3), two(2.5, 0.3);
  omp_set_num_threads(1);
  one.build(system, state);
  omp_set_num_threads(2);
  two.build(system, state);
  omp_set_num_threads(threads);
  EXPECT_EQ(one.offsets(), two.offsets());
  EXPECT_EQ(one.neighbors(), two.neighbors());
}

// A water box: molecules whose own pairs are excluded, rows ascending, against brute force; and
// pair_list(), where the kernels read the rows, the same rows.
TEST(NeighborList, WaterBoxMatchesBruteForce) {
  WaterBoxOptions o;
  o.molecules = 216;
  WaterBox water = water_box(WaterModel::spce(), o);
  NeighborList list(0.7, 0.1);
  list.build(water.system, water.state);
  expect_same(brute_force(water.state, 0.8, &water.system.topology), listed(list));
  const PairList rows = list.pair_list();
  ASSERT_EQ(rows.rows, list.size());
  EXPECT_EQ(rows.pairs, list.pairs());
  for (int64_t i = 0; i < list.size(); ++i) {
    const std::vector<int32_t> want(list.neighbors().begin() + list.offsets()[size_t(i)],
                                    list.neighbors().begin() + list.offsets()[size_t(i + 1)]);
    EXPECT_EQ(std::vector<int32_t>(rows.row[i], rows.row[i] + rows.size[i]), want) << "row " << i;
    EXPECT_TRUE(std::is_sorted(want.begin(), want.end())) << "row " << i;
  }
  const NeighborList copy = list;  // its rows point into its own storage
  EXPECT_EQ(copy.offsets(), list.offsets());
  EXPECT_EQ(copy.neighbors(), list.neighbors());
  EXPECT_NE(copy.pair_list().row[0], list.pair_list().row[0]);
}

// The search's inner loops: single precision with AVX2 and AVX-512 and double precision agree on
// candidates placed within rounding of the range (where the single-precision test defers to the
// double-precision one), and the bitmap read-outs agree with a plain loop.
TEST(NeighborList, SearchLoopsAgree) {
  std::mt19937_64 rng(10);
  std::uniform_real_distribution<double> u(-1, 1);
  const int n = 3000;
  const double range = 1.2;
  std::vector<double> sx(n + 16), sy(n + 16), sz(n + 16);
  std::vector<float> fx(n + 16), fy(n + 16), fz(n + 16);
  std::vector<int32_t> index(n + 16);
  const Vec3 center{0.3, -0.2, 0.1};
  for (int p = 0; p < n; ++p) {
    // Half of them a few 1e-8 of R^2 from the range, the rest anywhere nearby.
    Vec3 d{u(rng), u(rng), u(rng)};
    const double r = p % 2 ? range * (1 + 3e-8 * u(rng)) : 1.5 * range * std::fabs(u(rng));
    d = d * (r / norm(d));
    sx[p] = center.x + d.x, sy[p] = center.y + d.y, sz[p] = center.z + d.z;
    fx[p] = float(sx[p]), fy[p] = float(sy[p]), fz[p] = float(sz[p]);
    index[p] = p + 1;
  }
  neighbor_search::Coordinates c;
  c.x = fx.data(), c.y = fy.data(), c.z = fz.data();
  c.sx = sx.data(), c.sy = sy.data(), c.sz = sz.data();
  c.index = index.data();
  c.range2 = range * range;
  const double band = 2e-6 * range * range;  // generous for coordinates of order 2
  c.sure = float(c.range2 - band), c.beyond = float(c.range2 + band);
  const neighbor_search::Run runs[3] = {{0, 1000, 1000, {}}, {1000, 2013, 2013, {}}, {2013, n, n, {}}};
  std::vector<int32_t> a(n + 16), b(n + 16), d(n + 16);
  const int64_t na = neighbor_search::search_avx2(c, 0, center, runs, 3, a.data());
  const int64_t nd = neighbor_search::search_double(c, neighbor_search::Wrap::shifts, {}, 0, center, runs, 3, d.data());
  a.resize(size_t(na)), d.resize(size_t(nd));
  EXPECT_EQ(a, d);
  int64_t within = 0;
  for (int p = 0; p < n; ++p)
    within += neighbor_search::distance2(sx[p] - center.x, sy[p] - center.y, sz[p] - center.z) < c.range2;
  EXPECT_EQ(na, within);
  if (neighbor_search::processor_has_avx512()) {
    const int64_t nb = neighbor_search::search_avx512(c, 0, center, runs, 3, b.data());
    b.resize(size_t(nb));
    EXPECT_EQ(a, b);
  }

  std::vector<uint64_t> bits(80, 0), copy;
  std::vector<int32_t> want;
  for (int k = 0; k < 900; ++k) {
    const int32_t j = int32_t(rng() % (64 * 70)) + 64 * 5;
    bits[size_t(j >> 6)] |= uint64_t(1) << (j & 63);
  }
  for (int32_t j = 0; j < 64 * 80; ++j)
    if (bits[size_t(j >> 6)] >> (j & 63) & 1) want.push_back(j);
  copy = bits;
  std::vector<int32_t> got(want.size() + 16);
  got.resize(size_t(neighbor_search::read_bits_avx2(copy.data(), 0, 79, got.data())));
  EXPECT_EQ(got, want);
  EXPECT_EQ(copy, std::vector<uint64_t>(80, 0));
  if (neighbor_search::processor_has_avx512()) {
    copy = bits;
    got.assign(want.size() + 16, 0);
    got.resize(size_t(neighbor_search::read_bits_avx512(copy.data(), 0, 79, got.data())));
    EXPECT_EQ(got, want);
  }
}

TEST(NeighborList, Errors) {
  EXPECT_THROW(NeighborList(0, 0.1), ValueError);
  EXPECT_THROW(NeighborList(1, -0.1), ValueError);
  EXPECT_THROW(NeighborList(std::nan(""), 0.1), ValueError);
  System system = particles(2);
  State state;
  state.box = Box::orthorhombic(5, 5, 5);
  state.positions = {{0, 0, 0}, {1, 1, 1}};
  NeighborList too_long(2.4, 0.2);  // 2.6 > 5/2
  try {
    too_long.update(system, state);
    ADD_FAILURE() << "expected a ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("exceeds half the box"), std::string::npos) << e.what();
  }
  NeighborList list(1, 0.1);
  state.positions[1].y = std::nan("");
  EXPECT_THROW(list.update(system, state), ValueError);
  state.positions[1].y = 1;
  state.positions.push_back({2, 2, 2});
  EXPECT_THROW(list.update(system, state), ValueError);  // 3 positions, 2 particles
}

}  // namespace
}  // namespace spire::sponge
