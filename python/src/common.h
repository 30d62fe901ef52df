// Shared pieces of the binding: conversions between Python objects and engine values (numbers,
// dtypes, devices, axes, shapes, array-likes) and the policy for releasing the GIL.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/device.h"
#include "engine/core/dtype.h"
#include "engine/core/scalar.h"
#include "engine/core/tensor.h"
#include "engine/autodiff/functional.h"
#include "engine/optim/state_dict.h"
#include "engine/train/logs.h"

namespace py = pybind11;

namespace spire::python {

// Releasing the GIL costs ~100 ns; below this many elements an op finishes sooner than that matters.
constexpr int64_t kReleaseGilElements = 32768;

// Runs f, without the GIL when `work` (elements touched) is large. f must not call into Python.
template <class F>
decltype(auto) maybe_release(int64_t work, F&& f) {
  if (work > kReleaseGilElements) {
    py::gil_scoped_release release;
    return f();
  }
  return f();
}
inline int64_t work_of(const Tensor& a) { return a.defined() ? a.numel() : 0; }
inline int64_t work_of(const Tensor& a, const Tensor& b) { return std::max(work_of(a), work_of(b)); }
inline int64_t work_of(const std::vector<Tensor>& xs) {
  int64_t w = 0;
  for (auto& x : xs) w += work_of(x);
  return w;
}

// The Python object for a dtype (one shared instance per dtype, so `is` works).
py::object dtype_object(DType t);
// Parses anything dtype-like: spire dtypes, strings ("float32", "f4"), NumPy dtypes and scalar types,
// Python types (bool, int, float, complex as NumPy reads them). Throws DTypeError otherwise.
DType to_dtype(py::handle h);
// NumPy dtype of a spire dtype.
py::dtype numpy_dtype(DType t);
// spire dtype of a NumPy dtype, or nullopt when spire has no such type (uint8, float16, ...).
std::optional<DType> from_numpy_dtype(const py::dtype& d);

// True for Python numbers (bool, int, float, complex, and their NumPy subclasses such as float64).
inline bool is_py_number(py::handle h) {
  PyObject* o = h.ptr();
  return PyFloat_Check(o) || PyLong_Check(o) || PyComplex_Check(o);
}
Scalar to_scalar(py::handle h);
py::object scalar_to_py(const Scalar& s);

// Axes arguments: None (all axes, as an empty list), an int, or a sequence of ints.
std::vector<int64_t> to_axes(py::handle h);
// Shapes: an int or a sequence of ints.
Shape to_shape(py::handle h);

// The Tensor inside a Python object, or nullptr when it is not a spire Tensor.
const Tensor* tensor_ptr(py::handle h);
// Any array-like as a Tensor: a Tensor itself; a NumPy array (shared when the layout allows);
// lists and numbers (copied, with float32/int64/complex64 as the defaults, as torch.tensor).
Tensor to_tensor(py::handle h);
// A training step's or epoch's logs as a dict of floats, in their order.
py::dict logs_dict(const train::Logs& logs);
// Python callbacks for C++ loops that run without the GIL (each call takes it): f(step, logs)
// returning None or a truthy value to go on, and f(line) for progress. Empty when f is None.
std::function<bool(int64_t, const train::Logs&)> logs_callback(const py::object& f);
std::function<void(const std::string&)> line_callback(const py::object& f);
// spire.tensor(data, dtype, requires_grad): always a fresh tensor with its own memory.
Tensor new_tensor(py::handle data, py::handle dtype, bool requires_grad);
// A binary operand next to `other`: Python numbers are weakly typed and take other's dtype.
Tensor operand_like(py::handle h, const Tensor& other);
// Both operands of a binary op; at least one must be a tensor or array-like.
std::pair<Tensor, Tensor> binary_operands(py::handle a, py::handle b);

// Copies (tensor) or shares (from_numpy) NumPy memory.
Tensor tensor_from_numpy(py::array a, bool share);
// A NumPy array viewing t's memory and keeping `owner` (the Python tensor) alive.
py::array numpy_view(const Tensor& t, py::handle owner);

// Registration of each part of the module (one file each).
void bind_errors(py::module_& m);
void bind_dtypes(py::module_& m);
void bind_tensor(py::module_& m);
void bind_indexing(py::module_& m, py::class_<Tensor>& cls);
void bind_dlpack(py::module_& m, py::class_<Tensor>& cls);
void bind_elementwise(py::module_& m, py::class_<Tensor>& cls);
void bind_reduce(py::module_& m, py::class_<Tensor>& cls);
void bind_shape(py::module_& m, py::class_<Tensor>& cls);
void bind_linalg(py::module_& m, py::class_<Tensor>& cls);
void bind_fft(py::module_& m);
void bind_random(py::module_& m);
void bind_conv(py::module_& m);
void bind_factories(py::module_& m);
void bind_autodiff(py::module_& m);
void bind_taylor(py::module_& m);  // jet, vmap, differential operators
void bind_optim(py::module_& m);   // optimizers
void bind_distributions(py::module_& m);  // Categorical, Normal, into spire._C._distributions
// A Python callable kept alive by engine closures. The engine may copy and drop those anywhere,
// with or without the GIL, so the reference is only touched with the GIL held.
std::shared_ptr<py::object> hold(py::object f);
// A Python callable taking and returning a list of tensors, as a C++ Function; `what` names it in
// the error raised when it returns something else.
Function tensor_list_function(py::object f, const std::string& what);

// The Python type name of an object, for error messages.
inline std::string type_name(py::handle h) { return py::str(py::type::of(h).attr("__name__")); }

// Optimizer, scheduler and checkpoint state dicts as ordered Python dicts (tensors stay tensors,
// numbers become float or int), and back; `who` starts error messages.
py::dict state_dict_to_py(const optim::StateDict& state);
optim::StateDict state_dict_from_py(py::handle obj, const std::string& who);
void bind_nn(py::module_& m);        // spire._C._nn: Module, Sequential, ModuleList
void bind_nn_layers(py::module_& m); // layers, functional forms and initialisers, into spire._C._nn
void bind_nn_pooling(py::module_& m); // pooling and upsampling layers and functional forms (after bind_nn_layers)
void bind_data(py::module_& m);      // datasets and loaders
void bind_custom_ops(py::module_& m);  // user-defined ops
void bind_train(py::module_& m);      // fit, callbacks, the FLOP counter, into spire._C._train
void bind_parallel(py::module_& m);   // runtime, communicators, device mesh, into spire._C._parallel
void bind_data_parallel(py::module_& m);  // DataParallel, into spire._C._parallel (after bind_parallel)
void bind_parallel_ops(py::module_& m);  // differentiable collectives, into spire._C._parallel (after bind_parallel)
void bind_flow(py::module_& m);  // PDEs (science/flow), into spire._C._flow
void bind_sponge(py::module_& m);  // molecular dynamics (science/sponge), into spire._C._sponge
void bind_elec(py::module_& m);  // FDTD electromagnetics (science/elec), into spire._C._elec
void bind_rl(py::module_& m);  // Gymnasium-style environments, into spire._C._rl (and calls the next four)
void bind_rl_vector(py::module_& rl);     // the vector environment pool and the Gymnasium adapter
void bind_rl_games(py::module_& rl);      // games for search (after bind_rl)
void bind_rl_mcts(py::module_& rl);       // batched MCTS, evaluators, selection rules (after bind_rl_games)
void bind_rl_alphazero(py::module_& rl);  // AlphaZero (after bind_rl_mcts)
void bind_rl_agents(py::module_& rl);     // algorithms as fragments, distribution policies, runs

}  // namespace spire::python

// Scalar arguments convert from Python numbers; DType arguments from anything dtype-like.
namespace pybind11::detail {
template <>
struct type_caster<spire::Scalar> {
  PYBIND11_TYPE_CASTER(spire::Scalar, const_name("complex | float | int | bool"));
  bool load(handle src, bool convert) {
    if (!spire::python::is_py_number(src)) {
      if (!convert || !(hasattr(src, "__index__") || hasattr(src, "__float__") || hasattr(src, "__complex__")))
        return false;
      if (py::isinstance<py::str>(src)) return false;
    }
    value = spire::python::to_scalar(src);
    return true;
  }
  static handle cast(const spire::Scalar& s, return_value_policy, handle) {
    return spire::python::scalar_to_py(s).release();
  }
};

template <>
struct type_caster<spire::DType> {
  PYBIND11_TYPE_CASTER(spire::DType, const_name("spire.dtype"));
  bool load(handle src, bool) {
    if (src.is_none()) return false;
    value = spire::python::to_dtype(src);
    return true;
  }
  static handle cast(spire::DType t, return_value_policy, handle) {
    return spire::python::dtype_object(t).release();
  }
};
}  // namespace pybind11::detail
