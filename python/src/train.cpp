// spire._C._train: the training loop's compiled half (spire.train re-exports it).
#include "common.h"
#include "engine/core/observer.h"

namespace spire::python {
namespace {

// FlopCounter as a context manager: counting is on between __enter__ and __exit__.
struct PyFlopCounter {
  FlopCounter counter;
  std::unique_ptr<ObserverScope> scope;
};

void bind_flop_counter(py::module_& t) {
  py::class_<PyFlopCounter>(t, "FlopCounter", R"doc(
Counts the FLOPs of the matmuls and convolutions run inside its ``with`` block, forward and backward
(2 per real multiply-add, 8 per complex one; elementwise work is not counted), as PyTorch's
FlopCounterMode::

    with spire.train.FlopCounter() as flops:
        loss = model(x).sum(); loss.backward()
    flops.total, flops.by_op   # {"matmul": ..., "conv": ..., "conv_transpose": ..., ...}
)doc")
      .def(py::init<>())
      .def("__enter__", [](PyFlopCounter& self) -> PyFlopCounter& {
        if (self.scope) throw py::value_error("FlopCounter: already counting (a counter enters one with block at a time)");
        self.scope = std::make_unique<ObserverScope>(self.counter);
        return self;
      }, py::return_value_policy::reference)
      .def("__exit__", [](PyFlopCounter& self, py::args) { self.scope.reset(); })
      .def_property_readonly("total", [](const PyFlopCounter& self) { return self.counter.total(); })
      .def_property_readonly("by_op", [](const PyFlopCounter& self) { return self.counter.by_op(); })
      .def("reset", [](PyFlopCounter& self) { self.counter.reset(); });
}

}  // namespace

void bind_train(py::module_& m) {
  py::module_ t = m.def_submodule("_train", "fit, callbacks and FLOP counting (use spire.train)");
  bind_flop_counter(t);
}

}  // namespace spire::python
