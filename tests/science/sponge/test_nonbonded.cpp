// The pair kernel (nonbonded.h): Lennard-Jones and Coulomb in one pass against the two terms
// evaluated apart (each tested against brute force in its own file), on SPC/E water with PME and
// on a three-type mixture with Ewald and with reaction field, in orthorhombic and triclinic
// boxes; the Ewald spline in r^2 against erfc; the same bits with AVX2 and AVX-512, on 1 and 2
// threads, and whatever the skin or the step the list was built at.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "science/sponge/coulomb.h"
#include "science/sponge/ewald.h"
#include "science/sponge/force_field.h"
#include "science/sponge/lennard_jones.h"
#include "science/sponge/nonbonded.h"
#include "science/sponge/pme.h"
#include "science/sponge/reaction_field.h"
#include "science/sponge/water.h"

namespace spire::sponge {
namespace {

bool has_avx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
}

struct Particles {
  System system;
  State state;
};

// SPC/E waters (500: a 2.47 nm box) as the builder places them.
Particles water(uint64_t seed = 5, int64_t molecules = 500) {
  WaterBoxOptions o;
  o.molecules = molecules;
  o.seed = seed;
  WaterBox box = water_box(WaterModel::spce(), o);
  return {box.system, box.state};
}

std::shared_ptr<LennardJones> water_lj(double cutoff) {
  const WaterModel spce = WaterModel::spce();
  auto lj = std::make_shared<LennardJones>(cutoff, LJCutoffMode::cut);
  lj->set_type(kWaterOxygenType, spce.epsilon_o, spce.sigma_o);
  lj->set_type(kWaterHydrogenType, 0, 0);
  lj->set_tail_correction(true);
  return lj;
}

std::shared_ptr<PmeCoulomb> water_pme(double cutoff) {
  PmeOptions o;
  o.cutoff = cutoff;
  o.tolerance = 5e-4;
  return std::make_shared<PmeCoulomb>(o);
}

// Three types (A, B uncharged-capable, C without Lennard-Jones), random charges (some zero) and a
// few excluded pairs, at liquid-like density in nm.
Particles mixture(const Box& box, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1), q(-1, 1);
  Particles s;
  s.system.units = Units::md();
  s.state.box = box;
  const char* types[3] = {"A", "B", "C"};
  while (int(s.state.positions.size()) < n) {
    const Vec3 r = box.from_fractional({u(rng), u(rng), u(rng)});
    bool ok = true;
    for (const Vec3& p : s.state.positions) ok = ok && norm2(box.min_image(r - p)) > 0.2 * 0.2;
    if (!ok) continue;
    const int k = int(s.state.positions.size());
    s.state.positions.push_back(r);
    s.system.add_particle(1.0, k % 5 == 0 ? 0.0 : q(rng), types[k % 3]);
  }
  for (int k = 0; k + 1 < n; k += 7) s.system.topology.exclusions.push_back({k, k + 1});
  s.system.topology.normalize_exclusions();
  return s;
}

std::shared_ptr<LennardJones> mixture_lj(double cutoff, LJCutoffMode mode, double rs = 0) {
  auto lj = std::make_shared<LennardJones>(cutoff, mode, rs);
  lj->set_type("A", 0.8, 0.30);
  lj->set_type("B", 0.5, 0.36);
  lj->set_type("C", 0.0, 0.0);
  lj->set_pair("A", "B", 0.7, 0.32);
  return lj;
}

struct Terms {
  ForceResult together, apart;
};

// The force field's one pass against the two terms evaluated one after the other with their own
// kernels over the same list.
Terms evaluate(const Particles& s, const std::shared_ptr<LennardJones>& lj,
               const std::shared_ptr<CoulombForce>& coulomb, double skin) {
  ForceField ff(skin);
  ff.add(lj);
  ff.add(coulomb);
  ff.check(s.system, s.state);
  Terms t;
  t.together = ff.compute(s.system, s.state);
  t.apart.reset(s.system.size());
  lj->add(s.system, s.state, ff.neighbors(), t.apart);
  coulomb->add(s.system, s.state, ff.neighbors(), t.apart);
  return t;
}

void expect_close(const Terms& t, double tolerance, const std::string& what) {
  ASSERT_EQ(t.together.energies.size(), 2u) << what;
  EXPECT_EQ(t.together.energies[0].first, "lj") << what;
  EXPECT_EQ(t.together.energies[1].first, "coulomb") << what;
  for (const char* term : {"lj", "coulomb"}) {
    const double a = t.together.energy_of(term), b = t.apart.energy_of(term);
    EXPECT_NEAR(a, b, tolerance * std::max(1.0, std::fabs(b))) << what << ": " << term;
  }
  double largest = 0, worst = 0;
  for (size_t i = 0; i < t.apart.forces.size(); ++i) {
    largest = std::max(largest, norm(t.apart.forces[i]));
    worst = std::max(worst, norm(t.together.forces[i] - t.apart.forces[i]));
  }
  EXPECT_LT(worst, tolerance * largest) << what << ": forces";
  double wmax = 0;
  for (double w : t.apart.virial.m) wmax = std::max(wmax, std::fabs(w));
  for (int k = 0; k < 9; ++k)
    EXPECT_NEAR(t.together.virial.m[size_t(k)], t.apart.virial.m[size_t(k)], tolerance * wmax) << what << ": virial";
}

void expect_same_bits(const ForceResult& a, const ForceResult& b, const std::string& what) {
  ASSERT_EQ(a.energies.size(), b.energies.size()) << what;
  for (size_t k = 0; k < a.energies.size(); ++k) EXPECT_EQ(a.energies[k].second, b.energies[k].second) << what;
  int differ = 0;
  for (size_t i = 0; i < a.forces.size(); ++i) differ += !(a.forces[i] == b.forces[i]);
  EXPECT_EQ(differ, 0) << what << ": particles whose force bits differ";
  EXPECT_EQ(a.virial.m, b.virial.m) << what;
}

TEST(Nonbonded, OnePassMatchesTheTermsApartOnWaterWithPme) {
  const Particles s = water();
  expect_close(evaluate(s, water_lj(0.9), water_pme(0.9), 0.1), 1e-12, "SPC/E, PME");
}

TEST(Nonbonded, OnePassMatchesTheTermsApartOnAMixture) {
  const Box boxes[2] = {Box::orthorhombic(3.0, 2.8, 3.2), Box::triclinic({3.0, 0, 0}, {0.6, 2.8, 0}, {-0.5, 0.7, 3.2})};
  for (int b = 0; b < 2; ++b) {
    const Particles s = mixture(boxes[b], 900, 11 + b);
    const std::string box = b == 0 ? "orthorhombic" : "triclinic";
    EwaldOptions eo;
    eo.cutoff = 1.0;
    eo.tolerance = 1e-4;
    ReactionFieldOptions rf;
    rf.cutoff = 1.0;
    expect_close(evaluate(s, mixture_lj(1.0, LJCutoffMode::shifted), std::make_shared<EwaldCoulomb>(eo), 0.2), 1e-12,
                 box + ", shifted, Ewald");
    expect_close(
        evaluate(s, mixture_lj(1.0, LJCutoffMode::force_switch, 0.8), std::make_shared<ReactionFieldCoulomb>(rf), 0.2),
        1e-12, box + ", force switch, reaction field");
  }
}

TEST(Nonbonded, TermsWithDifferentCutoffsStayApart) {
  // The one pass needs one cutoff: otherwise each term runs alone, with the same results.
  const Particles s = mixture(Box::orthorhombic(3.0, 2.8, 3.2), 600, 3);
  ReactionFieldOptions rf;
  rf.cutoff = 1.1;
  auto lj = mixture_lj(0.9, LJCutoffMode::cut);
  auto coulomb = std::make_shared<ReactionFieldCoulomb>(rf);
  const Terms t = evaluate(s, lj, coulomb, 0.1);
  expect_same_bits(t.together, t.apart, "LJ 0.9, reaction field 1.1");
}

// The Ewald direct sum of two charges at distance r, against k q q erfc(alpha r)/r and its
// derivative from std::erfc: the spline in r^2 to the accuracy its header states.
TEST(Nonbonded, EwaldSplineMatchesErfc) {
  const double alpha = 3.47, cutoff = 0.9, k = Units::md().coulomb;
  System system;
  system.units = Units::md();
  system.add_particle(1.0, 0.7, "X");
  system.add_particle(1.0, -1.3, "X");
  const int32_t partner = 1, none = 0;
  const int32_t row0[17] = {partner}, row1[17] = {none};
  const int32_t* rows[2] = {row0, row1};
  const int32_t sizes[2] = {1, 0};
  const PairList list{rows, sizes, 2, 1};
  CoulombPairTerm term;
  term.kind = CoulombPairKind::ewald;
  term.charge = system.charge.data();
  term.prefactor = k;
  term.cutoff = cutoff;
  term.alpha = alpha;
  PairKernel kernel;
  double worst_e = 0, worst_f = 0;
  for (double r = 0.05; r < cutoff; r += 0.00731) {
    State state;
    state.box = Box::orthorhombic(3, 3, 3);
    state.positions = {{1.0, 1.0, 1.0}, {1.0 + r * 0.6, 1.0 - r * 0.8, 1.0}};
    const double dx = state.positions[1].x - 1.0, dy = state.positions[1].y - 1.0, rr = std::hypot(dx, dy);
    ForceResult out;
    out.reset(2);
    const double e = kernel.add(list, state, nullptr, &term, out).coulomb;
    const double kqq = k * 0.7 * -1.3;
    const double want_e = kqq * std::erfc(alpha * rr) / rr;
    // -dE/dr: k q q (erfc(a r)/r^2 + 2 a / sqrt(pi) exp(-a^2 r^2) / r)
    const double want_f = kqq * (std::erfc(alpha * rr) / (rr * rr) +
                                 2 * alpha / std::sqrt(M_PI) * std::exp(-alpha * alpha * rr * rr) / rr);
    const double scale = std::fabs(kqq) / rr;  // the unscreened pair
    worst_e = std::max(worst_e, std::fabs(e - want_e) / scale);
    const double f_on_1 = out.forces[1].x * dx / rr + out.forces[1].y * dy / rr;  // along d, on the partner
    worst_f = std::max(worst_f, std::fabs(f_on_1 - want_f) / (scale / rr));
  }
  EXPECT_LT(worst_e, 1e-14);
  EXPECT_LT(worst_f, 1e-11);
}

// The kernel's two instruction sets, directly: the same bits for every term and both shapes.
TEST(Nonbonded, SameBitsWithAvx2AndAvx512) {
  if (!has_avx512()) GTEST_SKIP() << "this processor has no AVX-512";
  const Box boxes[2] = {Box::orthorhombic(3.0, 2.8, 3.2), Box::triclinic({3.0, 0, 0}, {0.6, 2.8, 0}, {-0.5, 0.7, 3.2})};
  for (int b = 0; b < 2; ++b) {
    const Particles s = mixture(boxes[b], 700, 21 + b);
    NeighborList list(1.0, 0.2);
    list.build(s.system, s.state);
    for (int mode = 0; mode < 2; ++mode) {
      auto lj = mixture_lj(1.0, mode == 0 ? LJCutoffMode::shifted : LJCutoffMode::force_switch, mode == 0 ? 0.0 : 0.8);
      const LennardJones::KernelParameters kp = lj->kernel_parameters(s.system);
      std::vector<char> active(size_t(kp.ntypes), 0);
      for (int a = 0; a < kp.ntypes; ++a)
        for (int c = 0; c < kp.ntypes; ++c)
          active[size_t(a)] |=
              kp.table[size_t(a * kp.ntypes + c)].c12 != 0 || kp.table[size_t(a * kp.ntypes + c)].c6 != 0;
      LJPairTerm lt;
      lt.table = &kp.table[0].c12;
      lt.ntypes = kp.ntypes;
      lt.type = s.system.type.data();
      lt.active = active.data();
      lt.cutoff = 1.0;
      lt.switched = kp.switched;
      lt.switch_distance = kp.switch_distance;
      lt.a12 = kp.a12, lt.b12 = kp.b12, lt.a6 = kp.a6, lt.b6 = kp.b6;
      CoulombPairTerm ct;
      ct.charge = s.system.charge.data();
      ct.prefactor = s.system.units.coulomb;
      ct.cutoff = 1.0;
      ct.kind = mode == 0 ? CoulombPairKind::ewald : CoulombPairKind::reaction_field;
      ct.alpha = 3.1;
      ct.k_rf = 0.3, ct.c_rf = 1.2;
      for (int terms = 0; terms < 3; ++terms) {
        const LJPairTerm* l = terms != 1 ? &lt : nullptr;
        const CoulombPairTerm* c = terms != 0 ? &ct : nullptr;
        PairKernel narrow, wide;
        narrow.set_avx512(false);
        ForceResult a, w;
        a.reset(s.system.size()), w.reset(s.system.size());
        const PairEnergies ea = narrow.add(list.pair_list(), s.state, l, c, a);
        const PairEnergies ew = wide.add(list.pair_list(), s.state, l, c, w);
        const std::string what =
            "box " + std::to_string(b) + " mode " + std::to_string(mode) + " terms " + std::to_string(terms);
        EXPECT_EQ(ea.lj, ew.lj) << what;
        EXPECT_EQ(ea.coulomb, ew.coulomb) << what;
        expect_same_bits(a, w, what);
      }
    }
  }
}

TEST(Nonbonded, SameBitsOnOneAndTwoThreadsWhateverTheSkinOrBuild) {
  // 2000 waters: 6000 rows, several blocks of rows for the threads to share.
  Particles s = water(9, 2000);
  auto run = [&](double skin, int threads) {
    omp_set_num_threads(threads);
    ForceField ff(skin);
    ff.add(water_lj(0.9));
    ff.add(water_pme(0.9));
    ForceResult r = ff.compute(s.system, s.state);
    omp_set_num_threads(1);
    return r;
  };
  const ForceResult base = run(0.1, 1);
  expect_same_bits(base, run(0.1, 2), "2 threads");
  expect_same_bits(base, run(0.3, 1), "skin 0.3");
  expect_same_bits(base, run(0.0, 2), "skin 0, 2 threads");

  // A list built for earlier positions (every particle since moved less than half the skin)
  // against one built now.
  ForceField old(0.2);
  old.add(water_lj(0.9));
  old.add(water_pme(0.9));
  State earlier = s.state;
  std::mt19937_64 rng(4);
  std::normal_distribution<double> step(0, 0.01);
  for (Vec3& r : earlier.positions) r += Vec3{step(rng), step(rng), step(rng)};
  old.compute(s.system, earlier);
  const ForceResult& late = old.compute(s.system, s.state);
  ASSERT_EQ(old.neighbors()->builds(), 1);
  expect_same_bits(base, late, "list built at earlier positions");
}

}  // namespace
}  // namespace spire::sponge
