// The differentiable collectives (engine/parallel/collectives.h) as functions of spire._C._parallel,
// next to the runtime bindings (parallel.cpp). `comm` is a Communicator or None (the world). The
// GIL is released while a collective runs: it may wait for the other ranks, and Python threads of
// this process (a data loader) should keep running meanwhile.
#include "common.h"
#include "engine/parallel/collectives.h"

namespace spire::python {

namespace par = spire::parallel;

namespace {

const par::Communicator& comm_or_world(const par::Communicator* c) { return c ? *c : par::world(); }

}  // namespace

void bind_parallel_ops(py::module_& m) {
  py::module_ p = py::hasattr(m, "_parallel") ? py::module_(m.attr("_parallel"))
                                               : m.def_submodule("_parallel", "Raw parallel runtime bindings.");
  using release = py::call_guard<py::gil_scoped_release>;
  const auto comm = py::arg("comm") = nullptr;

  p.def(
      "all_reduce",
      [](const Tensor& x, const std::string& op, const par::Communicator* c) {
        par::ReduceOp o = par::reduce_op_from_name(op);
        py::gil_scoped_release r;
        return par::all_reduce(x, o, comm_or_world(c));
      },
      py::arg("x"), py::arg("op") = "sum", comm);
  p.def(
      "all_gather",
      [](const Tensor& x, int64_t axis, const par::Communicator* c) { return par::all_gather(x, axis, comm_or_world(c)); },
      py::arg("x"), py::arg("axis") = 0, comm, release());
  p.def(
      "reduce_scatter",
      [](const Tensor& x, int64_t axis, const std::string& op, const par::Communicator* c) {
        par::ReduceOp o = par::reduce_op_from_name(op);
        py::gil_scoped_release r;
        return par::reduce_scatter(x, axis, o, comm_or_world(c));
      },
      py::arg("x"), py::arg("axis") = 0, py::arg("op") = "sum", comm);
  p.def(
      "all_to_all",
      [](const Tensor& x, int64_t split_axis, int64_t concat_axis, const par::Communicator* c) {
        return par::all_to_all(x, split_axis, concat_axis, comm_or_world(c));
      },
      py::arg("x"), py::arg("split_axis") = 0, py::arg("concat_axis") = 0, comm, release());
  p.def(
      "broadcast", [](const Tensor& x, int root, const par::Communicator* c) { return par::broadcast(x, root, comm_or_world(c)); },
      py::arg("x"), py::arg("root") = 0, comm, release());
  p.def(
      "permute",
      [](const Tensor& x, const std::vector<std::pair<int, int>>& pairs, const par::Communicator* c) {
        return par::permute(x, pairs, comm_or_world(c));
      },
      py::arg("x"), py::arg("pairs"), comm, release());
  p.def(
      "send", [](const Tensor& x, int dst, int tag, const par::Communicator* c) { par::send(x, dst, tag, comm_or_world(c)); },
      py::arg("x"), py::arg("dst"), py::arg("tag") = 0, comm, release());
  p.def(
      "recv",
      [](py::handle shape, py::handle dtype, int src, int tag, const par::Communicator* c) {
        Shape s = to_shape(shape);
        DType t = dtype.is_none() ? DType::Float32 : to_dtype(dtype);
        py::gil_scoped_release r;
        return par::recv(s, t, src, tag, comm_or_world(c));
      },
      py::arg("shape"), py::arg("dtype") = py::none(), py::arg("src") = 0, py::arg("tag") = 0, comm);
  p.def(
      "barrier", [](const par::Communicator* c) { par::barrier(comm_or_world(c)); }, comm, release());
  p.attr("MAX_TAG") = par::kMaxTag;
}

}  // namespace spire::python
