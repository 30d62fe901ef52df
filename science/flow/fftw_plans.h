// The one place in science/flow that creates FFTW plans. FFTW's planner is not thread-safe, so
// planning happens under a mutex, once per (kind, shape), and the plans live for the whole run.
// Executing a plan uses FFTW's new-array functions on the caller's buffers, which is thread-safe,
// so one plan serves every thread of a dataset run.
//
// Each transform has one plan, for buffers aligned to fft_alignment (FFTW's SIMD codelets; 1.5
// to 2.5 times faster than an FFTW_UNALIGNED plan at the sizes the solvers use). A buffer that is
// not aligned goes through aligned per-thread scratch rather than through a second, unaligned plan:
// two plans are two algorithms with two roundings, and the bits of a result must not depend on
// where the caller's memory happens to lie. Planning uses FFTW_ESTIMATE so that the algorithm is
// the same in every process (FFTW_MEASURE times candidates and may choose differently from one
// run to the next): same seed, same bits.
#pragma once
#include <fftw3.h>

#include <complex>
#include <cstddef>
#include <new>
#include <vector>

namespace spire::flow {

enum class FftKind {
  R2C,       // real grid -> half-complex spectrum (last axis halved), unnormalised
  C2R,       // the inverse; destroys its input
  Forward,   // complex -> complex, sign -1
  Backward,  // complex -> complex, sign +1
  Redft00,   // DCT-I (real, per axis), unnormalised
  // Pieces of a 2D transform, for transforms that skip known zeros (FourierSpace's padding):
  RowsR2C,          // shape {rows, n}: r2c of each row (n real in, n/2+1 complex out)
  RowsC2R,          // shape {rows, n}: the inverse; destroys its input
  ColumnsForward,   // shape {n, count, stride}: in place, complex DFT of length n down each of
  ColumnsBackward,  //   `count` adjacent columns whose elements lie `stride` apart; in == out
};

class FftPlan {
 public:
  FftPlan(FftKind kind, std::vector<int> shape);  // shape: the real (or complex) sizes per axis
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  FftKind kind() const { return kind_; }
  const std::vector<int>& shape() const { return shape_; }
  // in and out must not overlap. r2c and r2r leave `in` untouched; c2r destroys it.
  void r2c(const double* in, std::complex<double>* out) const;
  void c2r(std::complex<double>* in, double* out) const;
  void dft(const std::complex<double>* in, std::complex<double>* out) const;
  void r2r(const double* in, double* out) const;
  void r2c_rows(const double* in, std::complex<double>* out) const;  // RowsR2C
  void c2r_rows(std::complex<double>* in, double* out) const;        // RowsC2R
  void dft_columns(std::complex<double>* data) const;            // Columns*: in place

 private:
  FftKind kind_;
  std::vector<int> shape_;
  fftw_plan plan_ = nullptr;
  size_t in_bytes_ = 0, out_bytes_ = 0;
  // Runs the plan on in/out, staging either through aligned scratch when it is not aligned.
  void execute(const void* in, void* out) const;
  // 1D DCT-I, done as an r2c of its even extension (see the constructor).
  bool even_dct() const { return kind_ == FftKind::Redft00 && shape_.size() == 1 && shape_[0] >= 2; }
  void even_dct_execute(const double* in, double* out) const;
};

// The cached plan for (kind, shape); created on first use. The reference stays valid for the
// life of the process.
const FftPlan& fft_plan(FftKind kind, const std::vector<int>& shape);

// A size >= n that FFTW transforms quickly: even, with no prime factor above 7.
int fft_friendly_size(int n);

// The alignment of every buffer a plan runs on. FFTW's own test (fftw_alignment_of) accepts
// 16-byte alignment, yet its AVX codelets round differently on 16- and 32-byte aligned arrays, so
// results would depend on where malloc put a buffer. 64 covers AVX-512.
inline constexpr std::size_t fft_alignment = 64;

// Buffers the plans use without staging.
template <class T>
struct FftwAllocator {
  using value_type = T;
  FftwAllocator() = default;
  template <class U>
  FftwAllocator(const FftwAllocator<U>&) {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(fft_alignment)));
  }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(fft_alignment)); }
  template <class U>
  bool operator==(const FftwAllocator<U>&) const { return true; }
};
template <class T>
using AlignedVector = std::vector<T, FftwAllocator<T>>;

}  // namespace spire::flow
