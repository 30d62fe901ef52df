// Shared pieces of the Coulomb forces (coulomb.h): checks, pair lists, the direct-space kernels
// and the exclusion, 1-4, self and background terms.
#include "science/sponge/coulomb.h"

#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "science/sponge/neighbor_list.h"

namespace spire::sponge {

namespace {

constexpr double kTwoOverSqrtPi = 1.1283791670955126;  // 2 / sqrt(pi)

// A pair term on (i, j) with energy e and s = -dE/dr / r at separation d = r_j - r_i.
void add_pair(ForceResult& out, int i, int j, const Vec3& d, double s) {
  const Vec3 f = d * s;  // on j
  out.forces[size_t(i)] -= f;
  out.forces[size_t(j)] += f;
  out.virial.add_outer(d, f);
}

}  // namespace

double ewald_alpha(double cutoff, double tolerance) {
  SPIRE_CHECK(std::isfinite(cutoff) && cutoff > 0, ValueError, "ewald: cutoff must be > 0, got ", cutoff);
  SPIRE_CHECK(tolerance > 0 && tolerance < 0.5, ValueError,
              "ewald: error tolerance must be in (0, 0.5) (OpenMM's ewaldErrorTolerance, typically 5e-4), got ",
              tolerance);
  return std::sqrt(-std::log(2 * tolerance)) / cutoff;
}

std::array<Vec3, 3> reciprocal_vectors(const Box& box) {
  SPIRE_CHECK(box.periodic(), ValueError, "reciprocal_vectors: needs a periodic box");
  // [a b c] is upper triangular in reduced form; its inverse by back substitution.
  const double ax = box.a().x, bx = box.b().x, by = box.b().y, cx = box.c().x, cy = box.c().y, cz = box.c().z;
  return {Vec3{1 / ax, -bx / (ax * by), (bx * cy - by * cx) / (ax * by * cz)}, Vec3{0, 1 / by, -cy / (by * cz)},
          Vec3{0, 0, 1 / cz}};
}

double erf_over_r(double alpha, double r) {
  const double x = alpha * r;
  if (x < 0.1) {
    // erf(x)/x = 2/sqrt(pi) sum (-1)^n x^(2n) / (n! (2n + 1))
    double sum = 0, term = 1, x2 = x * x;
    for (int n = 0; n <= 8; ++n) {
      sum += term / (2 * n + 1);
      term *= -x2 / (n + 1);
    }
    return kTwoOverSqrtPi * alpha * sum;
  }
  return std::erf(x) / r;
}

double erf_over_r_derivative(double alpha, double r) {
  const double x = alpha * r;
  if (x < 0.1) {
    // d/dr of the series above: alpha^2 2/sqrt(pi) sum (-1)^n 2n x^(2n-1) / (n! (2n + 1))
    double sum = 0, term = -x, x2 = x * x;  // term = (-1)^n x^(2n-1) / (n-1)!, from n = 1
    for (int n = 1; n <= 9; ++n) {
      sum += term * 2.0 / (2 * n + 1);
      term *= -x2 / n;
    }
    return kTwoOverSqrtPi * alpha * alpha * sum;
  }
  return (kTwoOverSqrtPi * alpha * std::exp(-x * x) - std::erf(x) / r) / r;
}

ErfTable::ErfTable(double alpha, double cutoff) : alpha_(alpha), cutoff_(cutoff) {
  SPIRE_CHECK(std::isfinite(alpha) && alpha > 0, ValueError, "ErfTable: alpha must be > 0, got ", alpha);
  SPIRE_CHECK(std::isfinite(cutoff) && cutoff > 0, ValueError, "ErfTable: cutoff must be > 0, got ", cutoff);
  // Hermite error h^4 max|g''''| / 384 with |g''''| <= 2.7 alpha^5: alpha h = 1e-3 gives ~1e-14 alpha.
  const int64_t n = std::max<int64_t>(16, int64_t(std::ceil(alpha * cutoff / 1e-3)));
  SPIRE_CHECK(n <= (int64_t(1) << 24), ValueError, "ErfTable: alpha * cutoff = ", alpha * cutoff,
              " needs too many knots; alpha * cutoff is about 2.6 for a tolerance of 5e-4 and 5 for 1e-12");
  const double h = cutoff / double(n);
  inverse_h_ = double(n) / cutoff;
  for (auto& c : c_) c.resize(size_t(n));
  double g0 = erf_over_r(alpha, 0), d0 = h * erf_over_r_derivative(alpha, 0);
  for (int64_t k = 0; k < n; ++k) {
    const double r1 = double(k + 1) * h;
    const double g1 = erf_over_r(alpha, r1), d1 = h * erf_over_r_derivative(alpha, r1);
    c_[0][size_t(k)] = g0;
    c_[1][size_t(k)] = d0;
    c_[2][size_t(k)] = 3 * (g1 - g0) - 2 * d0 - d1;
    c_[3][size_t(k)] = 2 * (g0 - g1) + d0 + d1;
    g0 = g1, d0 = d1;
  }
}

double ErfTable::value(double r) const {
  const double x = r * inverse_h_;
  const size_t k = size_t(std::min(int64_t(x), intervals() - 1));
  const double t = x - double(k);
  return c_[0][k] + t * (c_[1][k] + t * (c_[2][k] + t * c_[3][k]));
}

double ErfTable::derivative(double r) const {
  const double x = r * inverse_h_;
  const size_t k = size_t(std::min(int64_t(x), intervals() - 1));
  const double t = x - double(k);
  return (c_[1][k] + t * (2 * c_[2][k] + 3 * t * c_[3][k])) * inverse_h_;
}

void BrutePairList::build(const System& system, const State& state, double range) {
  const int64_t n = system.size();
  const double range2 = range * range;
  std::vector<int64_t> offsets(1, 0);
  neighbors_.clear();
  const auto& excl = system.topology.exclusions;
  auto next = excl.begin();  // exclusions are sorted, so row i's come in order
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i + 1; j < n; ++j) {
      while (next != excl.end() && (next->first < i || (next->first == i && next->second < j))) ++next;
      if (next != excl.end() && next->first == i && next->second == j) continue;
      const Vec3 d = state.box.min_image(state.positions[size_t(j)] - state.positions[size_t(i)]);
      if (norm2(d) < range2) neighbors_.push_back(int32_t(j));
    }
    offsets.push_back(int64_t(neighbors_.size()));
  }
  pairs_ = int64_t(neighbors_.size());
  neighbors_.resize(neighbors_.size() + 16);  // the kernel reads rows a vector at a time
  rows_.resize(size_t(n));
  sizes_.resize(size_t(n));
  for (int64_t i = 0; i < n; ++i) {
    rows_[size_t(i)] = neighbors_.data() + offsets[size_t(i)];
    sizes_[size_t(i)] = int32_t(offsets[size_t(i + 1)] - offsets[size_t(i)]);
  }
}

namespace {

CoulombPairTerm ewald_term(const System& system, double alpha, double cutoff) {
  CoulombPairTerm t;
  t.kind = CoulombPairKind::ewald;
  t.charge = system.charge.data();
  t.prefactor = system.units.coulomb;
  t.cutoff = cutoff;
  t.alpha = alpha;
  return t;
}

CoulombPairTerm reaction_field_term(const System& system, double cutoff, double k_rf, double c_rf) {
  CoulombPairTerm t;
  t.kind = CoulombPairKind::reaction_field;
  t.charge = system.charge.data();
  t.prefactor = system.units.coulomb;
  t.cutoff = cutoff;
  t.k_rf = k_rf, t.c_rf = c_rf;
  return t;
}

void check_charges(const System& system) {
  SPIRE_CHECK(int64_t(system.charge.size()) == system.size(), ValueError, "coulomb: ", system.charge.size(),
              " charges for ", system.size(), " particles");
}

}  // namespace

double add_ewald_direct(const System& system, const State& state, const PairList& list, const ErfTable& table,
                        PairAccumulator& scratch, ForceResult& out) {
  check_charges(system);
  const CoulombPairTerm term = ewald_term(system, table.alpha(), table.cutoff());
  return scratch.add(list, state, nullptr, &term, out).coulomb;
}

double add_reaction_field_direct(const System& system, const State& state, const PairList& list, double cutoff,
                                 double k_rf, double c_rf, PairAccumulator& scratch, ForceResult& out) {
  check_charges(system);
  const CoulombPairTerm term = reaction_field_term(system, cutoff, k_rf, c_rf);
  return scratch.add(list, state, nullptr, &term, out).coulomb;
}

double add_ewald_exclusions(const System& system, const State& state, double alpha, ForceResult& out) {
  const double k = system.units.coulomb;
  double energy = 0;
  for (const auto& [i, j] : system.topology.exclusions) {
    const double qq = k * system.charge[size_t(i)] * system.charge[size_t(j)];
    if (qq == 0) continue;
    const Vec3 d = state.box.min_image(state.positions[size_t(j)] - state.positions[size_t(i)]);
    const double r = norm(d);
    energy -= qq * erf_over_r(alpha, r);
    if (r > 0) add_pair(out, i, j, d, qq * erf_over_r_derivative(alpha, r) / r);
  }
  return energy;
}

double add_ewald_exclusions(const System& system, const State& state, const ErfTable& table, ForceResult& out) {
  const double k = system.units.coulomb, alpha = table.alpha(), cutoff = table.cutoff();
  double energy = 0;
  for (const auto& [i, j] : system.topology.exclusions) {
    const double qq = k * system.charge[size_t(i)] * system.charge[size_t(j)];
    if (qq == 0) continue;
    const Vec3 d = state.box.min_image(state.positions[size_t(j)] - state.positions[size_t(i)]);
    const double r = norm(d);
    const bool tabulated = r < cutoff;
    energy -= qq * (tabulated ? table.value(r) : erf_over_r(alpha, r));
    if (r > 0) add_pair(out, i, j, d, qq * (tabulated ? table.derivative(r) : erf_over_r_derivative(alpha, r)) / r);
  }
  return energy;
}

double add_coulomb14(const System& system, const State& state, ForceResult& out) {
  const double k = system.units.coulomb;
  double energy = 0;
  for (const Pair14& p : system.topology.pairs14) {
    const double qq = p.coulomb_scale * k * system.charge[size_t(p.i)] * system.charge[size_t(p.j)];
    if (qq == 0) continue;
    const Vec3 d = state.box.min_image(state.positions[size_t(p.j)] - state.positions[size_t(p.i)]);
    const double r2 = norm2(d), r = std::sqrt(r2);
    SPIRE_CHECK(r > 0, ValueError, "coulomb: 1-4 pair (", p.i, ", ", p.j,
                ") has its two particles on top of each other");
    energy += qq / r;
    add_pair(out, p.i, p.j, d, qq / (r2 * r));
  }
  return energy;
}

double ewald_self_energy(const System& system, double alpha) {
  double sum = 0;
  for (double q : system.charge) sum += q * q;
  return -system.units.coulomb * alpha / std::sqrt(M_PI) * sum;
}

double add_ewald_background(const System& system, const Box& box, double alpha, ForceResult& out) {
  double total = 0;
  for (double q : system.charge) total += q;
  const double e = -system.units.coulomb * M_PI * total * total / (2 * box.volume() * alpha * alpha);
  for (int a = 0; a < 3; ++a) out.virial(a, a) += e;
  return e;
}

CoulombForce::CoulombForce(double cutoff, const char* method) : cutoff_(cutoff), method_(method) {
  SPIRE_CHECK(std::isfinite(cutoff) && cutoff > 0, ValueError, method, ": cutoff must be finite and > 0, got ",
              cutoff);
}

void CoulombForce::check(const System& system, const State& state) const {
  const int64_t n = system.size();
  SPIRE_CHECK(int64_t(system.charge.size()) == n, ValueError, method_, ": ", system.charge.size(),
              " charges for ", n, " particles");
  SPIRE_CHECK(int64_t(state.positions.size()) == n, ValueError, method_, ": ", state.positions.size(),
              " positions for ", n, " particles");
  for (int64_t i = 0; i < n; ++i)
    SPIRE_CHECK(std::isfinite(system.charge[size_t(i)]), ValueError, method_, ": charge of particle ", i,
                " is not finite");
  if (state.box.periodic())
    SPIRE_CHECK(cutoff_ <= state.box.max_cutoff(), ValueError, method_, ": cutoff ", cutoff_,
                " exceeds half the box's smallest width (", state.box.max_cutoff(),
                "): minimum image would miss pairs; use a smaller cutoff or a larger box");
  const Topology& top = system.topology;
  for (const auto& [i, j] : top.exclusions)
    SPIRE_CHECK(i >= 0 && j < n && i < j, ValueError, method_, ": exclusion (", i, ", ", j,
                ") is not a pair i < j of particles in [0, ", n, ") (Topology::normalize_exclusions sorts them)");
  for (size_t k = 0; k < top.pairs14.size(); ++k) {
    const Pair14& p = top.pairs14[k];
    SPIRE_CHECK(p.i >= 0 && p.i < n && p.j >= 0 && p.j < n && p.i != p.j, ValueError, method_, ": 1-4 pair ", k,
                " (", p.i, ", ", p.j, ") does not name two particles in [0, ", n, ")");
    SPIRE_CHECK(std::isfinite(p.coulomb_scale), ValueError, method_, ": 1-4 pair ", k,
                " has a non-finite coulomb_scale");
    SPIRE_CHECK(top.excluded(std::min(p.i, p.j), std::max(p.i, p.j)), ValueError, method_, ": 1-4 pair ", k, " (",
                p.i, ", ", p.j,
                ") is not excluded; a 1-4 pair is left out of the ordinary sum and added back scaled, so list it "
                "in Topology::exclusions too (Topology::exclude_bonded does both)");
  }
}

PairList CoulombForce::pairs(const System& system, const State& state, const NeighborList* neighbors) {
  if (neighbors) {
    SPIRE_CHECK(neighbors->range() >= cutoff_, ValueError, method_, ": the neighbour list covers ",
                neighbors->range(), ", less than the cutoff ", cutoff_);
    return neighbors->pair_list();
  }
  brute_.build(system, state, cutoff_);
  return brute_.view();
}

EwaldSplitCoulomb::EwaldSplitCoulomb(double cutoff, double tolerance, double alpha, const char* method)
    : CoulombForce(cutoff, method) {
  SPIRE_CHECK(std::isfinite(alpha) && alpha >= 0, ValueError, method, ": alpha must be >= 0 (0 picks it from the "
              "tolerance), got ", alpha);
  alpha_ = alpha > 0 ? alpha : ewald_alpha(cutoff, tolerance);
  table_ = ErfTable(alpha_, cutoff_);
}

void CoulombForce::add(const System& system, const State& state, const NeighborList* neighbors, ForceResult& out) {
  check_charges(system);
  const PairList list = pairs(system, state, neighbors);
  const CoulombPairTerm term = pair_term(system);
  const double pair_energy = scratch_.add(list, state, nullptr, &term, out).coulomb;
  out.add_energy(name(), add_rest(system, state, pair_energy, out));
}

void EwaldSplitCoulomb::add(const System& system, const State& state, const NeighborList* neighbors,
                            ForceResult& out) {
  SPIRE_CHECK(state.box.periodic(), ValueError, method_, ": needs a periodic box");
  CoulombForce::add(system, state, neighbors, out);
}

CoulombPairTerm EwaldSplitCoulomb::pair_term(const System& system) const { return ewald_term(system, alpha_, cutoff_); }

double EwaldSplitCoulomb::add_rest(const System& system, const State& state, double pair_energy, ForceResult& out) {
  SPIRE_CHECK(state.box.periodic(), ValueError, method_, ": needs a periodic box");
  double energy = pair_energy;
  energy += add_reciprocal(system, state, out);
  energy += ewald_self_energy(system, alpha_);
  energy += add_ewald_exclusions(system, state, table_, out);
  energy += add_ewald_background(system, state.box, alpha_, out);
  energy += add_coulomb14(system, state, out);
  return energy;
}

}  // namespace spire::sponge
