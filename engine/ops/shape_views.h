// Memory descriptions of the slicing views, shared by the view ops (engine/ops/slicing.cpp) and by
// the kernels of their reverses (slice_backward, diagonal_backward), which write a gradient into
// the same view of a zero tensor. Attributes are the normalised ones the public wrappers store.
#pragma once
#include <algorithm>

#include "engine/core/attrs.h"
#include "engine/core/tensor.h"

namespace spire::detail {

// x[start : start + length*step : step] along `axis` (step may be negative; attrs axis, start,
// length, step).
inline Tensor slice_view(const Tensor& x, const Attrs& a) {
  int64_t axis = a.get<int64_t>("axis"), start = a.get<int64_t>("start");
  int64_t length = a.get<int64_t>("length"), step = a.get<int64_t>("step");
  Shape shape = x.shape(), strides = x.strides();
  int64_t offset = x.offset() + (length > 0 ? start * strides[axis] : 0);
  shape[axis] = length;
  strides[axis] *= step;
  return make_view(x, shape, strides, offset);
}

// The diagonal {x[..., i, i + offset, ...]} over axes axis1 < or > axis2 (attrs offset, axis1,
// axis2), as a new last axis; the two axes are dropped, as in NumPy.
inline Tensor diagonal_view(const Tensor& x, const Attrs& a) {
  int64_t k = a.get<int64_t>("offset"), a1 = a.get<int64_t>("axis1"), a2 = a.get<int64_t>("axis2");
  const Shape& s = x.shape();
  const Shape& st = x.strides();
  int64_t n1 = s[a1], n2 = s[a2];
  int64_t len = k >= 0 ? std::min(n1, n2 - k) : std::min(n1 + k, n2);
  len = std::max<int64_t>(len, 0);
  Shape shape, strides;
  for (int64_t i = 0; i < x.dim(); ++i)
    if (i != a1 && i != a2) {
      shape.push_back(s[i]);
      strides.push_back(st[i]);
    }
  shape.push_back(len);
  strides.push_back(st[a1] + st[a2]);
  int64_t offset = x.offset() + (len > 0 ? (k >= 0 ? k * st[a2] : -k * st[a1]) : 0);
  return make_view(x, shape, strides, offset);
}

}  // namespace spire::detail
