// Shared pieces of the Coulomb forces (coulomb.h): checks, pair lists, the direct-space kernels
// and the exclusion, 1-4, self and background terms.
#include "science/sponge/coulomb.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "engine/core/error.h"
#include "science/sponge/neighbor_list.h"

namespace spire::sponge {

namespace {

constexpr double kTwoOverSqrtPi = 1.1283791670955126;  // 2 / sqrt(pi)

// The pair loops below are written so that GCC 12 vectorizes them without -ffast-math: no calls
// that may set errno (sqrt), no selects on comparisons (if-conversion gives up on them under
// -ftrapping-math; masks are made with integer arithmetic instead), tables gathered with one index.

// Round to nearest (ties to even) by adding and removing 1.5 * 2^52, exact for |x| < 2^51.
inline double round_nearest(double x) {
  constexpr double magic = 6755399441055744.0;
  return (x + magic) - magic;
}

// 1/sqrt(x) for x > 0: the bit-level first guess (relative error < 3.5%) and four Newton steps,
// each squaring the error, to within 2 ulp (3e-16 relative). Plain arithmetic, so it vectorizes.
inline double inverse_sqrt(double x) {
  double y = std::bit_cast<double>(int64_t(0x5FE6EB50C7B537A9) - (std::bit_cast<int64_t>(x) >> 1));
  const double half = 0.5 * x;
  y *= 1.5 - half * y * y;
  y *= 1.5 - half * y * y;
  y *= 1.5 - half * y * y;
  y *= 1.5 - half * y * y;
  return y;
}

// Minimum image in reduced form (box.h), inline so that the pair loops vectorize: c, then b, then
// a, each by rounding the one fractional coordinate it alone moves.
enum class Cell { None, Orthorhombic, Triclinic };

struct Image {
  double ax = 0, bx = 0, by = 0, cx = 0, cy = 0, cz = 0;
  double inv_ax = 0, inv_by = 0, inv_cz = 0;
  explicit Image(const Box& box) {
    if (!box.periodic()) return;
    ax = box.a().x, bx = box.b().x, by = box.b().y, cx = box.c().x, cy = box.c().y, cz = box.c().z;
    inv_ax = 1 / ax, inv_by = 1 / by, inv_cz = 1 / cz;
  }
  template <Cell C>
  void apply(double& dx, double& dy, double& dz) const {
    if constexpr (C == Cell::Orthorhombic) {
      dx -= ax * round_nearest(dx * inv_ax);
      dy -= by * round_nearest(dy * inv_by);
      dz -= cz * round_nearest(dz * inv_cz);
    } else if constexpr (C == Cell::Triclinic) {
      const double n3 = round_nearest(dz * inv_cz);
      dx -= n3 * cx, dy -= n3 * cy, dz -= n3 * cz;
      const double n2 = round_nearest(dy * inv_by);
      dx -= n2 * bx, dy -= n2 * by;
      dx -= ax * round_nearest(dx * inv_ax);
    }
  }
};

Cell cell_of(const Box& box) {
  if (!box.periodic()) return Cell::None;
  return box.orthorhombic() ? Cell::Orthorhombic : Cell::Triclinic;
}

// The Ewald direct-space pair: k q_i q_j (1/r - g(r)) with g = erf(alpha r)/r from the table.
struct EwaldKernel {
  const double *c0, *c1, *c2, *c3;
  double inv_h;
  int last;  // index of the last interval
  // e: the pair's energy per k q_i q_j; s: -dE/dr / r per k q_i q_j, for r < cutoff (the clamp
  // only catches r * inv_h rounding up to the number of intervals just below the cutoff).
  void operator()(double r2, double& e, double& s) const {
    const double inv_r = inverse_sqrt(r2);
    const double x = r2 * inv_r * inv_h;
    int k = int(x);
    k = k < last ? k : last;
    const double t = x - double(k);
    const double a0 = c0[k], a1 = c1[k], a2 = c2[k], a3 = c3[k];
    const double g = a0 + t * (a1 + t * (a2 + t * a3));
    const double dg = (a1 + t * (2 * a2 + 3 * t * a3)) * inv_h;
    e = inv_r - g;
    s = (inv_r * inv_r + dg) * inv_r;
  }
};

// OpenMM's reaction field pair: k q_i q_j (1/r + k_rf r^2 - c_rf).
struct ReactionFieldKernel {
  double k_rf, c_rf;
  void operator()(double r2, double& e, double& s) const {
    const double inv_r = inverse_sqrt(r2);
    e = inv_r + k_rf * r2 - c_rf;
    s = inv_r * inv_r * inv_r - 2 * k_rf;
  }
};

// One lane: its rows in row order. A row is done in three passes: the separations of all its
// pairs (vectorized), the indices of those inside the cutoff (branch-free compaction), then the
// kernel over those alone (vectorized, with the row's force, energy and virial reduced in
// registers) and the partners' forces added one by one. The sums see exactly the pairs inside the
// cutoff, in row order, so they do not depend on the list's skin or on when it was built.
template <Cell C, class Kernel>
void lane_sum(const PairList& list, const Vec3* pos, const double* q, const Image& image_, double cutoff,
              double prefactor, const Kernel& kernel_, PairAccumulator::Lane& lane, std::vector<double>& work,
              std::vector<int32_t>& inside) {
  // Local copies: stores through the row arrays cannot then alias them, which keeps the loop simple.
  const Image image = image_;
  const Kernel kernel = kernel_;
  const int64_t rc2_bits = std::bit_cast<int64_t>(cutoff * cutoff);
  const int64_t base = lane.begin;
  Vec3* f = lane.forces.data();
  double energy = 0;
  double wxx = 0, wyy = 0, wzz = 0, wxy = 0, wxz = 0, wyz = 0;
  for (int64_t i = lane.begin; i < lane.end; ++i) {
    const double qi = q[i];
    const int64_t begin = list.offsets[i], n = list.offsets[i + 1] - begin;
    if (qi == 0 || n == 0) continue;
    if (int64_t(work.size()) < 7 * n) work.resize(size_t(7 * n));
    if (int64_t(inside.size()) < n) inside.resize(size_t(n));
    double *dxs = work.data(), *dys = dxs + n, *dzs = dys + n, *r2s = dzs + n;
    double *fxs = r2s + n, *fys = fxs + n, *fzs = fys + n;
    int32_t* in = inside.data();
    const int32_t* nb = list.neighbors + begin;
    const double xi = pos[i].x, yi = pos[i].y, zi = pos[i].z;
#pragma omp simd
    for (int64_t t = 0; t < n; ++t) {
      const int32_t j = nb[t];
      double x = pos[j].x - xi, y = pos[j].y - yi, z = pos[j].z - zi;
      image.apply<C>(x, y, z);
      dxs[t] = x, dys[t] = y, dzs[t] = z;
      r2s[t] = x * x + y * y + z * z;
    }
    // The positions in the row of the pairs inside the cutoff, without branches (each is written,
    // and kept by advancing m). Non-negative doubles order like their bit patterns.
    int64_t m = 0;
    for (int64_t t = 0; t < n; ++t) {
      in[m] = int32_t(t);
      m += std::bit_cast<int64_t>(r2s[t]) < rc2_bits;
    }
    const double kqi = prefactor * qi;
    double fix = 0, fiy = 0, fiz = 0, e_row = 0;
    double vxx = 0, vyy = 0, vzz = 0, vxy = 0, vxz = 0, vyz = 0;
#pragma omp simd reduction(+ : fix, fiy, fiz, e_row, vxx, vyy, vzz, vxy, vxz, vyz)
    for (int64_t u = 0; u < m; ++u) {
      const int32_t t = in[u];
      const double x = dxs[t], y = dys[t], z = dzs[t];
      double e, s;
      kernel(r2s[t], e, s);
      const double kqq = kqi * q[nb[t]];
      const double fs = kqq * s;
      const double fx = fs * x, fy = fs * y, fz = fs * z;  // force on j; minus that on i
      fxs[u] = fx, fys[u] = fy, fzs[u] = fz;
      fix += fx, fiy += fy, fiz += fz;
      e_row += kqq * e;
      vxx += fx * x, vyy += fy * y, vzz += fz * z;
      vxy += fx * y, vxz += fx * z, vyz += fy * z;
    }
    for (int64_t u = 0; u < m; ++u) {
      Vec3& fj = f[nb[in[u]] - base];
      fj.x += fxs[u], fj.y += fys[u], fj.z += fzs[u];
    }
    Vec3& fi = f[i - base];
    fi.x -= fix, fi.y -= fiy, fi.z -= fiz;
    energy += e_row;
    wxx += vxx, wyy += vyy, wzz += vzz, wxy += vxy, wxz += vxz, wyz += vyz;
  }
  lane.energy = energy;
  Mat3& v = lane.virial;
  v(0, 0) = wxx, v(1, 1) = wyy, v(2, 2) = wzz;
  v(0, 1) = v(1, 0) = wxy;
  v(0, 2) = v(2, 0) = wxz;
  v(1, 2) = v(2, 1) = wyz;
}

template <class Kernel>
double pair_sum(const System& system, const State& state, const PairList& list, double cutoff, const Kernel& kernel,
                PairAccumulator& acc, ForceResult& out) {
  const int64_t n = system.size();
  SPIRE_CHECK(list.rows == n, ValueError, "coulomb: the pair list has ", list.rows, " rows for ", n, " particles");
  SPIRE_CHECK(int64_t(out.forces.size()) == n, ValueError, "coulomb: ForceResult holds ", out.forces.size(),
              " forces for ", n, " particles (reset it first)");
  const int lanes = PairAccumulator::kLanes;
  acc.lanes.resize(lanes);
  for (int l = 0; l < lanes; ++l) {
    acc.lanes[l].begin = n * l / lanes;
    acc.lanes[l].end = n * (l + 1) / lanes;
  }
  const Image image(state.box);
  const Cell cell = cell_of(state.box);
  const Vec3* pos = state.positions.data();
  const double* q = system.charge.data();
  const double prefactor = system.units.coulomb;
  // Small lists run on one thread: waking a team costs more than the work saves.
  const bool parallel = list.offsets[n] - list.offsets[0] >= 32768;
#pragma omp parallel if (parallel)
  {
    std::vector<double> work;
    std::vector<int32_t> inside;
#pragma omp for schedule(dynamic, 1)
    for (int l = 0; l < lanes; ++l) {
      PairAccumulator::Lane& lane = acc.lanes[l];
      lane.forces.assign(size_t(n - lane.begin), Vec3{});
      switch (cell) {
        case Cell::None:
          lane_sum<Cell::None>(list, pos, q, image, cutoff, prefactor, kernel, lane, work, inside);
          break;
        case Cell::Orthorhombic:
          lane_sum<Cell::Orthorhombic>(list, pos, q, image, cutoff, prefactor, kernel, lane, work, inside);
          break;
        case Cell::Triclinic:
          lane_sum<Cell::Triclinic>(list, pos, q, image, cutoff, prefactor, kernel, lane, work, inside);
          break;
      }
    }
    // Each particle's force: its lanes in lane order (one writer per particle).
#pragma omp for schedule(static)
    for (int64_t p = 0; p < n; ++p) {
      Vec3 sum{};
      for (int l = 0; l < lanes; ++l) {
        const PairAccumulator::Lane& lane = acc.lanes[l];
        if (p >= lane.begin) sum += lane.forces[size_t(p - lane.begin)];
      }
      out.forces[size_t(p)] += sum;
    }
  }
  double energy = 0;
  Mat3 virial;
  for (const auto& lane : acc.lanes) {
    energy += lane.energy;
    virial += lane.virial;
  }
  out.virial += virial;
  return energy;
}

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
  offsets_.assign(1, 0);
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
    offsets_.push_back(int64_t(neighbors_.size()));
  }
}

double add_ewald_direct(const System& system, const State& state, const PairList& list, const ErfTable& table,
                        PairAccumulator& scratch, ForceResult& out) {
  const EwaldKernel kernel{table.coefficients(0), table.coefficients(1), table.coefficients(2),
                           table.coefficients(3), table.inverse_spacing(), int(table.intervals() - 1)};
  return pair_sum(system, state, list, table.cutoff(), kernel, scratch, out);
}

double add_reaction_field_direct(const System& system, const State& state, const PairList& list, double cutoff,
                                 double k_rf, double c_rf, PairAccumulator& scratch, ForceResult& out) {
  return pair_sum(system, state, list, cutoff, ReactionFieldKernel{k_rf, c_rf}, scratch, out);
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
    return {neighbors->offsets().data(), neighbors->neighbors().data(), neighbors->size()};
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

void EwaldSplitCoulomb::add(const System& system, const State& state, const NeighborList* neighbors,
                            ForceResult& out) {
  SPIRE_CHECK(state.box.periodic(), ValueError, method_, ": needs a periodic box");
  const PairList list = pairs(system, state, neighbors);
  double energy = add_ewald_direct(system, state, list, table_, scratch_, out);
  energy += add_reciprocal(system, state, out);
  energy += ewald_self_energy(system, alpha_);
  energy += add_ewald_exclusions(system, state, alpha_, out);
  energy += add_ewald_background(system, state.box, alpha_, out);
  energy += add_coulomb14(system, state, out);
  out.add_energy(name(), energy);
}

}  // namespace spire::sponge
