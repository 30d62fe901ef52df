// F.interpolate's modes, axis by axis: nearest modes as index_select, linear modes as one primitive,
//   resample_axis(x)   y[..., o, ...] = sum_{k in row o} w[k] x[..., col[k], ...]
// a fixed sparse matrix applied along one axis (two taps per row for linear interpolation). It is
// linear, and its reverse rule is the same primitive with the transposed matrix, so derivatives of
// any order stay in it; one pass per axis reads each input twice, as torch's kernel does. Index and
// weight formulas are PyTorch's (aten/src/ATen/native/UpSample.h), computed in the same precision
// (float scales for the nearest modes, the input's precision for the linear ones), and the innermost
// axis goes first, which is the order torch's n-linear kernel sums in: outputs agree with torch's.
#include "engine/ops/interpolate.h"

#include <cmath>

#include "engine/autodiff/series.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/pool.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire {
namespace {
using Ints = std::vector<int64_t>;

// torch's compute_scales_value: the user's scale factor where given, else in / out.
template <class T>
T scale_value(double scale, int64_t in, int64_t out) {
  return scale > 0 ? T(1.0 / scale) : T(in) / T(out);
}

Tensor nearest_index(int64_t in, int64_t out, double scale, bool exact) {
  std::vector<int64_t> idx(static_cast<size_t>(out));
  float s = scale_value<float>(scale, in, out);
  for (int64_t o = 0; o < out; ++o) {
    if (!exact && out == in) idx[size_t(o)] = o;
    else if (!exact && out == 2 * in) idx[size_t(o)] = o >> 1;
    else {
      float src = exact ? std::floor((float(o) + 0.5f) * s) : std::floor(float(o) * s);
      idx[size_t(o)] = std::min(int64_t(src), in - 1);
    }
  }
  return from_vector(idx, {out});
}

// The two neighbours and their weights along one axis (torch's compute_source_index_and_lambda).
struct LinearTaps {
  std::vector<int64_t> i0, i1;
  std::vector<double> w0, w1;  // values of type T, stored exactly in double
};

template <class T>
LinearTaps linear_taps(int64_t in, int64_t out, bool align_corners, double scale) {
  LinearTaps t;
  T ratio = align_corners ? (out > 1 ? T(in - 1) / T(out - 1) : T(0)) : scale_value<T>(scale, in, out);
  for (int64_t o = 0; o < out; ++o) {
    T src = align_corners ? ratio * T(o) : ratio * (T(o) + T(0.5)) - T(0.5);
    if (!align_corners && src < T(0)) src = T(0);
    int64_t i0 = std::min(int64_t(std::floor(src)), in - 1);
    T l1 = std::min(std::max(src - T(i0), T(0)), T(1));
    t.i0.push_back(i0);
    t.i1.push_back(i0 + (i0 < in - 1 ? 1 : 0));
    t.w0.push_back(double(T(1) - l1));
    t.w1.push_back(double(l1));
  }
  return t;
}

// The sparse matrix of resample_axis in CSR form: row o holds entries row_ptr[o] .. row_ptr[o + 1].
struct AxisMatrix {
  Ints row_ptr, cols;
  std::vector<double> weights;
};
AxisMatrix matrix_of(const Attrs& a) {
  return {a.get<Ints>("row_ptr"), a.get<Ints>("cols"), a.get<std::vector<double>>("weights")};
}
Attrs attrs_of(int64_t axis, const AxisMatrix& m) {
  return Attrs{{"axis", axis}, {"row_ptr", m.row_ptr}, {"cols", m.cols}, {"weights", m.weights}};
}
// The transpose, for an input axis of size n: row i lists the outputs that read input i, in order.
AxisMatrix transposed(const AxisMatrix& m, int64_t n) {
  AxisMatrix t;
  t.row_ptr.assign(size_t(n + 1), 0);
  for (int64_t c : m.cols) ++t.row_ptr[size_t(c + 1)];
  for (int64_t i = 0; i < n; ++i) t.row_ptr[size_t(i + 1)] += t.row_ptr[size_t(i)];
  t.cols.resize(m.cols.size());
  t.weights.resize(m.cols.size());
  Ints next(t.row_ptr.begin(), t.row_ptr.end() - 1);
  for (size_t o = 0; o + 1 < m.row_ptr.size(); ++o)
    for (int64_t k = m.row_ptr[o]; k < m.row_ptr[o + 1]; ++k) {
      int64_t at = next[size_t(m.cols[size_t(k)])]++;
      t.cols[size_t(at)] = int64_t(o);
      t.weights[size_t(at)] = m.weights[size_t(k)];
    }
  return t;
}

Tensor resample_axis_p(const Tensor& x, const Attrs& a) {
  static const OpDef& d = op_def("resample_axis");
  return call1(d, {x}, a);
}

AxisMatrix linear_matrix(const LinearTaps& t) {
  AxisMatrix m;
  m.row_ptr.push_back(0);
  for (size_t o = 0; o < t.i0.size(); ++o) {
    m.cols.insert(m.cols.end(), {t.i0[o], t.i1[o]});
    m.weights.insert(m.weights.end(), {t.w0[o], t.w1[o]});
    m.row_ptr.push_back(int64_t(m.cols.size()));
  }
  return m;
}

SPIRE_DEFINE_OP({
    .name = "resample_axis",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      const Tensor& x = in[0];
      const char* op = "resample_axis";
      SPIRE_CHECK(is_floating(x.dtype()), DTypeError, op, ": needs a floating-point tensor, got ", name(x.dtype()));
      int64_t axis = a.template get<int64_t>("axis");
      SPIRE_CHECK(axis >= 0 && axis < x.dim(), ValueError, op, ": axis ", axis, " out of range for shape ",
                  shape_str(x.shape()));
      AxisMatrix m = matrix_of(a);
      SPIRE_CHECK(!m.row_ptr.empty() && m.row_ptr.front() == 0 && m.row_ptr.back() == int64_t(m.cols.size()) &&
                      m.cols.size() == m.weights.size(),
                  ValueError, op, ": malformed matrix (row_ptr, cols and weights disagree)");
      for (int64_t c : m.cols)
        SPIRE_CHECK(c >= 0 && c < x.shape(axis), ValueError, op, ": column ", c, " out of range for axis ", axis,
                    " of size ", x.shape(axis));
      Shape s = x.shape();
      s[size_t(axis)] = int64_t(m.row_ptr.size()) - 1;
      return {{s, x.dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      int64_t axis = c.attrs.get<int64_t>("axis");
      return {resample_axis_p(c.grads[0], attrs_of(axis, transposed(matrix_of(c.attrs), c.inputs[0].shape(axis))))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> { return {resample_axis_p(c.tangents[0], c.attrs)}; },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      return {resample_axis_p(c.inputs[0], attrs_of(c.attrs.get<int64_t>("axis") + 1, matrix_of(c.attrs)))};
    },
    .samples = [] {
      AxisMatrix up = linear_matrix(linear_taps<double>(5, 7, false, 0.0));
      AxisMatrix down = linear_matrix(linear_taps<double>(4, 3, true, 0.0));
      AxisMatrix uneven{{0, 1, 1, 4}, {2, 0, 1, 2}, {0.5, -1.0, 2.0, 0.25}};  // an empty row, repeats
      return std::vector<OpSample>{
          {{rules::sample({2, 5, 3}, -1, 1, 1)}, attrs_of(1, up), "linear 5 -> 7 along a middle axis"},
          {{rules::sample({3, 4}, -1, 1, 2)}, attrs_of(1, down), "align_corners 4 -> 3 along the last axis"},
          {{rules::sample({3, 2}, -1, 1, 3)}, attrs_of(0, uneven), "uneven rows"},
      };
    },
});

Tensor linear_axis(const Tensor& x, int64_t axis, int64_t out, bool align_corners, double scale) {
  int64_t in = x.shape(axis);
  LinearTaps t = x.dtype() == DType::Float32 ? linear_taps<float>(in, out, align_corners, scale)
                                             : linear_taps<double>(in, out, align_corners, scale);
  return resample_axis_p(x, attrs_of(axis, linear_matrix(t)));
}

}  // namespace

Tensor resample(const Tensor& x_in, const std::vector<int64_t>& out_size, ResampleMode mode, bool align_corners,
                const std::vector<double>& scales) {
  const char* op = "interpolate";
  int64_t D = int64_t(out_size.size());
  SPIRE_CHECK(D >= 1 && D <= 3 && x_in.dim() >= D, ShapeError, op, ": resamples 1 to 3 trailing axes; got ", D,
              " output sizes for an input of shape ", shape_str(x_in.shape()));
  SPIRE_CHECK(scales.empty() || int64_t(scales.size()) == D, ValueError, op, ": ", scales.size(),
              " scale factors for ", D, " axes");
  SPIRE_CHECK(!is_complex(x_in.dtype()), DTypeError, op, ": needs a real tensor, got ", name(x_in.dtype()));
  SPIRE_CHECK(!align_corners || mode == ResampleMode::Linear, ValueError, op,
              ": align_corners applies to the linear modes only");
  Tensor x = rules::as_inexact(x_in);
  int64_t first = x.dim() - D;
  for (int64_t i = 0; i < D; ++i) {
    SPIRE_CHECK(out_size[size_t(i)] >= 1, ValueError, op, ": output sizes must be >= 1, got ", shape_str(out_size));
    SPIRE_CHECK(x.shape(first + i) >= 1, ShapeError, op, ": input of shape ", shape_str(x.shape()),
                " is empty along a resampled axis");
  }
  if (mode == ResampleMode::Area) return adaptive_avg_pool(x, out_size);
  for (int64_t i = D - 1; i >= 0; --i) {  // innermost first, as torch sums
    int64_t axis = first + i, in = x.shape(axis), out = out_size[size_t(i)];
    double scale = scales.empty() ? 0.0 : scales[size_t(i)];
    if (mode == ResampleMode::Linear) {
      if (out != in) x = linear_axis(x, axis, out, align_corners, scale);
    } else {
      // Same size is the identity, except for nearest-exact with a user scale factor (torch maps it).
      bool exact = mode == ResampleMode::NearestExact;
      if (out != in || (exact && scale > 0))
        x = index_select(x, axis, to(nearest_index(in, out, scale, exact), x.device()));
    }
  }
  return x;
}

}  // namespace spire
