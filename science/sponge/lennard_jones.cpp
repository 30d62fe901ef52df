// Lennard-Jones over a half neighbour list (lennard_jones.h).
#include "science/sponge/lennard_jones.h"

#include <algorithm>
#include <cmath>
#include <immintrin.h>
#include <numbers>
#include <vector>

#include "engine/core/error.h"

namespace spire::sponge {
namespace {

static_assert(sizeof(Vec3) == 3 * sizeof(double), "the kernel walks positions as x, y, z triples");
static_assert(sizeof(LennardJones::PairCoefficients) == 32);

// Blocks of at least this many rows, at most kMaxBlocks of them: enough tasks to balance threads,
// few enough that their force windows stay small (for particles far from index order a window
// reaches across the system: kMaxBlocks copies of the forces at worst).
constexpr int64_t kRowsPerBlock = 1024;
constexpr int64_t kMaxBlocks = 32;
constexpr int64_t kReduceRows = 2048;  // particles per task when the blocks' forces are summed

enum class Shape { none, orthorhombic, triclinic };

// The box vectors for minimum image as Box::min_image does it (c, then b, then a), with the
// reciprocals precomputed.
struct Image {
  double ax = 0, bx = 0, by = 0, cx = 0, cy = 0, cz = 0, iax = 0, iby = 0, icz = 0;
  explicit Image(const Box& box) {
    if (!box.periodic()) return;
    ax = box.a().x, bx = box.b().x, by = box.b().y;
    cx = box.c().x, cy = box.c().y, cz = box.c().z;
    iax = 1 / ax, iby = 1 / by, icz = 1 / cz;
  }
};

// Force-switch coefficients of r^-alpha (lennard_jones.h): A, B and the constant C.
void force_switch(double alpha, double rs, double rc, double& a, double& b, double& c) {
  const double d = rc - rs, rp = std::pow(rc, alpha + 2);
  a = -alpha * ((alpha + 4) * rc - (alpha + 1) * rs) / (rp * d * d);
  b = alpha * ((alpha + 3) * rc - (alpha + 1) * rs) / (rp * d * d * d);
  c = std::pow(rc, -alpha) - a / 3 * d * d * d - b / 4 * d * d * d * d;
}

// Five-point Gauss-Legendre on [lo, hi]: exact for the polynomials (degree <= 9) of the
// force-switch tail integrals.
template <class F>
double gauss5(double lo, double hi, F f) {
  static constexpr double x[5] = {0, -0.5384693101056831, 0.5384693101056831, -0.9061798459386640,
                                  0.9061798459386640};
  static constexpr double w[5] = {0.5688888888888889, 0.4786286704993665, 0.4786286704993665,
                                  0.2369268850561891, 0.2369268850561891};
  const double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
  double s = 0;
  for (int k = 0; k < 5; ++k) s += w[k] * f(mid + half * x[k]);
  return half * s;
}

struct Kernel {
  const double* x;
  const int* type;
  int ntypes;
  const LennardJones::PairCoefficients* table;
  const int64_t* offsets;
  const int32_t* neighbors;
  double rc2, rs;
  double a12, b12, a6, b6;  // force switch: force coefficients
  Image image;
};

// Four doubles: one AVX2 register (two SSE registers elsewhere). The kernel is written with
// these vectors rather than left to the auto-vectorizer, which under the default
// -ftrapping-math keeps the cutoff test scalar and, with `omp simd` reductions, reduces every
// accumulator at the end of each short row.
typedef double v4d __attribute__((vector_size(32)));
typedef int64_t v4i __attribute__((vector_size(32)));
constexpr int kLanes = 4;

inline v4d splat(double a) { return v4d{a, a, a, a}; }
// Round to nearest (ties to even, as nearbyint) by the 1.5 * 2^52 trick: exact for |v| < 2^51,
// far beyond any minimum-image quotient.
inline v4d round_nearest(v4d v) {
  const v4d magic = splat(6755399441055744.0);
  return (v + magic) - magic;
}
inline double lane_sum(v4d v) { return (v[0] + v[1]) + (v[2] + v[3]); }
inline v4d sqrt(v4d v) {
#if defined(__AVX__)
  return __builtin_ia32_sqrtpd256(v);
#else
  return v4d{std::sqrt(v[0]), std::sqrt(v[1]), std::sqrt(v[2]), std::sqrt(v[3])};
#endif
}

// Left-packing four doubles (or four int64) by a 4-bit mask: the permutation of eight 32-bit
// lanes that moves the selected elements to the front, in order (AVX2's usual compress).
struct PackTable {
  alignas(32) int32_t perm[16][8];
  constexpr PackTable() : perm{} {
    for (int m = 0; m < 16; ++m) {
      int to = 0;
      for (int l = 0; l < 4; ++l)
        if (m >> l & 1) perm[m][2 * to] = 2 * l, perm[m][2 * to + 1] = 2 * l + 1, ++to;
      for (; to < 4; ++to) perm[m][2 * to] = 0, perm[m][2 * to + 1] = 1;
    }
  }
};
constexpr PackTable kPack;

// Appends the lanes of v selected by `mask` to out (which has room for four more).
inline void pack(v4d v, int mask, double* out) {
  const __m256i p = _mm256_load_si256(reinterpret_cast<const __m256i*>(kPack.perm[mask]));
  _mm256_storeu_pd(out, _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(__m256d(v)), p)));
}
inline void pack(__m256i v, int mask, int64_t* out) {
  const __m256i p = _mm256_load_si256(reinterpret_cast<const __m256i*>(kPack.perm[mask]));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permutevar8x32_epi32(v, p));
}

// The rows of one block. Forces land in f, the block's window (index p at f[3 * (p - lo)]).
//
// Each row is first packed: the neighbours inside the cutoff, in the row's (ascending) order, with
// their displacements. The forces are then computed four packed pairs at a time. So which lane a
// pair lands in, and so every sum, depends only on the pairs inside the cutoff: not on the pairs
// of the skin, nor on when the list was built (a run restarted from a checkpoint, whose list is
// built afresh, gives the same bits). Lanes past the packed row's end are masked to zero.
template <Shape S, bool kOneType, bool kSwitch>
void run_block(const Kernel& k, LennardJones::Block& blk, double* f) {
  thread_local std::vector<double> pdx, pdy, pdz, pr2, bx, by, bz;
  thread_local std::vector<int64_t> pj;
  const double* x = k.x;
  const v4d rc2 = splat(k.rc2), rs = splat(k.rs), one = splat(1.0), zero = splat(0.0);
  const v4d a12 = splat(k.a12), b12 = splat(k.b12), a6 = splat(k.a6), b6 = splat(k.b6);
  const v4d ea12 = splat(k.a12 / 3), eb12 = splat(k.b12 / 4), ea6 = splat(k.a6 / 3), eb6 = splat(k.b6 / 4);
  const v4d ax = splat(k.image.ax), bxv = splat(k.image.bx), byv = splat(k.image.by);
  const v4d cx = splat(k.image.cx), cy = splat(k.image.cy), cz = splat(k.image.cz);
  const v4d iax = splat(k.image.iax), iby = splat(k.image.iby), icz = splat(k.image.icz);
  const v4i lane = {0, 1, 2, 3};
  const LennardJones::PairCoefficients only = k.table[0];
  v4d c12 = splat(only.c12), c6 = splat(only.c6), shift = splat(only.shift);
  v4d e = zero, w0 = zero, w1 = zero, w2 = zero, w3 = zero, w4 = zero, w5 = zero;
  for (int64_t i = blk.row_begin; i < blk.row_end; ++i) {
    const int64_t b0 = k.offsets[i], m = k.offsets[i + 1] - b0;
    if (m == 0) continue;
    const size_t room = size_t(m + 2 * kLanes);
    if (pj.size() < room) {
      for (auto* v : {&pdx, &pdy, &pdz, &pr2, &bx, &by, &bz}) v->resize(room);
      pj.resize(room);
    }
    const v4d xi = splat(x[3 * i]), yi = splat(x[3 * i + 1]), zi = splat(x[3 * i + 2]);
    const int32_t* js = k.neighbors + b0;
    // Pack the neighbours inside the cutoff.
    int64_t mp = 0;
    for (int64_t q = 0; q < m; q += kLanes) {
      int32_t j[kLanes];
      for (int l = 0; l < kLanes; ++l) j[l] = q + l < m ? js[q + l] : int32_t(i);
      v4d dx = xi - v4d{x[3 * j[0]], x[3 * j[1]], x[3 * j[2]], x[3 * j[3]]};
      v4d dy = yi - v4d{x[3 * j[0] + 1], x[3 * j[1] + 1], x[3 * j[2] + 1], x[3 * j[3] + 1]};
      v4d dz = zi - v4d{x[3 * j[0] + 2], x[3 * j[1] + 2], x[3 * j[2] + 2], x[3 * j[3] + 2]};
      if constexpr (S == Shape::orthorhombic) {
        dx -= ax * round_nearest(dx * iax);
        dy -= byv * round_nearest(dy * iby);
        dz -= cz * round_nearest(dz * icz);
      } else if constexpr (S == Shape::triclinic) {
        const v4d n3 = round_nearest(dz * icz);
        dx -= n3 * cx, dy -= n3 * cy, dz -= n3 * cz;
        const v4d n2 = round_nearest(dy * iby);
        dx -= n2 * bxv, dy -= n2 * byv;
        dx -= ax * round_nearest(dx * iax);
      }
      const v4d r2 = dx * dx + dy * dy + dz * dz;
      const v4i inside = (lane < (m - q)) & (r2 < rc2);
      const int mask = _mm256_movemask_pd(_mm256_castsi256_pd(__m256i(inside)));
      if (mask == 0) continue;
      pack(dx, mask, &pdx[size_t(mp)]);
      pack(dy, mask, &pdy[size_t(mp)]);
      pack(dz, mask, &pdz[size_t(mp)]);
      pack(r2, mask, &pr2[size_t(mp)]);
      pack(_mm256_cvtepi32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(j))), mask, &pj[size_t(mp)]);
      mp += __builtin_popcount(unsigned(mask));
    }
    for (int64_t q = mp; q < mp + kLanes; ++q) {  // padding: the row's own particle, r^2 = 1, masked
      pj[size_t(q)] = i, pdx[size_t(q)] = pdy[size_t(q)] = pdz[size_t(q)] = 0, pr2[size_t(q)] = 1;
    }
    const LennardJones::PairCoefficients* row_table = k.table + (kOneType ? 0 : k.type[i] * k.ntypes);
    v4d fxi = zero, fyi = zero, fzi = zero;
    for (int64_t q = 0; q < mp; q += kLanes) {
      const v4d dx = v4d(_mm256_loadu_pd(&pdx[size_t(q)])), dy = v4d(_mm256_loadu_pd(&pdy[size_t(q)]));
      const v4d dz = v4d(_mm256_loadu_pd(&pdz[size_t(q)])), r2 = v4d(_mm256_loadu_pd(&pr2[size_t(q)]));
      if constexpr (!kOneType) {
        const int64_t* j = &pj[size_t(q)];
        const LennardJones::PairCoefficients *p0 = row_table + k.type[j[0]], *p1 = row_table + k.type[j[1]],
                                              *p2 = row_table + k.type[j[2]], *p3 = row_table + k.type[j[3]];
        c12 = v4d{p0->c12, p1->c12, p2->c12, p3->c12};
        c6 = v4d{p0->c6, p1->c6, p2->c6, p3->c6};
        shift = v4d{p0->shift, p1->shift, p2->shift, p3->shift};
      }
      const v4i inside = lane < (mp - q);
      const v4d r2inv = one / r2;
      const v4d r6inv = r2inv * r2inv * r2inv;
      v4d fr = r6inv * (12 * c12 * r6inv - 6 * c6) * r2inv;
      v4d u = r6inv * (c12 * r6inv - c6) - shift;
      if constexpr (kSwitch) {
        const v4d r = sqrt(r2);
        v4d t = r - rs;
        t = t > zero ? t : zero;
        const v4d t2 = t * t, t3 = t2 * t;
        fr += (c12 * (a12 * t2 + b12 * t3) - c6 * (a6 * t2 + b6 * t3)) * r2inv * r;
        u -= c12 * (ea12 * t3 + eb12 * t3 * t) - c6 * (ea6 * t3 + eb6 * t3 * t);
      }
      fr = inside ? fr : zero;
      u = inside ? u : zero;
      const v4d fx = dx * fr, fy = dy * fr, fz = dz * fr;
      _mm256_storeu_pd(&bx[size_t(q)], __m256d(fx));
      _mm256_storeu_pd(&by[size_t(q)], __m256d(fy));
      _mm256_storeu_pd(&bz[size_t(q)], __m256d(fz));
      fxi += fx, fyi += fy, fzi += fz;
      e += u;
      w0 += dx * fx, w1 += dx * fy, w2 += dx * fz, w3 += dy * fy, w4 += dy * fz, w5 += dz * fz;
    }
    // Newton's third law, one particle at a time (no vector scatter in AVX2).
    for (int64_t q = 0; q < mp; ++q) {
      double* fj = f + 3 * (pj[size_t(q)] - blk.lo);
      fj[0] -= bx[size_t(q)], fj[1] -= by[size_t(q)], fj[2] -= bz[size_t(q)];
    }
    double* fi = f + 3 * (i - blk.lo);
    fi[0] += lane_sum(fxi), fi[1] += lane_sum(fyi), fi[2] += lane_sum(fzi);
  }
  blk.energy = lane_sum(e);
  const double w[6] = {lane_sum(w0), lane_sum(w1), lane_sum(w2), lane_sum(w3), lane_sum(w4), lane_sum(w5)};
  std::copy(w, w + 6, blk.virial);
}

template <Shape S>
void run_block_for(const Kernel& k, bool one_type, bool switched, LennardJones::Block& blk, double* f) {
  if (one_type)
    switched ? run_block<S, true, true>(k, blk, f) : run_block<S, true, false>(k, blk, f);
  else
    switched ? run_block<S, false, true>(k, blk, f) : run_block<S, false, false>(k, blk, f);
}

}  // namespace

LJCutoffMode lj_cutoff_mode(const std::string& name) {
  if (name == "cut") return LJCutoffMode::cut;
  if (name == "shifted") return LJCutoffMode::shifted;
  if (name == "force_switch") return LJCutoffMode::force_switch;
  throw ConfigError(detail::cat("Lennard-Jones cutoff mode '", name, "' is unknown: allowed are cut, shifted, force_switch"));
}

std::string to_string(LJCutoffMode mode) {
  switch (mode) {
    case LJCutoffMode::cut: return "cut";
    case LJCutoffMode::shifted: return "shifted";
    case LJCutoffMode::force_switch: return "force_switch";
  }
  return "?";
}

LJMixing lj_mixing(const std::string& name) {
  if (name == "lorentz_berthelot" || name == "arithmetic") return LJMixing::lorentz_berthelot;
  if (name == "geometric") return LJMixing::geometric;
  throw ConfigError(detail::cat("Lennard-Jones mixing rule '", name,
                                "' is unknown: allowed are lorentz_berthelot (or arithmetic), geometric"));
}

std::string to_string(LJMixing mixing) {
  return mixing == LJMixing::geometric ? "geometric" : "lorentz_berthelot";
}

LennardJones::LennardJones(double cutoff, LJCutoffMode mode, double switch_distance)
    : cutoff_(cutoff), mode_(mode), switch_(switch_distance) {
  SPIRE_CHECK(std::isfinite(cutoff) && cutoff > 0, ValueError, "LennardJones: cutoff must be finite and > 0, got ",
              cutoff);
  if (mode == LJCutoffMode::force_switch) {
    SPIRE_CHECK(switch_distance > 0 && switch_distance < cutoff, ValueError,
                "LennardJones: force_switch needs 0 < switch distance < cutoff = ", cutoff, ", got ", switch_distance);
    force_switch(12, switch_, cutoff_, a12_, b12_, k12_);
    force_switch(6, switch_, cutoff_, a6_, b6_, k6_);
  } else {
    SPIRE_CHECK(switch_distance == 0, ValueError, "LennardJones: a switch distance (", switch_distance,
                ") applies only to the force_switch mode, not ", to_string(mode));
  }
}

void LennardJones::set_type(const std::string& type, double epsilon, double sigma) {
  SPIRE_CHECK(std::isfinite(epsilon) && epsilon >= 0, ValueError, "LennardJones: type '", type,
              "': epsilon must be finite and >= 0, got ", epsilon);
  SPIRE_CHECK(std::isfinite(sigma) && (sigma > 0 || (sigma == 0 && epsilon == 0)), ValueError, "LennardJones: type '",
              type, "': sigma must be finite and > 0 (or 0 with epsilon 0), got ", sigma);
  types_[type] = {epsilon, sigma};
  resolved_ = false;
}

void LennardJones::set_pair(const std::string& type_a, const std::string& type_b, double epsilon, double sigma) {
  SPIRE_CHECK(std::isfinite(epsilon) && epsilon >= 0, ValueError, "LennardJones: pair (", type_a, ", ", type_b,
              "): epsilon must be finite and >= 0, got ", epsilon);
  SPIRE_CHECK(std::isfinite(sigma) && (sigma > 0 || (sigma == 0 && epsilon == 0)), ValueError, "LennardJones: pair (",
              type_a, ", ", type_b, "): sigma must be finite and > 0 (or 0 with epsilon 0), got ", sigma);
  pairs_[std::minmax(type_a, type_b)] = {epsilon, sigma};
  resolved_ = false;
}

LJParameters LennardJones::parameters(const std::string& type_a, const std::string& type_b) const {
  if (auto it = pairs_.find(std::minmax(type_a, type_b)); it != pairs_.end()) return it->second;
  for (const std::string* t : {&type_a, &type_b})
    if (!types_.count(*t)) {
      std::vector<std::string> known;
      for (const auto& [name, p] : types_) known.push_back(name);
      throw ConfigError(detail::cat("LennardJones: type '", *t, "' has no parameters (set_type) and the pair (", type_a,
                                    ", ", type_b, ") none of its own (set_pair); types with parameters: ",
                                    known.empty() ? std::string("none") : detail::join(known)));
    }
  const LJParameters a = types_.at(type_a), b = types_.at(type_b);
  if (mixing_ == LJMixing::geometric) return {std::sqrt(a.epsilon * b.epsilon), std::sqrt(a.sigma * b.sigma)};
  return {std::sqrt(a.epsilon * b.epsilon), 0.5 * (a.sigma + b.sigma)};
}

double LennardJones::pair_energy(const LJParameters& p, double r) const {
  if (!(r < cutoff_)) return 0;
  const double s6 = std::pow(p.sigma, 6), c12 = 4 * p.epsilon * s6 * s6, c6 = 4 * p.epsilon * s6;
  const double r6 = std::pow(r, -6);
  double u = r6 * (c12 * r6 - c6);
  switch (mode_) {
    case LJCutoffMode::cut: break;
    case LJCutoffMode::shifted: u -= c12 * std::pow(cutoff_, -12) - c6 * std::pow(cutoff_, -6); break;
    case LJCutoffMode::force_switch: {
      const double t = std::max(r - switch_, 0.0), t3 = t * t * t;
      u -= c12 * (a12_ / 3 * t3 + b12_ / 4 * t3 * t + k12_) - c6 * (a6_ / 3 * t3 + b6_ / 4 * t3 * t + k6_);
      break;
    }
  }
  return u;
}

double LennardJones::pair_force(const LJParameters& p, double r) const {
  if (!(r < cutoff_)) return 0;
  const double s6 = std::pow(p.sigma, 6), c12 = 4 * p.epsilon * s6 * s6, c6 = 4 * p.epsilon * s6;
  double f = 12 * c12 * std::pow(r, -13) - 6 * c6 * std::pow(r, -7);
  if (mode_ == LJCutoffMode::force_switch) {
    const double t = std::max(r - switch_, 0.0);
    f += c12 * (a12_ * t * t + b12_ * t * t * t) - c6 * (a6_ * t * t + b6_ * t * t * t);
  }
  return f;
}

void LennardJones::check(const System& system, const State& state) const {
  std::vector<char> used(system.type_names.size(), 0);
  for (int t : system.type) {
    SPIRE_CHECK(t >= 0 && size_t(t) < used.size(), ValueError, "LennardJones: particle type index ", t,
                " is outside the system's ", used.size(), " types");
    used[size_t(t)] = 1;
  }
  for (size_t a = 0; a < used.size(); ++a)
    for (size_t b = a; b < used.size(); ++b)
      if (used[a] && used[b]) parameters(system.type_names[a], system.type_names[b]);  // throws naming what is missing
  if (state.box.periodic())
    SPIRE_CHECK(cutoff_ <= state.box.max_cutoff(), ValueError, "LennardJones: cutoff ", cutoff_,
                " exceeds half the box's smallest width (", state.box.max_cutoff(), ")");
  SPIRE_CHECK(!tail_ || state.box.periodic(), ValueError,
              "LennardJones: tail corrections need a periodic box (a density); this one has none");
  for (size_t k = 0; k < system.topology.pairs14.size(); ++k) {
    const Pair14& p = system.topology.pairs14[k];
    SPIRE_CHECK(system.topology.excluded(p.i, p.j), ValueError, "LennardJones: 1-4 pair ", k, " (", p.i, ", ", p.j,
                ") is not in the exclusions, so it would be counted twice: exclude it (Topology::exclude_bonded "
                "does both)");
  }
}

void LennardJones::resolve(const System& system) {
  if (resolved_ && resolved_names_ == system.type_names) return;
  const size_t nt = system.type_names.size();
  table_.assign(nt * nt, {});
  missing_.assign(nt, 0);
  for (size_t a = 0; a < nt; ++a) {
    if (!types_.count(system.type_names[a])) missing_[a] = 1;
    for (size_t b = 0; b < nt; ++b) {
      LJParameters p;
      try {
        p = parameters(system.type_names[a], system.type_names[b]);
      } catch (const ConfigError&) {
        continue;  // a type no particle has needs nothing; add() checks the ones in use
      }
      const double s6 = std::pow(p.sigma, 6);
      PairCoefficients& c = table_[a * nt + b];
      c.c12 = 4 * p.epsilon * s6 * s6;
      c.c6 = 4 * p.epsilon * s6;
      if (mode_ == LJCutoffMode::shifted) c.shift = c.c12 * std::pow(cutoff_, -12) - c.c6 * std::pow(cutoff_, -6);
      if (mode_ == LJCutoffMode::force_switch) c.shift = c.c12 * k12_ - c.c6 * k6_;
    }
  }
  resolved_names_ = system.type_names;
  resolved_ = true;
}

void LennardJones::partition(const NeighborList& list, int64_t n) {
  // Blocks of consecutive rows fixed by the particle count alone (never by the list's pair counts
  // or the thread count), so that every sum has the same grouping whenever and however the list
  // was built and however many threads run. Each block's window reaches from its first row to the
  // highest neighbour of its rows (the last of each row, rows being ascending).
  const std::vector<int64_t>& off = list.offsets();
  const int32_t* nb = list.neighbors().data();
  const int64_t k = std::clamp<int64_t>(n / kRowsPerBlock, 1, kMaxBlocks);
  const int64_t rows = (n + k - 1) / std::max<int64_t>(k, 1);
  blocks_.clear();
  for (int64_t row = 0; row < n; row += rows) {
    Block b;
    b.row_begin = row, b.row_end = std::min(n, row + rows), b.lo = row;
    int32_t hi = int32_t(b.row_end - 1);
    for (int64_t i = b.row_begin; i < b.row_end; ++i)
      if (off[size_t(i + 1)] > off[size_t(i)]) hi = std::max(hi, nb[off[size_t(i + 1)] - 1]);
    b.hi = hi;
    blocks_.push_back(b);
  }
  int64_t offset = 0;
  for (Block& b : blocks_) b.offset = offset, offset += b.hi - b.lo + 1;
  partial_.resize(size_t(3 * offset));
}

double LennardJones::tail_integral_energy(double c12, double c6) const {
  double s = c12 / (9 * std::pow(cutoff_, 9)) - c6 / (3 * std::pow(cutoff_, 3));
  if (mode_ == LJCutoffMode::force_switch)
    s += gauss5(switch_, cutoff_, [&](double r) {
      const double t = r - switch_, t3 = t * t * t;
      return r * r * (c12 * (a12_ / 3 * t3 + b12_ / 4 * t3 * t + k12_) - c6 * (a6_ / 3 * t3 + b6_ / 4 * t3 * t + k6_));
    });
  return s;
}

double LennardJones::tail_integral_pressure(double c12, double c6) const {
  double s = 4 * c12 / (3 * std::pow(cutoff_, 9)) - 2 * c6 / std::pow(cutoff_, 3);
  if (mode_ == LJCutoffMode::force_switch)
    s += gauss5(switch_, cutoff_, [&](double r) {
      const double t = r - switch_, t2 = t * t, t3 = t2 * t;
      return r * r * r * (-c12 * (a12_ * t2 + b12_ * t3) + c6 * (a6_ * t2 + b6_ * t3));
    });
  return s;
}

void LennardJones::check_types_in_use(const System& system) {
  resolve(system);
  const int nt = int(system.type_names.size());
  if (std::find(missing_.begin(), missing_.end(), 1) != missing_.end())
    for (int t : system.type) {
      SPIRE_CHECK(t >= 0 && t < nt, ValueError, "LennardJones: particle type index ", t, " is outside the system's ",
                  nt, " types");
      if (missing_[size_t(t)])
        for (int u = 0; u < nt; ++u) parameters(system.type_names[size_t(t)], system.type_names[size_t(u)]);
    }
}

void LennardJones::tail_sums(const System& system, double& energy, double& pressure) const {
  const int nt = int(system.type_names.size());
  std::vector<double> count(size_t(nt), 0);
  for (int t : system.type) count[size_t(t)] += 1;
  energy = pressure = 0;
  for (int a = 0; a < nt; ++a)
    for (int b = 0; b < nt; ++b) {
      if (count[size_t(a)] == 0 || count[size_t(b)] == 0) continue;
      const PairCoefficients& c = table_[size_t(a * nt + b)];
      energy += count[size_t(a)] * count[size_t(b)] * tail_integral_energy(c.c12, c.c6);
      pressure += count[size_t(a)] * count[size_t(b)] * tail_integral_pressure(c.c12, c.c6);
    }
}

LennardJones::KernelParameters LennardJones::kernel_parameters(const System& system) {
  check_types_in_use(system);
  KernelParameters k;
  k.table = table_;
  k.ntypes = int(system.type_names.size());
  k.cutoff = cutoff_;
  k.switched = mode_ == LJCutoffMode::force_switch;
  k.switch_distance = switch_;
  k.a12 = a12_, k.b12 = b12_, k.a6 = a6_, k.b6 = b6_;
  if (tail_) tail_sums(system, k.tail_energy, k.tail_pressure);
  return k;
}

void LennardJones::add(const System& system, const State& state, const NeighborList* neighbors, ForceResult& out) {
  const int64_t n = int64_t(state.positions.size());
  SPIRE_CHECK(neighbors, ValueError, "LennardJones: needs a neighbour list of cutoff >= ", cutoff_, ", got none");
  SPIRE_CHECK(neighbors->cutoff() >= cutoff_, ValueError, "LennardJones: the neighbour list's cutoff ",
              neighbors->cutoff(), " is shorter than the force's ", cutoff_);
  SPIRE_CHECK(neighbors->size() == n, ValueError, "LennardJones: the neighbour list has ", neighbors->size(),
              " rows for ", n, " particles: update it for this state");
  SPIRE_CHECK(int64_t(system.type.size()) == n && int64_t(out.forces.size()) == n, ValueError,
              "LennardJones: ", n, " positions but ", system.type.size(), " particle types and ", out.forces.size(),
              " forces");
  check_types_in_use(system);
  const int nt = int(system.type_names.size());
  partition(*neighbors, n);

  const Box& box = state.box;
  const Shape shape = !box.periodic() ? Shape::none : box.orthorhombic() ? Shape::orthorhombic : Shape::triclinic;
  Kernel k{n > 0 ? &state.positions[0].x : nullptr, system.type.data(), nt, table_.data(), neighbors->offsets().data(),
           neighbors->neighbors().data(), cutoff_ * cutoff_, switch_, a12_, b12_, a6_, b6_, Image(box)};
  const bool one_type = nt == 1, switched = mode_ == LJCutoffMode::force_switch;
  const int64_t nblocks = int64_t(blocks_.size());
#pragma omp parallel for schedule(dynamic, 1) if (nblocks > 1)
  for (int64_t c = 0; c < nblocks; ++c) {
    Block& b = blocks_[size_t(c)];
    double* f = partial_.data() + 3 * b.offset;
    std::fill(f, f + 3 * (b.hi - b.lo + 1), 0.0);
    switch (shape) {
      case Shape::none: run_block_for<Shape::none>(k, one_type, switched, b, f); break;
      case Shape::orthorhombic: run_block_for<Shape::orthorhombic>(k, one_type, switched, b, f); break;
      case Shape::triclinic: run_block_for<Shape::triclinic>(k, one_type, switched, b, f); break;
    }
  }

  // Each particle's force: its blocks' contributions in block order, whatever thread sums it.
#pragma omp parallel for schedule(static) if (nblocks > 1)
  for (int64_t p0 = 0; p0 < n; p0 += kReduceRows) {
    const int64_t p1 = std::min(n, p0 + kReduceRows);
    double acc[3 * kReduceRows];
    std::fill(acc, acc + 3 * (p1 - p0), 0.0);
    for (const Block& b : blocks_) {
      const int64_t lo = std::max(p0, b.lo), hi = std::min(p1 - 1, b.hi);
      const double* f = partial_.data() + 3 * (b.offset - b.lo);
      for (int64_t p = lo; p <= hi; ++p)
        for (int d = 0; d < 3; ++d) acc[3 * (p - p0) + d] += f[3 * p + d];
    }
    for (int64_t p = p0; p < p1; ++p) out.forces[size_t(p)] += Vec3{acc[3 * (p - p0)], acc[3 * (p - p0) + 1], acc[3 * (p - p0) + 2]};
  }
  double energy = 0;
  double w[6] = {0, 0, 0, 0, 0, 0};
  for (const Block& b : blocks_) {
    energy += b.energy;
    for (int d = 0; d < 6; ++d) w[d] += b.virial[d];
  }

  // 1-4 pairs: the full Lennard-Jones, epsilon scaled.
  for (const Pair14& p : system.topology.pairs14) {
    const PairCoefficients& c = table_[size_t(system.type[size_t(p.i)] * nt + system.type[size_t(p.j)])];
    const Vec3 d = box.min_image(state.positions[size_t(p.i)] - state.positions[size_t(p.j)]);
    const double r2inv = 1 / norm2(d), r6inv = r2inv * r2inv * r2inv;
    const double fr = p.lj_scale * r6inv * (12 * c.c12 * r6inv - 6 * c.c6) * r2inv;
    energy += p.lj_scale * r6inv * (c.c12 * r6inv - c.c6);
    out.forces[size_t(p.i)] += fr * d;
    out.forces[size_t(p.j)] -= fr * d;
    w[0] += fr * d.x * d.x, w[1] += fr * d.x * d.y, w[2] += fr * d.x * d.z;
    w[3] += fr * d.y * d.y, w[4] += fr * d.y * d.z, w[5] += fr * d.z * d.z;
  }

  Mat3 virial;
  virial(0, 0) = w[0], virial(0, 1) = virial(1, 0) = w[1], virial(0, 2) = virial(2, 0) = w[2];
  virial(1, 1) = w[3], virial(1, 2) = virial(2, 1) = w[4], virial(2, 2) = w[5];

  if (tail_) {
    SPIRE_CHECK(box.periodic(), ValueError, "LennardJones: tail corrections need a periodic box (a density)");
    double ie = 0, ip = 0;
    tail_sums(system, ie, ip);
    const double v = box.volume();
    energy += 2 * std::numbers::pi / v * ie;
    const double p_tail = 2 * std::numbers::pi / (3 * v * v) * ip;
    for (int d = 0; d < 3; ++d) virial(d, d) += v * p_tail;
  }

  out.add_energy(name(), energy);
  out.virial += virial;
}

}  // namespace spire::sponge
