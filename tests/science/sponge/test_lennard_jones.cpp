// Lennard-Jones: the pair function against the textbook formula (cut, shifted) and the defining
// properties of GROMACS's force switch (forces continuous and zero with zero slope at the
// cutoff, potential zero there, the force minus the potential's derivative); the neighbour-list
// kernel against a brute-force O(N^2) sum over images in orthorhombic, triclinic and open boxes
// for every mode and a two-type mixture; forces against finite differences of the energy; the
// virial against the derivative of the energy under strain; tail corrections against Allen and
// Tildesley's closed forms and, for the force switch, against a numerical integral; mixing
// rules; 1-4 pairs and exclusions; the same bits on 1 and 2 threads; and the errors.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "science/sponge/lennard_jones.h"

namespace spire::sponge {
namespace {

constexpr double kPi = std::numbers::pi;

// 4 eps ((s/r)^12 - (s/r)^6), written out independently of the code under test.
double lj(double eps, double sigma, double r) {
  const double s6 = std::pow(sigma / r, 6);
  return 4 * eps * (s6 * s6 - s6);
}
double lj_force(double eps, double sigma, double r) {  // -dU/dr
  const double s6 = std::pow(sigma / r, 6);
  return 24 * eps * (2 * s6 * s6 - s6) / r;
}

// Two types, A (eps 1, sigma 1) and B (eps 0.6, sigma 1.2), mixed by Lorentz-Berthelot.
LennardJones make_lj(double cutoff, LJCutoffMode mode, double rs = 0) {
  LennardJones f(cutoff, mode, rs);
  f.set_type("A", 1.0, 1.0);
  f.set_type("B", 0.6, 1.2);
  return f;
}

// n particles at least min_dist apart (nearest images), alternating types A and B, in the box
// (or, without one, a cube of side `side`).
void random_fluid(const Box& box, int n, double min_dist, double side, std::mt19937_64& rng, System& system,
                  State& state) {
  std::uniform_real_distribution<double> u(0, 1);
  state = State{};
  state.box = box;
  system = System{};
  system.units = Units::lj();
  while (int(state.positions.size()) < n) {
    Vec3 s{u(rng), u(rng), u(rng)};
    Vec3 r = box.periodic() ? box.from_fractional(s) : s * side;
    bool ok = true;
    for (const Vec3& q : state.positions) ok = ok && norm2(box.min_image(r - q)) >= min_dist * min_dist;
    if (!ok) continue;
    state.positions.push_back(r);
    system.add_particle(1.0, 0.0, state.positions.size() % 2 ? "A" : "B");
  }
}

struct Reference {
  double energy = 0;
  std::vector<Vec3> forces;
  Mat3 virial;
};

// The sum over every pair and every image within the cutoff (up to 1 cell each way), using the
// pair function as given.
Reference brute_force(const LennardJones& f, const System& system, const State& state) {
  Reference ref;
  const int64_t n = system.size();
  ref.forces.assign(size_t(n), Vec3{});
  const Box& box = state.box;
  const int reach = box.periodic() ? 1 : 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      if (system.topology.excluded(int(i), int(j))) continue;
      const LJParameters p = f.parameters(system.type_names[size_t(system.type[size_t(i)])],
                                          system.type_names[size_t(system.type[size_t(j)])]);
      Vec3 d0 = state.positions[size_t(i)] - state.positions[size_t(j)];
      if (box.periodic()) {
        Vec3 s = box.to_fractional(d0);
        d0 -= std::round(s.x) * box.a() + std::round(s.y) * box.b() + std::round(s.z) * box.c();
      }
      for (int a = -reach; a <= reach; ++a)
        for (int b = -reach; b <= reach; ++b)
          for (int c = -reach; c <= reach; ++c) {
            const Vec3 d = box.periodic() ? d0 + double(a) * box.a() + double(b) * box.b() + double(c) * box.c() : d0;
            const double r = norm(d);
            if (r >= f.cutoff()) continue;
            ref.energy += f.pair_energy(p, r);
            const Vec3 fij = (f.pair_force(p, r) / r) * d;
            ref.forces[size_t(i)] += fij;
            ref.forces[size_t(j)] -= fij;
            ref.virial.add_outer(d, fij);
          }
    }
  return ref;
}

ForceResult evaluate(LennardJones& f, const System& system, const State& state, double skin = 0.3) {
  NeighborList list(f.cutoff(), skin);
  list.update(system, state);
  ForceResult out;
  out.reset(system.size());
  f.add(system, state, &list, out);
  return out;
}

void expect_matches(const Reference& ref, const ForceResult& out, const std::string& what) {
  const double e = out.energy_of("lj");
  EXPECT_NEAR(e, ref.energy, 1e-11 * (1 + std::fabs(ref.energy))) << what;
  double fmax = 1;
  for (const Vec3& v : ref.forces) fmax = std::max(fmax, norm(v));
  for (size_t i = 0; i < ref.forces.size(); ++i)
    ASSERT_LT(norm(out.forces[i] - ref.forces[i]), 1e-11 * fmax) << what << ": particle " << i;
  for (int k = 0; k < 9; ++k)
    EXPECT_NEAR(out.virial.m[size_t(k)], ref.virial.m[size_t(k)], 1e-11 * (1 + std::fabs(ref.virial.trace()))) << what;
}

TEST(LennardJones, CutAndShiftedPairFunctions) {
  LennardJones cut(2.5, LJCutoffMode::cut), shifted(2.5, LJCutoffMode::shifted);
  const LJParameters p{0.7, 1.1};
  for (double r : {0.9, 1.0, 1.234, 2.0, 2.499}) {
    EXPECT_NEAR(cut.pair_energy(p, r), lj(0.7, 1.1, r), 1e-13 * (1 + std::fabs(lj(0.7, 1.1, r))));
    EXPECT_NEAR(cut.pair_force(p, r), lj_force(0.7, 1.1, r), 1e-12 * (1 + std::fabs(lj_force(0.7, 1.1, r))));
    EXPECT_NEAR(shifted.pair_energy(p, r), lj(0.7, 1.1, r) - lj(0.7, 1.1, 2.5), 1e-12);
    EXPECT_DOUBLE_EQ(shifted.pair_force(p, r), cut.pair_force(p, r));
  }
  EXPECT_EQ(cut.pair_energy(p, 2.5), 0);
  EXPECT_EQ(cut.pair_force(p, 2.6), 0);
  EXPECT_NEAR(shifted.pair_energy(p, 2.5 - 1e-9), 0, 1e-10);
}

TEST(LennardJones, ForceSwitchShape) {
  const double rs = 1.0, rc = 1.2;  // GROMACS's CHARMM settings, in nm
  LennardJones f(rc, LJCutoffMode::force_switch, rs);
  const LJParameters p{0.5, 0.35};
  // Below the switch: the full force, the potential shifted by a constant.
  const double shift = f.pair_energy(p, 0.5) - lj(0.5, 0.35, 0.5);
  for (double r : {0.3, 0.4, 0.7, 0.99}) {
    EXPECT_NEAR(f.pair_force(p, r), lj_force(0.5, 0.35, r), 1e-12 * (1 + std::fabs(lj_force(0.5, 0.35, r))));
    EXPECT_NEAR(f.pair_energy(p, r) - lj(0.5, 0.35, r), shift, 1e-13);
  }
  // Everywhere inside: force = -dU/dr (central differences).
  for (double r = 0.32; r < rc - 1e-3; r += 0.0173) {
    const double h = 1e-6;
    const double fd = -(f.pair_energy(p, r + h) - f.pair_energy(p, r - h)) / (2 * h);
    EXPECT_NEAR(f.pair_force(p, r), fd, 1e-7 * (1 + std::fabs(fd))) << "r = " << r;
  }
  // Continuous at the switch, and force, its slope and the potential zero at the cutoff.
  EXPECT_NEAR(f.pair_force(p, rs + 1e-9), f.pair_force(p, rs - 1e-9), 1e-6);
  const double scale = std::fabs(lj_force(0.5, 0.35, rs));
  EXPECT_NEAR(f.pair_force(p, rc - 1e-9), 0, 1e-9 * scale);
  // The slope vanishes linearly towards rc (so F'(rc) = 0): ten times closer, ten times smaller.
  auto slope = [&](double r) { return (f.pair_force(p, r + 1e-7) - f.pair_force(p, r - 1e-7)) / 2e-7; };
  EXPECT_NEAR(slope(rc - 1e-4) / slope(rc - 1e-3), 0.1, 1e-3);
  EXPECT_NEAR(f.pair_energy(p, rc - 1e-9), 0, 1e-12);
  EXPECT_EQ(f.pair_energy(p, rc), 0);
  // The switch changes the force by less than the force itself (a gentle modification).
  EXPECT_LT(std::fabs(f.pair_force(p, 1.1) - lj_force(0.5, 0.35, 1.1)), std::fabs(lj_force(0.5, 0.35, 1.1)) * 1.5);
}

TEST(LennardJones, KernelMatchesBruteForceInEveryBoxAndMode) {
  std::mt19937_64 rng(11);
  const Box boxes[] = {Box::orthorhombic(7.5, 8.0, 8.5), Box::triclinic({8, 0, 0}, {2.5, 7.5, 0}, {-3.0, 2.0, 7.8}),
                       Box::none()};
  for (const Box& box : boxes)
    for (LJCutoffMode mode : {LJCutoffMode::cut, LJCutoffMode::shifted, LJCutoffMode::force_switch}) {
      System system;
      State state;
      random_fluid(box, 260, 0.85, 7.0, rng, system, state);
      LennardJones f = make_lj(2.5, mode, mode == LJCutoffMode::force_switch ? 2.0 : 0);
      f.set_pair("A", "B", 0.9, 1.05);  // an explicit pair instead of mixing
      const std::string what = (box.periodic() ? box.orthorhombic() ? "orthorhombic " : "triclinic " : "no box ") + to_string(mode);
      expect_matches(brute_force(f, system, state), evaluate(f, system, state), what);
    }
}

TEST(LennardJones, SingleTypeMatchesBruteForce) {
  // One type takes the kernel's uniform-parameter path.
  std::mt19937_64 rng(12);
  System system;
  State state;
  random_fluid(Box::orthorhombic(7, 7, 7), 250, 0.85, 0, rng, system, state);
  for (int& t : system.type) t = 0;
  system.type_names = {"A"};
  LennardJones f(2.5, LJCutoffMode::shifted);
  f.set_type("A", 1.3, 0.95);
  expect_matches(brute_force(f, system, state), evaluate(f, system, state), "single type");
}

// Energy at positions moved by h along one coordinate of one particle.
double energy_at(LennardJones& f, const System& system, State state, size_t i, int k, double h) {
  state.positions[i][k] += h;
  return evaluate(f, system, state).energy_of("lj");
}

TEST(LennardJones, ForcesAreMinusTheEnergyGradient) {
  std::mt19937_64 rng(13);
  for (LJCutoffMode mode : {LJCutoffMode::shifted, LJCutoffMode::force_switch}) {
    System system;
    State state;
    random_fluid(Box::triclinic({6.5, 0, 0}, {1.5, 6.5, 0}, {-2, 1, 6.5}), 90, 0.9, 0, rng, system, state);
    // A 1-4 pair (excluded from the ordinary sum) joins in too.
    system.topology.pairs14.push_back({3, 40, 0.5, 0.5});
    system.topology.exclusions.push_back({3, 40});
    system.topology.normalize_exclusions();
    LennardJones f = make_lj(2.5, mode, mode == LJCutoffMode::force_switch ? 1.8 : 0);
    const ForceResult out = evaluate(f, system, state);
    for (size_t i : {size_t(0), size_t(3), size_t(40), size_t(77)})
      for (int k = 0; k < 3; ++k) {
        const double h = 1e-5;
        const double fd = -(energy_at(f, system, state, i, k, h) - energy_at(f, system, state, i, k, -h)) / (2 * h);
        EXPECT_NEAR(out.forces[i][k], fd, 1e-6 * (1 + std::fabs(fd))) << to_string(mode) << " particle " << i << " axis " << k;
      }
  }
}

TEST(LennardJones, VirialIsMinusTheStrainDerivative) {
  // Under r -> mu r (and the box with it), dU/d mu_ab = -W_ba for a pair potential. Reduced
  // form admits upper-triangular strains: xx yy zz xy xz yz.
  std::mt19937_64 rng(14);
  System system;
  State state;
  random_fluid(Box::triclinic({7, 0, 0}, {2, 7, 0}, {-1.5, 2.5, 7}), 150, 0.9, 0, rng, system, state);
  LennardJones f = make_lj(2.5, LJCutoffMode::force_switch, 2.1);
  const ForceResult out = evaluate(f, system, state);
  auto strained = [&](int a, int b, double eps) {
    Mat3 mu = Mat3::identity();
    mu(a, b) += eps;
    State s = state;
    s.box = state.box.scaled(mu);
    for (Vec3& r : s.positions) r = Vec3{mu(0, 0) * r.x + mu(0, 1) * r.y + mu(0, 2) * r.z,
                                         mu(1, 0) * r.x + mu(1, 1) * r.y + mu(1, 2) * r.z,
                                         mu(2, 0) * r.x + mu(2, 1) * r.y + mu(2, 2) * r.z};
    return evaluate(f, system, s).energy_of("lj");
  };
  for (auto [a, b] : {std::pair{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}}) {
    const double h = 1e-6;
    const double derivative = (strained(a, b, h) - strained(a, b, -h)) / (2 * h);
    EXPECT_NEAR(-derivative, out.virial(b, a), 1e-5 * (1 + std::fabs(derivative))) << a << b;
  }
  // Pair forces are central: the virial is symmetric.
  EXPECT_DOUBLE_EQ(out.virial(0, 1), out.virial(1, 0));
  EXPECT_DOUBLE_EQ(out.virial(1, 2), out.virial(2, 1));
}

TEST(LennardJones, TailCorrectionsMatchClosedForms) {
  // One type: Allen and Tildesley (2.144): E/N = 8/3 pi rho eps s^3 [(s/rc)^9 / 3 - (s/rc)^3],
  // P = 16/3 pi rho^2 eps s^3 [2/3 (s/rc)^9 - (s/rc)^3].
  std::mt19937_64 rng(15);
  System system;
  State state;
  random_fluid(Box::orthorhombic(8, 8, 8), 200, 0.9, 0, rng, system, state);
  for (int& t : system.type) t = 0;
  system.type_names = {"A"};
  const double eps = 1.2, sigma = 0.9, rc = 2.7;
  for (LJCutoffMode mode : {LJCutoffMode::cut, LJCutoffMode::shifted}) {
    LennardJones f(rc, mode);
    f.set_type("A", eps, sigma);
    const ForceResult plain = evaluate(f, system, state);
    f.set_tail_correction(true);
    const ForceResult tail = evaluate(f, system, state);
    const double n = 200, v = 512, rho = n / v, q3 = std::pow(sigma / rc, 3), q9 = q3 * q3 * q3;
    const double e_tail = n * 8.0 / 3 * kPi * rho * eps * std::pow(sigma, 3) * (q9 / 3 - q3);
    const double p_tail = 16.0 / 3 * kPi * rho * rho * eps * std::pow(sigma, 3) * (2.0 / 3 * q9 - q3);
    EXPECT_NEAR(tail.energy_of("lj") - plain.energy_of("lj"), e_tail, 1e-12 * std::fabs(e_tail));
    const Mat3 dw = tail.virial + plain.virial * -1.0;
    EXPECT_NEAR(dw.trace() / (3 * v), p_tail, 1e-12 * std::fabs(p_tail));
    EXPECT_NEAR(dw(0, 0), dw(1, 1), 1e-12 * std::fabs(dw(0, 0)));
    EXPECT_EQ(dw(0, 1), 0);
    for (size_t i = 0; i < plain.forces.size(); ++i) EXPECT_EQ(plain.forces[i], tail.forces[i]);
  }
}

TEST(LennardJones, MixtureTailCorrectionSumsOverTypePairs) {
  std::mt19937_64 rng(16);
  System system;
  State state;
  random_fluid(Box::orthorhombic(8, 9, 10), 150, 0.9, 0, rng, system, state);
  LennardJones f = make_lj(2.6, LJCutoffMode::cut);
  f.set_mixing(LJMixing::geometric);
  const ForceResult plain = evaluate(f, system, state);
  f.set_tail_correction(true);
  const ForceResult tail = evaluate(f, system, state);
  // (2 pi / V) sum_ab N_a N_b int_rc^inf r^2 U_ab, with geometric mixing done here.
  const double v = 720, rc = 2.6;
  double na = 0, nb = 0;
  for (int t : system.type) (system.type_names[size_t(t)] == "A" ? na : nb) += 1;
  auto integral = [&](double eps, double sigma) {
    const double s6 = std::pow(sigma, 6);
    return 4 * eps * (s6 * s6 / (9 * std::pow(rc, 9)) - s6 / (3 * std::pow(rc, 3)));
  };
  const double ab = integral(std::sqrt(0.6), std::sqrt(1.2));
  const double e_tail = 2 * kPi / v * (na * na * integral(1, 1) + nb * nb * integral(0.6, 1.2) + 2 * na * nb * ab);
  EXPECT_NEAR(tail.energy_of("lj") - plain.energy_of("lj"), e_tail, 1e-12 * std::fabs(e_tail));
}

TEST(LennardJones, ForceSwitchTailIntegratesTheMissingInteraction) {
  // E_tail = (2 pi N^2 / V) int_rs^inf r^2 (U_LJ - U_switched) dr and
  // P_tail = (2 pi N^2 / (3 V^2)) int_rs^inf r^3 (F_LJ - F_switched) dr, here by Simpson's rule.
  std::mt19937_64 rng(17);
  System system;
  State state;
  random_fluid(Box::orthorhombic(8, 8, 8), 180, 0.9, 0, rng, system, state);
  for (int& t : system.type) t = 0;
  system.type_names = {"A"};
  const double rs = 1.9, rc = 2.5, n = 180, v = 512;
  LennardJones f(rc, LJCutoffMode::force_switch, rs);
  f.set_type("A", 1, 1);
  const ForceResult plain = evaluate(f, system, state);
  f.set_tail_correction(true);
  const ForceResult tail = evaluate(f, system, state);
  const LJParameters p{1, 1};
  auto simpson = [](auto g, double a, double b, int m) {
    const double h = (b - a) / m;
    double s = g(a) + g(b);
    for (int k = 1; k < m; ++k) s += g(a + k * h) * (k % 2 ? 4 : 2);
    return s * h / 3;
  };
  const double far = 60;
  double ie = simpson([&](double r) { return r * r * (lj(1, 1, r) - f.pair_energy(p, r)); }, rs, rc, 2000) +
              simpson([&](double r) { return r * r * lj(1, 1, r); }, rc, far, 200000) + 4 * (1 / (9 * std::pow(far, 9)) - 1 / (3 * std::pow(far, 3)));
  double ip = simpson([&](double r) { return r * r * r * (lj_force(1, 1, r) - f.pair_force(p, r)); }, rs, rc, 2000) +
              simpson([&](double r) { return r * r * r * lj_force(1, 1, r); }, rc, far, 200000) + 4 * (4.0 / (3 * std::pow(far, 9)) - 2 / std::pow(far, 3));
  EXPECT_NEAR(tail.energy_of("lj") - plain.energy_of("lj"), 2 * kPi * n * n / v * ie, 1e-9 * std::fabs(2 * kPi * n * n / v * ie));
  const Mat3 dw = tail.virial + plain.virial * -1.0;
  const double p_tail = 2 * kPi * n * n / (3 * v * v) * ip;
  EXPECT_NEAR(dw.trace() / (3 * v), p_tail, 1e-9 * std::fabs(p_tail));
}

TEST(LennardJones, MixingRulesAndExplicitPairs) {
  LennardJones f(2.5);
  f.set_type("C", 0.4, 3.0);
  f.set_type("O", 0.9, 2.0);
  LJParameters lb = f.parameters("C", "O");
  EXPECT_DOUBLE_EQ(lb.epsilon, std::sqrt(0.36));
  EXPECT_DOUBLE_EQ(lb.sigma, 2.5);
  f.set_mixing(LJMixing::geometric);
  LJParameters geo = f.parameters("O", "C");
  EXPECT_DOUBLE_EQ(geo.epsilon, std::sqrt(0.36));
  EXPECT_DOUBLE_EQ(geo.sigma, std::sqrt(6.0));
  f.set_pair("O", "C", 0.11, 2.2);
  EXPECT_DOUBLE_EQ(f.parameters("C", "O").epsilon, 0.11);
  EXPECT_DOUBLE_EQ(f.parameters("O", "C").sigma, 2.2);
  EXPECT_DOUBLE_EQ(f.parameters("O", "O").sigma, 2.0);
  // A type without Lennard-Jones (TIP3P's hydrogens) mixes to nothing.
  f.set_type("H", 0, 0);
  EXPECT_EQ(f.parameters("H", "O").epsilon, 0);
  EXPECT_EQ(lj_mixing("arithmetic"), LJMixing::lorentz_berthelot);
  EXPECT_EQ(lj_mixing("geometric"), LJMixing::geometric);
  EXPECT_EQ(lj_cutoff_mode("force_switch"), LJCutoffMode::force_switch);
  EXPECT_THROW(lj_mixing("waldman"), ConfigError);
  EXPECT_THROW(lj_cutoff_mode("switch"), ConfigError);
}

TEST(LennardJones, PairsOneFourAreScaledAndExclusionsLeftOut) {
  System system;
  for (int i = 0; i < 4; ++i) system.add_particle(1, 0, "A");
  State state;
  state.box = Box::orthorhombic(20, 20, 20);
  // A chain 0-1-2-3 with bonds; 0 and 3 are 3.1 apart: beyond the 2.5 cutoff, but a 1-4 pair is
  // the full interaction.
  state.positions = {{1, 1, 1}, {2.0, 1, 1}, {2.5, 1.9, 1}, {2.6, 3.0, 3.0}};
  system.topology.bonds = {{0, 1, 1.0, 100}, {1, 2, 1.0, 100}, {2, 3, 1.0, 100}};
  system.topology.exclude_bonded(0.8333, 0.5);
  ASSERT_EQ(system.topology.pairs14.size(), 1u);
  LennardJones f(2.5);
  f.set_type("A", 1.0, 1.0);
  f.check(system, state);
  const ForceResult out = evaluate(f, system, state);
  const double r03 = norm(state.positions[3] - state.positions[0]);
  EXPECT_GT(r03, 2.5);
  EXPECT_NEAR(out.energy_of("lj"), 0.5 * lj(1, 1, r03), 1e-14);
  const Vec3 f0 = (0.5 * lj_force(1, 1, r03) / r03) * (state.positions[0] - state.positions[3]);
  EXPECT_NEAR(norm(out.forces[0] - f0), 0, 1e-14);
  EXPECT_NEAR(norm(out.forces[3] + f0), 0, 1e-14);
  EXPECT_EQ(out.forces[1], Vec3{});
}

TEST(LennardJones, SameBitsOnOneAndTwoThreads) {
  // 13824 particles on a jittered grid (about 550 000 pairs: 8 blocks of rows), in grid
  // order and shuffled (windows spanning the whole force array).
  std::mt19937_64 rng(18);
  std::uniform_real_distribution<double> jitter(-0.1, 0.1);
  System system;
  State state;
  state.box = Box::triclinic({25, 0, 0}, {6, 24.5, 0}, {-7, 5, 25.6});
  const int m = 24;
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b)
      for (int c = 0; c < m; ++c) {
        state.positions.push_back(state.box.from_fractional({(a + 0.5) / m, (b + 0.5) / m, (c + 0.5) / m}) +
                                  Vec3{jitter(rng), jitter(rng), jitter(rng)});
        system.add_particle(1, 0, (a + b + c) % 3 ? "A" : "B");
      }
  std::vector<size_t> order(state.positions.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  System shuffled_system = system;
  State shuffled = state;
  for (size_t i = 0; i < order.size(); ++i) {
    shuffled.positions[i] = state.positions[order[i]];
    shuffled_system.type[i] = system.type[order[i]];
  }
  LennardJones f = make_lj(2.5, LJCutoffMode::force_switch, 2.0);
  const int threads = omp_get_max_threads();
  auto on = [&](int t, const System& sys, const State& st) {
    omp_set_num_threads(t);
    ForceResult r = evaluate(f, sys, st);
    omp_set_num_threads(threads);
    return r;
  };
  for (bool shuffle : {false, true}) {
    const System& sys = shuffle ? shuffled_system : system;
    const State& st = shuffle ? shuffled : state;
    const ForceResult one = on(1, sys, st), two = on(2, sys, st);
    EXPECT_EQ(one.energy_of("lj"), two.energy_of("lj"));
    EXPECT_EQ(one.virial.m, two.virial.m);
    for (size_t i = 0; i < one.forces.size(); ++i) ASSERT_EQ(one.forces[i], two.forces[i]) << i;
    if (shuffle) {
      // The same physics in another order: equal to round-off.
      const ForceResult plain = on(2, system, state);
      EXPECT_NEAR(one.energy_of("lj"), plain.energy_of("lj"), 1e-12 * std::fabs(plain.energy_of("lj")));
      for (size_t i = 0; i < order.size(); ++i)
        ASSERT_LT(norm(one.forces[i] - plain.forces[order[i]]), 1e-10) << i;
    }
  }
}

// The sums depend only on the pairs inside the cutoff: a list with another skin, or one built at
// positions a little way back (as a run's list is, steps before), gives the same bits, which is what
// makes a restart from a checkpoint (whose list is built afresh) bit for bit.
TEST(LennardJones, SameBitsWhateverTheSkinAndWhenTheListWasBuilt) {
  std::mt19937_64 rng(5);
  System system;
  State state;
  state.box = Box::triclinic({9, 0, 0}, {2, 8.5, 0}, {-1.5, 1, 9.2});
  random_fluid(state.box, 500, 0.9, 9, rng, system, state);
  LennardJones f = make_lj(2.5, LJCutoffMode::shifted);
  const ForceResult fresh = evaluate(f, system, state, 0.3);
  // A list built at positions up to 0.1 away (under half the 0.3 skin) and kept.
  State earlier = state;
  std::uniform_real_distribution<double> step(-0.05, 0.05);
  for (Vec3& p : earlier.positions) p += Vec3{step(rng), step(rng), step(rng)};
  NeighborList old_list(2.5, 0.3);
  old_list.build(system, earlier);
  ASSERT_FALSE(old_list.update(system, state));  // still valid: no rebuild
  ForceResult kept;
  kept.reset(system.size());
  f.add(system, state, &old_list, kept);
  for (double skin : {0.0, 0.7}) {
    const ForceResult other = evaluate(f, system, state, skin);
    EXPECT_EQ(other.energy_of("lj"), fresh.energy_of("lj")) << "skin " << skin;
    EXPECT_EQ(other.virial.m, fresh.virial.m) << "skin " << skin;
    for (size_t i = 0; i < fresh.forces.size(); ++i) ASSERT_EQ(other.forces[i], fresh.forces[i]) << i;
  }
  EXPECT_EQ(kept.energy_of("lj"), fresh.energy_of("lj"));
  EXPECT_EQ(kept.virial.m, fresh.virial.m);
  for (size_t i = 0; i < fresh.forces.size(); ++i) ASSERT_EQ(kept.forces[i], fresh.forces[i]) << i;
}

TEST(LennardJones, Errors) {
  EXPECT_THROW(LennardJones(0), ValueError);
  EXPECT_THROW(LennardJones(2.5, LJCutoffMode::force_switch, 2.5), ValueError);
  EXPECT_THROW(LennardJones(2.5, LJCutoffMode::force_switch, 0), ValueError);
  EXPECT_THROW(LennardJones(2.5, LJCutoffMode::cut, 2.0), ValueError);
  LennardJones f(2.5);
  EXPECT_THROW(f.set_type("A", -1, 1), ValueError);
  EXPECT_THROW(f.set_type("A", 1, 0), ValueError);
  f.set_type("A", 1, 1);
  System system;
  system.add_particle(1, 0, "A");
  system.add_particle(1, 0, "B");
  State state;
  state.box = Box::orthorhombic(10, 10, 10);
  state.positions = {{0, 0, 0}, {1, 1, 1}};
  try {
    f.check(system, state);
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'B'"), std::string::npos) << e.what();
  }
  f.set_type("B", 1, 1);
  f.check(system, state);
  system.topology.pairs14.push_back({0, 1, 0.5, 0.5});
  EXPECT_THROW(f.check(system, state), ValueError);  // a 1-4 pair not excluded
  system.topology.pairs14.clear();
  f.set_tail_correction(true);
  state.box = Box::none();
  EXPECT_THROW(f.check(system, state), ValueError);  // tail corrections without a density
  state.box = Box::orthorhombic(4.9, 10, 10);
  f.set_tail_correction(false);
  EXPECT_THROW(f.check(system, state), ValueError);  // cutoff beyond half the box
  ForceResult out;
  out.reset(2);
  EXPECT_THROW(f.add(system, state, nullptr, out), ValueError);
}

}  // namespace
}  // namespace spire::sponge
