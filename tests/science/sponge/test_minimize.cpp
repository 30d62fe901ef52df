// FIRE and L-BFGS (minimize.h): the LJ dimer's minimum r = 2^(1/6) sigma, E = -epsilon; the LJ13
// icosahedron's energy -44.326801 epsilon (Wales and Doye, J. Phys. Chem. A 101, 5111, 1997; the
// Cambridge Cluster Database) from a perturbed start; fixed particles; FIRE with a constraint
// (a rigid dimer and an atom bound to both: E = -2 epsilon at 2^(1/6) from each); errors.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/error.h"
#include "science/sponge/minimize.h"
#include "tests/science/sponge/support_dynamics.h"

namespace spire::sponge {
namespace {

const double kRmin = std::pow(2.0, 1.0 / 6.0);

ForceField lj_no_cutoff() { return testing::force_field_of({std::make_shared<testing::BruteForceLJ>(1.0, 1.0, 0.0, false)}); }

FireOptions fire(double tolerance) {
  FireOptions o;
  o.force_tolerance = tolerance;
  return o;
}
LbfgsOptions lbfgs(double tolerance) {
  LbfgsOptions o;
  o.force_tolerance = tolerance;
  return o;
}

TEST(Minimize, LennardJonesDimer) {
  for (int method = 0; method < 2; ++method) {
    System system = testing::particles(2, 1.0);
    State state;  // no box
    state.positions = {{0, 0, 0}, {1.5, 0.2, -0.1}};
    ForceField ff = lj_no_cutoff();
    const MinimizeResult r =
        method == 0 ? minimize_fire(system, state, ff, fire(1e-9)) : minimize_lbfgs(system, state, ff, lbfgs(1e-9));
    const char* who = method == 0 ? "FIRE" : "L-BFGS";
    std::printf("figure: %s LJ dimer: r = %.12f (2^(1/6) = %.12f), E = %.14f, %lld evaluations\n", who,
                norm(state.positions[1] - state.positions[0]), kRmin, r.energy, (long long)r.evaluations);
    EXPECT_TRUE(r.converged) << who << ": " << r.stop_reason;
    EXPECT_LE(r.max_force, 1e-9);
    // |F| = k |r - r_min| with k = 57.15 epsilon / sigma^2 near the minimum.
    EXPECT_NEAR(norm(state.positions[1] - state.positions[0]), kRmin, 1e-10) << who;
    EXPECT_NEAR(r.energy, -1.0, 1e-15) << who;
    EXPECT_EQ(ff.result().energy(), r.energy);  // the force field holds the final positions' result
  }
}

// The 13-atom Mackay icosahedron: a centre and 12 vertices (0, +-1, +-phi) and cyclic permutations.
State perturbed_icosahedron(uint64_t seed) {
  const double phi = 0.5 * (1 + std::sqrt(5.0));
  State state;
  state.positions.push_back({0, 0, 0});
  for (int a : {-1, 1})
    for (int b : {-1, 1}) {
      const Vec3 v{0, double(a), b * phi};
      state.positions.push_back(v);
      state.positions.push_back({v.z, v.x, v.y});
      state.positions.push_back({v.y, v.z, v.x});
    }
  MdRandom random(seed);
  for (size_t i = 0; i < state.positions.size(); ++i) {
    Vec3& r = state.positions[i];
    if (i > 0) r = r * (1.1 / norm(r));  // vertices at 1.1 sigma from the centre
    r += 0.08 * random.normal3(RandomTag::langevin, 0, i);
  }
  return state;
}

TEST(Minimize, LennardJones13Icosahedron) {
  for (int method = 0; method < 2; ++method) {
    System system = testing::particles(13, 1.0);
    State state = perturbed_icosahedron(3);
    ForceField ff = lj_no_cutoff();
    const MinimizeResult r =
        method == 0 ? minimize_fire(system, state, ff, fire(1e-7)) : minimize_lbfgs(system, state, ff, lbfgs(1e-7));
    const char* who = method == 0 ? "FIRE" : "L-BFGS";
    std::printf("figure: %s LJ13: E = %.7f (Cambridge Cluster Database: -44.326801), %lld iterations, %lld "
                "evaluations\n",
                who, r.energy, (long long)r.iterations, (long long)r.evaluations);
    EXPECT_TRUE(r.converged) << who << ": " << r.stop_reason;
    EXPECT_NEAR(r.energy, -44.326801, 5e-7) << who;
    // The centre's 12 neighbours are all at one distance (the icosahedron's symmetry).
    Vec3 c = state.positions[0];
    double lo = 1e9, hi = 0;
    for (size_t i = 1; i < 13; ++i) {
      lo = std::min(lo, norm(state.positions[i] - c));
      hi = std::max(hi, norm(state.positions[i] - c));
    }
    EXPECT_LT(hi - lo, 1e-6) << who;
  }
}

TEST(Minimize, FixedParticlesStayPut) {
  for (int method = 0; method < 2; ++method) {
    System system;
    system.units = Units::lj();
    system.add_particle(0, 0, "wall");
    system.add_particle(1.0, 0, "A");
    State state;
    state.positions = {{0.5, 0.5, 0.5}, {1.6, 0.5, 0.5}};
    ForceField ff = lj_no_cutoff();
    const MinimizeResult r =
        method == 0 ? minimize_fire(system, state, ff, fire(1e-8)) : minimize_lbfgs(system, state, ff, lbfgs(1e-8));
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(state.positions[0], (Vec3{0.5, 0.5, 0.5}));
    EXPECT_NEAR(state.positions[1].x, 0.5 + kRmin, 1e-9);
  }
}

TEST(Minimize, FireKeepsConstraints) {
  // A and B held 1.5 apart by a constraint (their own LJ pair left out); C attracted by both.
  System system = testing::particles(3, 1.0);
  system.topology.constraints.push_back({0, 1, 1.5});
  State state;
  state.positions = {{0, 0, 0}, {1.4, 0.1, 0}, {0.3, 1.7, 0.4}};
  auto lj = std::make_shared<testing::BruteForceLJ>(1.0, 1.0, 0.0, false);
  lj->set_molecules({0, 0, 1});
  ForceField ff = testing::force_field_of({lj});
  const MinimizeResult r = minimize_fire(system, state, ff, fire(1e-8));
  EXPECT_TRUE(r.converged) << r.stop_reason;
  EXPECT_NEAR(norm(state.positions[1] - state.positions[0]), 1.5, 1e-9);
  EXPECT_NEAR(norm(state.positions[2] - state.positions[0]), kRmin, 1e-8);
  EXPECT_NEAR(norm(state.positions[2] - state.positions[1]), kRmin, 1e-8);
  EXPECT_NEAR(r.energy, -2.0, 1e-12);
  EXPECT_THROW(minimize_lbfgs(system, state, ff, lbfgs(1e-8)), ValueError);
}

TEST(Minimize, StopsAtMaxIterationsAndRejectsBadOptions) {
  System system = testing::particles(13, 1.0);
  State state = perturbed_icosahedron(4);
  ForceField ff = lj_no_cutoff();
  FireOptions few = fire(1e-10);
  few.max_iterations = 3;
  const MinimizeResult r = minimize_fire(system, state, ff, few);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 3);
  EXPECT_EQ(r.stop_reason, "max_iterations reached");
  try {
    minimize_lbfgs(system, state, ff, lbfgs(0.0));
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("force_tolerance"), std::string::npos) << e.what();
  }
  LbfgsOptions bad = lbfgs(1e-3);
  bad.memory = 0;
  EXPECT_THROW(minimize_lbfgs(system, state, ff, bad), ValueError);
  FireOptions worse = fire(1e-3);
  worse.dt_shrink = 1.5;
  EXPECT_THROW(minimize_fire(system, state, ff, worse), ValueError);
}

}  // namespace
}  // namespace spire::sponge
