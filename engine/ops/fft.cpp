// Fourier and cosine transforms. Four primitives, all linear, whose reverse rules are each other:
//   fftn(x; axes, inverse, norm)   complex -> complex; the adjoint of the DFT F is conj(F), i.e.
//                                  the inverse transform under the dual norm (backward <-> forward)
//   rfftn(x; axes, norm)           real -> half spectrum along axes.back()
//   irfftn(x; axes, n, norm)       half spectrum -> real, defined for ANY complex input as
//                                  Re(sum_k c_k x_k e^{+2 pi i k.j/N}) with c_k = 2 on the interior
//                                  bins of the halved axis and 1 on DC (and Nyquist for even n):
//                                  exactly what a Hermitian input gives, and linear in (Re, Im).
//   dct(x; type, axis)             FFTW's unnormalised REDFT00 / REDFT10 / REDFT01 (DCT-I/II/III).
// With that definition of irfftn, rfftn^H g = irfftn(g / c) and irfftn^H g = c * rfftn(g) (the
// half-spectrum transpose rule of JAX and PyTorch). DCT scalings (scipy.fft conventions) are
// composed around the unnormalised primitive by the public dct/idct.
#include <cmath>

#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/fft.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire {
namespace {
using namespace rules;
using Ints = std::vector<int64_t>;

void check_norm(const char* op, const std::string& norm) {
  SPIRE_CHECK(norm == "backward" || norm == "ortho" || norm == "forward", ValueError, op,
              ": norm must be \"backward\", \"ortho\" or \"forward\", got \"", norm, "\"");
}
// The norm whose inverse scaling equals this norm's forward scaling: what the adjoint uses.
std::string dual_norm(const std::string& norm) {
  return norm == "backward" ? "forward" : norm == "forward" ? "backward" : "ortho";
}

void check_lengths(const char* op, const Shape& shape, const Ints& axes) {
  for (int64_t a : axes)
    SPIRE_CHECK(shape[a] >= 1, ValueError, op, ": invalid number of data points (", shape[a],
                ") along axis ", a, " of ", shape_str(shape));
}

// Real weights w[i] along `axis` of a tensor like t, shaped to broadcast against it.
Tensor axis_weights(const Tensor& t, int64_t axis, const std::vector<double>& w) {
  Shape s(size_t(t.dim() - axis), 1);
  s[0] = int64_t(w.size());
  Tensor v = from_vector<double>(w, s);
  DType rt = real_dtype(t.dtype());
  return to(rt == DType::Float64 ? v : cast(v, rt), t.device());
}

// c_k of the half spectrum of a length-n real signal (m = n/2 + 1 bins).
std::vector<double> half_spectrum_weights(int64_t n) {
  std::vector<double> c(size_t(n / 2 + 1), 2.0);
  c[0] = 1.0;
  if (n % 2 == 0) c.back() = 1.0;
  return c;
}

Tensor fftn_p(const Tensor& x, const Ints& axes, bool inverse, const std::string& norm) {
  static const OpDef& d = op_def("fftn");
  return call1(d, {x}, Attrs{{"axes", axes}, {"inverse", inverse}, {"norm", norm}});
}
Tensor rfftn_p(const Tensor& x, const Ints& axes, const std::string& norm) {
  static const OpDef& d = op_def("rfftn");
  return call1(d, {x}, Attrs{{"axes", axes}, {"norm", norm}});
}
Tensor irfftn_p(const Tensor& x, const Ints& axes, int64_t n, const std::string& norm) {
  static const OpDef& d = op_def("irfftn");
  return call1(d, {x}, Attrs{{"axes", axes}, {"n", n}, {"norm", norm}});
}
Tensor dct_p(const Tensor& x, int64_t type, int64_t axis) {
  static const OpDef& d = op_def("dct");
  return call1(d, {x}, Attrs{{"type", type}, {"axis", axis}});
}

// Axes are normalised by the wrappers; infer re-checks what a direct call could get wrong.
void check_axes(const char* op, const Tensor& x, const Ints& axes) {
  SPIRE_CHECK(!axes.empty(), ShapeError, op, ": needs at least one axis (input ", shape_str(x.shape()), ")");
  for (int64_t a : axes)
    SPIRE_CHECK(a >= 0 && a < x.dim(), ShapeError, op, ": axis ", a, " out of range for ", shape_str(x.shape()));
}

// The batching rule of the transforms over an "axes" attribute.
std::vector<Tensor> shifted_axes(const BatchContext& c) {
  Attrs a = c.attrs;
  a.set("axes", batching::shift_axes(a.get<Ints>("axes")));
  return {call1(c.op, {c.inputs[0]}, a)};
}

SPIRE_DEFINE_OP({
    .name = "fftn",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      const Ints& axes = a.template get<Ints>("axes");
      check_axes("fftn", in[0], axes);
      check_norm("fftn", a.template get<std::string>("norm"));
      SPIRE_CHECK(is_complex(in[0].dtype()), DTypeError, "fftn: the primitive takes complex64 or complex128, got ",
                  name(in[0].dtype()));
      check_lengths("fftn", in[0].shape(), axes);
      return {{in[0].shape(), in[0].dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {fftn_p(c.grads[0], c.attrs.get<Ints>("axes"), !c.attrs.get<bool>("inverse"),
                     dual_norm(c.attrs.get<std::string>("norm")))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {call1(c.op, {c.tangents[0]}, c.attrs)};
    },
    .taylor = jets::linear,
    .batch = shifted_axes,
    .samples = [] {
      auto z = [](Shape s, uint64_t seed) { return sample(s, -1, 1, seed, DType::Complex128); };
      return std::vector<OpSample>{
          {{z({3, 4}, 1)}, {{"axes", Ints{0, 1}}, {"inverse", false}, {"norm", std::string("backward")}}, "2d"},
          {{z({2, 5}, 2)}, {{"axes", Ints{1}}, {"inverse", true}, {"norm", std::string("ortho")}}, "inverse odd ortho"},
          {{z({3, 2, 3}, 3)}, {{"axes", Ints{0, 2}}, {"inverse", false}, {"norm", std::string("forward")}}, "outer axes"},
      };
    },
});

SPIRE_DEFINE_OP({
    .name = "rfftn",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      const Ints& axes = a.template get<Ints>("axes");
      check_axes("rfftn", in[0], axes);
      check_norm("rfftn", a.template get<std::string>("norm"));
      SPIRE_CHECK(is_floating(in[0].dtype()), DTypeError, "rfftn: needs real float32 or float64 input, got ",
                  name(in[0].dtype()));
      check_lengths("rfftn", in[0].shape(), axes);
      Shape s = in[0].shape();
      s[axes.back()] = s[axes.back()] / 2 + 1;
      return {{s, complex_dtype(in[0].dtype())}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Ints& axes = c.attrs.get<Ints>("axes");
      int64_t n = c.inputs[0].shape(axes.back());
      std::vector<double> inv_c = half_spectrum_weights(n);
      for (double& v : inv_c) v = 1.0 / v;
      Tensor g = mul(c.grads[0], axis_weights(c.grads[0], axes.back(), inv_c));
      return {irfftn_p(g, axes, n, dual_norm(c.attrs.get<std::string>("norm")))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {call1(c.op, {c.tangents[0]}, c.attrs)};
    },
    .taylor = jets::linear,
    .batch = shifted_axes,
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({4, 6}, -1, 1, 4)}, {{"axes", Ints{0, 1}}, {"norm", std::string("backward")}}, "2d even"},
          {{sample({3, 5}, -1, 1, 5)}, {{"axes", Ints{1}}, {"norm", std::string("ortho")}}, "1d odd ortho"},
          {{sample({4, 3, 2}, -1, 1, 6)}, {{"axes", Ints{2, 0}}, {"norm", std::string("forward")}}, "halved axis 0"},
      };
    },
});

SPIRE_DEFINE_OP({
    .name = "irfftn",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      const Ints& axes = a.template get<Ints>("axes");
      int64_t n = a.template get<int64_t>("n");
      check_axes("irfftn", in[0], axes);
      check_norm("irfftn", a.template get<std::string>("norm"));
      SPIRE_CHECK(is_complex(in[0].dtype()), DTypeError, "irfftn: the primitive takes complex64 or complex128, got ",
                  name(in[0].dtype()));
      SPIRE_CHECK(n >= 1, ValueError, "irfftn: invalid number of output points (", n, ")");
      SPIRE_CHECK(in[0].shape(axes.back()) == n / 2 + 1, ShapeError, "irfftn: output length ", n,
                  " needs ", n / 2 + 1, " bins along axis ", axes.back(), ", input is ", shape_str(in[0].shape()));
      check_lengths("irfftn", in[0].shape(), axes);
      Shape s = in[0].shape();
      s[axes.back()] = n;
      return {{s, real_dtype(in[0].dtype())}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Ints& axes = c.attrs.get<Ints>("axes");
      Tensor r = rfftn_p(c.grads[0], axes, dual_norm(c.attrs.get<std::string>("norm")));
      return {mul(r, axis_weights(r, axes.back(), half_spectrum_weights(c.attrs.get<int64_t>("n"))))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {call1(c.op, {c.tangents[0]}, c.attrs)};
    },
    .taylor = jets::linear,
    .batch = shifted_axes,
    .samples = [] {
      auto z = [](Shape s, uint64_t seed) { return sample(s, -1, 1, seed, DType::Complex128); };
      return std::vector<OpSample>{
          {{z({3, 4}, 7)}, {{"axes", Ints{0, 1}}, {"n", int64_t(6)}, {"norm", std::string("backward")}}, "2d even"},
          {{z({2, 3}, 8)}, {{"axes", Ints{1}}, {"n", int64_t(5)}, {"norm", std::string("ortho")}}, "1d odd ortho"},
          {{z({3, 3, 2}, 9)}, {{"axes", Ints{2, 0}}, {"n", int64_t(4)}, {"norm", std::string("forward")}}, "halved axis 0"},
      };
    },
});

// Transposes of the unnormalised DCTs (R: REDFT10, T: REDFT01, A: REDFT00, e = [2, 1, ...],
// c = [1, 2, ..., 2, 1]): R^T = T diag(e), T^T = diag(1/e) R, A^T = diag(c) A diag(1/c).
SPIRE_DEFINE_OP({
    .name = "dct",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      int64_t type = a.template get<int64_t>("type"), axis = a.template get<int64_t>("axis");
      SPIRE_CHECK(type >= 1 && type <= 3, ValueError, "dct: type must be 1, 2 or 3, got ", type);
      SPIRE_CHECK(axis >= 0 && axis < in[0].dim(), ShapeError, "dct: axis ", axis, " out of range for ",
                  shape_str(in[0].shape()));
      SPIRE_CHECK(is_floating(in[0].dtype()), DTypeError, "dct: the primitive takes float32 or float64, got ",
                  name(in[0].dtype()));
      int64_t n = in[0].shape(axis);
      SPIRE_CHECK(n >= (type == 1 ? 2 : 1), ValueError, "dct: type ", type, " needs at least ",
                  type == 1 ? 2 : 1, " points along axis ", axis, ", input is ", shape_str(in[0].shape()));
      return {{in[0].shape(), in[0].dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      int64_t type = c.attrs.get<int64_t>("type"), axis = c.attrs.get<int64_t>("axis");
      const Tensor& g = c.grads[0];
      int64_t n = g.shape(axis);
      std::vector<double> e(size_t(n), 1.0);
      e[0] = 2.0;
      if (type == 2) return {dct_p(mul(g, axis_weights(g, axis, e)), 3, axis)};
      if (type == 3) {
        e[0] = 0.5;
        return {mul(dct_p(g, 2, axis), axis_weights(g, axis, e))};
      }
      std::vector<double> cw(size_t(n), 2.0), inv(size_t(n), 0.5);
      cw.front() = cw.back() = inv.front() = inv.back() = 1.0;
      return {mul(dct_p(mul(g, axis_weights(g, axis, inv)), 1, axis), axis_weights(g, axis, cw))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {call1(c.op, {c.tangents[0]}, c.attrs)};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      Attrs a = c.attrs;
      a.set("axis", a.get<int64_t>("axis") + 1);
      return {call1(c.op, {c.inputs[0]}, a)};
    },
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({3, 5}, -1, 1, 10)}, {{"type", int64_t(1)}, {"axis", int64_t(1)}}, "type 1"},
          {{sample({4, 3}, -1, 1, 11)}, {{"type", int64_t(2)}, {"axis", int64_t(0)}}, "type 2 axis 0"},
          {{sample({2, 5}, -1, 1, 12)}, {{"type", int64_t(3)}, {"axis", int64_t(1)}}, "type 3"},
      };
    },
});

Tensor to_complex(const Tensor& x) {
  if (is_complex(x.dtype())) return x;
  return cast(x, complex_dtype(to_inexact(x.dtype())));
}

Tensor to_real_inexact(const char* op, const Tensor& x) {
  SPIRE_CHECK(!is_complex(x.dtype()), DTypeError, op, ": needs real input, got ", name(x.dtype()),
              " (use fftn for complex input)");
  return as_inexact(x);
}

// Axes as given (negatives wrapped), empty meaning all; repeats are an error naming `op`.
Ints given_axes(const char* op, const Ints& axes, int64_t ndim) {
  Ints out;
  if (axes.empty())
    for (int64_t i = 0; i < ndim; ++i) out.push_back(i);
  for (int64_t a : axes) {
    int64_t b = normalize_axis(a, ndim, op);
    SPIRE_CHECK(std::find(out.begin(), out.end(), b) == out.end(), ShapeError, op, ": axis ", a,
                " is repeated in the axes given");
    out.push_back(b);
  }
  SPIRE_CHECK(!out.empty(), ShapeError, op, ": a 0-d tensor has no axis to transform");
  return out;
}

Tensor c2c(const char* op, const Tensor& x, const Ints& axes, bool inverse, const std::string& norm) {
  check_norm(op, norm);
  Tensor z = to_complex(x);
  Ints ax = given_axes(op, axes, z.dim());
  std::sort(ax.begin(), ax.end());
  check_lengths(op, z.shape(), ax);
  return fftn_p(z, ax, inverse, norm);
}

// x cut or zero-padded at the end of `axis` to length `len` (NumPy's s / n arguments).
Tensor resize_axis(const Tensor& x, int64_t axis, int64_t len) {
  int64_t cur = x.shape(axis);
  if (len == cur) return x;
  if (len < cur) return slice(x, axis, 0, len);
  std::vector<std::pair<int64_t, int64_t>> pads(size_t(x.dim() - axis), {0, 0});
  pads[0] = {0, len - cur};
  return pad(x, pads);
}

// dct/idct of real x as the unnormalised primitive with scipy.fft's scalings around it.
Tensor dct_real(const Tensor& x, int type, int64_t axis, const std::string& norm, bool inverse) {
  int64_t n = x.shape(axis);
  SPIRE_CHECK(n >= (type == 1 ? 2 : 1), ValueError, inverse ? "idct" : "dct", ": type ", type,
              " needs at least ", type == 1 ? 2 : 1, " points along axis ", axis, ", input is ",
              shape_str(x.shape()));
  double M = type == 1 ? 2.0 * double(n - 1) : 2.0 * double(n);
  // The primitive type run: inverses of II and III are (scaled) III and II; I is its own.
  int64_t prim = type == 1 ? 1 : ((type == 2) != inverse ? 2 : 3);
  if (norm == "ortho") {
    if (prim == 1) {  // scipy: x_0, x_{n-1} times sqrt 2, y_0, y_{n-1} over sqrt 2, all / sqrt(M)
      std::vector<double> u(size_t(n), 1.0), v(size_t(n), 1.0 / std::sqrt(M));
      u.front() = u.back() = std::sqrt(2.0);
      v.front() = v.back() = 1.0 / std::sqrt(2.0 * M);
      return mul(dct_p(mul(x, axis_weights(x, axis, u)), 1, axis), axis_weights(x, axis, v));
    }
    if (prim == 2) {  // orthonormal DCT-II: y_0 / sqrt(4n), y_k / sqrt(2n)
      std::vector<double> d(size_t(n), 1.0 / std::sqrt(2.0 * double(n)));
      d[0] = 1.0 / std::sqrt(4.0 * double(n));
      return mul(dct_p(x, 2, axis), axis_weights(x, axis, d));
    }
    // Its transpose: x_0 / sqrt(n), x_k / sqrt(2n) into the DCT-III.
    std::vector<double> f(size_t(n), 1.0 / std::sqrt(2.0 * double(n)));
    f[0] = 1.0 / std::sqrt(double(n));
    return dct_p(mul(x, axis_weights(x, axis, f)), 3, axis);
  }
  Tensor y = dct_p(x, prim, axis);
  // "backward" scales the inverse by 1/M, "forward" the forward transform.
  bool scaled = inverse ? norm == "backward" : norm == "forward";
  return scaled ? mul(y, 1.0 / M) : y;
}

Tensor dct_any(const char* op, const Tensor& x, int type, int64_t axis, const std::string& norm, bool inverse) {
  check_norm(op, norm);
  SPIRE_CHECK(type >= 1 && type <= 3, ValueError, op, ": type must be 1, 2 or 3, got ", type);
  int64_t ax = normalize_axis(axis, x.dim(), op);
  if (is_complex(x.dtype()))  // real and imaginary parts transform separately
    return complex(dct_real(real(x), type, ax, norm, inverse), dct_real(imag(x), type, ax, norm, inverse));
  return dct_real(as_inexact(x), type, ax, norm, inverse);
}

}  // namespace

Tensor fftn(const Tensor& x, const std::vector<int64_t>& axes, const std::string& norm) {
  return c2c("fftn", x, axes, false, norm);
}
Tensor ifftn(const Tensor& x, const std::vector<int64_t>& axes, const std::string& norm) {
  return c2c("ifftn", x, axes, true, norm);
}

Tensor rfftn(const Tensor& x, const std::vector<int64_t>& axes, const std::string& norm) {
  check_norm("rfftn", norm);
  Tensor r = to_real_inexact("rfftn", x);
  Ints ax = given_axes("rfftn", axes, r.dim());
  check_lengths("rfftn", r.shape(), ax);
  return rfftn_p(r, ax, norm);
}

Tensor irfftn(const Tensor& x, const std::vector<int64_t>& sizes, const std::vector<int64_t>& axes,
              const std::string& norm) {
  check_norm("irfftn", norm);
  Tensor z = to_complex(x);
  Ints ax;
  if (axes.empty() && !sizes.empty()) {  // as NumPy: the last len(s) axes
    SPIRE_CHECK(int64_t(sizes.size()) <= z.dim(), ShapeError, "irfftn: ", sizes.size(),
                " sizes for an input of shape ", shape_str(z.shape()));
    for (int64_t i = z.dim() - int64_t(sizes.size()); i < z.dim(); ++i) ax.push_back(i);
  } else {
    ax = given_axes("irfftn", axes, z.dim());
  }
  SPIRE_CHECK(sizes.empty() || sizes.size() == ax.size(), ShapeError, "irfftn: ", sizes.size(),
              " sizes for ", ax.size(), " axes");
  int64_t last = ax.back();
  int64_t n = sizes.empty() ? 2 * (z.shape(last) - 1) : sizes.back();
  SPIRE_CHECK(n >= 1, ValueError, "irfftn: invalid number of output points (", n, ") along axis ", last,
              " of input ", shape_str(z.shape()), "; pass the output sizes");
  for (size_t i = 0; i + 1 < ax.size() && !sizes.empty(); ++i) {
    SPIRE_CHECK(sizes[i] >= 1, ValueError, "irfftn: invalid size ", sizes[i], " for axis ", ax[i]);
    z = resize_axis(z, ax[i], sizes[i]);
  }
  z = resize_axis(z, last, n / 2 + 1);
  check_lengths("irfftn", z.shape(), ax);
  return irfftn_p(z, ax, n, norm);
}

Tensor fft(const Tensor& x, int64_t axis, const std::string& norm) { return c2c("fft", x, {axis}, false, norm); }
Tensor ifft(const Tensor& x, int64_t axis, const std::string& norm) { return c2c("ifft", x, {axis}, true, norm); }
Tensor rfft(const Tensor& x, int64_t axis, const std::string& norm) { return rfftn(x, {axis}, norm); }
Tensor irfft(const Tensor& x, int64_t n, int64_t axis, const std::string& norm) {
  return irfftn(x, n < 0 ? Ints{} : Ints{n}, {axis}, norm);
}

Tensor dct(const Tensor& x, int type, int64_t axis, const std::string& norm) {
  return dct_any("dct", x, type, axis, norm, false);
}
Tensor idct(const Tensor& x, int type, int64_t axis, const std::string& norm) {
  return dct_any("idct", x, type, axis, norm, true);
}

}  // namespace spire
