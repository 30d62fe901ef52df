// Eight double lanes for the pair kernel (nonbonded.cpp), in two instruction sets: AVX2 (two
// 256-bit halves) and AVX-512 (one 512-bit register, compiled for it alone and chosen at run time).
//
// Every operation is lane by lane and IEEE-exact in both (add, mul, fma, div, sqrt, round to
// nearest even, conversions; no hardware estimates such as rsqrt, whose results differ between
// processors), data moves are exact, and the few reductions across lanes happen in one written
// order; the kernel is one source instantiated with each (nonbonded_kernels.h). So both give the
// same bits: a run may move between machines with and without AVX-512.
#pragma once
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstdint>

namespace spire::sponge::nonbonded_simd {

// The lanes of eight values summed as ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)).
inline double sum8(const double* l) { return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])); }

// Left-packing tables: for a 4-bit mask, the permutation moving the selected lanes to the front
// (as pairs of 32-bit lanes for doubles, as single ones for 32-bit integers).
struct PackTables {
  alignas(32) int32_t pd[16][8];
  alignas(16) int32_t epi32[16][4];
  constexpr PackTables() : pd{}, epi32{} {
    for (int m = 0; m < 16; ++m) {
      int to = 0;
      for (int l = 0; l < 4; ++l)
        if (m >> l & 1) pd[m][2 * to] = 2 * l, pd[m][2 * to + 1] = 2 * l + 1, epi32[m][to] = l, ++to;
      for (; to < 4; ++to) pd[m][2 * to] = 0, pd[m][2 * to + 1] = 1, epi32[m][to] = 0;
    }
  }
};
inline constexpr PackTables kPack;

struct Avx2 {
  struct D {
    __m256d lo, hi;  // lanes 0-3, 4-7
  };
  struct I {
    __m128i lo, hi;  // eight 32-bit integers
  };
  static D zero() { return {_mm256_setzero_pd(), _mm256_setzero_pd()}; }
  static D set1(double a) { return {_mm256_set1_pd(a), _mm256_set1_pd(a)}; }
  static D load(const double* p) { return {_mm256_load_pd(p), _mm256_load_pd(p + 4)}; }
  static void store(double* p, D v) { _mm256_store_pd(p, v.lo), _mm256_store_pd(p + 4, v.hi); }
  static D add(D a, D b) { return {_mm256_add_pd(a.lo, b.lo), _mm256_add_pd(a.hi, b.hi)}; }
  static D sub(D a, D b) { return {_mm256_sub_pd(a.lo, b.lo), _mm256_sub_pd(a.hi, b.hi)}; }
  static D mul(D a, D b) { return {_mm256_mul_pd(a.lo, b.lo), _mm256_mul_pd(a.hi, b.hi)}; }
  static D div(D a, D b) { return {_mm256_div_pd(a.lo, b.lo), _mm256_div_pd(a.hi, b.hi)}; }
  static D max(D a, D b) { return {_mm256_max_pd(a.lo, b.lo), _mm256_max_pd(a.hi, b.hi)}; }
  static D sqrt(D a) { return {_mm256_sqrt_pd(a.lo), _mm256_sqrt_pd(a.hi)}; }
  static D fmadd(D a, D b, D c) { return {_mm256_fmadd_pd(a.lo, b.lo, c.lo), _mm256_fmadd_pd(a.hi, b.hi, c.hi)}; }
  static D fnmadd(D a, D b, D c) { return {_mm256_fnmadd_pd(a.lo, b.lo, c.lo), _mm256_fnmadd_pd(a.hi, b.hi, c.hi)}; }
  static D fmsub(D a, D b, D c) { return {_mm256_fmsub_pd(a.lo, b.lo, c.lo), _mm256_fmsub_pd(a.hi, b.hi, c.hi)}; }
  static D round(D a) {
    constexpr int mode = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    return {_mm256_round_pd(a.lo, mode), _mm256_round_pd(a.hi, mode)};
  }
  // Lanes l < n kept, the others zero.
  static D first(D v, int64_t n) {
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3), count = _mm256_set1_epi64x(n);
    return {_mm256_and_pd(v.lo, _mm256_castsi256_pd(_mm256_cmpgt_epi64(count, lane))),
            _mm256_and_pd(
                v.hi, _mm256_castsi256_pd(_mm256_cmpgt_epi64(count, _mm256_add_epi64(lane, _mm256_set1_epi64x(4)))))};
  }
  // Bit l set where a < b (ordered).
  static unsigned less(D a, D b) {
    return unsigned(_mm256_movemask_pd(_mm256_cmp_pd(a.lo, b.lo, _CMP_LT_OQ))) |
           unsigned(_mm256_movemask_pd(_mm256_cmp_pd(a.hi, b.hi, _CMP_LT_OQ))) << 4;
  }
  static I load_i(const int32_t* p) {
    return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)),
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 4))};
  }
  static void store_i(int32_t* p, I v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v.lo), _mm_storeu_si128(reinterpret_cast<__m128i*>(p + 4), v.hi);
  }
  static I times4(I v) { return {_mm_slli_epi32(v.lo, 2), _mm_slli_epi32(v.hi, 2)}; }
  static I set1_i(int32_t a) { return {_mm_set1_epi32(a), _mm_set1_epi32(a)}; }
  // Lanes l >= n replaced by `fill`.
  static I first_or(I v, int64_t n, int32_t fill) {
    const __m128i lane = _mm_setr_epi32(0, 1, 2, 3), count = _mm_set1_epi32(int32_t(std::min<int64_t>(n, 8)));
    const __m128i f = _mm_set1_epi32(fill);
    return {_mm_blendv_epi8(f, v.lo, _mm_cmpgt_epi32(count, lane)),
            _mm_blendv_epi8(f, v.hi, _mm_cmpgt_epi32(count, _mm_add_epi32(lane, _mm_set1_epi32(4))))};
  }
  static void store_unaligned(double* p, D v) { _mm256_storeu_pd(p, v.lo), _mm256_storeu_pd(p + 4, v.hi); }
  // Truncated to integers, at most `last`; and back to doubles.
  static I truncate(D x, int32_t last) {
    const __m128i l = _mm_set1_epi32(last);
    return {_mm_min_epi32(_mm256_cvttpd_epi32(x.lo), l), _mm_min_epi32(_mm256_cvttpd_epi32(x.hi), l)};
  }
  static D to_double(I v) { return {_mm256_cvtepi32_pd(v.lo), _mm256_cvtepi32_pd(v.hi)}; }

  // Eight rows of four doubles, row l at base + offset[l], as four columns.
  [[gnu::always_inline]] static void load_rows(const double* base, const int32_t* offset, D& c0, D& c1, D& c2, D& c3) {
    transpose(_mm256_loadu_pd(base + offset[0]), _mm256_loadu_pd(base + offset[1]), _mm256_loadu_pd(base + offset[2]),
              _mm256_loadu_pd(base + offset[3]), c0.lo, c1.lo, c2.lo, c3.lo);
    transpose(_mm256_loadu_pd(base + offset[4]), _mm256_loadu_pd(base + offset[5]), _mm256_loadu_pd(base + offset[6]),
              _mm256_loadu_pd(base + offset[7]), c0.hi, c1.hi, c2.hi, c3.hi);
  }
  // base[offset[l] + (0, 1, 2)] += (x, y, z) of lane l; rows 32-byte aligned, offsets distinct.
  [[gnu::always_inline]] static void add_rows(double* base, const int32_t* offset, D x, D y, D z) {
    __m256d r[8];
    rows(x.lo, y.lo, z.lo, r[0], r[1], r[2], r[3]);
    rows(x.hi, y.hi, z.hi, r[4], r[5], r[6], r[7]);
    for (int l = 0; l < 8; ++l) {
      double* s = base + offset[l];
      _mm256_store_pd(s, _mm256_add_pd(_mm256_load_pd(s), r[l]));
    }
  }
  // Appends the lanes of v selected by `bits` at out (room for eight more); the integer form too.
  [[gnu::always_inline]] static void append(double* out, D v, unsigned bits) {
    const unsigned b0 = bits & 15, b1 = bits >> 4;
    _mm256_storeu_pd(out, permute(v.lo, b0));
    _mm256_storeu_pd(out + std::popcount(b0), permute(v.hi, b1));
  }
  [[gnu::always_inline]] static void append(int32_t* out, I v, unsigned bits) {
    const unsigned b0 = bits & 15, b1 = bits >> 4;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), permute(v.lo, b0));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + std::popcount(b0)), permute(v.hi, b1));
  }
  static double sum(D v) {
    alignas(32) double l[8];
    store(l, v);
    return sum8(l);
  }

 private:
  [[gnu::always_inline]] static void transpose(__m256d a0, __m256d a1, __m256d a2, __m256d a3, __m256d& c0, __m256d& c1,
                                               __m256d& c2, __m256d& c3) {
    const __m256d t0 = _mm256_unpacklo_pd(a0, a1), t1 = _mm256_unpackhi_pd(a0, a1);
    const __m256d t2 = _mm256_unpacklo_pd(a2, a3), t3 = _mm256_unpackhi_pd(a2, a3);
    c0 = _mm256_permute2f128_pd(t0, t2, 0x20), c2 = _mm256_permute2f128_pd(t0, t2, 0x31);
    c1 = _mm256_permute2f128_pd(t1, t3, 0x20), c3 = _mm256_permute2f128_pd(t1, t3, 0x31);
  }
  [[gnu::always_inline]] static void rows(__m256d x, __m256d y, __m256d z, __m256d& r0, __m256d& r1, __m256d& r2,
                                          __m256d& r3) {
    const __m256d zero = _mm256_setzero_pd();
    const __m256d t0 = _mm256_unpacklo_pd(x, y), t1 = _mm256_unpackhi_pd(x, y);
    const __m256d t2 = _mm256_unpacklo_pd(z, zero), t3 = _mm256_unpackhi_pd(z, zero);
    r0 = _mm256_permute2f128_pd(t0, t2, 0x20), r1 = _mm256_permute2f128_pd(t1, t3, 0x20);
    r2 = _mm256_permute2f128_pd(t0, t2, 0x31), r3 = _mm256_permute2f128_pd(t1, t3, 0x31);
  }
  [[gnu::always_inline]] static __m256d permute(__m256d v, unsigned bits) {
    const __m256i p = _mm256_load_si256(reinterpret_cast<const __m256i*>(kPack.pd[bits]));
    return _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(v), p));
  }
  [[gnu::always_inline]] static __m128i permute(__m128i v, unsigned bits) {
    const __m128i p = _mm_load_si128(reinterpret_cast<const __m128i*>(kPack.epi32[bits]));
    return _mm_castps_si128(_mm_permutevar_ps(_mm_castsi128_ps(v), p));
  }
};

#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512vl,avx512bw")

struct Avx512 {
  using D = __m512d;
  using I = __m256i;
  static D zero() { return _mm512_setzero_pd(); }
  static D set1(double a) { return _mm512_set1_pd(a); }
  static D load(const double* p) { return _mm512_load_pd(p); }
  static void store(double* p, D v) { _mm512_store_pd(p, v); }
  static D add(D a, D b) { return _mm512_add_pd(a, b); }
  static D sub(D a, D b) { return _mm512_sub_pd(a, b); }
  static D mul(D a, D b) { return _mm512_mul_pd(a, b); }
  static D div(D a, D b) { return _mm512_div_pd(a, b); }
  static D max(D a, D b) { return _mm512_max_pd(a, b); }
  static D sqrt(D a) { return _mm512_sqrt_pd(a); }
  static D fmadd(D a, D b, D c) { return _mm512_fmadd_pd(a, b, c); }
  static D fnmadd(D a, D b, D c) { return _mm512_fnmadd_pd(a, b, c); }
  static D fmsub(D a, D b, D c) { return _mm512_fmsub_pd(a, b, c); }
  static D round(D a) { return _mm512_roundscale_pd(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static D first(D v, int64_t n) {
    const __mmask8 keep = n >= 8 ? __mmask8(0xFF) : n <= 0 ? __mmask8(0) : __mmask8((1u << n) - 1);
    return _mm512_maskz_mov_pd(keep, v);
  }
  static unsigned less(D a, D b) { return unsigned(_mm512_cmp_pd_mask(a, b, _CMP_LT_OQ)); }
  static I load_i(const int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store_i(int32_t* p, I v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static I times4(I v) { return _mm256_slli_epi32(v, 2); }
  static I set1_i(int32_t a) { return _mm256_set1_epi32(a); }
  static I first_or(I v, int64_t n, int32_t fill) {
    const __mmask8 keep = n >= 8 ? __mmask8(0xFF) : n <= 0 ? __mmask8(0) : __mmask8((1u << n) - 1);
    return _mm256_mask_mov_epi32(_mm256_set1_epi32(fill), keep, v);
  }
  static void store_unaligned(double* p, D v) { _mm512_storeu_pd(p, v); }
  static I truncate(D x, int32_t last) { return _mm256_min_epi32(_mm512_cvttpd_epi32(x), _mm256_set1_epi32(last)); }
  static D to_double(I v) { return _mm512_cvtepi32_pd(v); }

  [[gnu::always_inline]] static void load_rows(const double* base, const int32_t* offset, D& c0, D& c1, D& c2, D& c3) {
    // Rows l and l + 4 share a 512-bit register; one in-lane transpose then sorts out the columns.
    const D a0 = row_pair(base, offset[0], offset[4]), a1 = row_pair(base, offset[1], offset[5]);
    const D a2 = row_pair(base, offset[2], offset[6]), a3 = row_pair(base, offset[3], offset[7]);
    const D t0 = unpacklo(a0, a1), t1 = unpackhi(a0, a1);
    const D t2 = unpacklo(a2, a3), t3 = unpackhi(a2, a3);
    // t0 = (x0 x1 z0 z1 | x4 x5 z4 z5), t2 = (x2 x3 z2 z3 | x6 x7 z6 z7): pick 128-bit pieces.
    c0 = _mm512_permutex2var_pd(t0, _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), t2);
    c2 = _mm512_permutex2var_pd(t0, _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15), t2);
    c1 = _mm512_permutex2var_pd(t1, _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), t3);
    c3 = _mm512_permutex2var_pd(t1, _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15), t3);
  }
  [[gnu::always_inline]] static void add_rows(double* base, const int32_t* offset, D x, D y, D z) {
    // Columns to rows: the inverse of load_rows, with a zero fourth column.
    const D zero = _mm512_setzero_pd();
    const D u0 =
        _mm512_permutex2var_pd(x, _mm512_setr_epi64(0, 8, 2, 10, 4, 12, 6, 14), y);  // x0 y0 x2 y2 | x4 y4 x6 y6
    const D u1 = _mm512_permutex2var_pd(x, _mm512_setr_epi64(1, 9, 3, 11, 5, 13, 7, 15), y);    // x1 y1 x3 y3 | ...
    const D v0 = unpacklo(z, zero), v1 = unpackhi(z, zero);                                     // z0 0 z2 0 | z4 0 z6 0
    const D r04 = _mm512_permutex2var_pd(u0, _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), v0);  // row 0 | row 4
    const D r15 = _mm512_permutex2var_pd(u1, _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), v1);  // row 1 | row 5
    const D r26 = _mm512_permutex2var_pd(u0, _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15), v0);  // row 2 | row 6
    const D r37 = _mm512_permutex2var_pd(u1, _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15), v1);  // row 3 | row 7
    add_row(base + offset[0], lower(r04));
    add_row(base + offset[4], upper(r04));
    add_row(base + offset[1], lower(r15));
    add_row(base + offset[5], upper(r15));
    add_row(base + offset[2], lower(r26));
    add_row(base + offset[6], upper(r26));
    add_row(base + offset[3], lower(r37));
    add_row(base + offset[7], upper(r37));
  }
  [[gnu::always_inline]] static void append(double* out, D v, unsigned bits) {
    _mm512_storeu_pd(out, _mm512_maskz_compress_pd(__mmask8(bits), v));
  }
  [[gnu::always_inline]] static void append(int32_t* out, I v, unsigned bits) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_maskz_compress_epi32(__mmask8(bits), v));
  }
  // The lanes summed in sum8's order, in registers.
  static double sum(D v) {
    const D a = _mm512_add_pd(v, _mm512_permute_pd(v, 0x55));  // l0+l1 . l2+l3 . l4+l5 . l6+l7 .
    const __m256d lo = lower(a), hi = upper(a);
    const __m128d c = _mm_add_pd(_mm256_castpd256_pd128(lo), _mm256_extractf128_pd(lo, 1));  // (l0+l1)+(l2+l3)
    const __m128d d = _mm_add_pd(_mm256_castpd256_pd128(hi), _mm256_extractf128_pd(hi, 1));  // (l4+l5)+(l6+l7)
    return _mm_cvtsd_f64(_mm_add_sd(c, d));
  }

 private:
  // The masked forms of unpack, insert and extract (and a cast, which GCC writes as an extract):
  // the plain ones start from an undefined register, which GCC 12 reports as used uninitialized.
  static D unpacklo(D a, D b) { return _mm512_mask_unpacklo_pd(a, 0xFF, a, b); }
  static D unpackhi(D a, D b) { return _mm512_mask_unpackhi_pd(a, 0xFF, a, b); }
  static __m256d lower(D v) { return _mm512_maskz_extractf64x4_pd(0xF, v, 0); }
  static __m256d upper(D v) { return _mm512_maskz_extractf64x4_pd(0xF, v, 1); }
  [[gnu::always_inline]] static D row_pair(const double* base, int32_t a, int32_t b) {
    const D lo = _mm512_castpd256_pd512(_mm256_loadu_pd(base + a));
    return _mm512_mask_insertf64x4(lo, 0xFF, lo, _mm256_loadu_pd(base + b), 1);
  }
  [[gnu::always_inline]] static void add_row(double* s, __m256d r) {
    _mm256_store_pd(s, _mm256_add_pd(_mm256_load_pd(s), r));
  }
};

#pragma GCC pop_options

}  // namespace spire::sponge::nonbonded_simd
