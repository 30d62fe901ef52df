// spire._C._parallel.DataParallel (engine/parallel/data_parallel.h), re-exported as
// spire.parallel.DataParallel: torch's DistributedDataParallel over a spire communicator.
//
// Python's dp(x, ...) runs this binding's forward, which calls the wrapped module's own __call__
// (its Python forward, with keyword arguments and its hooks) between the engine's before_forward
// and after_forward; the engine's calls (spire.train.fit's C++ loop) run DataParallel::forward,
// which calls the wrapped module through the engine. Both record the same round (see the header).
#include "common.h"
#include "engine/parallel/data_parallel.h"
#include "engine/parallel/runtime.h"
#include "engine/train/model_checkpoint.h"

namespace spire::python {
namespace {

namespace par = spire::parallel;
using par::DataParallel;

// A shared_ptr to the module that also owns a reference to its Python object, so a Python subclass
// (and its forward) lives as long as the DataParallel holding it (as nn.cpp's hold_module).
nn::ModulePtr hold_module(py::handle obj) {
  if (!py::isinstance<nn::Module>(obj))
    throw py::type_error("DataParallel: module must be a spire.nn.Module, got " + type_name(obj));
  auto sp = obj.cast<nn::ModulePtr>();
  if (!sp) throw py::type_error("DataParallel: the module's Module.__init__() has not run");
  auto* ref = new py::object(py::reinterpret_borrow<py::object>(obj));
  std::shared_ptr<void> keep(ref, [](py::object* o) {
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    delete o;
  });
  return nn::ModulePtr(keep, sp.get());
}

std::shared_ptr<par::Communicator> comm_arg(py::handle comm) {
  if (comm.is_none()) return nullptr;
  return comm.cast<std::shared_ptr<par::Communicator>>();
}

// Every tensor in a forward's result: a tensor, or tensors nested in tuples, lists and dict values.
void collect_tensors(py::handle h, Tensors& out) {
  if (const Tensor* t = tensor_ptr(h)) {
    out.push_back(*t);
  } else if (py::isinstance<py::tuple>(h) || py::isinstance<py::list>(h)) {
    for (auto item : h) collect_tensors(item, out);
  } else if (py::isinstance<py::dict>(h)) {
    for (auto item : py::reinterpret_borrow<py::dict>(h)) collect_tensors(item.second, out);
  }
}

struct NoSyncScope {
  std::shared_ptr<DataParallel> dp;
  bool previous = true;
};

}  // namespace

void bind_data_parallel(py::module_& m) {
  py::module_ p = m.def_submodule("_parallel");

  py::class_<NoSyncScope>(p, "_NoSync")
      .def("__enter__", [](NoSyncScope& s) {
        s.previous = s.dp->require_backward_grad_sync();
        s.dp->set_require_backward_grad_sync(false);
        return &s;
      }, py::return_value_policy::reference)
      .def("__exit__", [](NoSyncScope& s, py::args) { s.dp->set_require_backward_grad_sync(s.previous); });

  py::class_<DataParallel, nn::Module, std::shared_ptr<DataParallel>>(p, "DataParallel", py::dynamic_attr(), R"doc(
Data-parallel training (torch.nn.parallel.DistributedDataParallel): wraps a module whose replicas
run on every rank of `comm` (default: the world); gradients are averaged over the ranks with
bucketed all-reduces that start during backward, so every rank takes the same optimizer step.

Construction is collective and copies rank 0's parameters and buffers to every rank. Each rank
feeds its own shard of the global batch (spire.data.DistributedSampler); the loss is the mean over
the shard, so the averaged gradient is the global batch's. state_dict keys start with "module."
(as torch's DDP); load_state_dict also takes a plain model's dict. `module` is the wrapped model.

Parameters no forward reached contribute zeros; one that no rank used keeps grad None. If a
parameter that forward reached gets no gradient (a loss using part of the outputs), call
finish_gradient_sync() before optimizer.step(). `with dp.no_sync():` accumulates gradients locally;
the next backward outside it averages the sums. See docs/parallel.md.)doc")
      .def(py::init([](py::handle module, py::handle comm, double bucket_cap_mb, bool broadcast_buffers) {
             auto held = hold_module(module);
             auto c = comm_arg(comm);
             par::DataParallelOptions o{.bucket_cap_mb = bucket_cap_mb, .broadcast_buffers = broadcast_buffers};
             return std::make_shared<DataParallel>(held, c, o);
           }),
           py::arg("module"), py::arg("comm") = py::none(), py::arg("bucket_cap_mb") = 25.0,
           py::arg("broadcast_buffers") = true)
      .def("forward", [](DataParallel& dp, py::args args, py::kwargs kwargs) {
        dp.before_forward();
        py::object out = py::cast(dp.module())(*args, **kwargs);
        Tensors ts;
        collect_tensors(out, ts);
        dp.after_forward(ts);
        return out;
      }, "Runs the wrapped module (with its hooks) and records which parameters the outputs reach.")
      .def_property_readonly("module", [](const DataParallel& dp) { return py::cast(dp.module()); },
                             "The wrapped model (its state_dict has no \"module.\" prefix).")
      .def_property_readonly("comm", &DataParallel::communicator_ptr)
      .def_property_readonly("bucket_cap_mb", [](const DataParallel& dp) { return dp.options().bucket_cap_mb; })
      .def_property_readonly("broadcast_buffers", [](const DataParallel& dp) { return dp.options().broadcast_buffers; })
      .def("no_sync", [](std::shared_ptr<DataParallel> dp) { return NoSyncScope{std::move(dp)}; },
           "A context manager inside which gradients accumulate locally, without averaging (torch's no_sync).")
      .def_property("require_backward_grad_sync", &DataParallel::require_backward_grad_sync,
                    &DataParallel::set_require_backward_grad_sync)
      .def("finish_gradient_sync", &DataParallel::finish_gradient_sync,
           "Collective: completes an open synchronisation round (parameters forward reached that got no "
           "gradient contribute zeros); does nothing when none is open.")
      .def_property_readonly("sync_pending", &DataParallel::sync_pending)
      .def_property_readonly("bucket_indices", &DataParallel::bucket_indices,
                             "The buckets, launch order, as indices into module.parameters().")
      .def_property_readonly("reductions_started", &DataParallel::reductions_started)
      .def("load_state_dict", [](py::object self, py::handle state, bool strict) {
        if (!py::hasattr(state, "keys"))
          throw py::type_error("load_state_dict: expected a mapping of names to tensors (a dict), got " +
                               type_name(state));
        bool prefixed = false, empty = true;
        for (auto k : state.attr("keys")()) {
          empty = false;
          if (py::isinstance<py::str>(k) && k.cast<std::string>().rfind("module.", 0) == 0) prefixed = true;
        }
        // A plain model's dict goes to the wrapped model; this model's own ("module."-prefixed) to itself.
        if (!prefixed && !empty) return self.attr("module").attr("load_state_dict")(state, strict);
        py::object base = py::module_::import("spire._C._nn").attr("Module").attr("load_state_dict");
        return base(self, state, strict);
      }, py::arg("state_dict"), py::arg("strict") = true,
      "Loads this model's state_dict (\"module.\" keys) or a plain model's (loaded into module).");

  p.def("is_main_process", [](py::handle comm) {
        auto c = comm_arg(comm);
        return par::is_main_process(c.get());
      }, py::arg("comm") = py::none(), "Whether this is rank 0 of comm (default: the world): the rank that writes.");

  p.def("distributed_sampler", [](py::handle dataset, py::handle comm, bool shuffle, uint64_t seed, bool drop_last) {
        auto c = comm_arg(comm);
        const par::Communicator& cm = c ? *c : par::world();
        return std::make_shared<data::DistributedSampler>(int64_t(py::len(dataset)), cm.size(), cm.rank(), shuffle,
                                                          seed, drop_last);
      }, py::arg("dataset"), py::kw_only(), py::arg("comm") = py::none(), py::arg("shuffle") = true,
      py::arg("seed") = 0, py::arg("drop_last") = false,
      "A spire.data.DistributedSampler for this rank of comm (default: the world): pass it to DataLoader as "
      "sampler=, and call its set_epoch(e) each epoch.");

  p.def("save_on_main_only", [](const train::ModelCheckpoint& cb, py::handle comm) {
        auto c = comm_arg(comm);
        return std::make_shared<train::ModelCheckpoint>(par::save_on_main_only(cb.options(), c.get()));
      }, py::arg("checkpoint"), py::arg("comm") = py::none(),
      "A copy of a ModelCheckpoint that writes only on rank 0 of comm (default: the world); the other "
      "ranks follow the same schedule without writing. No barrier: call comm.barrier() before other "
      "ranks read the file.");
}

}  // namespace spire::python
