// Custom ops from Python (spire._C._custom, wrapped by spire/custom.py): calling any registered op
// by name, loading plugins, and defining ops whose kernel and rules are Python functions.
//
// A Python op is a real OpDef. Its CPU kernel calls `forward` on NumPy views of the inputs (with
// the GIL taken). Its rules come in two kinds:
//  - rules="numpy": backward and jvp also take NumPy arrays. Each runs as an op of its own
//    ("<name>.backward", "<name>.jvp"), so it is recorded like any op; it has no derivative itself,
//    and differentiating it (create_graph, forward over reverse) raises, naming the op.
//  - rules="spire": backward and jvp take spire tensors and are written with spire ops; they are
//    called directly as the op's rules, so they are differentiable to any order.
// The functions of an op live in a PyOp shared by its rules, so redefining a Python op (a notebook
// cell run twice) swaps them in place: the OpDef, which recorded graphs point to, stays.
#include <map>
#include <memory>

#include "common.h"
#include "engine/core/op.h"
#include "engine/custom/library.h"
#include "engine/ops/elementwise.h"

namespace spire::python {
namespace {

// Attribute keys starting with this are the binding's own (arity of a rule op), not the user's.
constexpr const char* kPrivate = "__";

// --- attributes ----------------------------------------------------------------------------------

bool is_spire_dtype(py::handle h) {
  return py::isinstance(h, py::type::of(dtype_object(DType::Float32))) ||
         py::isinstance(h, py::module_::import("numpy").attr("dtype"));
}

AttrValue to_attr(const std::string& key, py::handle v) {
  PyObject* o = v.ptr();
  if (PyBool_Check(o)) return bool(o == Py_True);
  if (PyLong_Check(o)) return v.cast<int64_t>();
  if (PyFloat_Check(o)) return v.cast<double>();
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (is_spire_dtype(v)) return to_dtype(v);
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    auto seq = py::reinterpret_borrow<py::sequence>(v);
    bool all_int = true, all_num = true;
    for (py::handle e : seq) {
      bool is_int = PyLong_Check(e.ptr()) && !PyBool_Check(e.ptr());
      all_int &= is_int;
      all_num &= is_int || PyFloat_Check(e.ptr());
    }
    if (all_int) return seq.cast<std::vector<int64_t>>();
    if (all_num) return seq.cast<std::vector<double>>();
  }
  // NumPy scalars (np.int64(3), np.float32(0.5)) read as the Python numbers they stand for.
  if (py::hasattr(v, "dtype") && py::hasattr(v, "item") && py::getattr(v, "ndim", py::int_(1)).cast<int>() == 0)
    return to_attr(key, v.attr("item")());
  throw py::type_error("attribute '" + key + "': " + std::string(py::str(py::type::of(v).attr("__name__"))) +
                       " is not allowed; use int, float, bool, str, a dtype, or a list of ints or floats");
}

Attrs to_attrs(const py::dict& kwargs) {
  Attrs a;
  for (auto [k, v] : kwargs) {
    std::string key = k.cast<std::string>();
    SPIRE_CHECK(key.rfind(kPrivate, 0) != 0, ValueError, "attribute names starting with '__' are reserved");
    a.set(key, to_attr(key, v));
  }
  return a;
}

py::dict to_kwargs(const Attrs& a) {
  py::dict d;
  for (auto& [k, v] : a.items()) {
    if (k.rfind(kPrivate, 0) == 0) continue;
    d[py::str(k)] = std::visit(
        [](const auto& x) -> py::object {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, DType>) return dtype_object(x);
          else if constexpr (std::is_same_v<T, Scalar>) return scalar_to_py(x);
          else return py::cast(x);
        },
        v);
  }
  return d;
}

// --- Python ops ----------------------------------------------------------------------------------

struct PyOp {
  std::string name;
  py::object forward, backward, jvp, infer, taylor;  // None when not given
  bool spire_rules = false;
};

std::map<std::string, std::shared_ptr<PyOp>>& py_ops() {
  static auto* m = new std::map<std::string, std::shared_ptr<PyOp>>();  // never freed, as the registry
  return *m;
}

// A read-only NumPy view of t (sharing its memory; strided views stay strided).
py::array array_of(const Tensor& t) {
  SPIRE_CHECK(t.device().kind == DeviceKind::CPU, DeviceError, "custom ops defined in Python run on the CPU");
  py::array a = numpy_view(t, py::cast(t));
  a.attr("flags").attr("writeable") = false;
  return a;
}

py::tuple arrays_of(const std::vector<Tensor>& ts, size_t from, size_t to) {
  py::tuple out(to - from);
  for (size_t i = from; i < to; ++i) out[i - from] = array_of(ts[i]);
  return out;
}

// The values a Python function returned, as a list of `n`: a single value for n == 1, else a
// tuple or list of n (None entries stay None).
std::vector<py::object> results(const std::string& what, py::object r, size_t n) {
  if (n == 1 && !py::isinstance<py::tuple>(r) && !py::isinstance<py::list>(r)) return {r};
  SPIRE_CHECK(py::isinstance<py::tuple>(r) || py::isinstance<py::list>(r), ValueError, what,
              " returned one value; expected a tuple of ", n);
  auto seq = py::reinterpret_borrow<py::sequence>(r);
  SPIRE_CHECK(size_t(seq.size()) == n, ValueError, what, " returned ", seq.size(), " values; expected ", n);
  std::vector<py::object> out;
  for (py::handle h : seq) out.push_back(py::reinterpret_borrow<py::object>(h));
  return out;
}

// Copies a returned array-like into `dst`, broadcasting to its shape and casting to its dtype.
void copy_into(const std::string& what, py::handle value, Tensor& dst) {
  py::module_ np = py::module_::import("numpy");
  Shape shape = dst.shape();
  py::array a;
  try {
    a = np.attr("asarray")(value, numpy_dtype(dst.dtype()));
    a = np.attr("ascontiguousarray")(np.attr("broadcast_to")(a, py::tuple(py::cast(shape))));
  } catch (py::error_already_set& e) {
    throw ShapeError(what + " gave a value that does not fit shape " + shape_str(shape) + " and dtype " +
                     name(dst.dtype()) + ": " + e.what());
  }
  if (dst.nbytes()) std::memcpy(dst.raw_data(), a.data(), dst.nbytes());
}

// A rule's returned values into the op's outputs, one each; None is zero.
void write_results(const std::string& what, py::object r, std::vector<Tensor>& out, const char* each) {
  auto vals = results(what, std::move(r), out.size());
  for (size_t k = 0; k < out.size(); ++k) {
    if (vals[k].is_none()) std::memset(out[k].raw_data(), 0, out[k].nbytes());
    else copy_into(what + " (" + each + " " + std::to_string(k) + ")", vals[k], out[k]);
  }
}

// Forward results by output; the infer step computes them once when the op has no infer function,
// and the kernel that follows it on this thread takes them instead of running forward again.
struct ForwardCache {
  const PyOp* op = nullptr;
  std::vector<const TensorImpl*> inputs;
  std::vector<py::object> values;
};
thread_local ForwardCache* t_cache = nullptr;

std::vector<const TensorImpl*> identities(const std::vector<Tensor>& in) {
  std::vector<const TensorImpl*> ids;
  for (auto& t : in) ids.push_back(t.impl());
  return ids;
}

std::vector<py::object> run_forward(const PyOp& op, const std::vector<Tensor>& in, const Attrs& a) {
  py::object r = op.forward(*arrays_of(in, 0, in.size()), **to_kwargs(a));
  if (!py::isinstance<py::tuple>(r) && !py::isinstance<py::list>(r)) return {r};
  std::vector<py::object> out;
  for (py::handle h : r) out.push_back(py::reinterpret_borrow<py::object>(h));
  SPIRE_CHECK(!out.empty(), ValueError, "custom op '", op.name, "': forward returned no outputs");
  return out;
}

TensorMeta meta_of_value(const PyOp& op, size_t k, py::handle v) {
  py::array a = py::module_::import("numpy").attr("asarray")(v);
  auto dt = from_numpy_dtype(a.dtype());
  SPIRE_CHECK(dt, DTypeError, "custom op '", op.name, "': output ", k, " has NumPy dtype ",
              std::string(py::str(a.dtype())), ", which spire lacks; return bool, int32, int64, float32, "
              "float64, complex64 or complex128");
  return {Shape(a.shape(), a.shape() + a.ndim()), *dt};
}

std::vector<TensorMeta> infer_py(const std::shared_ptr<PyOp>& op, const std::vector<Tensor>& in, const Attrs& a) {
  py::gil_scoped_acquire gil;
  std::vector<TensorMeta> metas;
  if (!op->infer.is_none()) {
    py::object spec = py::module_::import("spire.custom").attr("TensorSpec");
    py::tuple specs(in.size());
    for (size_t i = 0; i < in.size(); ++i)
      specs[i] = spec(py::tuple(py::cast(in[i].shape())), dtype_object(in[i].dtype()));
    py::object r = op->infer(*specs, **to_kwargs(a));
    // One (shape, dtype) pair or object with .shape and .dtype, or a list of them.
    auto one = [&](py::handle h) {
      if (py::hasattr(h, "shape") && py::hasattr(h, "dtype"))
        return TensorMeta{to_shape(h.attr("shape")), to_dtype(h.attr("dtype"))};
      auto pair = py::reinterpret_borrow<py::sequence>(h);
      SPIRE_CHECK(pair.size() == 2, ValueError, "custom op '", op->name,
                  "': infer must return (shape, dtype) pairs or objects with .shape and .dtype");
      return TensorMeta{to_shape(pair[0]), to_dtype(pair[1])};
    };
    bool single = py::hasattr(r, "shape") ||
                  (py::isinstance<py::sequence>(r) && py::len(r) == 2 &&
                   (is_spire_dtype(r[py::int_(1)]) || py::isinstance<py::str>(r[py::int_(1)])));
    if (single) {
      metas.push_back(one(r));
    } else {
      for (py::handle h : r) metas.push_back(one(h));
    }
    return metas;
  }
  // No infer function: run forward now and keep its results for the kernel.
  auto values = run_forward(*op, in, a);
  for (size_t k = 0; k < values.size(); ++k) metas.push_back(meta_of_value(*op, k, values[k]));
  delete t_cache;
  t_cache = new ForwardCache{op.get(), identities(in), std::move(values)};
  return metas;
}

void kernel_py(const std::shared_ptr<PyOp>& op, const std::vector<Tensor>& in, std::vector<Tensor>& out,
               const Attrs& a) {
  py::gil_scoped_acquire gil;
  std::vector<py::object> values;
  if (t_cache && t_cache->op == op.get() && t_cache->inputs == identities(in)) {
    values = std::move(t_cache->values);
  } else {
    values = run_forward(*op, in, a);
  }
  delete t_cache;
  t_cache = nullptr;
  SPIRE_CHECK(values.size() == out.size(), ValueError, "custom op '", op->name, "': forward returned ",
              values.size(), " outputs where infer promised ", out.size());
  for (size_t k = 0; k < out.size(); ++k) {
    TensorMeta m = meta_of_value(*op, k, values[k]);
    SPIRE_CHECK(m.shape == out[k].shape(), ShapeError, "custom op '", op->name, "': forward returned output ",
                k, " of shape ", shape_str(m.shape), " where infer gave ", shape_str(out[k].shape()));
    copy_into("custom op '" + op->name + "': forward", values[k], out[k]);
  }
}

[[noreturn]] void no_derivative(const std::string& rule_op) {
  throw AutodiffError("op '" + rule_op + "' runs a NumPy function and has no derivative of its own; "
                      "for higher derivatives (create_graph, forward over reverse) define the custom op "
                      "with rules='spire' and write its backward and jvp with spire ops");
}

// The op that runs a NumPy backward: inputs (x..., y..., dy...), one output per x, shaped like it.
void define_backward_op(const std::shared_ptr<PyOp>& st, const std::string& name) {
  OpDef d{.name = name, .num_inputs = -1};
  d.infer = [](const std::vector<Tensor>& in, const Attrs& a) {
    std::vector<TensorMeta> m;
    for (int64_t i = 0; i < a.get<int64_t>("__n_in"); ++i) m.push_back({in[i].shape(), in[i].dtype()});
    return m;
  };
  d.vjp = [name](const VjpContext&) -> std::vector<Tensor> { no_derivative(name); };
  d.jvp = [name](const JvpContext&) -> std::vector<Tensor> { no_derivative(name); };
  d.kernels[int(DeviceKind::CPU)] = [st](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
    py::gil_scoped_acquire gil;
    size_t n_in = a.get<int64_t>("__n_in"), n_out = a.get<int64_t>("__n_out");
    py::tuple args(n_in + 2);
    for (size_t i = 0; i < n_in; ++i) args[i] = array_of(in[i]);
    args[n_in] = n_out == 1 ? py::object(array_of(in[n_in])) : py::object(arrays_of(in, n_in, n_in + n_out));
    args[n_in + 1] = n_out == 1 ? py::object(array_of(in[n_in + n_out]))
                                : py::object(arrays_of(in, n_in + n_out, n_in + 2 * n_out));
    std::string what = "custom op '" + st->name + "': backward";
    write_results(what, st->backward(*args, **to_kwargs(a)), out, "gradient of input");
  };
  OpRegistry::get().define(std::move(d));
}

// The op that runs a NumPy jvp: inputs (x..., y..., dx...), one output per y.
void define_jvp_op(const std::shared_ptr<PyOp>& st, const std::string& name) {
  OpDef d{.name = name, .num_inputs = -1};
  d.infer = [](const std::vector<Tensor>& in, const Attrs& a) {
    std::vector<TensorMeta> m;
    size_t n_in = a.get<int64_t>("__n_in"), n_out = a.get<int64_t>("__n_out");
    for (size_t k = 0; k < n_out; ++k) m.push_back({in[n_in + k].shape(), in[n_in + k].dtype()});
    return m;
  };
  d.vjp = [name](const VjpContext&) -> std::vector<Tensor> { no_derivative(name); };
  d.jvp = [name](const JvpContext&) -> std::vector<Tensor> { no_derivative(name); };
  d.kernels[int(DeviceKind::CPU)] = [st](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
    py::gil_scoped_acquire gil;
    size_t n_in = a.get<int64_t>("__n_in"), n_out = a.get<int64_t>("__n_out");
    py::tuple args(2 * n_in + 1);
    for (size_t i = 0; i < n_in; ++i) args[i] = array_of(in[i]);
    args[n_in] = n_out == 1 ? py::object(array_of(in[n_in])) : py::object(arrays_of(in, n_in, n_in + n_out));
    for (size_t i = 0; i < n_in; ++i) args[n_in + 1 + i] = array_of(in[n_in + n_out + i]);
    std::string what = "custom op '" + st->name + "': jvp";
    write_results(what, st->jvp(*args, **to_kwargs(a)), out, "tangent of output");
  };
  OpRegistry::get().define(std::move(d));
}

Attrs with_arity(const Attrs& a, size_t n_in, size_t n_out) {
  Attrs b = a;
  b.set("__n_in", int64_t(n_in));
  b.set("__n_out", int64_t(n_out));
  return b;
}

// Spire-rule results as tensors shaped like `like` (None: undefined, i.e. zero).
std::vector<Tensor> tensors_from(const std::string& what, py::object r, const std::vector<Tensor>& like,
                                 size_t from, size_t n) {
  auto vals = results(what, std::move(r), n);
  std::vector<Tensor> out(n);
  for (size_t i = 0; i < n; ++i) {
    if (vals[i].is_none()) continue;
    out[i] = to_tensor(vals[i]);
    const Tensor& ref = like[from + i];
    SPIRE_CHECK(out[i].shape() == ref.shape(), ShapeError, what, " gave shape ", shape_str(out[i].shape()),
                " for a value of shape ", shape_str(ref.shape()));
    if (out[i].dtype() != ref.dtype()) out[i] = cast(out[i], ref.dtype());
  }
  return out;
}

py::object tensor_or_tuple(const std::vector<Tensor>& ts, size_t from, size_t to) {
  if (to - from == 1) return py::cast(ts[from]);
  py::tuple t(to - from);
  for (size_t i = from; i < to; ++i) t[i - from] = py::cast(ts[i]);
  return t;
}

// The Taylor rule of a spire-rules op: taylor(*inputs, out, series, **attrs) with `series` one tuple of K
// coefficients per input (None for zero), returning K coefficients for each output.
std::vector<Series> taylor_py(const PyOp& st, const TaylorContext& c) {
  py::gil_scoped_acquire gil;
  SPIRE_CHECK(!st.taylor.is_none(), AutodiffError, "custom op '", st.name,
              "' has no Taylor rule (needed by jet, laplacian and the differential operators); pass taylor= "
              "to spire.custom_op with rules='spire' (or use op.def_taylor)");
  size_t n_in = c.inputs.size(), n_out = c.outputs.size();
  py::tuple series(n_in);
  for (size_t i = 0; i < n_in; ++i) {
    py::tuple coeffs(c.order);
    for (int k = 0; k < c.order; ++k)
      coeffs[k] = c.series[i][k].defined() ? py::cast(c.series[i][k]) : py::object(py::none());
    series[i] = coeffs;
  }
  py::tuple args(n_in + 2);
  for (size_t i = 0; i < n_in; ++i) args[i] = py::cast(c.inputs[i]);
  args[n_in] = tensor_or_tuple(c.outputs, 0, n_out);
  args[n_in + 1] = series;
  std::string what = "custom op '" + st.name + "': taylor";
  py::object r = st.taylor(*args, **to_kwargs(c.attrs));
  // One output: its K coefficients; several: one sequence of K per output.
  std::vector<py::object> per_out = n_out == 1 ? std::vector<py::object>{r} : results(what, r, n_out);
  std::vector<Series> out(n_out);
  for (size_t j = 0; j < n_out; ++j) {
    std::vector<Tensor> like(size_t(c.order), c.outputs[j]);
    out[j] = tensors_from(what + " (output " + std::to_string(j) + ")", per_out[j], like, 0, size_t(c.order));
  }
  return out;
}

void define_py_op(const std::string& name, py::object forward, py::object backward, py::object jvp,
                  py::object infer, py::object taylor, bool spire_rules, bool differentiable, bool replace) {
  SPIRE_CHECK(taylor.is_none() || spire_rules, ValueError, "custom_op '", name,
              "': a Taylor rule works on spire tensors; pass rules='spire' and write it with spire ops");
  SPIRE_CHECK(py::isinstance<py::function>(forward) || py::hasattr(forward, "__call__"), ValueError,
              "custom_op '", name, "': forward must be callable");
  auto& ops = py_ops();
  if (auto it = ops.find(name); it != ops.end()) {
    PyOp& st = *it->second;
    SPIRE_CHECK(replace, ValueError, "op '", name, "' is already registered; pass replace=True to redefine "
                "a custom op defined in Python");
    SPIRE_CHECK(st.spire_rules == spire_rules && op_def(name).differentiable == differentiable, ValueError,
                "custom_op '", name, "': a redefinition must keep rules= and differentiable=");
    st.forward = forward, st.backward = backward, st.jvp = jvp, st.infer = infer, st.taylor = taylor;
    return;
  }
  SPIRE_CHECK(!OpRegistry::get().find(name), ValueError, "op '", name,
              "' is already registered (a built-in or a loaded library's op); choose another name");
  auto st = std::make_shared<PyOp>(PyOp{name, forward, backward, jvp, infer, taylor, spire_rules});

  OpDef d{.name = name, .num_inputs = -1};
  d.differentiable = differentiable;
  d.infer = [st](const std::vector<Tensor>& in, const Attrs& a) { return infer_py(st, in, a); };
  d.kernels[int(DeviceKind::CPU)] = [st](const std::vector<Tensor>& in, std::vector<Tensor>& out,
                                         const Attrs& a) { kernel_py(st, in, out, a); };
  std::string bwd_name = name + ".backward", jvp_name = name + ".jvp";
  d.vjp = [st, bwd_name](const VjpContext& c) -> std::vector<Tensor> {
    py::gil_scoped_acquire gil;
    SPIRE_CHECK(!st->backward.is_none(), AutodiffError, "custom op '", st->name,
                "' has no backward; pass backward= to spire.custom_op (or use op.def_backward)");
    size_t n_in = c.inputs.size(), n_out = c.outputs.size();
    if (!st->spire_rules) {
      std::vector<Tensor> args = c.inputs;
      args.insert(args.end(), c.outputs.begin(), c.outputs.end());
      args.insert(args.end(), c.grads.begin(), c.grads.end());
      std::vector<Tensor> g = call(op_def(bwd_name), args, with_arity(c.attrs, n_in, n_out));
      for (size_t i = 0; i < n_in; ++i)
        if (!is_inexact(c.inputs[i].dtype())) g[i] = Tensor();
      return g;
    }
    py::tuple args(n_in + 2);
    for (size_t i = 0; i < n_in; ++i) args[i] = py::cast(c.inputs[i]);
    args[n_in] = tensor_or_tuple(c.outputs, 0, n_out);
    args[n_in + 1] = tensor_or_tuple(c.grads, 0, n_out);
    return tensors_from("custom op '" + st->name + "': backward", st->backward(*args, **to_kwargs(c.attrs)),
                        c.inputs, 0, n_in);
  };
  d.jvp = [st, jvp_name](const JvpContext& c) -> std::vector<Tensor> {
    py::gil_scoped_acquire gil;
    SPIRE_CHECK(!st->jvp.is_none(), AutodiffError, "custom op '", st->name,
                "' has no forward-mode rule; pass jvp= to spire.custom_op (or use op.def_jvp)");
    size_t n_in = c.inputs.size(), n_out = c.outputs.size();
    std::vector<Tensor> tangents = c.tangents;
    for (size_t i = 0; i < n_in; ++i)
      if (!tangents[i].defined()) tangents[i] = zeros_like(c.inputs[i]);
    if (!st->spire_rules) {
      std::vector<Tensor> args = c.inputs;
      args.insert(args.end(), c.outputs.begin(), c.outputs.end());
      args.insert(args.end(), tangents.begin(), tangents.end());
      return call(op_def(jvp_name), args, with_arity(c.attrs, n_in, n_out));
    }
    py::tuple args(2 * n_in + 1);
    for (size_t i = 0; i < n_in; ++i) args[i] = py::cast(c.inputs[i]);
    args[n_in] = tensor_or_tuple(c.outputs, 0, n_out);
    for (size_t i = 0; i < n_in; ++i) args[n_in + 1 + i] = py::cast(tangents[i]);
    return tensors_from("custom op '" + st->name + "': jvp", st->jvp(*args, **to_kwargs(c.attrs)), c.outputs,
                        0, n_out);
  };
  if (spire_rules) d.taylor = [st](const TaylorContext& c) { return taylor_py(*st, c); };
  OpRegistry::get().define(std::move(d));
  if (!spire_rules) {
    define_backward_op(st, bwd_name);
    define_jvp_op(st, jvp_name);
  }
  ops[name] = st;
}

void set_rule(const std::string& name, const std::string& which, py::object fn) {
  auto it = py_ops().find(name);
  SPIRE_CHECK(it != py_ops().end(), ValueError, "'", name, "' is not a custom op defined in Python");
  if (which == "backward") it->second->backward = fn;
  else if (which == "jvp") it->second->jvp = fn;
  else if (which == "infer") it->second->infer = fn;
  else if (which == "taylor") {
    SPIRE_CHECK(it->second->spire_rules, ValueError, "custom op '", name,
                "': a Taylor rule needs rules='spire' (it is written with spire ops)");
    it->second->taylor = fn;
  } else throw ValueError("set_rule: unknown rule '" + which + "'; allowed: backward, jvp, infer, taylor");
}

}  // namespace

void bind_custom_ops(py::module_& m) {
  py::module_ c = m.def_submodule("_custom", "custom ops: call by name, plugins, Python-defined ops");
  c.def(
      "call",
      [](const std::string& name, py::args inputs, py::kwargs attrs) {
        const OpDef& op = op_def(name);
        std::vector<Tensor> in;
        for (py::handle h : inputs) in.push_back(to_tensor(h));
        std::vector<Tensor> out = call(op, std::move(in), to_attrs(attrs));
        return tensor_or_tuple(out, 0, out.size());
      },
      py::arg("name"));
  c.def("load_library", [](const std::string& path) { return load_library(path); }, py::arg("path"));
  c.def("has_op", [](const std::string& name) { return OpRegistry::get().find(name) != nullptr; });
  c.def("op_names", [] {
    std::vector<std::string> names;
    for (const OpDef* d : OpRegistry::get().all()) names.push_back(d->name);
    return names;
  });
  c.def("is_python_op", [](const std::string& name) { return py_ops().count(name) > 0; });
  c.def("define", &define_py_op, py::arg("name"), py::arg("forward"), py::arg("backward"), py::arg("jvp"),
        py::arg("infer"), py::arg("taylor"), py::arg("spire_rules"), py::arg("differentiable"), py::arg("replace"));
  c.def("set_rule", &set_rule, py::arg("name"), py::arg("which"), py::arg("fn"));
}

}  // namespace spire::python
