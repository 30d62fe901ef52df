// spire._C._rl: the vector environment pool (reinforcement/envs/vector_env.h) and the adapter for
// Python Gymnasium environments (rl_python_env.h). Stepping runs without the GIL; results come back
// as NumPy arrays, fresh copies by default or read-only views of the pool's buffers (copy=False).
#include "common.h"
#include "rl_convert.h"
#include "reinforcement/envs/vector_env.h"
#include "rl_python_env.h"

namespace spire::python {
namespace {
using rl::VectorBatch;
using rl::VectorEnv;

// The pool with the Python-side choices: copies or views of the results.
struct PyVectorEnv {
  std::unique_ptr<VectorEnv> pool;
  bool copy = true;
  // Closing waits for queued work, which may be a wrapped Python environment waiting for the GIL.
  ~PyVectorEnv() {
    if (pool && PyGILState_Check()) {
      py::gil_scoped_release release;
      pool->close();
    }
  }
};

// Gymnasium's vector seeds: None, one int (environment i gets seed + i) or one int-or-None per environment.
std::vector<std::optional<uint64_t>> to_seeds(py::handle seed, int64_t n, const char* who) {
  std::vector<std::optional<uint64_t>> out(static_cast<size_t>(n));
  if (py::isinstance<py::list>(seed) || py::isinstance<py::tuple>(seed)) {
    auto seq = py::reinterpret_borrow<py::sequence>(seed);
    SPIRE_CHECK(static_cast<int64_t>(py::len(seq)) == n, ValueError, who, ": ", py::len(seq), " seeds for ", n,
                " environments (one per environment, or a single int)");
    for (size_t i = 0; i < out.size(); ++i) out[i] = to_seed(seq[i], std::string(who) + ": seed[" + std::to_string(i) + "]");
  } else if (auto s = to_seed(seed, std::string(who) + " (one int for all: environment i gets seed + i; or a list)")) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = *s + i;
  }
  return out;
}

std::string shape_str(const py::array& a) {
  // As Python prints a shape tuple: (3,) and (2, 3).
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

// One array of results: a copy, or a read-only view kept alive by `owner`.
template <class T>
py::array out_array(const T* data, std::vector<py::ssize_t> shape, const py::dtype& dt, py::handle owner, bool copy) {
  if (copy) {
    py::array a(dt, shape);
    std::memcpy(a.mutable_data(), data, static_cast<size_t>(a.nbytes()));
    return a;
  }
  py::array a(dt, shape, {}, data, owner);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

py::tuple to_py(const PyVectorEnv& v, const VectorBatch& b, py::handle owner, bool with_env_id) {
  const auto& shape = v.pool->single_observation_space().shape();
  std::vector<py::ssize_t> obs_shape = {static_cast<py::ssize_t>(b.size)};
  obs_shape.insert(obs_shape.end(), shape.begin(), shape.end());
  const std::vector<py::ssize_t> rows = {static_cast<py::ssize_t>(b.size)};
  static const py::dtype f32 = py::dtype::of<float>(), f64 = py::dtype::of<double>(), boolean = py::dtype::of<bool>(),
                         i32 = py::dtype::of<int32_t>();
  py::dict info;
  if (with_env_id) info["env_id"] = out_array(b.env_id.data(), rows, i32, owner, v.copy);
  return py::make_tuple(out_array(b.obs.data(), obs_shape, f32, owner, v.copy),
                        out_array(b.rewards.data(), rows, f64, owner, v.copy),
                        out_array(b.terminated.data(), rows, boolean, owner, v.copy),
                        out_array(b.truncated.data(), rows, boolean, owner, v.copy), info);
}

// env_id for send(): None (every environment) or a 1-D array-like of ints.
py::array_t<int32_t> to_env_ids(py::handle env_id) {
  if (env_id.is_none()) return py::array_t<int32_t>(0);
  py::array raw = py::array::ensure(env_id);
  SPIRE_CHECK(raw && (raw.dtype().kind() == 'i' || raw.dtype().kind() == 'u'), DTypeError,
              "VectorEnv.send: env_id must be None or integers, got ", raw ? py::str(raw.dtype()).cast<std::string>() : type_name(env_id));
  if (raw.ndim() == 0) raw = raw.attr("reshape")(1);
  SPIRE_CHECK(raw.ndim() == 1, ShapeError, "VectorEnv.send: env_id must be one-dimensional, got shape ", shape_str(raw));
  return py::array_t<int32_t, py::array::forcecast | py::array::c_style>::ensure(raw);
}

// Runs f(ints or floats) with the actions converted and checked for rows x the action's shape.
template <class F>
void with_actions(const VectorEnv& pool, py::handle actions, int64_t rows, const char* who, F&& f) {
  py::array raw = py::array::ensure(actions);
  SPIRE_CHECK(raw, DTypeError, "VectorEnv.", who, ": actions must be an array-like, got ", type_name(actions));
  const rl::Space& space = pool.single_action_space();
  if (space.is_discrete()) {
    const char k = raw.dtype().kind();
    SPIRE_CHECK(k == 'i' || k == 'u', DTypeError, "VectorEnv.", who, ": ", space.to_string(),
                " actions must be integers, got ", py::str(raw.dtype()).cast<std::string>());
    SPIRE_CHECK(raw.ndim() == 1 && raw.shape(0) == rows, ShapeError, "VectorEnv.", who, ": actions have shape ",
                shape_str(raw), "; ", rows, " environments need (", rows, ",)");
    auto a = py::array_t<int64_t, py::array::forcecast | py::array::c_style>::ensure(raw);
    py::gil_scoped_release release;
    f(std::span<const int64_t>(a.data(), static_cast<size_t>(a.size())));
    return;
  }
  const char k = raw.dtype().kind();
  SPIRE_CHECK(k == 'f' || k == 'i' || k == 'u', DTypeError, "VectorEnv.", who, ": ", space.to_string(),
              " actions must be floats, got ", py::str(raw.dtype()).cast<std::string>());
  const auto& shape = space.shape();
  bool ok = raw.ndim() == static_cast<py::ssize_t>(shape.size()) + 1 && raw.shape(0) == rows;
  for (size_t i = 0; ok && i < shape.size(); ++i) ok = raw.shape(i + 1) == shape[i];
  ok = ok || (raw.ndim() == 1 && raw.shape(0) == rows && space.size() == 1);  // (rows,) for one-element actions
  std::string need = "(" + std::to_string(rows);
  for (auto d : shape) need += ", " + std::to_string(d);
  SPIRE_CHECK(ok, ShapeError, "VectorEnv.", who, ": actions have shape ", shape_str(raw), "; ", rows,
              " environments x ", space.to_string(), " need ", need, ")");
  auto a = py::array_t<float, py::array::forcecast | py::array::c_style>::ensure(raw);
  py::gil_scoped_release release;
  f(std::span<const float>(a.data(), static_cast<size_t>(a.size())));
}

std::unique_ptr<PyVectorEnv> build(std::vector<std::unique_ptr<rl::Env>> envs, int64_t batch_size, int64_t num_threads,
                                   bool copy) {
  auto v = std::make_unique<PyVectorEnv>();
  v->pool = std::make_unique<VectorEnv>(std::move(envs), rl::VectorEnvOptions{batch_size, num_threads});
  v->copy = copy;
  return v;
}
}  // namespace

void bind_rl_vector(py::module_& rl) {
  py::class_<GymnasiumEnv, rl::Env>(rl, "GymnasiumEnv")
      .def_property_readonly("gymnasium_env", &GymnasiumEnv::python_env);
  rl.def("from_gymnasium", [](py::object env) { return GymnasiumEnv::wrap(std::move(env)); }, py::arg("env"));

  py::class_<PyVectorEnv>(rl, "VectorEnv")
      // Clones of spire environments (each keeps its own generator position and step counter).
      .def_static("from_envs", [](const py::list& envs, int64_t batch_size, int64_t num_threads, bool copy) {
        std::vector<std::unique_ptr<rl::Env>> owned;
        for (auto e : envs) owned.push_back(py::cast<const rl::Env&>(e).clone());
        return build(std::move(owned), batch_size, num_threads, copy);
      }, py::arg("envs"), py::arg("batch_size"), py::arg("num_threads"), py::arg("copy"))
      // Python gymnasium environments, wrapped (not copied).
      .def_static("from_gymnasium", [](const py::list& envs, int64_t batch_size, int64_t num_threads, bool copy) {
        std::vector<std::unique_ptr<rl::Env>> owned;
        for (auto e : envs) owned.push_back(GymnasiumEnv::wrap(py::reinterpret_borrow<py::object>(e)));
        return build(std::move(owned), batch_size, num_threads, copy);
      }, py::arg("envs"), py::arg("batch_size"), py::arg("num_threads"), py::arg("copy"))
      .def_property_readonly("num_envs", [](const PyVectorEnv& v) { return v.pool->num_envs(); })
      .def_property_readonly("batch_size", [](const PyVectorEnv& v) { return v.pool->batch_size(); })
      .def_property_readonly("num_threads", [](const PyVectorEnv& v) { return v.pool->num_threads(); })
      .def_property_readonly("copy", [](const PyVectorEnv& v) { return v.copy; })
      .def_property_readonly("single_observation_space", [](const PyVectorEnv& v) { return v.pool->single_observation_space(); })
      .def_property_readonly("single_action_space", [](const PyVectorEnv& v) { return v.pool->single_action_space(); })
      .def("reset", [](py::object self, py::handle seed, py::handle options) {
        auto& v = self.cast<PyVectorEnv&>();
        auto s = to_seeds(seed, v.pool->num_envs(), "VectorEnv.reset");
        auto opts = to_options(options, "VectorEnv.reset");
        VectorBatch b;
        {
          py::gil_scoped_release release;
          b = v.pool->reset(s, opts);
        }
        auto t = to_py(v, b, self, false);
        return py::make_tuple(t[0], t[4]);
      }, py::arg("seed") = py::none(), py::arg("options") = py::none())
      .def("step", [](py::object self, py::handle actions) {
        auto& v = self.cast<PyVectorEnv&>();
        VectorBatch b;
        with_actions(*v.pool, actions, v.pool->num_envs(), "step", [&](auto a) { b = v.pool->step(a); });
        return to_py(v, b, self, false);
      }, py::arg("actions"))
      .def("async_reset", [](PyVectorEnv& v, py::handle seed) {
        auto s = to_seeds(seed, v.pool->num_envs(), "VectorEnv.async_reset");
        py::gil_scoped_release release;
        v.pool->async_reset(s);
      }, py::arg("seed") = py::none())
      .def("send", [](PyVectorEnv& v, py::handle actions, py::handle env_id) {
        auto ids = to_env_ids(env_id);
        std::span<const int32_t> span(ids.data(), static_cast<size_t>(ids.size()));
        const int64_t rows = env_id.is_none() ? v.pool->num_envs() : static_cast<int64_t>(ids.size());
        with_actions(*v.pool, actions, rows, "send", [&](auto a) { v.pool->send(a, span); });
      }, py::arg("actions"), py::arg("env_id") = py::none())
      .def("recv", [](py::object self) {
        auto& v = self.cast<PyVectorEnv&>();
        VectorBatch b;
        {
          py::gil_scoped_release release;
          b = v.pool->recv();
        }
        return to_py(v, b, self, true);
      })
      .def("close", [](PyVectorEnv& v) {
        py::gil_scoped_release release;  // a wrapped Python environment may still be stepping
        v.pool->close();
      });
}

}  // namespace spire::python
