// Linear algebra (top level: matmul, einsum, dot, outer; the rest also under spire.linalg), FFTs
// (spire.fft, wrapped in Python for NumPy's n/s arguments), convolutions.
#include "common.h"
#include "engine/core/error.h"
#include "engine/ops/conv.h"
#include "engine/ops/fft.h"
#include "engine/ops/linalg.h"

namespace spire::python {
namespace {

// Matrix work grows faster than the element count; release the GIL for anything not tiny.
constexpr int64_t kMatrixWork = 4096;

template <Tensor (*F)(const Tensor&)>
Tensor matrix1(const Tensor& a) {
  if (a.numel() > kMatrixWork) {
    py::gil_scoped_release r;
    return F(a);
  }
  return F(a);
}
template <Tensor (*F)(const Tensor&, const Tensor&)>
Tensor matrix2(const Tensor& a, const Tensor& b) {
  if (work_of(a, b) > kMatrixWork) {
    py::gil_scoped_release r;
    return F(a, b);
  }
  return F(a, b);
}

Tensor einsum_py(const std::string& eq, py::args operands) {
  std::vector<Tensor> xs;
  if (operands.size() == 1 && !tensor_ptr(operands[0]) &&
      (PyList_Check(operands[0].ptr()) || PyTuple_Check(operands[0].ptr())))
    xs = operands[0].cast<std::vector<Tensor>>();
  else
    for (auto o : operands) xs.push_back(to_tensor(o));
  return maybe_release(work_of(xs) > kMatrixWork ? kReleaseGilElements + 1 : 0, [&] { return einsum(eq, xs); });
}

std::string ord_name(py::handle ord) {
  if (ord.is_none()) return "fro";
  if (py::isinstance<py::str>(ord)) return ord.cast<std::string>();
  double v = ord.cast<double>();
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 1.0) return "1";
  if (v == 2.0) return "2";
  throw ValueError("norm: ord " + std::string(py::str(ord)) +
                   " is not supported for matrix norms; allowed: 'fro', 'nuc', 1, 2, inf (vector_norm takes any p)");
}

// norm(x): Frobenius for matrices and 2-norm for vectors; a number as ord on a vector (or with one
// axis) means the vector p-norm, as NumPy.
Tensor norm_py(const Tensor& x, py::handle ord, py::handle axis, bool keepdims) {
  auto axes = to_axes(axis);
  bool vector = (axes.size() == 1) || (axis.is_none() && x.dim() == 1);
  if (vector && !py::isinstance<py::str>(ord)) {
    double p = ord.is_none() ? 2.0 : ord.cast<double>();
    return vector_norm(x, p, axes, keepdims);
  }
  return norm(x, ord_name(ord), axes, keepdims);
}

ConvOptions conv_options(const Tensor& x, py::handle stride, py::handle padding, py::handle dilation,
                         int64_t groups) {
  int64_t spatial = std::max<int64_t>(x.dim() - 2, 1);
  auto expand = [&](py::handle h) {
    if (h.is_none()) return std::vector<int64_t>{};
    auto v = to_axes(h);
    if (v.size() == 1) v.assign(spatial, v[0]);
    return v;
  };
  ConvOptions o;
  o.stride = expand(stride);
  o.padding = expand(padding);
  o.dilation = expand(dilation);
  o.groups = groups;
  return o;
}

template <Tensor (*F)(const Tensor&, const Tensor&, const ConvOptions&)>
Tensor conv_py(const Tensor& x, const Tensor& w, py::handle stride, py::handle padding, py::handle dilation,
               int64_t groups) {
  ConvOptions o = conv_options(x, stride, padding, dilation, groups);
  py::gil_scoped_release r;
  return F(x, w, o);
}

}  // namespace

void bind_linalg(py::module_& m, py::class_<Tensor>& cls) {
  m.def("matmul", matrix2<matmul>, py::arg("a"), py::arg("b"));
  cls.def("matmul", matrix2<matmul>, py::arg("other"));
  m.def("dot", matrix2<dot>, py::arg("a"), py::arg("b"));
  cls.def("dot", matrix2<dot>, py::arg("other"));
  m.def("outer", matrix2<outer>, py::arg("a"), py::arg("b"));
  m.def("einsum", &einsum_py, py::arg("equation"));
  m.def("norm", &norm_py, py::arg("x"), py::arg("ord") = py::none(), py::arg("axis") = py::none(),
        py::arg("keepdims") = false);
  cls.def("norm", &norm_py, py::arg("ord") = py::none(), py::arg("axis") = py::none(), py::arg("keepdims") = false);

  py::module_ la = m.def_submodule("linalg", "Linear algebra on the last two axes (batched over the rest).");
  la.def("matmul", matrix2<matmul>, py::arg("a"), py::arg("b"));
  la.def("solve", matrix2<solve>, py::arg("a"), py::arg("b"), "x with a @ x = b; b is [..., n] or [..., n, k].");
  la.def("inv", matrix1<inverse>, py::arg("a"));
  la.def("inverse", matrix1<inverse>, py::arg("a"));
  la.def("cholesky", matrix1<cholesky>, py::arg("a"), "Lower factor L with a = L L^H.");
  la.def("det", matrix1<det>, py::arg("a"));
  la.def("solve_triangular", [](const Tensor& a, const Tensor& b, bool lower, bool transpose_a) {
    py::gil_scoped_release r;
    return triangular_solve(a, b, lower, transpose_a);
  }, py::arg("a"), py::arg("b"), py::arg("lower"), py::arg("transpose_a") = false);
  la.def("norm", &norm_py, py::arg("x"), py::arg("ord") = py::none(), py::arg("axis") = py::none(),
         py::arg("keepdims") = false);
  la.def("vector_norm", [](const Tensor& x, double ord, py::handle axis, bool keepdims) {
    return vector_norm(x, ord, to_axes(axis), keepdims);
  }, py::arg("x"), py::arg("ord") = 2.0, py::arg("axis") = py::none(), py::arg("keepdims") = false);
  la.def("matrix_norm", [](const Tensor& x, py::handle ord, py::handle axis, bool keepdims) {
    auto axes = axis.is_none() ? std::vector<int64_t>{-2, -1} : to_axes(axis);
    return norm(x, ord_name(ord), axes, keepdims);
  }, py::arg("x"), py::arg("ord") = "fro", py::arg("axis") = py::none(), py::arg("keepdims") = false);
  la.def("outer", matrix2<outer>, py::arg("a"), py::arg("b"));
  la.def("dot", matrix2<dot>, py::arg("a"), py::arg("b"));
}

void bind_fft(py::module_& m) {
  // Raw bindings; spire/fft.py adds NumPy's n= and s= arguments.
  py::module_ f = m.def_submodule("_fft", "Raw FFT bindings (use spire.fft).");
  using N = std::vector<int64_t>;
  auto rel = [](auto fn) {
    return [fn](const Tensor& x, const N& axes, const std::string& norm) {
      py::gil_scoped_release r;
      return fn(x, axes, norm);
    };
  };
  f.def("fftn", rel(&fftn), py::arg("x"), py::arg("axes"), py::arg("norm"));
  f.def("ifftn", rel(&ifftn), py::arg("x"), py::arg("axes"), py::arg("norm"));
  f.def("rfftn", rel(&rfftn), py::arg("x"), py::arg("axes"), py::arg("norm"));
  f.def("irfftn", [](const Tensor& x, const N& sizes, const N& axes, const std::string& norm) {
    py::gil_scoped_release r;
    return irfftn(x, sizes, axes, norm);
  }, py::arg("x"), py::arg("sizes"), py::arg("axes"), py::arg("norm"));
  auto rel1 = [](auto fn) {
    return [fn](const Tensor& x, int64_t axis, const std::string& norm) {
      py::gil_scoped_release r;
      return fn(x, axis, norm);
    };
  };
  f.def("fft", rel1(&fft), py::arg("x"), py::arg("axis"), py::arg("norm"));
  f.def("ifft", rel1(&ifft), py::arg("x"), py::arg("axis"), py::arg("norm"));
  f.def("rfft", rel1(&rfft), py::arg("x"), py::arg("axis"), py::arg("norm"));
  f.def("irfft", [](const Tensor& x, int64_t n, int64_t axis, const std::string& norm) {
    py::gil_scoped_release r;
    return irfft(x, n, axis, norm);
  }, py::arg("x"), py::arg("n"), py::arg("axis"), py::arg("norm"));
  f.def("dct", [](const Tensor& x, int type, int64_t axis, const std::string& norm) {
    py::gil_scoped_release r;
    return dct(x, type, axis, norm);
  }, py::arg("x"), py::arg("type"), py::arg("axis"), py::arg("norm"));
  f.def("idct", [](const Tensor& x, int type, int64_t axis, const std::string& norm) {
    py::gil_scoped_release r;
    return idct(x, type, axis, norm);
  }, py::arg("x"), py::arg("type"), py::arg("axis"), py::arg("norm"));
}

void bind_conv(py::module_& m) {
  auto args = [](py::module_& mod, const char* name, auto fn, const char* doc) {
    mod.def(name, fn, py::arg("x"), py::arg("weight"), py::arg("stride") = py::none(),
            py::arg("padding") = py::none(), py::arg("dilation") = py::none(), py::arg("groups") = 1, doc);
  };
  const char* doc = "Cross-correlation, channels first: x [N, C_in, *spatial], weight [C_out, C_in/groups, *kernel].";
  args(m, "conv", conv_py<conv>, doc);
  args(m, "conv1d", conv_py<conv1d>, doc);
  args(m, "conv2d", conv_py<conv2d>, doc);
  args(m, "conv3d", conv_py<conv3d>, doc);
  m.def("conv_transpose", [](const Tensor& x, const Tensor& w, py::handle stride, py::handle padding,
                             py::handle dilation, int64_t groups, py::handle output_padding) {
    ConvOptions o = conv_options(x, stride, padding, dilation, groups);
    std::vector<int64_t> op;
    if (!output_padding.is_none()) {
      op = to_axes(output_padding);
      if (op.size() == 1) op.assign(std::max<int64_t>(x.dim() - 2, 1), op[0]);
    }
    py::gil_scoped_release r;
    return conv_transpose(x, w, o, op);
  }, py::arg("x"), py::arg("weight"), py::arg("stride") = py::none(), py::arg("padding") = py::none(),
     py::arg("dilation") = py::none(), py::arg("groups") = 1, py::arg("output_padding") = py::none(),
     "Transposed convolution; weight [C_in, C_out/groups, *kernel].");
}

}  // namespace spire::python
