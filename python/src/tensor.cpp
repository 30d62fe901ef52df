// spire.Tensor: metadata, autodiff state, conversions to Python and NumPy (buffer protocol,
// __array__), and the Python protocols (len, bool, float, repr). Ops are bound in their own files.
#include "common.h"
#include "engine/autodiff/backward.h"
#include "engine/autodiff/node.h"
#include "engine/core/error.h"
#include "engine/core/transfer.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/shape.h"

namespace spire::python {

void bind_cuda(py::module_& m);  // cuda.cpp: spire._C.cuda

namespace {

const char* buffer_format(DType t) {
  switch (t) {
    case DType::Bool: return "?";
    case DType::Int32: return "i";
    case DType::Int64: return "q";
    case DType::Float32: return "f";
    case DType::Float64: return "d";
    case DType::Complex64: return "Zf";
    case DType::Complex128: return "Zd";
  }
  return "B";
}

py::tuple shape_tuple(const Shape& s) {
  py::tuple t(s.size());
  for (size_t i = 0; i < s.size(); ++i) t[i] = py::int_(s[i]);
  return t;
}

Scalar one_element(const Tensor& t, const char* what) {
  SPIRE_CHECK(t.numel() == 1, ValueError, what, ": only one-element tensors can be converted to Python "
              "scalars, this one has shape ", shape_str(t.shape()));
  return t.item();
}

}  // namespace

void bind_tensor(py::module_& m) {
  py::class_<Tensor> cls(m, "Tensor", py::buffer_protocol(),
                         "An n-dimensional array on a device, with autodiff history.");

  cls.def(py::init(&new_tensor), py::arg("data"), py::arg("dtype") = py::none(),
          py::arg("requires_grad") = false, "The same as spire.tensor(data, dtype, requires_grad): a copy.");

  // ---- metadata
  cls.def_property_readonly("shape", [](const Tensor& t) { return shape_tuple(t.shape()); })
      .def_property_readonly("ndim", &Tensor::dim)
      .def_property_readonly("dtype", [](const Tensor& t) { return t.dtype(); })
      .def_property_readonly("device", [](const Tensor& t) { return t.device(); })
      .def_property_readonly("size", &Tensor::numel, "Number of elements (as NumPy's ndarray.size).")
      .def("numel", &Tensor::numel)
      .def("dim", &Tensor::dim)
      .def_property_readonly("strides", [](const Tensor& t) { return shape_tuple(t.strides()); },
                             "Strides in elements (NumPy's ndarray.strides are in bytes).")
      .def_property_readonly("offset", &Tensor::offset, "Offset of element 0 in its storage, in elements.")
      .def_property_readonly("itemsize", &Tensor::itemsize)
      .def_property_readonly("nbytes", &Tensor::nbytes)
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.raw_data()); })
      .def("__len__", [](const Tensor& t) {
        if (t.dim() == 0) throw py::type_error("len() of a 0-d tensor");
        return t.shape()[0];
      });

  // ---- autodiff state
  cls.def_property(
         "requires_grad", &Tensor::requires_grad,
         [](Tensor& t, bool on) { t.set_requires_grad(on); })
      .def("requires_grad_", [](py::object self, bool on) {
            self.cast<Tensor&>().set_requires_grad(on);
            return self;
          }, py::arg("requires_grad") = true)
      .def_property(
          "grad", [](const Tensor& t) -> std::optional<Tensor> {
            Tensor g = t.grad();
            if (!g.defined()) return std::nullopt;
            return g;
          },
          [](Tensor& t, std::optional<Tensor> g) { t.set_grad(g ? *g : Tensor()); })
      .def_property_readonly("grad_fn", [](const Tensor& t) -> std::optional<std::string> {
        if (!t.grad_fn()) return std::nullopt;
        return t.grad_fn()->name();
      }, "Name of the op that made this tensor (None for leaves).")
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def("backward", [](const Tensor& t, std::optional<Tensor> gradient, bool retain_graph, bool create_graph) {
            py::gil_scoped_release release;
            t.backward(gradient ? *gradient : Tensor(), retain_graph, create_graph);
          },
          py::arg("gradient") = py::none(), py::arg("retain_graph") = false, py::arg("create_graph") = false)
      .def("detach", &Tensor::detach)
      .def("set_data", &Tensor::set_data, py::arg("value"),
           "Rebinds this leaf to value's data (same shape, dtype, device) without history, as optimizers do.")
      .def("zero_grad_", [](py::object self) {
        self.cast<Tensor&>().set_grad(Tensor());
        return self;
      });

  // ---- Python numbers and NumPy
  cls.def("item", [](const Tensor& t) { return scalar_to_py(one_element(t, "item()")); })
      .def("__bool__", [](const Tensor& t) {
        SPIRE_CHECK(t.numel() == 1, ValueError, "the truth value of a tensor with ", t.numel(),
                    " elements is ambiguous; use .any() or .all()");
        return t.item().to_complex() != std::complex<double>(0.0);
      })
      .def("__float__", [](const Tensor& t) { return one_element(t, "float()").to_double(); })
      .def("__int__", [](const Tensor& t) { return one_element(t, "int()").to_int(); })
      .def("__complex__", [](const Tensor& t) { return one_element(t, "complex()").to_complex(); })
      .def("__index__", [](const Tensor& t) {
        if (!is_integral(t.dtype()) || t.numel() != 1)
          throw py::type_error("only one-element integer tensors can be used as an index");
        return t.item().to_int();
      })
      .def("numpy", [](py::object self) { return numpy_view(self.cast<const Tensor&>(), self); },
           "A NumPy array sharing this tensor's memory (CPU only).")
      .def("__array__", [](py::object self, py::object dtype, py::object copy) -> py::object {
            py::array a = numpy_view(self.cast<const Tensor&>(), self);
            bool want_copy = !copy.is_none() && copy.cast<bool>();
            if (!dtype.is_none()) return a.attr("astype")(dtype, py::arg("copy") = want_copy);
            if (want_copy) return a.attr("copy")();
            return std::move(a);
          },
          py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def("tolist", [](py::object self) { return numpy_view(self.cast<const Tensor&>(), self).attr("tolist")(); })
      .def("__repr__", &Tensor::str)
      .def("__str__", &Tensor::str)
      .def("__hash__", [](py::handle self) { return py::hash(py::int_(reinterpret_cast<uintptr_t>(self.ptr()))); })
      .def_buffer([](const Tensor& t) -> py::buffer_info {
        SPIRE_CHECK(t.device().kind == DeviceKind::CPU, DeviceError, "buffer protocol: the tensor is on ",
                    t.device().str(), "; NumPy arrays live on the CPU");
        std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
        std::vector<py::ssize_t> strides(t.dim());
        for (int64_t i = 0; i < t.dim(); ++i) strides[i] = t.strides()[i] * int64_t(t.itemsize());
        return py::buffer_info(t.raw_data(), py::ssize_t(t.itemsize()), buffer_format(t.dtype()),
                               t.dim(), shape, strides);
      });
  // NumPy's binary operators defer to ours (ndarray + tensor gives a tensor).
  cls.attr("__array_priority__") = 1000;

  // ---- dtype and device conversion
  auto to = [](const Tensor& t, py::handle what, bool copy_, bool non_blocking) {
    Tensor out = t;
    if (!what.is_none()) {
      bool is_device = py::isinstance<Device>(what);
      if (!is_device && py::isinstance<py::str>(what)) {
        std::string s = what.cast<std::string>();
        is_device = s == "cpu" || s.rfind("cuda", 0) == 0;
      }
      if (is_device) {
        Device d = py::isinstance<Device>(what) ? what.cast<Device>() : Device::parse(what.cast<std::string>());
        out = maybe_release(t.numel(), [&] { return spire::to(t, d, non_blocking); });
      } else {
        out = maybe_release(t.numel(), [&] { return cast(t, to_dtype(what)); });
      }
    }
    if (copy_ && out.same(t)) out = maybe_release(t.numel(), [&] { return copy(t); });
    return out;
  };
  cls.def("to", to, py::arg("dtype_or_device"), py::arg("copy") = false, py::arg("non_blocking") = false,
          "A copy on another device or of another dtype (self when nothing changes and not `copy`). "
          "non_blocking: a copy between host and GPU whose host side is page-locked (pin_memory) may "
          "return before it is done; synchronise the stream before reading the result on the host.")
      .def("astype", [to](const Tensor& t, py::handle dtype, bool copy_) { return to(t, dtype, copy_, false); },
           py::arg("dtype"), py::arg("copy") = false)
      .def("cpu", [](const Tensor& t, bool non_blocking) {
        return maybe_release(t.numel(), [&] { return spire::to(t, kCPU, non_blocking); });
      }, py::arg("non_blocking") = false)
      .def("cuda", [](const Tensor& t, py::object device, bool non_blocking) {
        Device d{DeviceKind::CUDA, 0};
        if (PyLong_Check(device.ptr())) d.index = device.cast<int>();
        else if (!device.is_none()) d = py::isinstance<Device>(device) ? device.cast<Device>() : Device::parse(device.cast<std::string>());
        SPIRE_CHECK(d.kind == DeviceKind::CUDA, DeviceError, "cuda(): expected a cuda device, got ", d.str());
        return maybe_release(t.numel(), [&] { return spire::to(t, d, non_blocking); });
      }, py::arg("device") = py::none(), py::arg("non_blocking") = false)
      .def("pin_memory", [](const Tensor& t) { return maybe_release(t.numel(), [&] { return spire::pin_memory(t); }); },
           "A copy in page-locked host memory (self if already pinned): copies from it to the GPU can "
           "run asynchronously (to('cuda', non_blocking=True)). Needs a GPU.")
      .def("is_pinned", [](const Tensor& t) { return spire::is_pinned(t); })
      .def_property_readonly("is_cuda", [](const Tensor& t) { return t.device().kind == DeviceKind::CUDA; })
      .def("float", [](const Tensor& t) { return cast(t, DType::Float32); })
      .def("double", [](const Tensor& t) { return cast(t, DType::Float64); })
      .def("int", [](const Tensor& t) { return cast(t, DType::Int32); })
      .def("long", [](const Tensor& t) { return cast(t, DType::Int64); })
      .def("bool", [](const Tensor& t) { return cast(t, DType::Bool); });

  py::implicitly_convertible<py::object, Tensor>();

  m.def("to", [](const Tensor& x, Device d, bool non_blocking) {
    return maybe_release(x.numel(), [&] { return spire::to(x, d, non_blocking); });
  }, py::arg("x"), py::arg("device"), py::arg("non_blocking") = false,
        "x on `device` (x itself when already there); differentiable.");
  bind_cuda(m);

  bind_indexing(m, cls);
  bind_dlpack(m, cls);
  bind_elementwise(m, cls);
  bind_reduce(m, cls);
  bind_shape(m, cls);
  bind_linalg(m, cls);
}

}  // namespace spire::python
