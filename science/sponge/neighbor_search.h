// The inner loops of the neighbour-list build (neighbor_list.cpp), for AVX2 and for AVX-512 (chosen
// at run time when the processor has it): the distance test of a row's candidates, and reading a
// row's partners out of a bitmap in ascending order.
//
// The distance test is done in single precision first, eight or sixteen candidates at a time: a
// pair whose single-precision r^2 is below `sure` is within range, one at or above `beyond` is
// not, and the few between (a band a few 1e-7 of R^2 wide, neighbor_list.cpp sizes it from the
// rounding of the coordinates) are decided in double precision, exactly as a double-precision
// search would. So both instruction sets, and the double-precision search, give the same list.
#pragma once
#include <cstddef>
#include <cstdint>

#include "science/sponge/vec3.h"

namespace spire::sponge::neighbor_search {

// The particles in cell order: single-precision coordinates relative to `origin`, the
// double-precision ones, and their indices; all padded by 16 entries.
struct Coordinates {
  const float *x = nullptr, *y = nullptr, *z = nullptr;
  const double *sx = nullptr, *sy = nullptr, *sz = nullptr;
  const int32_t* index = nullptr;
  Vec3 origin;
  float sure = 0, beyond = 0;
  double range2 = 0;
};

// A run of candidates: cell-ordered positions [p0, p1), the highest index among them, and the
// shift of their periodic image.
struct Run {
  int32_t p0 = 0, p1 = 0, last = -1;
  Vec3 shift;
};

// The |d|^2 every test of the list computes (one rounding order, whatever the vector width).
inline double distance2(double dx, double dy, double dz) {
  return __builtin_fma(dz, dz, __builtin_fma(dy, dy, dx * dx));
}

// Row i's partners j > i within range among the runs' candidates, appended to `found` in run
// order (room for every candidate of the runs plus 16); returns how many.
int64_t search_avx2(const Coordinates& c, int32_t i, const Vec3& ri, const Run* runs, size_t runs_count,
                    int32_t* found);
int64_t search_avx512(const Coordinates& c, int32_t i, const Vec3& ri, const Run* runs, size_t runs_count,
                      int32_t* found);

// How the double-precision search images a candidate: shifts, by its run's shift (d = x_j + shift
// - x_i); orthorhombic, triclinic: by rounding, as Box::min_image (a box searched whole along some
// axis, a few cells wide). With the box's vectors a, b, c in reduced form.
enum class Wrap { shifts, orthorhombic, triclinic };
struct BoxVectors {
  Vec3 a, b, c;
};
// The same as search_avx2 entirely in double precision, four candidates at a time.
int64_t search_double(const Coordinates& c, Wrap wrap, const BoxVectors& box, int32_t i, const Vec3& ri,
                      const Run* runs, size_t runs_count, int32_t* found);

// The set bits of words [first, last] of `bits`, as indices 64 w + b in ascending order, into out
// (room for their number plus 16); the words are left zero. Returns how many.
int64_t read_bits_avx2(uint64_t* bits, int64_t first, int64_t last, int32_t* out);
int64_t read_bits_avx512(uint64_t* bits, int64_t first, int64_t last, int32_t* out);

// Whether the processor runs the AVX-512 forms (avx512f, avx512dq, avx512vl, avx512bw).
bool processor_has_avx512();

}  // namespace spire::sponge::neighbor_search
