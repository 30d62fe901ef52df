// The cuda platform's neighbour list run on the host (its bodies in loops, std::stable_sort and
// std::exclusive_scan for cub's), against the CPU platform's NeighborList: the same pairs, in
// orthorhombic and triclinic boxes, with axes searched whole or in part, grids capped by the
// particle count, and without a box; the same rebuild decisions; the same refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "science/sponge/neighbor_list.h"
#include "science/sponge/water.h"
#include "tests/science/sponge/cuda/support_force_systems.h"
#include "tests/science/sponge/cuda/support_host_forces.h"

namespace spire::sponge::cuda {
namespace {

using testing::Charges;
using testing::HostForceField;

// A force field whose only term asks for a list of `cutoff` (LJ on every type of the system).
ForceField list_of(const System& system, double cutoff, double skin) {
  ForceField ff(skin);
  auto lj = std::make_shared<LennardJones>(cutoff);
  for (const std::string& t : system.type_names) lj->set_type(t, 0.5, 0.1);
  ff.add(lj);
  return ff;
}

// The device list's rows hold exactly the CPU list's partners (as sets: the device's order within
// a row is its cell walk's). Returns the number of pairs.
int64_t expect_same_pairs(const System& system, const State& state, double cutoff, double skin) {
  NeighborList cpu(cutoff, skin);
  cpu.build(system, state);
  const ForceField ff = list_of(system, cutoff, skin);
  HostForceField device(system, ff);
  device.build_list(state);
  const int64_t n = system.size();
  EXPECT_EQ(int64_t(device.offsets.size()), n + 1);
  EXPECT_EQ(device.offsets.back(), cpu.pairs());
  int64_t differing = 0;
  for (int64_t i = 0; i < n && differing < 5; ++i) {
    std::vector<int32_t> got(device.neighbors.begin() + device.offsets[size_t(i)],
                             device.neighbors.begin() + device.offsets[size_t(i + 1)]);
    std::sort(got.begin(), got.end());
    const std::vector<int32_t> want(cpu.neighbors().begin() + cpu.offsets()[size_t(i)],
                                    cpu.neighbors().begin() + cpu.offsets()[size_t(i + 1)]);
    if (got != want) ++differing;
    EXPECT_EQ(got, want) << "row " << i;
  }
  return cpu.pairs();
}

TEST(CudaSpongeHostNeighbors, WaterBox) {
  const WaterBox w = water_box(WaterModel::spce(), {.molecules = 216});
  EXPECT_GT(expect_same_pairs(w.system, w.state, 0.85, 0.05), 30000);
}

TEST(CudaSpongeHostNeighbors, LatticesSearchedInPartWithWrappedRuns) {
  for (bool triclinic : {false, true}) {
    SCOPED_TRACE(triclinic ? "triclinic" : "orthorhombic");
    // 13.4 wide, cells of 1.5, a reach of 2 cells: runs of x cells that wrap around the box.
    const Charges c = testing::lj_lattice(8, triclinic, 41);
    EXPECT_GT(expect_same_pairs(c.system, c.state, 2.5, 0.3), 70000);
  }
}

TEST(CudaSpongeHostNeighbors, SmallBoxesSearchedWhole) {
  for (auto cell : {testing::Cell::orthorhombic, testing::Cell::triclinic}) {
    const Charges c = testing::random_charges(200, cell, std::nullopt, 5 + int(cell));
    expect_same_pairs(c.system, c.state, 0.8, 0.1);
  }
}

TEST(CudaSpongeHostNeighbors, WithoutABox) {
  const Charges c = testing::random_charges(300, testing::Cell::none, std::nullopt, 7);
  expect_same_pairs(c.system, c.state, 0.5, 0.1);
}

TEST(CudaSpongeHostNeighbors, SparseSystemsCapTheGrid) {
  // 60 particles in a 12 nm box: (12 / 0.6)^3 cells of half the range would be 8000; the grid
  // stays at 64 cells, each wider than the range.
  Charges c;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 12);
  c.state.box = Box::orthorhombic(12, 12, 12);
  for (int i = 0; i < 60; ++i) {
    c.system.add_particle(1, 0, "X");
    c.state.positions.push_back({u(rng), u(rng), u(rng)});
  }
  expect_same_pairs(c.system, c.state, 2.0, 0.4);
}

TEST(CudaSpongeHostNeighbors, RebuildsWhenTheCpuListWould) {
  const Charges c = testing::lj_lattice(4, true, 9);
  const double skin = 0.3;
  const ForceField ff = list_of(c.system, 2.5, skin);
  HostForceField device(c.system, ff);
  auto cpu_rebuilds = [&](const State& now) {
    NeighborList cpu(2.5, skin);
    cpu.build(c.system, c.state);
    return cpu.update(c.system, now);
  };
  struct Move {
    Vec3 by;
    const char* what;
  };
  const Box& box = c.state.box;
  for (const Move& m : {Move{{0.149, 0, 0}, "just under skin/2"}, Move{{0.151, 0, 0}, "just over skin/2"},
                        Move{{0.1, -0.1, 0.04}, "diagonal, under"}, Move{{0.1, -0.1, 0.07}, "diagonal, over"},
                        Move{box.a() + box.c() * -1.0 + Vec3{0, 0.1, 0}, "a lattice vector and 0.1"},
                        Move{box.b() + Vec3{0.16, 0, 0}, "a lattice vector and 0.16"}}) {
    State now = c.state;
    now.positions[37] += m.by;
    EXPECT_EQ(device.moved(c.state, now), cpu_rebuilds(now)) << m.what;
  }
  State blown = c.state;
  blown.positions[12].y = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(device.moved(c.state, blown));  // and the build that follows reports it, as the CPU's does:
  EXPECT_THROW(cpu_rebuilds(blown), ValueError);
  EXPECT_THROW(device.build_list(blown), ValueError);
}

TEST(CudaSpongeHostNeighbors, RefusesWhatTheCpuListRefuses) {
  Charges c = testing::lj_lattice(3, false, 2);
  c.state.positions[5].z = std::numeric_limits<double>::infinity();
  const ForceField ff = list_of(c.system, 1.5, 0.2);
  HostForceField device(c.system, ff);
  try {
    device.build_list(c.state);
    ADD_FAILURE() << "a non-finite position was accepted";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("particle 5 has a non-finite position"), std::string::npos) << e.what();
  }
  const Charges small = testing::lj_lattice(2, false, 2);  // 3.4 wide: half is 1.7
  const ForceField wide = list_of(small.system, 1.6, 0.2);
  HostForceField too_far(small.system, wide);
  try {
    too_far.build_list(small.state);
    ADD_FAILURE() << "a range beyond half the box was accepted";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("exceeds half the box's smallest width"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace spire::sponge::cuda
