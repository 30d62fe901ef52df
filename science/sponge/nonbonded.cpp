// The pair kernel of Lennard-Jones and the direct-space Coulomb sums (nonbonded.h): the blocks,
// their force windows and their sums; the row packing and kernels are in nonbonded_kernels.h,
// compiled here twice, for AVX2 and for AVX-512 (chosen at run time when the processor has it),
// with the same arithmetic lane by lane, so the same bits (nonbonded_simd.h).
#include "science/sponge/nonbonded.h"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "engine/core/error.h"
#include "science/sponge/nonbonded_simd.h"

#if !defined(__AVX2__) || !defined(__FMA__)
#error "science/sponge/nonbonded.cpp needs AVX2 and FMA (the project builds with -march=x86-64-v3)"
#endif

namespace spire::sponge {
namespace {

static_assert(sizeof(Vec3) == 3 * sizeof(double));

// Blocks of about this many rows, at most kMaxBlocks of them: enough tasks to balance two or more
// threads, few enough that their force windows stay small: a block's window reaches from its first
// row to its highest partner, so its rows plus the span of partner indices (two layers of a
// lattice-ordered box; up to the whole system for particles far from index order), zeroed and
// summed every step. Measured on in.lj (32 000 atoms), 62 blocks of 512 rows spent a fifth of
// the step on that.
constexpr int64_t kRowsPerBlock = 1024;
constexpr int64_t kMaxBlocks = 16;
constexpr int64_t kReduceParticles = 512;  // particles per task when the windows are summed
// Below this many listed pairs one thread does it all: waking a team would cost more.
constexpr int64_t kParallelPairs = 32768;

enum class Shape { none, orthorhombic, triclinic };
enum class Coul { none, ewald, reaction_field };
enum class LJ { none, plain, switched };

// Box vectors for minimum image as Box::min_image does it, with the reciprocals.
struct ImageBox {
  double ax = 0, bx = 0, by = 0, cx = 0, cy = 0, cz = 0, iax = 0, iby = 0, icz = 0;
};

// A 64-byte aligned view into a vector of doubles grown as needed.
double* aligned(std::vector<double>& v, size_t n) {
  if (v.size() < n + 8) v.resize(n + 8);
  const uintptr_t p = reinterpret_cast<uintptr_t>(v.data());
  return reinterpret_cast<double*>((p + 63) & ~uintptr_t(63));
}

// One thread's packed row: the pairs inside the cutoff, and eight padding pairs after them. A
// partner is kept as 4 j, its offset in doubles into the (x, y, z, q) array and the force windows.
struct Packed {
  std::vector<double> storage;
  std::vector<int32_t> j4_storage;
  double *dx = nullptr, *dy = nullptr, *dz = nullptr, *r2 = nullptr, *q = nullptr;
  int32_t* j4 = nullptr;
  void reserve(int64_t m) {
    const int64_t cap = (m + 23) / 8 * 8;  // a row, the eight lanes a store may spill, the padding
    double* base = aligned(storage, size_t(5 * cap));
    dx = base, dy = dx + cap, dz = dy + cap, r2 = dz + cap, q = r2 + cap;
    if (int64_t(j4_storage.size()) < cap) j4_storage.resize(size_t(cap));
    j4 = j4_storage.data();
  }
};

// Everything a row needs, fixed for the call.
struct Context {
  const double* xyzq = nullptr;
  const double* charge = nullptr;
  double rc2 = 0;
  ImageBox image;
  double prefactor = 0;
  const double* spline = nullptr;
  double inverse_spacing = 0;
  int32_t last_interval = 0;
  double k_rf = 0, c_rf = 0;
  const int* type = nullptr;
  const int32_t* type4 = nullptr;  // per particle 4 * type: its offset into a row of the table
  const char* lj_active = nullptr;
  const double* table = nullptr;
  int ntypes = 0;
  double switch_distance = 0, a12 = 0, b12 = 0, a6 = 0, b6 = 0;
};

// A block's energies and virial, per lane.
struct BlockLanes {
  alignas(64) double coulomb[8] = {};
  alignas(64) double lj[8] = {};
  alignas(64) double w[6][8] = {};
};

using RowKernel = void (*)(const Context&, int64_t, const Packed&, int64_t, double*, BlockLanes&);
// The kernels for rows with both terms, Coulomb only and Lennard-Jones only.
struct Kernels {
  RowKernel both = nullptr, coulomb = nullptr, lj = nullptr;
};
using BlockRunner = void (*)(const Context&, const PairList&, const Kernels&, PairKernel::Block&, double*,
                             const Packed*);

}  // namespace

// No contraction of a multiply and an add into one fused operation unless written so: the compiler
// would choose differently for the two instruction sets, and their bits would part.
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
namespace nonbonded_avx2 {
using Simd = nonbonded_simd::Avx2;
using nonbonded_simd::sum8;
#include "science/sponge/nonbonded_kernels.h"
}  // namespace nonbonded_avx2
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512vl,avx512bw")
#pragma GCC optimize("fp-contract=off")
// GCC 12 reports the deliberately undefined register many AVX-512 intrinsics start from (its bug
// 105593); the masked forms nonbonded_simd.h uses avoid the rest.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
namespace nonbonded_avx512 {
using Simd = nonbonded_simd::Avx512;
using nonbonded_simd::sum8;
#include "science/sponge/nonbonded_kernels.h"
}  // namespace nonbonded_avx512
#pragma GCC diagnostic pop
#pragma GCC pop_options

namespace {

// The spline's knots: v = (alpha r)^2 steps of at most this, 4096 intervals at alpha rc = 2.63
// (OpenMM's 5e-4 tolerance); error below 3e-15 of erf(alpha r)/r and 1e-9 of the screened force,
// as ErfTable with its 2630 intervals in r.
constexpr double kSplineStep = 6.93 / 4096;

// G(v) = erf(sqrt v) / sqrt v and its derivative, to within a few ulp: the alternating series
// below v = 1/2 (where the closed form of G' would cancel digits away), the closed forms above:
// 2 v G' = 2/sqrt(pi) exp(-v) - G.
void erf_ratio(double v, double& g, double& dg) {
  constexpr double c = 1.1283791670955126;  // 2 / sqrt(pi)
  if (v < 0.5) {
    double sg = 0, sd = 0, term = 1;  // term = (-v)^n / n!
    for (int n = 0; n < 24; ++n) {
      sg += term / (2 * n + 1);
      // d/dv of (-v)^(n+1) / (n+1)! / (2n+3) is -(-v)^n / n! / (2n+3)
      sd -= term / (2 * n + 3);
      term *= -v / (n + 1);
    }
    g = c * sg, dg = c * sd;
    return;
  }
  const double x = std::sqrt(v);
  g = std::erf(x) / x;
  dg = (c * std::exp(-v) - g) / (2 * v);
}

bool processor_has_avx512() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
  return has;
}

}  // namespace

void PairKernel::prepare_spline(double alpha, double cutoff) {
  if (!spline_.empty() && alpha == spline_alpha_ && cutoff == spline_cutoff_) return;
  SPIRE_CHECK(std::isfinite(alpha) && alpha > 0 && std::isfinite(cutoff) && cutoff > 0, ValueError,
              "pair kernel: Ewald needs alpha > 0 and cutoff > 0, got ", alpha, " and ", cutoff);
  const double vmax = alpha * alpha * cutoff * cutoff;
  const int64_t n = std::max<int64_t>(16, int64_t(std::ceil(vmax / kSplineStep)));
  SPIRE_CHECK(n <= (int64_t(1) << 22), ValueError, "pair kernel: alpha * cutoff = ", alpha * cutoff,
              " needs too many spline intervals; it is about 2.6 for a tolerance of 5e-4 and 5 for 1e-12");
  // g(u) = alpha G(alpha^2 u), dg/du = alpha^3 G'(alpha^2 u); Hermite through values and slopes.
  const double umax = cutoff * cutoff, h = umax / double(n), a2 = alpha * alpha, a3 = a2 * alpha;
  spline_.resize(size_t(4 * n));
  double G, dG;
  erf_ratio(0, G, dG);
  double g0 = alpha * G, d0 = h * a3 * dG;
  for (int64_t k = 0; k < n; ++k) {
    erf_ratio(a2 * (double(k + 1) * h), G, dG);
    const double g1 = alpha * G, d1 = h * a3 * dG;
    double* c = spline_.data() + 4 * k;
    c[0] = g0, c[1] = d0, c[2] = 3 * (g1 - g0) - 2 * d0 - d1, c[3] = 2 * (g0 - g1) + d0 + d1;
    g0 = g1, d0 = d1;
  }
  spline_alpha_ = alpha, spline_cutoff_ = cutoff, spline_inverse_spacing_ = double(n) / umax;
}

void PairKernel::partition(const PairList& list) {
  // Blocks of consecutive rows fixed by the particle count alone (never by the list's pair counts
  // or the thread count), so that every sum has the same grouping whenever and however the list
  // was built and however many threads run. A block's window reaches from its first row to the
  // highest partner of its rows (the last of each row, rows being ascending).
  const int64_t n = list.rows;
  const int64_t k = std::clamp<int64_t>(n / kRowsPerBlock, 1, kMaxBlocks);
  const int64_t rows = (n + k - 1) / k;
  blocks_.clear();
  for (int64_t row = 0; row < n; row += rows) {
    Block b;
    b.row_begin = row, b.row_end = std::min(n, row + rows), b.lo = row;
    int64_t hi = b.row_end - 1;
    for (int64_t i = b.row_begin; i < b.row_end; ++i)
      if (list.size[i] > 0) hi = std::max<int64_t>(hi, list.row[i][list.size[i] - 1]);
    b.hi = hi;
    blocks_.push_back(b);
  }
  int64_t offset = 0;
  for (Block& b : blocks_) b.offset = offset, offset += b.hi - b.lo + 1;
}

PairEnergies PairKernel::add(const PairList& list, const State& state, const LJPairTerm* lj,
                             const CoulombPairTerm* coulomb, ForceResult& out) {
  const int64_t n = int64_t(state.positions.size());
  SPIRE_CHECK(list.rows == n, ValueError, "pair kernel: the pair list has ", list.rows, " rows for ", n,
              " particles: update it for this state");
  SPIRE_CHECK(int64_t(out.forces.size()) == n, ValueError, "pair kernel: ForceResult holds ", out.forces.size(),
              " forces for ", n, " particles (reset it first)");
  SPIRE_CHECK(!lj || !coulomb || lj->cutoff == coulomb->cutoff, ValueError, "pair kernel: Lennard-Jones (cutoff ",
              lj ? lj->cutoff : 0.0, ") and Coulomb (cutoff ", coulomb ? coulomb->cutoff : 0.0,
              ") share one pass only with the same cutoff");
  PairEnergies energies;
  if (n == 0 || (!lj && !coulomb)) return energies;
  // Partners are addressed as 4 j in 32 bits.
  SPIRE_CHECK(n < int64_t(1) << 29, ValueError, "pair kernel: ", n, " particles; at most 2^29 - 1 are addressed");
  const double cutoff = lj ? lj->cutoff : coulomb->cutoff;

  // Positions and charges interleaved, aligned: a partner's x, y, z, q load as one vector.
  double* xyzq = aligned(xyzq_, size_t(4 * n));
  const Vec3* pos = state.positions.data();
  const double* q = coulomb ? coulomb->charge : nullptr;
  for (int64_t i = 0; i < n; ++i)
    xyzq[4 * i] = pos[i].x, xyzq[4 * i + 1] = pos[i].y, xyzq[4 * i + 2] = pos[i].z, xyzq[4 * i + 3] = q ? q[i] : 0.0;

  const Box& box = state.box;
  Context c;
  c.xyzq = xyzq;
  c.charge = q;
  c.rc2 = cutoff * cutoff;
  if (box.periodic()) {
    ImageBox& im = c.image;
    im.ax = box.a().x, im.bx = box.b().x, im.by = box.b().y, im.cx = box.c().x, im.cy = box.c().y, im.cz = box.c().z;
    im.iax = 1 / im.ax, im.iby = 1 / im.by, im.icz = 1 / im.cz;
  }
  if (coulomb) {
    c.prefactor = coulomb->prefactor;
    c.k_rf = coulomb->k_rf, c.c_rf = coulomb->c_rf;
    if (coulomb->kind == CoulombPairKind::ewald) {
      prepare_spline(coulomb->alpha, coulomb->cutoff);
      c.spline = spline_.data();
      c.inverse_spacing = spline_inverse_spacing_;
      c.last_interval = int32_t(spline_.size() / 4 - 1);
    }
  }
  bool one_type = true;
  if (lj) {
    c.type = lj->type;
    type4_.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) type4_[size_t(i)] = 4 * lj->type[i];
    c.type4 = type4_.data();
    c.lj_active = lj->active;
    c.table = lj->table;
    c.ntypes = lj->ntypes;
    one_type = lj->ntypes == 1;
    c.switch_distance = lj->switch_distance;
    c.a12 = lj->a12, c.b12 = lj->b12, c.a6 = lj->a6, c.b6 = lj->b6;
  }
  const Coul ck = !coulomb ? Coul::none : coulomb->kind == CoulombPairKind::ewald ? Coul::ewald : Coul::reaction_field;
  const LJ lk = !lj ? LJ::none : lj->switched ? LJ::switched : LJ::plain;
  const Shape shape = !box.periodic() ? Shape::none : box.orthorhombic() ? Shape::orthorhombic : Shape::triclinic;
  const bool wide = avx512_ && processor_has_avx512();
  const Kernels kernels =
      wide ? nonbonded_avx512::kernels(ck, lk, one_type) : nonbonded_avx2::kernels(ck, lk, one_type);
  const BlockRunner run = wide ? nonbonded_avx512::block_runner(shape) : nonbonded_avx2::block_runner(shape);

  partition(list);
  int64_t slots = 0, longest = 0;
  for (const Block& b : blocks_) slots += b.hi - b.lo + 1;
  for (int64_t i = 0; i < n; ++i) longest = std::max<int64_t>(longest, list.size[i]);
  double* windows = aligned(windows_, size_t(4 * slots));

  const int64_t nblocks = int64_t(blocks_.size());
  const bool parallel = nblocks > 1 && list.pairs >= kParallelPairs;
#pragma omp parallel if (parallel)
  {
    Packed p[2];
    p[0].reserve(longest), p[1].reserve(longest);
#pragma omp for schedule(dynamic, 1)
    for (int64_t b = 0; b < nblocks; ++b) {
      Block& blk = blocks_[size_t(b)];
      double* w = windows + 4 * blk.offset;
      std::fill(w, w + 4 * (blk.hi - blk.lo + 1), 0.0);
      run(c, list, kernels, blk, w - 4 * blk.lo, p);  // particle j's slot at window[4 j]
    }
    // Each particle's force: its windows' slots in block order, whatever thread sums it.
#pragma omp for schedule(static)
    for (int64_t p0 = 0; p0 < n; p0 += kReduceParticles) {
      const int64_t p1 = std::min(n, p0 + kReduceParticles);
      alignas(32) double acc[4 * kReduceParticles];
      std::fill(acc, acc + 4 * (p1 - p0), 0.0);
      for (const Block& b : blocks_) {
        const int64_t lo = std::max(p0, b.lo), hi = std::min(p1 - 1, b.hi);
        const double* w = windows + 4 * (b.offset - b.lo);
        for (int64_t k = lo; k <= hi; ++k)
          _mm256_store_pd(acc + 4 * (k - p0),
                          _mm256_add_pd(_mm256_load_pd(acc + 4 * (k - p0)), _mm256_load_pd(w + 4 * k)));
      }
      for (int64_t k = p0; k < p1; ++k)
        out.forces[size_t(k)] += Vec3{acc[4 * (k - p0)], acc[4 * (k - p0) + 1], acc[4 * (k - p0) + 2]};
    }
  }
  double w[6] = {0, 0, 0, 0, 0, 0};
  for (const Block& b : blocks_) {
    energies.lj += b.lj;
    energies.coulomb += b.coulomb;
    for (int k = 0; k < 6; ++k) w[k] += b.virial[k];
  }
  Mat3 virial;
  virial(0, 0) = w[0], virial(0, 1) = virial(1, 0) = w[1], virial(0, 2) = virial(2, 0) = w[2];
  virial(1, 1) = w[3], virial(1, 2) = virial(2, 1) = w[4], virial(2, 2) = w[5];
  out.virial += virial;
  return energies;
}

}  // namespace spire::sponge
