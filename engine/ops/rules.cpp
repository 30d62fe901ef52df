#include "engine/ops/rules.h"

#include "engine/ops/elementwise.h"
#include "engine/ops/shape.h"

namespace spire::rules {

std::vector<TensorMeta> same_as_input(const std::vector<Tensor>& in, const Attrs&) {
  return {{in[0].shape(), in[0].dtype()}};
}

TensorMeta broadcast_meta(const char* op, const std::vector<Tensor>& in) {
  Shape s = in[0].shape();
  for (size_t i = 1; i < in.size(); ++i) s = broadcast_shapes(s, in[i].shape(), op);
  return {s, in[0].dtype()};
}

void require_same_dtype(const char* op, const std::vector<Tensor>& in) {
  for (auto& t : in)
    SPIRE_CHECK(t.dtype() == in[0].dtype(), DTypeError, op, ": the primitive takes one dtype, got ",
                name(in[0].dtype()), " and ", name(t.dtype()));
}

std::pair<Tensor, Tensor> promoted(const Tensor& a, const Tensor& b, bool inexact) {
  DType t = promote(a.dtype(), b.dtype());
  if (inexact) t = to_inexact(t);
  return {a.dtype() == t ? a : cast(a, t), b.dtype() == t ? b : cast(b, t)};
}

Tensor as_inexact(const Tensor& x) { return is_inexact(x.dtype()) ? x : cast(x, to_inexact(x.dtype())); }

Tensor expand_to(const Tensor& x, const Shape& shape) {
  return x.shape() == shape ? x : expand(x, shape);
}

Tensor plus(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return add(a, b);
}

Tensor times(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined()) return Tensor();
  return mul(a, b);
}

Tensor conj_if_complex(const Tensor& x) { return is_complex(x.dtype()) ? conj(x) : x; }

namespace {
// splitmix64: only for making sample data, not a user-facing generator.
uint64_t mix(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
double unit(uint64_t& s) { return double(mix(s) >> 11) * 0x1.0p-53; }
}  // namespace

Tensor sample(const Shape& shape, double lo, double hi, uint64_t seed, DType dtype) {
  uint64_t s = seed * 0x2545F4914F6CDD1DULL + 7;
  Tensor t = empty(shape, dtype);
  int64_t n = t.numel();
  if (dtype == DType::Complex128) {
    auto* p = t.data<c128>();
    for (int64_t i = 0; i < n; ++i) p[i] = {lo + (hi - lo) * unit(s), lo + (hi - lo) * unit(s)};
  } else {
    SPIRE_CHECK(dtype == DType::Float64, DTypeError, "sample: float64 or complex128 only");
    auto* p = t.data<double>();
    for (int64_t i = 0; i < n; ++i) p[i] = lo + (hi - lo) * unit(s);
  }
  return t;
}

Tensor sample_int(const Shape& shape, int64_t lo, int64_t hi, uint64_t seed, DType dtype) {
  uint64_t s = seed * 0x2545F4914F6CDD1DULL + 11;
  Tensor t = empty(shape, DType::Int64);
  auto* p = t.data<int64_t>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = lo + int64_t(mix(s) % uint64_t(hi - lo));
  return dtype == DType::Int64 ? t : cast(t, dtype);
}

}  // namespace spire::rules
