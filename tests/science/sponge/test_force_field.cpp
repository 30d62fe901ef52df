// ForceField: terms summed with energies per term in the order added, one neighbour list of the
// longest cutoff (plus skin) shared by the terms that ask for one and none passed to the others,
// rebuilt only when a particle has moved more than half the skin (and then the same forces as a
// fresh evaluation), and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>

#include "engine/core/error.h"
#include "science/sponge/force_field.h"
#include "science/sponge/lennard_jones.h"

namespace spire::sponge {
namespace {

// A test double: E = k/2 sum |r_i - r0|^2 (no neighbour list), or, with a cutoff, the number of
// listed pairs as its "energy". Records the list it was given.
class Probe final : public Force {
 public:
  Probe(std::string name, double cutoff) : name_(std::move(name)), cutoff_(cutoff) {}
  std::string name() const override { return name_; }
  double cutoff() const override { return cutoff_; }
  void add(const System& system, const State& state, const NeighborList* neighbors, ForceResult& out) override {
    seen = neighbors;
    seen_cutoff = neighbors ? neighbors->cutoff() : 0;
    if (cutoff_ > 0) {
      out.add_energy(name_, double(neighbors->pairs()));
      return;
    }
    const double k = 2.0;
    double e = 0;
    for (size_t i = 0; i < state.positions.size(); ++i) {
      const Vec3 d = state.positions[i] - Vec3{5, 5, 5};
      e += 0.5 * k * norm2(d);
      out.forces[i] -= k * d;
      out.virial.add_outer(state.positions[i], -k * d);
    }
    out.add_energy(name_, e);
  }
  const NeighborList* seen = nullptr;
  double seen_cutoff = -1;

 private:
  std::string name_;
  double cutoff_;
};

void fluid(int n, double side, std::mt19937_64& rng, System& system, State& state) {
  std::uniform_real_distribution<double> u(0, side);
  state.box = Box::orthorhombic(side, side, side);
  while (int(state.positions.size()) < n) {
    const Vec3 r{u(rng), u(rng), u(rng)};
    bool ok = true;
    for (const Vec3& q : state.positions) ok = ok && norm2(state.box.min_image(r - q)) > 0.81;
    if (!ok) continue;
    state.positions.push_back(r);
    system.add_particle(1, 0, "A");
  }
}

TEST(ForceField, SumsTermsAndSharesOneList) {
  std::mt19937_64 rng(21);
  System system;
  State state;
  fluid(200, 8, rng, system, state);
  auto lj = std::make_shared<LennardJones>(2.5);
  lj->set_type("A", 1, 1);
  auto tether = std::make_shared<Probe>("tether", 0);
  auto counter = std::make_shared<Probe>("counter", 3.0);
  ForceField ff(0.25);
  ff.add(lj);
  ff.add(tether);
  ff.add(counter);
  ff.check(system, state);
  const ForceResult& r = ff.compute(system, state);
  // One list for all, of the longest cutoff; none for the term without one.
  ASSERT_NE(ff.neighbors(), nullptr);
  EXPECT_EQ(ff.neighbors()->cutoff(), 3.0);
  EXPECT_EQ(ff.neighbors()->skin(), 0.25);
  EXPECT_EQ(counter->seen, ff.neighbors());
  EXPECT_EQ(tether->seen, nullptr);
  ASSERT_EQ(r.energies.size(), 3u);
  EXPECT_EQ(r.energies[0].first, "lj");
  EXPECT_EQ(r.energies[1].first, "tether");
  EXPECT_EQ(r.energies[2].first, "counter");
  EXPECT_EQ(r.energy_of("counter"), double(ff.neighbors()->pairs()));

  // The LJ part equals the term evaluated alone with its own list; the tether's is known.
  NeighborList own(2.5, 0.0);
  own.update(system, state);
  ForceResult alone;
  alone.reset(system.size());
  lj->add(system, state, &own, alone);
  EXPECT_NEAR(r.energy_of("lj"), alone.energy_of("lj"), 1e-10 * std::fabs(alone.energy_of("lj")));
  for (size_t i = 0; i < state.positions.size(); ++i) {
    const Vec3 want = alone.forces[i] - 2.0 * (state.positions[i] - Vec3{5, 5, 5});
    EXPECT_LT(norm(r.forces[i] - want), 1e-9 * (1 + norm(want)));
  }
  EXPECT_DOUBLE_EQ(r.energy(), r.energy_of("lj") + r.energy_of("tether") + r.energy_of("counter"));
}

TEST(ForceField, RebuildsOnlyWhenNeededAndNeverStale) {
  std::mt19937_64 rng(22);
  System system;
  State state;
  fluid(300, 8, rng, system, state);
  auto lj = std::make_shared<LennardJones>(2.5, LJCutoffMode::shifted);
  lj->set_type("A", 1, 1);
  ForceField ff(0.4);
  ff.add(lj);
  ff.compute(system, state);
  EXPECT_EQ(ff.neighbors()->builds(), 1);
  std::normal_distribution<double> step(0, 0.02);
  for (int s = 0; s < 40; ++s) {
    for (Vec3& r : state.positions) r += Vec3{step(rng), step(rng), step(rng)};
    const ForceResult& r = ff.compute(system, state);
    // The same as a fresh list would give: no pair within the cutoff missing.
    ForceField fresh(0.4);
    fresh.add(std::make_shared<LennardJones>(*lj));
    const ForceResult& want = fresh.compute(system, state);
    ASSERT_NEAR(r.energy_of("lj"), want.energy_of("lj"), 1e-9 * std::fabs(want.energy_of("lj"))) << "step " << s;
  }
  // Steps of ~0.035 against a half skin of 0.2: a rebuild every few steps, not every step.
  EXPECT_GT(ff.neighbors()->builds(), 4);
  EXPECT_LT(ff.neighbors()->builds(), 30);
}

TEST(ForceField, NoListWithoutCutoffs) {
  System system;
  system.add_particle(1, 0, "A");
  State state;
  state.positions = {{1, 2, 3}};
  ForceField ff;
  auto tether = std::make_shared<Probe>("tether", 0);
  ff.add(tether);
  const ForceResult& r = ff.compute(system, state);
  EXPECT_EQ(ff.neighbors(), nullptr);
  EXPECT_DOUBLE_EQ(r.energy(), 0.5 * 2.0 * (16 + 9 + 4));
}

TEST(ForceField, Errors) {
  EXPECT_THROW(ForceField(-0.1), ValueError);
  ForceField ff(0.3);
  EXPECT_THROW(ff.add(nullptr), ValueError);
  auto lj = std::make_shared<LennardJones>(2.5);
  ff.add(lj);
  EXPECT_THROW(ff.add(std::make_shared<LennardJones>(3.0)), ValueError);  // a second "lj"
  System system;
  system.add_particle(1, 0, "A");
  system.add_particle(1, 0, "A");
  State state;
  state.positions = {{0, 0, 0}, {1, 0, 0}};
  state.box = Box::orthorhombic(5.5, 10, 10);  // 2.5 + 0.3 > 5.5 / 2
  lj->set_type("A", 1, 1);
  EXPECT_THROW(ff.check(system, state), ValueError);
  EXPECT_THROW(ff.compute(system, state), ValueError);
  state.box = Box::orthorhombic(10, 10, 10);
  ff.check(system, state);
  state.positions.pop_back();
  EXPECT_THROW(ff.check(system, state), ValueError);  // 1 position, 2 particles
}

}  // namespace
}  // namespace spire::sponge
