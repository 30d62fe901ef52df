// Factories (zeros, ones, full, arange, ...; spire/_factories.py adds the Python-friendly
// signatures), NumPy construction (tensor, from_numpy, asarray) and random draws.
#include "common.h"
#include "engine/core/error.h"
#include "engine/core/threads.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/random.h"

namespace spire::python {
namespace {

Generator& gen_or_default(Generator* g) { return g ? *g : default_generator(); }

}  // namespace

void bind_factories(py::module_& m) {
  py::module_ f = m.def_submodule("_factories", "Raw factory bindings (use the spire.* functions).");
  f.def("empty", [](const Shape& s, DType t, Device d) { return empty(s, t, d); });
  f.def("full", [](const Shape& s, Scalar v, DType t, Device d) {
    return maybe_release(numel_of(s), [&] { return full(s, v, t, d); });
  });
  f.def("arange", &arange);
  f.def("linspace", &linspace);
  f.def("eye", &eye);

  m.def("tensor", &new_tensor, py::arg("data"), py::arg("dtype") = py::none(), py::arg("requires_grad") = false,
        "A new tensor holding a copy of data (a tensor, NumPy array, nested list or number). Python "
        "floats give float32, ints int64, complex complex64; NumPy arrays keep their dtype.");
  m.def("from_numpy", [](py::array a) { return tensor_from_numpy(a, /*share=*/true); }, py::arg("array"),
        "A tensor sharing the NumPy array's memory: writes to either are seen by both.");
  m.def("asarray", [](py::handle data, py::handle dtype) {
    Tensor t = to_tensor(data);  // shares NumPy memory where possible
    if (!dtype.is_none()) t = cast(t, to_dtype(dtype));
    return t;
  }, py::arg("data"), py::arg("dtype") = py::none(),
     "data as a tensor, without copying when it already is one or is a NumPy array spire can share.");
}

void bind_random(py::module_& m) {
  py::module_ r = m.def_submodule("random", "Counter-based (Philox) random numbers: the same seed gives "
                                           "the same values on every run, thread count and device.");
  py::class_<Generator>(r, "Generator")
      .def(py::init<uint64_t, uint64_t>(), py::arg("seed") = 0, py::arg("stream") = 0)
      .def_property_readonly("seed", &Generator::seed)
      .def_property_readonly("stream", &Generator::stream)
      .def_property("offset", &Generator::offset, &Generator::set_offset,
                    "Philox blocks consumed so far; set it to resume a stream from a checkpoint.")
      .def("__repr__", [](const Generator& g) {
        return "spire.random.Generator(seed=" + std::to_string(g.seed()) + ", stream=" +
               std::to_string(g.stream()) + ", offset=" + std::to_string(g.offset()) + ")";
      });
  r.def("default_generator", &default_generator, py::return_value_policy::reference);
  r.def("manual_seed", &manual_seed, py::arg("seed"));
  m.def("manual_seed", &manual_seed, py::arg("seed"), "Seeds the default generator.");
  m.def("get_num_threads", &num_threads, "The intra-op threads of the calling thread's ops (torch.get_num_threads).");
  m.def("set_num_threads", &set_num_threads, py::arg("n"),
        "Sets the intra-op threads of the calling thread's ops, BLAS included (torch.set_num_threads).");
  // Draws keep the GIL: generators are shared objects and their counters must advance in order.
  r.def("uniform", [](py::handle shape, double low, double high, DType t, Generator* g, Device d) {
    return uniform(to_shape(shape), low, high, t, gen_or_default(g), d);
  }, py::arg("shape") = py::tuple(), py::arg("low") = 0.0, py::arg("high") = 1.0, py::arg("dtype") = DType::Float32,
     py::arg("generator") = nullptr, py::arg("device") = kCPU);
  r.def("normal", [](py::handle shape, double mean, double std, DType t, Generator* g, Device d) {
    return normal(to_shape(shape), mean, std, t, gen_or_default(g), d);
  }, py::arg("shape") = py::tuple(), py::arg("mean") = 0.0, py::arg("std") = 1.0, py::arg("dtype") = DType::Float32,
     py::arg("generator") = nullptr, py::arg("device") = kCPU);
  r.def("bernoulli", [](py::handle shape, double p, Generator* g, Device d) {
    return bernoulli(to_shape(shape), p, gen_or_default(g), d);
  }, py::arg("shape") = py::tuple(), py::arg("p") = 0.5, py::arg("generator") = nullptr, py::arg("device") = kCPU);
  r.def("randint", [](int64_t low, int64_t high, py::handle shape, DType t, Generator* g, Device d) {
    return randint(to_shape(shape), low, high, t, gen_or_default(g), d);
  }, py::arg("low"), py::arg("high"), py::arg("shape") = py::tuple(), py::arg("dtype") = DType::Int64,
     py::arg("generator") = nullptr, py::arg("device") = kCPU);
  r.def("permutation", [](int64_t n, Generator* g, Device d) { return permutation(n, gen_or_default(g), d); },
        py::arg("n"), py::arg("generator") = nullptr, py::arg("device") = kCPU);
}

}  // namespace spire::python
