// sum, the reduction every broadcasting reverse rule ends in, and the axis helpers of reductions.
// Its kernel (backends/cpu/reduce_dense.h) sums pairwise, vectorised and in a fixed order.
#include <algorithm>

#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/reduce_internal.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire {

Axes normalize_axes(const Axes& axes, int64_t ndim, const char* op) {
  Axes out;
  if (axes.empty()) {
    for (int64_t i = 0; i < ndim; ++i) out.push_back(i);
    return out;
  }
  for (int64_t a : axes) out.push_back(normalize_axis(a, ndim, op));
  std::sort(out.begin(), out.end());
  SPIRE_CHECK(std::adjacent_find(out.begin(), out.end()) == out.end(), ShapeError, op,
              ": an axis is repeated in the axes given");
  return out;
}

Shape reduced_shape(const Shape& shape, const Axes& axes, bool keepdims) {
  Shape out;
  for (int64_t i = 0; i < int64_t(shape.size()); ++i) {
    bool reduced = std::binary_search(axes.begin(), axes.end(), i);
    if (!reduced) out.push_back(shape[i]);
    else if (keepdims) out.push_back(1);
  }
  return out;
}

namespace detail {

Tensor unreduce(const Tensor& g, const Shape& in_shape, const Axes& axes, bool keepdims) {
  Tensor k = keepdims ? g : reshape(g, reduced_shape(in_shape, axes, true));
  return expand(k, in_shape);
}

int64_t reduced_count(const Shape& shape, const Axes& axes) {
  int64_t n = 1;
  for (int64_t a : axes) n *= shape[a];
  return n;
}

}  // namespace detail

namespace {
using namespace rules;
using detail::unreduce;

SPIRE_DEFINE_OP({
    .name = "sum",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      Axes axes = a.template get<Axes>("axes");  // normalised by the wrapper
      return {{reduced_shape(in[0].shape(), axes, a.template get<bool>("keepdims")), in[0].dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {unreduce(c.grads[0], c.inputs[0].shape(), c.attrs.get<Axes>("axes"),
                       c.attrs.get<bool>("keepdims"))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {sum(c.tangents[0], c.attrs.get<Axes>("axes"), c.attrs.get<bool>("keepdims"))};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      return {sum(c.inputs[0], batching::shift_axes(c.attrs.get<Axes>("axes")), c.attrs.get<bool>("keepdims"))};
    },
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({3, 4, 5})}, {{"axes", Axes{1}}, {"keepdims", false}}, "middle axis"},
          {{sample({3, 4, 5})}, {{"axes", Axes{0, 2}}, {"keepdims", true}}, "two axes keepdims"},
          {{sample({6})}, {{"axes", Axes{0}}, {"keepdims", false}}, "all"},
          {{sample({2, 3}, -1, 1, 3, DType::Complex128)}, {{"axes", Axes{0, 1}}, {"keepdims", false}}, "complex"},
      };
    },
});

}  // namespace

Tensor sum(const Tensor& x, const Axes& axes, bool keepdims) {
  static const OpDef& d = op_def("sum");
  Tensor in = x.dtype() == DType::Bool ? cast(x, DType::Int64) : x;
  return call1(d, {in}, Attrs{{"axes", normalize_axes(axes, x.dim(), "sum")}, {"keepdims", keepdims}});
}

Tensor sum_to(const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  int64_t lead = x.dim() - int64_t(shape.size());
  SPIRE_CHECK(lead >= 0, ShapeError, "sum_to: cannot reduce ", shape_str(x.shape()), " to ", shape_str(shape));
  Axes axes;
  for (int64_t i = 0; i < x.dim(); ++i)
    if (i < lead || (shape[i - lead] == 1 && x.shape()[i] != 1)) axes.push_back(i);
  Tensor s = axes.empty() ? x : sum(x, axes, true);
  return s.shape() == shape ? s : reshape(s, shape);
}

}  // namespace spire
