// spire._C._train: fit, evaluate, History, metrics and FLOP counting (engine/train/) for Python;
// spire.train re-exports it. The callbacks are in train_callbacks.cpp.
//
// fit runs the C++ loop without the GIL, so that a DataLoader's worker (C++ or a Python thread) and
// other Python threads run while the engine computes; each call into Python (a Python model's
// forward, a Python loss or metric, a callback written in Python, the next item of a Python
// iterable, the progress bar's writes to sys.stdout) takes the GIL for its duration. Every Python
// object the loop holds is held through hold(), whose last reference is dropped under the GIL.
#include <cmath>

#include "common.h"
#include "engine/core/observer.h"
#include "engine/data/loader.h"
#include "engine/nn/module.h"
#include "engine/train/train.h"

namespace spire::python {

train::Stream python_stream(py::object stream);   // train_callbacks.cpp
void bind_train_callbacks(py::module_& t);         // train_callbacks.cpp

namespace {

using namespace spire::train;

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

// --- batch sources --------------------------------------------------------------------------------

// A batch from Python: a tuple or list of at least two array-likes, the last the target.
Batch to_batch(py::handle item, const char* who) {
  if (!(py::isinstance<py::tuple>(item) || py::isinstance<py::list>(item)) || py::len(item) < 2)
    throw py::type_error(std::string(who) + ": each batch must be a tuple (inputs..., target) of at least two items, "
                         "got " + type_name(item) +
                         (py::isinstance<py::tuple>(item) || py::isinstance<py::list>(item)
                              ? " of " + std::to_string(py::len(item)) : std::string()));
  Batch b;
  for (auto x : item) b.push_back(to_tensor(x));
  return b;
}

// Any Python iterable of batches. A training pass first calls set_epoch(epoch) when the iterable
// has it and its sampler does (a spire.data.DataLoader), for the shuffled order of (seed, epoch).
class PyIterableSource : public BatchSource {
 public:
  PyIterableSource(py::object iterable, const char* who) : who_(who) {
    if (py::hasattr(iterable, "__len__")) {
      try {
        size_ = int64_t(py::len(iterable));
      } catch (py::error_already_set&) {
        size_.reset();
      }
    }
    if (!py::hasattr(iterable, "__iter__") && !py::hasattr(iterable, "__getitem__"))
      throw py::type_error(std::string(who) + ": the data must be an iterable of (inputs..., target) tuples "
                           "(a spire.data.DataLoader, a list), got " + type_name(iterable));
    iterable_ = hold(std::move(iterable));
  }
  void begin_epoch(std::optional<int64_t> epoch) override {
    py::gil_scoped_acquire gil;
    iterator_.reset();
    py::object& it = *iterable_;
    if (epoch && py::hasattr(it, "set_epoch") && py::hasattr(it, "sampler")) {
      py::object sampler = it.attr("sampler");
      if (!sampler.is_none() && py::hasattr(sampler, "set_epoch")) it.attr("set_epoch")(*epoch);
    }
    iterator_ = hold(py::iter(it));
  }
  std::optional<Batch> next() override {
    py::gil_scoped_acquire gil;
    if (!iterator_) return std::nullopt;
    PyObject* item = PyIter_Next(iterator_->ptr());
    if (!item) {
      if (PyErr_Occurred()) throw py::error_already_set();
      return std::nullopt;
    }
    return to_batch(py::reinterpret_steal<py::object>(item), who_);
  }
  std::optional<int64_t> size() const override { return size_; }
  void end_epoch() override {
    py::gil_scoped_acquire gil;
    iterator_.reset();  // a DataLoader pass stops its thread when dropped
  }

 private:
  const char* who_;
  std::shared_ptr<py::object> iterable_, iterator_;
  std::optional<int64_t> size_;
};

// The source for a Python data argument: a spire.data.DataLoader over a built-in dataset is read by
// the C++ loader directly (its worker needs no GIL); anything else is iterated from Python.
struct Source {
  std::unique_ptr<BatchSource> source;
  std::shared_ptr<py::object> keep;  // the loader's Python object, alive while the source is
};

Source make_source(py::object data, const char* who) {
  py::object native = py::none();
  py::module_ d = py::module_::import("spire._C._data");
  if (py::isinstance(data, d.attr("Loader"))) {
    native = data;
  } else if (py::hasattr(data, "_native") && !data.attr("_native").is_none() && py::hasattr(data, "sampler") &&
             py::isinstance(data.attr("sampler"), d.attr("Sampler"))) {
    native = data.attr("_native");
  }
  Source s;
  if (!native.is_none()) {
    auto& loader = native.cast<data::DataLoader&>();
    s.keep = hold(native);
    s.source = std::make_unique<LoaderSource>(loader);
  } else {
    s.source = std::make_unique<PyIterableSource>(std::move(data), who);
  }
  return s;
}

// --- models, losses, metrics ----------------------------------------------------------------------

nn::Module& module_arg(py::handle model, const char* who) {
  if (!py::isinstance<nn::Module>(model))
    throw py::type_error(std::string(who) + ": model must be a spire.nn.Module, got " + type_name(model));
  auto* inst = reinterpret_cast<py::detail::instance*>(model.ptr());
  if (!inst->get_value_and_holder(nullptr, false).holder_constructed())
    throw py::type_error(std::string(who) + ": the model's Module.__init__() has not run (call super().__init__() "
                         "in " + type_name(model) + ".__init__)");
  return model.cast<nn::Module&>();
}

// The model's outputs as Python sees them: one tensor, or a tuple of several.
py::object outputs_to_py(const Tensors& outputs) {
  if (outputs.size() == 1) return py::cast(outputs[0]);
  py::tuple t(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) t[i] = py::cast(outputs[i]);
  return std::move(t);
}

Loss loss_arg(py::object loss, const char* who) {
  if (!PyCallable_Check(loss.ptr()))
    throw py::type_error(std::string(who) + ": loss must be callable as loss(output, target) -> Tensor, got " +
                         type_name(loss));
  auto h = hold(std::move(loss));
  std::string w(who);
  return Loss([h, w](const Tensors& outputs, const Tensor& target) -> Tensor {
    py::gil_scoped_acquire gil;
    py::object r = (*h)(outputs_to_py(outputs), py::cast(target));
    if (const Tensor* t = tensor_ptr(r)) return *t;
    throw py::type_error(w + ": the loss must return a spire.Tensor (to call backward on), got " + type_name(r));
  });
}

std::vector<Metric> metrics_arg(py::object metrics, const char* who) {
  std::vector<Metric> out;
  if (metrics.is_none()) return out;
  if (py::isinstance<py::str>(metrics)) metrics = py::make_tuple(metrics);
  for (auto m : metrics) {
    if (py::isinstance<py::str>(m)) {
      out.push_back(metric(m.cast<std::string>()));
    } else if (PyCallable_Check(m.ptr())) {
      std::string name = py::hasattr(m, "__name__") ? std::string(py::str(m.attr("__name__"))) : "metric";
      auto h = hold(py::reinterpret_borrow<py::object>(m));
      out.push_back({name, [h](const Tensors& outputs, const Tensor& target) -> double {
                       py::gil_scoped_acquire gil;
                       py::object r = (*h)(outputs_to_py(outputs), py::cast(target));
                       return py::float_(r).cast<double>();
                     }});
    } else {
      throw py::type_error(std::string(who) + ": a metric is a name ('accuracy') or a callable (output, target) -> "
                           "float, got " + type_name(m));
    }
  }
  return out;
}

int64_t epochs_arg(py::handle v, const char* name) {
  if (!PyLong_Check(v.ptr()) || PyBool_Check(v.ptr()) || v.cast<int64_t>() < 0)
    throw py::value_error(std::string("fit: ") + name + " must be a non-negative integer, got " +
                          std::string(py::repr(v)));
  return v.cast<int64_t>();
}

Verbose verbose_arg(py::handle v) {
  if (py::isinstance<py::str>(v)) {
    if (v.cast<std::string>() == "auto") return Verbose::Auto;
    throw py::value_error("fit: verbose must be 'auto', 0/False or 1/True, got '" + v.cast<std::string>() + "'");
  }
  if (v.is_none()) return Verbose::Never;
  return py::bool_(py::reinterpret_borrow<py::object>(v)) ? Verbose::Always : Verbose::Never;
}

std::vector<std::shared_ptr<Callback>> callbacks_arg(py::handle callbacks) {
  std::vector<std::shared_ptr<Callback>> out;
  if (callbacks.is_none()) return out;
  for (auto c : callbacks) {
    if (!py::isinstance<Callback>(c))
      throw py::type_error("fit: callbacks must be spire.train.Callback instances (subclass it), got " + type_name(c));
    out.push_back(c.cast<std::shared_ptr<Callback>>());
  }
  return out;
}

optim::LRScheduler* scheduler_arg(py::handle s) {
  if (s.is_none()) return nullptr;
  if (!py::isinstance<optim::LRScheduler>(s))
    throw py::type_error("fit: scheduler must be a spire.optim.lr_scheduler scheduler, got " + type_name(s) +
                         " (for a schedule of your own, set optimizer.lr in a Callback's on_epoch_begin)");
  return &s.cast<optim::LRScheduler&>();
}

py::object flops_number(double f) {
  if (std::isfinite(f) && f == std::floor(f) && std::abs(f) < 9e15) return py::int_(int64_t(f));
  return py::float_(f);
}

// --- History --------------------------------------------------------------------------------------

void bind_history(py::module_& t) {
  py::class_<History>(t, "History", R"doc(
Per-epoch logs of one fit: history[key] is a list with one float per epoch (loss, val_loss, lr,
metrics and val_ metrics, time, train_time and what callbacks add; NaN where an epoch lacks the key);
history.epoch lists the epoch numbers (0-based); history.history is a dict of all columns.)doc")
      .def(py::init<>())
      .def("append", [](History& h, int64_t epoch, py::dict logs) {
        Logs l;
        for (auto [k, v] : logs) l.set(k.cast<std::string>(), py::float_(py::reinterpret_borrow<py::object>(v)).cast<double>());
        h.append(epoch, l);
      }, py::arg("epoch"), py::arg("logs"), "Records one epoch's logs (a dict of numbers).")
      .def_property_readonly("epoch", [](const History& h) { return py::list(py::cast(h.epoch())); })
      .def_property_readonly("history", [](const History& h) {
        py::dict d;
        for (const auto& [k, col] : h.columns()) d[py::str(k)] = py::list(py::cast(col));
        return d;
      })
      .def("__getitem__", [](const History& h, const std::string& key) { return py::list(py::cast(h[key])); })
      .def("__contains__", &History::contains)
      .def("__len__", &History::size)
      .def("__iter__", [](const History& h) { return py::iter(py::cast(h.keys())); })
      .def("keys", &History::keys)
      .def("__repr__", [](const History& h) {
        std::string keys;
        for (const auto& k : h.keys()) keys += (keys.empty() ? "'" : ", '") + k + "'";
        return "History(epochs=" + std::to_string(h.size()) + ", keys=[" + keys + "])";
      });
}

}  // namespace

void bind_train(py::module_& m) {
  py::module_ t = m.def_submodule("_train", "fit, callbacks and FLOP counting (use spire.train)");

  // MissingKeyError: a ValueError of spire's and a KeyError, as Python code expects of a missing key.
  static PyObject* missing = [&] {
    py::tuple bases = py::make_tuple(m.attr("SpireValueError"), py::handle(PyExc_KeyError));
    PyObject* cls = PyErr_NewExceptionWithDoc("spire.train.MissingKeyError",
                                              "A log or history key that is not there (the message names those that are).",
                                              bases.ptr(), nullptr);
    if (!cls) throw py::error_already_set();
    return cls;
  }();
  t.attr("MissingKeyError") = py::handle(missing);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const MissingKeyError& e) {
      PyErr_SetString(missing, e.what());
    }
  });

  bind_flop_counter(t);
  bind_history(t);
  bind_train_callbacks(t);

  t.def("fit", [](py::object model, py::object loss, optim::Optimizer& optimizer, py::object train, py::object val,
                  py::object epochs, py::object callbacks, py::object scheduler, py::object metrics,
                  py::object verbose, py::object initial_epoch) {
        nn::Module& mod = module_arg(model, "fit");
        FitOptions o;
        o.epochs = epochs_arg(epochs, "epochs");
        o.initial_epoch = epochs_arg(initial_epoch, "initial_epoch");
        o.callbacks = callbacks_arg(callbacks);
        o.scheduler = scheduler_arg(scheduler);
        o.metrics = metrics_arg(metrics, "fit");
        o.verbose = verbose_arg(verbose);
        if (o.verbose != Verbose::Never) o.progress_stream = python_stream(py::module_::import("sys").attr("stdout"));
        Loss l = loss_arg(loss, "fit");
        Source tr = make_source(train, "fit");
        Source va;
        if (!val.is_none()) va = make_source(val, "fit");
        History h;
        {
          py::gil_scoped_release release;
          h = train::fit(mod, l, optimizer, *tr.source, va.source.get(), o);
        }
        return h;
      },
      py::arg("model"), py::arg("loss"), py::arg("optimizer"), py::arg("train"), py::arg("val") = py::none(),
      py::arg("epochs") = 1, py::arg("callbacks") = py::tuple(), py::arg("scheduler") = py::none(),
      py::arg("metrics") = py::none(), py::arg("verbose") = "auto", py::arg("initial_epoch") = 0, R"doc(
Trains model for `epochs` passes over `train` and returns a History (see spire.train's docs).

Each batch of `train` is a tuple (inputs..., target); the step is model.train(),
optimizer.zero_grad(), loss(model(*inputs), target).backward(), optimizer.step() (LBFGS gets a
closure doing the same). `loss` is logged as the sample-weighted mean of the epoch's batch losses.
After each epoch `val` (if given) is evaluated under no_grad in eval mode (val_loss, val_<metric>),
then `scheduler` steps (ReduceLROnPlateau with val_loss, else loss; OneCycleLR steps per batch),
then the callbacks see the logs; lr is the rate the epoch trained with. verbose: "auto" shows a
ProgressBar on sys.stdout when it is a terminal, 1/True always, 0/False never (a ProgressBar among
the callbacks replaces it). Training stops early when a callback sets stop_training.)doc");

  t.def("evaluate", [](py::object model, py::object loss, py::object data, py::object metrics) {
        nn::Module& mod = module_arg(model, "evaluate");
        Loss l = loss_arg(loss, "evaluate");
        std::vector<Metric> ms = metrics_arg(metrics, "evaluate");
        Source src = make_source(data, "evaluate");
        Logs logs;
        {
          py::gil_scoped_release release;
          logs = train::evaluate(mod, l, *src.source, ms);
        }
        return logs_dict(logs);
      },
      py::arg("model"), py::arg("loss"), py::arg("data"), py::arg("metrics") = py::none(),
      "Sample-weighted mean loss (and metrics) of model over data under no_grad in eval mode; returns "
      "{'loss': ..., name: ...}. The model's train/eval mode is restored.");

  t.def("accuracy", [](py::handle output, py::handle target) {
        return accuracy(to_tensor(output), to_tensor(target));
      }, py::arg("output"), py::arg("target"), R"doc(
Fraction of correct predictions. Class scores (N, C) with C > 1 are compared by argmax with integer
labels (N,) (or one-hot / probability targets (N, C), by their argmax); a single score per sample
((N,) or (N, 1)) is a binary logit, predicted positive when > 0, against targets in {0, 1}.)doc");

  t.def("count_flops", [](py::object model, py::object input) {
        nn::Module& mod = module_arg(model, "count_flops");
        double f;
        if (tensor_ptr(input) || py::isinstance<py::array>(input)) {
          f = count_flops(mod, Tensors{to_tensor(input)});
        } else if (py::isinstance<py::tuple>(input) && py::len(input) > 0 && tensor_ptr(input[py::int_(0)])) {
          Tensors xs;
          for (auto x : input) xs.push_back(to_tensor(x));
          f = count_flops(mod, xs);
        } else {
          f = count_flops(mod, to_shape(input));
        }
        return flops_number(f);
      }, py::arg("model"), py::arg("input_shape"), R"doc(
Forward FLOPs of one batch: model is run once on zeros of input_shape (in its parameters' dtype and
device; or on the given tensor(s)) in eval mode under no_grad, and a FlopCounter counts its matmuls
and convolutions (2 FLOPs per multiply-add; biases, activations and normalisations are elementwise
and not counted). A training step does about 3x this: see FlopsUtilization, which counts it.)doc");

  t.def("measure_peak_flops", [](int64_t n, py::object dtype, py::object device, int64_t repeats) {
        DType dt = dtype.is_none() ? DType::Float32 : to_dtype(dtype);
        Device dev = kCPU;
        if (!device.is_none()) dev = py::isinstance<Device>(device) ? device.cast<Device>() : Device::parse(py::str(device));
        py::gil_scoped_release release;
        return measure_peak_flops(n, dt, dev, repeats);
      }, py::arg("n") = 2048, py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("repeats") = 3,
      "The achievable matmul rate in FLOP/s: the best of `repeats` timed n x n @ n x n products (2 n^3 FLOPs "
      "each) after a warm-up, waiting for the device; cached per (n, dtype, device).");

  t.def("_save_weights", [](const std::string& path, py::object model, py::object optimizer, py::object scheduler,
                            int64_t epoch) {
        nn::Module& mod = module_arg(model, "save_weights");
        optim::Optimizer* opt = optimizer.is_none() ? nullptr : &optimizer.cast<optim::Optimizer&>();
        optim::LRScheduler* sched = scheduler_arg(scheduler);
        py::gil_scoped_release release;
        save_weights(path, mod, opt, sched, epoch);
      }, py::arg("path"), py::arg("model"), py::arg("optimizer") = py::none(), py::arg("scheduler") = py::none(),
      py::arg("epoch") = 0);
}

}  // namespace spire::python
