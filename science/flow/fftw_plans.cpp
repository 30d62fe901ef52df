#include "science/flow/fftw_plans.h"

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "engine/core/error.h"

namespace spire::flow {

namespace {
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

size_t product(const std::vector<int>& shape) {
  size_t n = 1;
  for (int s : shape) n *= size_t(s);
  return n;
}

// Half-complex size of an r2c transform of `shape`.
size_t half_size(const std::vector<int>& shape) {
  size_t n = 1;
  for (size_t a = 0; a + 1 < shape.size(); ++a) n *= size_t(shape[a]);
  return n * size_t(shape.back() / 2 + 1);
}

void buffer_bytes(FftKind kind, const std::vector<int>& shape, size_t& in_bytes, size_t& out_bytes) {
  const size_t real = product(shape), half = half_size(shape);
  switch (kind) {
    case FftKind::R2C: in_bytes = real * sizeof(double); out_bytes = half * sizeof(fftw_complex); break;
    case FftKind::C2R: in_bytes = half * sizeof(fftw_complex); out_bytes = real * sizeof(double); break;
    case FftKind::Forward:
    case FftKind::Backward: in_bytes = out_bytes = real * sizeof(fftw_complex); break;
    case FftKind::Redft00: in_bytes = out_bytes = real * sizeof(double); break;
    case FftKind::RowsR2C:
      in_bytes = size_t(shape[0]) * size_t(shape[1]) * sizeof(double);
      out_bytes = size_t(shape[0]) * size_t(shape[1] / 2 + 1) * sizeof(fftw_complex);
      break;
    case FftKind::RowsC2R:
      in_bytes = size_t(shape[0]) * size_t(shape[1] / 2 + 1) * sizeof(fftw_complex);
      out_bytes = size_t(shape[0]) * size_t(shape[1]) * sizeof(double);
      break;
    case FftKind::ColumnsForward:
    case FftKind::ColumnsBackward:
      in_bytes = out_bytes = size_t(shape[0]) * size_t(shape[2]) * sizeof(fftw_complex);
      break;
  }
}

bool in_place(FftKind k) { return k == FftKind::ColumnsForward || k == FftKind::ColumnsBackward; }

fftw_plan make(FftKind kind, const std::vector<int>& shape, unsigned flags) {
  const int rank = int(shape.size());
  size_t in_bytes = 0, out_bytes = 0;
  buffer_bytes(kind, shape, in_bytes, out_bytes);
  // Planning with FFTW_ESTIMATE reads no data; the buffers only carry alignment.
  void* in = ::operator new(in_bytes, std::align_val_t(fft_alignment));
  void* out = in_place(kind) ? in : ::operator new(out_bytes, std::align_val_t(fft_alignment));
  fftw_plan p = nullptr;
  switch (kind) {
    case FftKind::R2C:
      p = fftw_plan_dft_r2c(rank, shape.data(), (double*)in, (fftw_complex*)out, flags);
      break;
    case FftKind::C2R:
      p = fftw_plan_dft_c2r(rank, shape.data(), (fftw_complex*)in, (double*)out, flags | FFTW_DESTROY_INPUT);
      break;
    case FftKind::Forward:
    case FftKind::Backward:
      p = fftw_plan_dft(rank, shape.data(), (fftw_complex*)in, (fftw_complex*)out,
                        kind == FftKind::Forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
      break;
    case FftKind::Redft00: {
      std::vector<fftw_r2r_kind> kinds(shape.size(), FFTW_REDFT00);
      p = fftw_plan_r2r(rank, shape.data(), (double*)in, (double*)out, kinds.data(), flags);
      break;
    }
    case FftKind::RowsR2C: {
      const int n = shape[1], half = n / 2 + 1;
      p = fftw_plan_many_dft_r2c(1, &n, shape[0], (double*)in, nullptr, 1, n, (fftw_complex*)out, nullptr, 1, half,
                                 flags);
      break;
    }
    case FftKind::RowsC2R: {
      const int n = shape[1], half = n / 2 + 1;
      p = fftw_plan_many_dft_c2r(1, &n, shape[0], (fftw_complex*)in, nullptr, 1, half, (double*)out, nullptr, 1,
                                 n, flags | FFTW_DESTROY_INPUT);
      break;
    }
    case FftKind::ColumnsForward:
    case FftKind::ColumnsBackward: {
      const int n = shape[0], count = shape[1], stride = shape[2];
      SPIRE_CHECK(count <= stride, ValueError, "FFT columns: ", count, " columns in rows of ", stride);
      const int sign = kind == FftKind::ColumnsForward ? FFTW_FORWARD : FFTW_BACKWARD;
      p = fftw_plan_many_dft(1, &n, count, (fftw_complex*)in, nullptr, stride, 1, (fftw_complex*)in, nullptr,
                             stride, 1, sign, flags);
      break;
    }
  }
  ::operator delete(in, std::align_val_t(fft_alignment));
  if (out != in) ::operator delete(out, std::align_val_t(fft_alignment));
  return p;  // null when FFTW has no algorithm under these flags
}

// Per-thread aligned staging buffers (grown on demand: steady state allocates nothing).
void* stage(int which, size_t bytes) {
  thread_local AlignedVector<double> buffers[2];
  AlignedVector<double>& b = buffers[which];
  if (b.size() * sizeof(double) < bytes) b.resize(bytes / sizeof(double) + 1);
  return b.data();
}

// FFTW_NO_BUFFERING: FFTW's buffered algorithms (which ESTIMATE picks for 2D sizes such as 192^2)
// allocate a buffer per column on every execution; the unbuffered ones allocate nothing and were as
// fast or faster at every size measured (192^2 r2c: 88 us instead of 114).
constexpr unsigned planning_flags = FFTW_ESTIMATE | FFTW_NO_BUFFERING;

bool aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % fft_alignment == 0; }
}  // namespace

FftPlan::FftPlan(FftKind kind, std::vector<int> shape) : kind_(kind), shape_(std::move(shape)) {
  SPIRE_CHECK(!shape_.empty() && shape_.size() <= 3, ValueError, "FFT rank must be 1 to 3");
  for (int s : shape_) SPIRE_CHECK(s >= 1, ValueError, "FFT size must be positive, got ", s);
  // The engine may have asked FFTW for threaded plans; a solve is single-threaded.
  static std::once_flag once;
  std::call_once(once, [] {
    fftw_init_threads();
    fftw_make_planner_thread_safe();
  });
  fftw_plan_with_nthreads(1);
  buffer_bytes(kind_, shape_, in_bytes_, out_bytes_);
  if (even_dct()) {
    // FFTW's own REDFT00 allocates scratch on every execution (5 to 9 blocks at n = 257..1537);
    // the even extension through an r2c of length 2 (n - 1) into our scratch is the same algorithm.
    plan_ = make(FftKind::R2C, {2 * (shape_[0] - 1)}, planning_flags);
    if (!plan_) plan_ = make(FftKind::R2C, {2 * (shape_[0] - 1)}, FFTW_ESTIMATE);
  } else {
    plan_ = make(kind_, shape_, planning_flags);
    if (!plan_) plan_ = make(kind_, shape_, FFTW_ESTIMATE);  // no unbuffered algorithm for it
  }
  SPIRE_CHECK(plan_, ValueError, "FFTW could not plan a transform of rank ", shape_.size(), " and size ",
              product(shape_));
}

void FftPlan::even_dct_execute(const double* in, double* out) const {
  const size_t n = size_t(shape_[0]), m = 2 * (n - 1);
  double* z = static_cast<double*>(stage(0, m * sizeof(double)));
  auto* c = static_cast<fftw_complex*>(stage(1, (m / 2 + 1) * sizeof(fftw_complex)));
  std::memcpy(z, in, n * sizeof(double));
  for (size_t j = 1; j + 1 < n; ++j) z[m - j] = in[j];
  fftw_execute_dft_r2c(plan_, z, c);
  for (size_t k = 0; k < n; ++k) out[k] = c[k][0];
}

void FftPlan::execute(const void* in, void* out) const {
  if (even_dct()) {
    even_dct_execute(static_cast<const double*>(in), static_cast<double*>(out));
    return;
  }
  void* i = const_cast<void*>(in);
  if (in_place(kind_)) {  // one buffer: stage it whole when it is not aligned
    void* d = aligned(out) ? out : stage(0, out_bytes_);
    if (d != out) std::memcpy(d, out, out_bytes_);
    fftw_execute_dft(plan_, (fftw_complex*)d, (fftw_complex*)d);
    if (d != out) std::memcpy(out, d, out_bytes_);
    return;
  }
  if (!aligned(in)) {
    i = stage(0, in_bytes_);
    std::memcpy(i, in, in_bytes_);
  }
  void* o = aligned(out) ? out : stage(1, out_bytes_);
  switch (kind_) {
    case FftKind::R2C: fftw_execute_dft_r2c(plan_, (double*)i, (fftw_complex*)o); break;
    case FftKind::C2R: fftw_execute_dft_c2r(plan_, (fftw_complex*)i, (double*)o); break;
    case FftKind::Forward:
    case FftKind::Backward: fftw_execute_dft(plan_, (fftw_complex*)i, (fftw_complex*)o); break;
    case FftKind::Redft00: fftw_execute_r2r(plan_, (double*)i, (double*)o); break;
    case FftKind::RowsR2C: fftw_execute_dft_r2c(plan_, (double*)i, (fftw_complex*)o); break;
    case FftKind::RowsC2R: fftw_execute_dft_c2r(plan_, (fftw_complex*)i, (double*)o); break;
    default: break;
  }
  if (o != out) std::memcpy(out, o, out_bytes_);
}

void FftPlan::r2c(const double* in, std::complex<double>* out) const {
  SPIRE_CHECK(kind_ == FftKind::R2C, ValueError, "FftPlan: r2c on a plan of another kind");
  execute(in, out);
}

void FftPlan::c2r(std::complex<double>* in, double* out) const {
  SPIRE_CHECK(kind_ == FftKind::C2R, ValueError, "FftPlan: c2r on a plan of another kind");
  execute(in, out);
}

void FftPlan::dft(const std::complex<double>* in, std::complex<double>* out) const {
  SPIRE_CHECK(kind_ == FftKind::Forward || kind_ == FftKind::Backward, ValueError,
              "FftPlan: dft on a plan of another kind");
  execute(in, out);
}

void FftPlan::r2r(const double* in, double* out) const {
  SPIRE_CHECK(kind_ == FftKind::Redft00, ValueError, "FftPlan: r2r on a plan of another kind");
  execute(in, out);
}

void FftPlan::r2c_rows(const double* in, std::complex<double>* out) const {
  SPIRE_CHECK(kind_ == FftKind::RowsR2C, ValueError, "FftPlan: r2c_rows on a plan of another kind");
  execute(in, out);
}

void FftPlan::c2r_rows(std::complex<double>* in, double* out) const {
  SPIRE_CHECK(kind_ == FftKind::RowsC2R, ValueError, "FftPlan: c2r_rows on a plan of another kind");
  execute(in, out);
}

void FftPlan::dft_columns(std::complex<double>* data) const {
  SPIRE_CHECK(in_place(kind_), ValueError, "FftPlan: dft_columns on a plan of another kind");
  execute(data, data);
}

const FftPlan& fft_plan(FftKind kind, const std::vector<int>& shape) {
  // Never destroyed: plans may be executed by threads still running at exit.
  static auto* cache = new std::map<std::pair<int, std::vector<int>>, std::unique_ptr<FftPlan>>();
  std::lock_guard<std::mutex> lock(planner_mutex());
  auto& slot = (*cache)[{int(kind), shape}];
  if (!slot) slot = std::make_unique<FftPlan>(kind, shape);
  return *slot;
}

int fft_friendly_size(int n) {
  for (int m = std::max(n, 2);; ++m) {
    if (m % 2) continue;
    int r = m;
    for (int f : {2, 3, 5, 7})
      while (r % f == 0) r /= f;
    if (r == 1) return m;
  }
}

}  // namespace spire::flow
