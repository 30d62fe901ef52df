// CPU kernels of fftn, rfftn, irfftn and dct through FFTW's guru64 interface, which takes any
// axes and any (non-negative) strides directly, so inputs are never transposed or copied.
// Plans are made once per problem (kind, precision, dims with strides, batch dims with strides,
// in-place-ness, the arrays' SIMD alignment, threads) with FFTW_ESTIMATE, which never touches the
// arrays, and run on new buffers with the new-array execute functions (thread-safe; FFTW requires
// the same alignment, hence alignment in the key). Planning is not thread-safe: one mutex guards
// the cache and the planner.
#include <fftw3.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>

#include "engine/backends/cpu/loops.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {
using Ints = std::vector<int64_t>;

// Transforms with at least this many points use FFTW's threads.
constexpr int64_t kThreadedFft = int64_t(1) << 16;

template <class R> struct Fftw;
template <> struct Fftw<double> {
  using plan = fftw_plan;
  using cpx = fftw_complex;
  using iodim = fftw_iodim64;
  static constexpr int precision = 2;
  static void init() { fftw_init_threads(); fftw_make_planner_thread_safe(); }
  static void threads(int n) { fftw_plan_with_nthreads(n); }
  static int align(const void* p) { return fftw_alignment_of((double*)p); }
  static plan dft(int r, const iodim* d, int hr, const iodim* h, void* i, void* o, int sign) {
    return fftw_plan_guru64_dft(r, d, hr, h, (cpx*)i, (cpx*)o, sign, FFTW_ESTIMATE);
  }
  static plan r2c(int r, const iodim* d, int hr, const iodim* h, void* i, void* o) {
    return fftw_plan_guru64_dft_r2c(r, d, hr, h, (double*)i, (cpx*)o, FFTW_ESTIMATE);
  }
  static plan c2r(int r, const iodim* d, int hr, const iodim* h, void* i, void* o) {
    return fftw_plan_guru64_dft_c2r(r, d, hr, h, (cpx*)i, (double*)o, FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
  }
  static plan r2r(int r, const iodim* d, int hr, const iodim* h, void* i, void* o, fftw_r2r_kind k) {
    return fftw_plan_guru64_r2r(r, d, hr, h, (double*)i, (double*)o, &k, FFTW_ESTIMATE);
  }
  static void exec_dft(plan p, void* i, void* o) { fftw_execute_dft(p, (cpx*)i, (cpx*)o); }
  static void exec_r2c(plan p, void* i, void* o) { fftw_execute_dft_r2c(p, (double*)i, (cpx*)o); }
  static void exec_c2r(plan p, void* i, void* o) { fftw_execute_dft_c2r(p, (cpx*)i, (double*)o); }
  static void exec_r2r(plan p, void* i, void* o) { fftw_execute_r2r(p, (double*)i, (double*)o); }
};
template <> struct Fftw<float> {
  using plan = fftwf_plan;
  using cpx = fftwf_complex;
  using iodim = fftwf_iodim64;
  static constexpr int precision = 1;
  static void init() { fftwf_init_threads(); fftwf_make_planner_thread_safe(); }
  static void threads(int n) { fftwf_plan_with_nthreads(n); }
  static int align(const void* p) { return fftwf_alignment_of((float*)p); }
  static plan dft(int r, const iodim* d, int hr, const iodim* h, void* i, void* o, int sign) {
    return fftwf_plan_guru64_dft(r, d, hr, h, (cpx*)i, (cpx*)o, sign, FFTW_ESTIMATE);
  }
  static plan r2c(int r, const iodim* d, int hr, const iodim* h, void* i, void* o) {
    return fftwf_plan_guru64_dft_r2c(r, d, hr, h, (float*)i, (cpx*)o, FFTW_ESTIMATE);
  }
  static plan c2r(int r, const iodim* d, int hr, const iodim* h, void* i, void* o) {
    return fftwf_plan_guru64_dft_c2r(r, d, hr, h, (cpx*)i, (float*)o, FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
  }
  static plan r2r(int r, const iodim* d, int hr, const iodim* h, void* i, void* o, fftw_r2r_kind k) {
    return fftwf_plan_guru64_r2r(r, d, hr, h, (float*)i, (float*)o, &k, FFTW_ESTIMATE);
  }
  static void exec_dft(plan p, void* i, void* o) { fftwf_execute_dft(p, (cpx*)i, (cpx*)o); }
  static void exec_r2c(plan p, void* i, void* o) { fftwf_execute_dft_r2c(p, (float*)i, (cpx*)o); }
  static void exec_c2r(plan p, void* i, void* o) { fftwf_execute_dft_c2r(p, (cpx*)i, (float*)o); }
  static void exec_r2r(plan p, void* i, void* o) { fftwf_execute_r2r(p, (float*)i, (float*)o); }
};

enum class Kind : int64_t { C2C, R2C, C2R, R2R };

// One transform problem: `dims` are transformed, `batch` are looped over (FFTW's howmany).
struct Problem {
  Kind kind;
  int64_t sub;  // sign for C2C, the r2r kind for R2R
  std::vector<fftw_iodim64> dims, batch;
};

std::mutex& plan_mutex() {
  static std::mutex m;
  return m;
}

// The plan for `pr` on arrays aligned like in/out; made on first use and kept for the process.
template <class R>
typename Fftw<R>::plan get_plan(const Problem& pr, void* in, void* out) {
  using F = Fftw<R>;
  static std::map<Ints, typename F::plan> cache;
  static std::once_flag once;
  int64_t points = 1, total = 1;
  for (auto& d : pr.dims) points *= d.n;
  for (auto& d : pr.batch) total *= d.n;
  total *= points;
  int threads = total >= kThreadedFft ? omp_get_max_threads() : 1;
  Ints key{int64_t(pr.kind), pr.sub, F::precision, in == out, F::align(in), F::align(out), threads,
           int64_t(pr.dims.size())};
  for (auto* v : {&pr.dims, &pr.batch})
    for (auto& d : *v) key.insert(key.end(), {d.n, d.is, d.os});
  std::lock_guard<std::mutex> lock(plan_mutex());
  std::call_once(once, [] { F::init(); });
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  F::threads(threads);
  int r = int(pr.dims.size()), hr = int(pr.batch.size());
  const auto* d = reinterpret_cast<const typename F::iodim*>(pr.dims.data());
  const auto* h = reinterpret_cast<const typename F::iodim*>(pr.batch.data());
  typename F::plan p = nullptr;
  switch (pr.kind) {
    case Kind::C2C: p = F::dft(r, d, hr, h, in, out, int(pr.sub)); break;
    case Kind::R2C: p = F::r2c(r, d, hr, h, in, out); break;
    case Kind::C2R: p = F::c2r(r, d, hr, h, in, out); break;
    case Kind::R2R: p = F::r2r(r, d, hr, h, in, out, fftw_r2r_kind(pr.sub)); break;
  }
  SPIRE_CHECK(p, ValueError, "fft: FFTW could not plan a transform of ", r, " axes over ", hr, " batch axes");
  cache.emplace(std::move(key), p);
  return p;
}

template <class R>
void execute(const Problem& pr, void* in, void* out) {
  typename Fftw<R>::plan p = get_plan<R>(pr, in, out);
  switch (pr.kind) {
    case Kind::C2C: Fftw<R>::exec_dft(p, in, out); break;
    case Kind::R2C: Fftw<R>::exec_r2c(p, in, out); break;
    case Kind::C2R: Fftw<R>::exec_c2r(p, in, out); break;
    case Kind::R2R: Fftw<R>::exec_r2r(p, in, out); break;
  }
}

// Dims for transforming `axes` of tensors with the given shape and in/out strides; the other
// axes become the batch. `out_shape` gives the logical length for R2C/C2R (the real side).
Problem make_problem(Kind kind, int64_t sub, const Shape& logical, const Shape& in_strides,
                     const Shape& out_strides, const Ints& axes) {
  Problem pr{kind, sub, {}, {}};
  for (int64_t a : axes) pr.dims.push_back({logical[a], in_strides[a], out_strides[a]});
  for (int64_t i = 0; i < int64_t(logical.size()); ++i)
    if (std::find(axes.begin(), axes.end(), i) == axes.end() && logical[i] != 1)
      pr.batch.push_back({logical[i], in_strides[i], out_strides[i]});
  return pr;
}

// FFTW is given strides as they are; a view with negative strides is copied first.
Tensor positive_strides(const Tensor& t) {
  for (int64_t s : t.strides())
    if (s < 0) {
      Tensor c = empty(t.shape(), t.dtype(), t.device());
      copy_into(t, c);
      return c;
    }
  return t;
}

double scale_for(const std::string& norm, bool inverse, int64_t points) {
  if (norm == "ortho") return 1.0 / std::sqrt(double(points));
  return (norm == "forward") != inverse ? 1.0 / double(points) : 1.0;
}

template <class R>
void scale(Tensor& t, double s) {
  if (s == 1.0) return;
  int64_t n = t.numel() * (is_complex(t.dtype()) ? 2 : 1);
  R* p = static_cast<R*>(t.raw_data());
  const R f = R(s);
  if (n < kParallelGrain) {  // serial without entering the OpenMP runtime
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) p[i] *= f;
    return;
  }
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) p[i] *= f;
}

int64_t points_of(const Shape& logical, const Ints& axes) {
  int64_t n = 1;
  for (int64_t a : axes) n *= logical[a];
  return n;
}

template <class R>
void fftn_kernel(const Tensor& x0, Tensor& y, const Attrs& a) {
  if (y.numel() == 0) return;
  const Ints& axes = a.get<Ints>("axes");
  bool inverse = a.get<bool>("inverse");
  Tensor x = positive_strides(x0);
  Problem pr = make_problem(Kind::C2C, inverse ? FFTW_BACKWARD : FFTW_FORWARD, x.shape(), x.strides(),
                            y.strides(), axes);
  execute<R>(pr, x.raw_data(), y.raw_data());
  scale<R>(y, scale_for(a.get<std::string>("norm"), inverse, points_of(x.shape(), axes)));
}

template <class R>
void rfftn_kernel(const Tensor& x0, Tensor& y, const Attrs& a) {
  if (y.numel() == 0) return;
  const Ints& axes = a.get<Ints>("axes");  // FFTW halves the last dim given, as we do
  Tensor x = positive_strides(x0);
  Problem pr = make_problem(Kind::R2C, 0, x.shape(), x.strides(), y.strides(), axes);
  execute<R>(pr, x.raw_data(), y.raw_data());
  scale<R>(y, scale_for(a.get<std::string>("norm"), false, points_of(x.shape(), axes)));
}

// Inverse c2c over all axes but the halved one (in place on a scratch copy), then a 1-d c2r
// along it, which reads only the real part of the DC and Nyquist bins: the definition of irfftn
// in ops/fft.cpp for inputs that are not Hermitian.
template <class R>
void irfftn_kernel(const Tensor& x, Tensor& y, const Attrs& a) {
  if (y.numel() == 0) return;
  const Ints& axes = a.get<Ints>("axes");
  int64_t last = axes.back();
  Tensor s = empty(x.shape(), x.dtype(), x.device());
  copy_into(x, s);
  Ints others(axes.begin(), axes.end() - 1);
  if (!others.empty()) {
    Problem pr = make_problem(Kind::C2C, FFTW_BACKWARD, s.shape(), s.strides(), s.strides(), others);
    execute<R>(pr, s.raw_data(), s.raw_data());
  }
  Shape logical = y.shape();
  Problem pr = make_problem(Kind::C2R, 0, logical, s.strides(), y.strides(), {last});
  execute<R>(pr, s.raw_data(), y.raw_data());
  scale<R>(y, scale_for(a.get<std::string>("norm"), true, points_of(logical, axes)));
}

template <class R>
void dct_kernel(const Tensor& x0, Tensor& y, const Attrs& a) {
  if (y.numel() == 0) return;
  int64_t type = a.get<int64_t>("type"), axis = a.get<int64_t>("axis");
  fftw_r2r_kind kind = type == 1 ? FFTW_REDFT00 : type == 2 ? FFTW_REDFT10 : FFTW_REDFT01;
  Tensor x = positive_strides(x0);
  Problem pr = make_problem(Kind::R2R, int64_t(kind), x.shape(), x.strides(), y.strides(), {axis});
  execute<R>(pr, x.raw_data(), y.raw_data());
}

// Picks the precision from the real type behind the input.
template <void (*F32)(const Tensor&, Tensor&, const Attrs&), void (*F64)(const Tensor&, Tensor&, const Attrs&)>
void by_precision(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  if (real_dtype(in[0].dtype()) == DType::Float32) F32(in[0], out[0], a);
  else F64(in[0], out[0], a);
}

SPIRE_REGISTER_KERNEL("fftn", DeviceKind::CPU, (by_precision<fftn_kernel<float>, fftn_kernel<double>>));
SPIRE_REGISTER_KERNEL("rfftn", DeviceKind::CPU, (by_precision<rfftn_kernel<float>, rfftn_kernel<double>>));
SPIRE_REGISTER_KERNEL("irfftn", DeviceKind::CPU, (by_precision<irfftn_kernel<float>, irfftn_kernel<double>>));
SPIRE_REGISTER_KERNEL("dct", DeviceKind::CPU, (by_precision<dct_kernel<float>, dct_kernel<double>>));

}  // namespace
}  // namespace spire::cpu
