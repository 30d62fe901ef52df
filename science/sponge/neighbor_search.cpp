// Inner loops of the neighbour-list build (neighbor_search.h), AVX2 and AVX-512.
#include "science/sponge/neighbor_search.h"

#include <immintrin.h>

#include <bit>

namespace spire::sponge::neighbor_search {
namespace {

// Left-packing eight 32-bit lanes by an 8-bit mask (AVX2 has no compress instruction), and the
// positions of the set bits of a byte, for reading bitmaps.
struct Tables {
  alignas(32) int32_t pack[256][8];
  alignas(32) int32_t bits[256][8];
  constexpr Tables() : pack{}, bits{} {
    for (int m = 0; m < 256; ++m) {
      int to = 0;
      for (int l = 0; l < 8; ++l)
        if (m >> l & 1) pack[m][to] = l, bits[m][to] = l, ++to;
    }
  }
};
constexpr Tables kTables;

// Round to nearest (ties to even, as nearbyint): exact.
inline __m256d round_nearest(__m256d v) { return _mm256_round_pd(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }

template <Wrap W>
int64_t search_double_as(const Coordinates& c, const BoxVectors& box, int32_t i, const Vec3& ri, const Run* runs,
                         size_t runs_count, int32_t* found) {
  const __m128i self = _mm_set1_epi32(i);
  const __m256d r2max = _mm256_set1_pd(c.range2);
  const __m256d ax = _mm256_set1_pd(box.a.x), bx = _mm256_set1_pd(box.b.x), by = _mm256_set1_pd(box.b.y);
  const __m256d cx = _mm256_set1_pd(box.c.x), cy = _mm256_set1_pd(box.c.y), cz = _mm256_set1_pd(box.c.z);
  const __m256d iax = _mm256_set1_pd(W != Wrap::shifts ? 1 / box.a.x : 0);
  const __m256d iby = _mm256_set1_pd(W != Wrap::shifts ? 1 / box.b.y : 0);
  const __m256d icz = _mm256_set1_pd(W != Wrap::shifts ? 1 / box.c.z : 0);
  int64_t count = 0;
  for (size_t r = 0; r < runs_count; ++r) {
    const Run& run = runs[r];
    if (run.last <= i) continue;  // only j > i are kept
    // d = x_j + shift - x_i = x_j - o.
    const Vec3 o = W == Wrap::shifts ? ri - run.shift : ri;
    const __m256d ox = _mm256_set1_pd(o.x), oy = _mm256_set1_pd(o.y), oz = _mm256_set1_pd(o.z);
    for (int32_t p = run.p0; p < run.p1; p += 4) {
      __m256d dx = _mm256_sub_pd(_mm256_loadu_pd(c.sx + p), ox);
      __m256d dy = _mm256_sub_pd(_mm256_loadu_pd(c.sy + p), oy);
      __m256d dz = _mm256_sub_pd(_mm256_loadu_pd(c.sz + p), oz);
      if constexpr (W == Wrap::orthorhombic) {
        dx = _mm256_sub_pd(dx, _mm256_mul_pd(ax, round_nearest(_mm256_mul_pd(dx, iax))));
        dy = _mm256_sub_pd(dy, _mm256_mul_pd(by, round_nearest(_mm256_mul_pd(dy, iby))));
        dz = _mm256_sub_pd(dz, _mm256_mul_pd(cz, round_nearest(_mm256_mul_pd(dz, icz))));
      } else if constexpr (W == Wrap::triclinic) {
        const __m256d n3 = round_nearest(_mm256_mul_pd(dz, icz));
        dx = _mm256_sub_pd(dx, _mm256_mul_pd(n3, cx)), dy = _mm256_sub_pd(dy, _mm256_mul_pd(n3, cy));
        dz = _mm256_sub_pd(dz, _mm256_mul_pd(n3, cz));
        const __m256d n2 = round_nearest(_mm256_mul_pd(dy, iby));
        dx = _mm256_sub_pd(dx, _mm256_mul_pd(n2, bx)), dy = _mm256_sub_pd(dy, _mm256_mul_pd(n2, by));
        dx = _mm256_sub_pd(dx, _mm256_mul_pd(ax, round_nearest(_mm256_mul_pd(dx, iax))));
      }
      // distance2's rounding order, four lanes at a time.
      const __m256d r2 = _mm256_fmadd_pd(dz, dz, _mm256_fmadd_pd(dy, dy, _mm256_mul_pd(dx, dx)));
      const __m128i j4 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(c.index + p));
      unsigned bits = unsigned(_mm256_movemask_pd(_mm256_cmp_pd(r2, r2max, _CMP_LT_OQ))) &
                      unsigned(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(j4, self))));
      if (run.p1 - p < 4) bits &= (1u << (run.p1 - p)) - 1;
      // Left-packed by the table of eight lanes (the upper four unused).
      const __m256i perm = _mm256_load_si256(reinterpret_cast<const __m256i*>(kTables.pack[bits]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(found + count),
                          _mm256_permutevar8x32_epi32(_mm256_castsi128_si256(j4), perm));
      count += std::popcount(bits);
    }
  }
  return count;
}

}  // namespace

int64_t search_double(const Coordinates& c, Wrap wrap, const BoxVectors& box, int32_t i, const Vec3& ri,
                      const Run* runs, size_t runs_count, int32_t* found) {
  switch (wrap) {
    case Wrap::shifts: return search_double_as<Wrap::shifts>(c, box, i, ri, runs, runs_count, found);
    case Wrap::orthorhombic: return search_double_as<Wrap::orthorhombic>(c, box, i, ri, runs, runs_count, found);
    case Wrap::triclinic: return search_double_as<Wrap::triclinic>(c, box, i, ri, runs, runs_count, found);
  }
  return 0;
}

int64_t search_avx2(const Coordinates& c, int32_t i, const Vec3& ri, const Run* runs, size_t runs_count,
                    int32_t* found) {
  const __m256i self = _mm256_set1_epi32(i);
  const __m256 sure = _mm256_set1_ps(c.sure), beyond = _mm256_set1_ps(c.beyond);
  int64_t count = 0;
  for (size_t r = 0; r < runs_count; ++r) {
    const Run& run = runs[r];
    if (run.last <= i) continue;  // only j > i are kept
    // d = x_j + shift - x_i = x_j - o.
    const Vec3 o = ri - run.shift;
    const __m256 ox = _mm256_set1_ps(float(o.x - c.origin.x)), oy = _mm256_set1_ps(float(o.y - c.origin.y)),
                 oz = _mm256_set1_ps(float(o.z - c.origin.z));
    for (int32_t p = run.p0; p < run.p1; p += 8) {
      const __m256 dx = _mm256_sub_ps(_mm256_loadu_ps(c.x + p), ox);
      const __m256 dy = _mm256_sub_ps(_mm256_loadu_ps(c.y + p), oy);
      const __m256 dz = _mm256_sub_ps(_mm256_loadu_ps(c.z + p), oz);
      const __m256 r2 = _mm256_fmadd_ps(dz, dz, _mm256_fmadd_ps(dy, dy, _mm256_mul_ps(dx, dx)));
      const __m256i j8 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c.index + p));
      unsigned ok = unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(j8, self))));
      if (run.p1 - p < 8) ok &= (1u << (run.p1 - p)) - 1;
      unsigned bits = unsigned(_mm256_movemask_ps(_mm256_cmp_ps(r2, sure, _CMP_LT_OQ))) & ok;
      unsigned maybe = unsigned(_mm256_movemask_ps(_mm256_cmp_ps(r2, beyond, _CMP_LT_OQ))) & ok & ~bits;
      while (maybe) {  // rare
        const int l = std::countr_zero(maybe);
        maybe &= maybe - 1;
        if (distance2(c.sx[p + l] - o.x, c.sy[p + l] - o.y, c.sz[p + l] - o.z) < c.range2) bits |= 1u << l;
      }
      const __m256i perm = _mm256_load_si256(reinterpret_cast<const __m256i*>(kTables.pack[bits]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(found + count), _mm256_permutevar8x32_epi32(j8, perm));
      count += std::popcount(bits);
    }
  }
  return count;
}

int64_t read_bits_avx2(uint64_t* bits, int64_t first, int64_t last, int32_t* out) {
  int64_t count = 0;
  for (int64_t w = first; w <= last; ++w) {
    const uint64_t word = bits[w];
    if (!word) continue;
    bits[w] = 0;
    // A byte at a time: its set bits' positions from a table, offset, stored, counted.
    for (int b = 0; b < 8; ++b) {
      const unsigned byte = unsigned(word >> (8 * b)) & 0xFF;
      const __m256i at = _mm256_add_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(kTables.bits[byte])),
                                          _mm256_set1_epi32(int32_t(64 * w + 8 * b)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + count), at);
      count += std::popcount(byte);
    }
  }
  return count;
}

__attribute__((target("avx512f,avx512dq,avx512vl,avx512bw"))) int64_t search_avx512(const Coordinates& c, int32_t i,
                                                                                    const Vec3& ri, const Run* runs,
                                                                                    size_t runs_count, int32_t* found) {
  const __m512i self = _mm512_set1_epi32(i);
  const __m512 sure = _mm512_set1_ps(c.sure), beyond = _mm512_set1_ps(c.beyond);
  int64_t count = 0;
  for (size_t r = 0; r < runs_count; ++r) {
    const Run& run = runs[r];
    if (run.last <= i) continue;
    const Vec3 o = ri - run.shift;
    const __m512 ox = _mm512_set1_ps(float(o.x - c.origin.x)), oy = _mm512_set1_ps(float(o.y - c.origin.y)),
                 oz = _mm512_set1_ps(float(o.z - c.origin.z));
    for (int32_t p = run.p0; p < run.p1; p += 16) {
      const __mmask16 valid = run.p1 - p >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (run.p1 - p)) - 1);
      const __m512 dx = _mm512_sub_ps(_mm512_loadu_ps(c.x + p), ox);
      const __m512 dy = _mm512_sub_ps(_mm512_loadu_ps(c.y + p), oy);
      const __m512 dz = _mm512_sub_ps(_mm512_loadu_ps(c.z + p), oz);
      const __m512 r2 = _mm512_fmadd_ps(dz, dz, _mm512_fmadd_ps(dy, dy, _mm512_mul_ps(dx, dx)));
      const __m512i j16 = _mm512_loadu_si512(c.index + p);
      const __mmask16 ok = _mm512_mask_cmpgt_epi32_mask(valid, j16, self);
      unsigned bits = _mm512_mask_cmp_ps_mask(ok, r2, sure, _CMP_LT_OQ);
      unsigned maybe = _mm512_mask_cmp_ps_mask(ok, r2, beyond, _CMP_LT_OQ) & ~bits & 0xFFFFu;
      while (maybe) {
        const int l = std::countr_zero(maybe);
        maybe &= maybe - 1;
        if (distance2(c.sx[p + l] - o.x, c.sy[p + l] - o.y, c.sz[p + l] - o.z) < c.range2) bits |= 1u << l;
      }
      _mm512_storeu_si512(found + count, _mm512_maskz_compress_epi32(__mmask16(bits), j16));
      count += std::popcount(bits);
    }
  }
  return count;
}

__attribute__((target("avx512f,avx512dq,avx512vl,avx512bw"))) int64_t read_bits_avx512(uint64_t* bits, int64_t first,
                                                                                       int64_t last, int32_t* out) {
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  int64_t count = 0;
  for (int64_t w = first; w <= last; ++w) {
    const uint64_t word = bits[w];
    if (!word) continue;
    bits[w] = 0;
    for (int q = 0; q < 4; ++q) {
      const unsigned part = unsigned(word >> (16 * q)) & 0xFFFFu;
      const __m512i at = _mm512_add_epi32(iota, _mm512_set1_epi32(int32_t(64 * w + 16 * q)));
      _mm512_storeu_si512(out + count, _mm512_maskz_compress_epi32(__mmask16(part), at));
      count += std::popcount(part);
    }
  }
  return count;
}

bool processor_has_avx512() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
  return has;
}

}  // namespace spire::sponge::neighbor_search
