// spire._C._parallel: the parallel runtime (init, rank, size, ...), communicators with their raw
// in-place collectives, and the device mesh. Blocking collectives release the GIL: another Python
// thread (a data loader) keeps running while this one waits for the other ranks.
#include "common.h"
#include "engine/parallel/mesh.h"
#include "engine/parallel/runtime.h"

namespace spire::python {

namespace par = spire::parallel;

void bind_parallel(py::module_& m) {
  py::module_ p = m.def_submodule("_parallel", "Raw parallel runtime bindings (use spire.parallel).");
  using release = py::call_guard<py::gil_scoped_release>;

  p.def(
      "init",
      [](const std::string& backend, std::optional<double> timeout) {
        par::InitOptions o;
        o.backend = backend;
        if (timeout) o.timeout_seconds = *timeout;
        par::init(o);
      },
      py::arg("backend") = "auto", py::arg("timeout") = py::none(), release());
  p.def("is_initialized", &par::is_initialized);
  p.def("finalize", &par::finalize, release());
  p.def("rank", &par::rank);
  p.def("size", &par::size);
  p.def("local_rank", &par::local_rank);
  p.def("world", &par::world_ptr);
  p.def("collective_timeout", &par::collective_timeout);
  p.def(
      "abort_job", [](const std::string& message, int code) { par::abort_job(message, code); }, py::arg("message"),
      py::arg("code") = 1);

  py::class_<par::Work>(p, "Work", "An all_reduce in flight: wait() blocks until done; done() polls.")
      .def("wait", &par::Work::wait, release())
      .def("done", &par::Work::done);

  auto op_of = [](const std::string& s) { return par::reduce_op_from_name(s); };
  py::class_<par::Communicator, std::shared_ptr<par::Communicator>>(p, "Communicator")
      .def_property_readonly("id", &par::Communicator::id)
      .def_property_readonly("rank", &par::Communicator::rank)
      .def_property_readonly("size", &par::Communicator::size)
      .def_property_readonly("backend", &par::Communicator::backend)
      .def_property_readonly("device", [](const par::Communicator& c) { return c.device().str(); })
      .def(
          "split",
          [](par::Communicator& c, int color, std::optional<int> key) {
            py::gil_scoped_release r;
            return c.split(color, key ? *key : c.rank());
          },
          py::arg("color"), py::arg("key") = py::none())
      .def(
          "on",
          [](par::Communicator& c, const std::string& device) {
            Device d = Device::parse(device);
            py::gil_scoped_release r;
            return c.on(d);
          },
          py::arg("device"),
          "The communicator of the same ranks for tensors on `device` (NCCL for 'cuda:i'); collective "
          "the first time. The collective functions call it for their tensors' device.")
      .def("barrier", &par::Communicator::barrier, release())
      .def(
          "all_reduce",
          [op_of](par::Communicator& c, Tensor& t, const std::string& op) {
            auto o = op_of(op);
            py::gil_scoped_release r;
            c.all_reduce(t, o);
          },
          py::arg("tensor"), py::arg("op") = "sum")
      .def(
          "all_reduce_async",
          [op_of](par::Communicator& c, Tensor& t, const std::string& op) { return c.all_reduce_async(t, op_of(op)); },
          py::arg("tensor"), py::arg("op") = "sum")
      .def("all_gather", &par::Communicator::all_gather, py::arg("input"), py::arg("output"), release())
      .def(
          "reduce_scatter",
          [op_of](par::Communicator& c, const Tensor& in, Tensor& out, const std::string& op) {
            auto o = op_of(op);
            py::gil_scoped_release r;
            c.reduce_scatter(in, out, o);
          },
          py::arg("input"), py::arg("output"), py::arg("op") = "sum")
      .def("all_to_all", &par::Communicator::all_to_all, py::arg("input"), py::arg("output"), release())
      .def("broadcast", &par::Communicator::broadcast, py::arg("tensor"), py::arg("root") = 0, release())
      .def("send", &par::Communicator::send, py::arg("tensor"), py::arg("dst"), py::arg("tag") = 0, release())
      .def("recv", &par::Communicator::recv, py::arg("tensor"), py::arg("src"), py::arg("tag") = 0, release())
      .def_static("find", &par::Communicator::find, py::arg("id"))
      .def("__repr__", [](const par::Communicator& c) {
        return "<spire.parallel.Communicator id=" + std::to_string(c.id()) + " backend=" + c.backend() +
               " rank=" + std::to_string(c.rank()) + " size=" + std::to_string(c.size()) + ">";
      });

  py::class_<par::DeviceMesh, std::shared_ptr<par::DeviceMesh>>(p, "DeviceMesh")
      .def(py::init([](std::vector<int> shape, std::vector<std::string> names,
                       std::shared_ptr<par::Communicator> base) {
             py::gil_scoped_release r;
             return std::make_shared<par::DeviceMesh>(std::move(shape), std::move(names), std::move(base));
           }),
           py::arg("shape"), py::arg("axis_names"), py::arg("base") = nullptr)
      .def_property_readonly("shape", [](const par::DeviceMesh& m) { return py::tuple(py::cast(m.shape())); })
      .def_property_readonly("axis_names",
                             [](const par::DeviceMesh& m) { return py::tuple(py::cast(m.axis_names())); })
      .def_property_readonly("ndim", &par::DeviceMesh::ndim)
      .def("coords", [](const par::DeviceMesh& m) { return py::tuple(py::cast(m.coords())); })
      .def("comm", &par::DeviceMesh::comm_ptr, py::arg("axis"))
      .def("axis", &par::DeviceMesh::axis, py::arg("name"))
      .def_property_readonly("base", &par::DeviceMesh::base);
}

}  // namespace spire::python
