// fit's callbacks for Python (engine/train/): the Callback base with a trampoline, so that a Python
// subclass overrides any hook (and a subclass of a built-in callback may extend it and call
// super()), and the built-in callbacks with the keyword names and defaults of spire.train.
//
// Hooks take and give Python dicts: the epoch logs as {name: float} (entries a Python hook adds,
// changes or deletes are copied back, so later callbacks and the History see them), the batch logs
// as {"loss", "size", "mean_loss", "inputs", "target", "outputs"}, on_train_end's as {"history"}.
// fit runs without the GIL, so every call into Python here takes it.
#include "common.h"
#include "per_group.h"
#include "engine/nn/module.h"
#include "engine/optim/optimizer.h"
#include "engine/optim/scheduler.h"
#include "engine/train/train.h"

namespace spire::python {

namespace {

using namespace spire::train;

// --- logs <-> dicts -------------------------------------------------------------------------------

double log_value(py::handle v, const std::string& key, const char* who) {
  if (PyBool_Check(v.ptr()) || PyComplex_Check(v.ptr()) || py::isinstance<py::str>(v))
    throw py::type_error(std::string(who) + ": logs['" + key + "'] must be a real number, got " + type_name(v));
  try {
    return py::float_(py::reinterpret_borrow<py::object>(v)).cast<double>();  // numbers, NumPy scalars, 1-element tensors
  } catch (py::error_already_set&) {
    throw py::type_error(std::string(who) + ": logs['" + key + "'] must be a real number, got " + type_name(v));
  }
}

// Copies a dict's entries back into logs: what a Python hook added, changed or deleted.
void dict_into_logs(const py::dict& d, Logs& logs, const char* who) {
  for (const auto& k : logs.keys())
    if (!d.contains(py::str(k))) logs.erase(k);
  for (auto [k, v] : d) {
    if (!py::isinstance<py::str>(k)) throw py::type_error(std::string(who) + ": logs keys must be strings, got " + type_name(k));
    std::string key = k.cast<std::string>();
    logs.set(key, log_value(v, key, who));
  }
}

Logs logs_from_py(py::handle obj, const char* who) {
  Logs logs;
  if (obj.is_none()) return logs;
  if (!py::isinstance<py::dict>(obj)) throw py::type_error(std::string(who) + ": logs must be a dict, got " + type_name(obj));
  dict_into_logs(py::reinterpret_borrow<py::dict>(obj), logs, who);
  return logs;
}

py::object tensors_tuple(const Tensors& ts) {
  py::tuple t(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) t[i] = py::cast(ts[i]);
  return std::move(t);
}

py::dict batch_logs_dict(const BatchLogs& b) {
  py::dict d;
  d["loss"] = b.loss;
  d["size"] = b.size;
  d["mean_loss"] = b.mean_loss;
  d["inputs"] = tensors_tuple(b.inputs);
  d["target"] = b.target.defined() ? py::cast(b.target) : py::none();
  d["outputs"] = tensors_tuple(b.outputs);
  return d;
}

Tensors tensors_from(py::handle obj) {
  Tensors out;
  if (obj.is_none()) return out;
  if (const Tensor* t = tensor_ptr(obj)) return {*t};
  for (auto x : obj) out.push_back(to_tensor(x));
  return out;
}

BatchLogs batch_logs_from_py(py::handle obj) {
  BatchLogs b;
  if (obj.is_none()) return b;
  if (!py::isinstance<py::dict>(obj)) throw py::type_error("on_batch_end: logs must be a dict, got " + type_name(obj));
  auto d = py::reinterpret_borrow<py::dict>(obj);
  auto get = [&](const char* k) { return d.contains(k) ? py::object(d[k]) : py::object(py::none()); };
  if (!get("loss").is_none()) b.loss = get("loss").cast<double>();
  if (!get("size").is_none()) b.size = get("size").cast<int64_t>();
  b.mean_loss = get("mean_loss").is_none() ? b.loss : get("mean_loss").cast<double>();
  b.inputs = tensors_from(get("inputs"));
  if (!get("target").is_none()) b.target = to_tensor(get("target"));
  b.outputs = tensors_from(get("outputs"));
  return b;
}

py::dict params_dict(const FitParams& p) {
  py::dict d;
  d["epochs"] = p.epochs;
  d["steps"] = p.steps ? py::object(py::int_(*p.steps)) : py::object(py::none());
  d["initial_epoch"] = p.initial_epoch;
  return d;
}

// --- the trampoline -------------------------------------------------------------------------------

// Routes each hook to the Python override when the Python class has one. The override is looked
// up, called and dropped with the GIL held; the C++ hook runs after the GIL is let go again.
template <class Base>
class PyCallback : public Base {
 public:
  using Base::Base;

  void on_train_begin() override {
    if (!call("on_train_begin", [](py::function& f) { f(py::dict()); })) Base::on_train_begin();
  }
  void on_train_end(const History& history) override {
    if (!call("on_train_end", [&](py::function& f) {
          py::dict logs;
          logs["history"] = py::cast(history);  // a copy: the Python side may keep it
          f(logs);
        }))
      Base::on_train_end(history);
  }
  void on_epoch_begin(int64_t epoch) override {
    if (!call("on_epoch_begin", [&](py::function& f) { f(epoch, py::dict()); })) Base::on_epoch_begin(epoch);
  }
  void on_epoch_end(int64_t epoch, Logs& logs) override {
    if (!call("on_epoch_end", [&](py::function& f) {
          py::dict d = logs_dict(logs);
          f(epoch, d);
          dict_into_logs(d, logs, "on_epoch_end");
        }))
      Base::on_epoch_end(epoch, logs);
  }
  void on_batch_begin(int64_t batch) override {
    if (!call("on_batch_begin", [&](py::function& f) { f(batch, py::dict()); })) Base::on_batch_begin(batch);
  }
  void on_batch_end(int64_t batch, const BatchLogs& logs) override {
    if (!call("on_batch_end", [&](py::function& f) { f(batch, batch_logs_dict(logs)); }))
      Base::on_batch_end(batch, logs);
  }

 private:
  template <class F>
  bool call(const char* name, F&& body) {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(static_cast<const Base*>(this), name);
    if (!f) return false;
    body(f);
    return true;
  }
};

// Constructors for a built-in callback: the plain C++ class for Python instances of it (whose
// hooks then never touch the GIL), the trampoline for instances of Python subclasses. `make`
// turns the keyword arguments into the options.
template <class T, class Make, class R, class... Args>
auto init_pair_impl(Make make, R (Make::*)(Args...) const) {
  return py::init([make](Args... a) { return std::make_shared<T>(make(a...)); },
                  [make](Args... a) { return std::make_shared<PyCallback<T>>(make(a...)); });
}
template <class T, class Make>
auto init_pair(Make make) {
  return init_pair_impl<T>(make, &Make::operator());
}

// The hooks as Python methods: each calls the class's own C++ hook (not the Python override), so
// super().on_epoch_end(epoch, logs) in a subclass runs the built-in behaviour; logs dicts are
// updated in place with what the C++ hook changed.
template <class T, class Cls>
void def_hooks(Cls& cls) {
  cls.def("on_train_begin", [](T& self, py::object) { self.T::on_train_begin(); }, py::arg("logs") = py::none())
      .def("on_train_end", [](T& self, py::object logs) {
             History h;
             if (py::isinstance<py::dict>(logs) && logs.contains("history")) h = logs["history"].cast<History>();
             self.T::on_train_end(h);
           }, py::arg("logs") = py::none())
      .def("on_epoch_begin", [](T& self, int64_t epoch, py::object) { self.T::on_epoch_begin(epoch); },
           py::arg("epoch"), py::arg("logs") = py::none())
      .def("on_epoch_end", [](T& self, int64_t epoch, py::object logs) {
             Logs l = logs_from_py(logs, "on_epoch_end");
             self.T::on_epoch_end(epoch, l);
             if (py::isinstance<py::dict>(logs)) {
               auto d = py::reinterpret_borrow<py::dict>(logs);
               d.clear();
               for (const auto& [k, v] : l) d[py::str(k)] = v;
             }
           }, py::arg("epoch"), py::arg("logs") = py::none())
      .def("on_batch_begin", [](T& self, int64_t batch, py::object) { self.T::on_batch_begin(batch); },
           py::arg("batch"), py::arg("logs") = py::none())
      .def("on_batch_end", [](T& self, int64_t batch, py::object logs) {
             self.T::on_batch_end(batch, batch_logs_from_py(logs));
           }, py::arg("batch"), py::arg("logs") = py::none());
}

// --- construction without super().__init__() ------------------------------------------------------

// Whether the C++ part of a callback instance exists (its __init__ ran).
bool cpp_constructed(py::handle self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self.ptr());
  return inst->get_value_and_holder(nullptr, false).holder_constructed();
}

// The metaclass of the callback classes. Keras's Callback needs no super().__init__() call, and
// much user code leaves it out; pybind11 would then refuse the instance. This metaclass makes the
// instance as `type` does, and if __init__ left the C++ part unbuilt, builds it with the built-in
// class's defaults (or says which __init__ must be called when that class has required arguments).
py::object callback_metaclass() {
  auto* base_meta = reinterpret_cast<PyObject*>(py::detail::get_internals().default_metaclass);
  py::object type = py::module_::import("builtins").attr("type");
  py::object meta = type("CallbackType", py::make_tuple(py::handle(base_meta)), py::dict());
  meta.attr("__call__") = py::cpp_function(
      [](py::handle cls, py::args args, py::kwargs kwargs) -> py::object {
        PyObject* raw = PyType_Type.tp_call(cls.ptr(), args.ptr(), kwargs.ptr());
        if (!raw) throw py::error_already_set();
        py::object self = py::reinterpret_steal<py::object>(raw);
        if (!cpp_constructed(self)) {
          // The most derived class that is built in (Callback, EarlyStopping, ...).
          auto* info = py::detail::get_type_info(reinterpret_cast<PyTypeObject*>(cls.ptr()));
          py::handle builtin(reinterpret_cast<PyObject*>(info->type));
          try {
            builtin.attr("__init__")(self);
          } catch (py::error_already_set& e) {
            if (!e.matches(PyExc_TypeError)) throw;
            throw py::type_error(type_name(self) + ".__init__ must call super().__init__(...): " +
                                 std::string(py::str(builtin.attr("__name__"))) + " has required arguments (" +
                                 e.what() + ")");
          }
        }
        return self;
      },
      py::is_method(meta), py::name("__call__"));
  return meta;
}

// --- streams --------------------------------------------------------------------------------------

}  // namespace

// A Python text stream (sys.stdout, a StringIO) as a train::Stream: write() then flush(), with the
// GIL; a terminal when stream.isatty() says so.
Stream python_stream(py::object stream) {
  bool tty = false;
  if (py::hasattr(stream, "isatty")) {
    try {
      tty = py::bool_(stream.attr("isatty")());
    } catch (py::error_already_set&) {
      tty = false;  // a closed or detached stream
    }
  }
  if (!py::hasattr(stream, "write")) throw py::type_error("the stream must have write(), got " + type_name(stream));
  auto h = hold(std::move(stream));
  return {[h](const std::string& s) {
            py::gil_scoped_acquire gil;
            h->attr("write")(py::str(s));
            if (py::hasattr(*h, "flush")) h->attr("flush")();
          },
          tty};
}

void bind_train_callbacks(py::module_& t) {
  using namespace pybind11::literals;
  py::object meta = callback_metaclass();

  py::class_<Callback, PyCallback<Callback>, std::shared_ptr<Callback>> cb(t, "Callback", py::metaclass(meta), R"doc(
Base of fit's callbacks (keras.callbacks.Callback); override the hooks you need:
on_train_begin(logs), on_train_end(logs) (logs["history"]), on_epoch_begin(epoch, logs),
on_epoch_end(epoch, logs), on_batch_begin(batch, logs), on_batch_end(batch, logs). Epoch logs map
names to floats; entries added in on_epoch_end reach later callbacks and the History. Batch logs:
loss, size, mean_loss (the epoch's running mean), inputs, target, outputs. self.model,
self.optimizer, self.scheduler and self.params (epochs, steps, initial_epoch) are set before
on_train_begin; self.stop_training = True ends training after the epoch.)doc");
  cb.def(py::init<>())
      .def_property("stop_training", py::overload_cast<>(&Callback::stop_training, py::const_),
                    py::overload_cast<bool>(&Callback::stop_training))
      .def_property_readonly("model", [](const Callback& c) {
        return c.model() ? py::cast(c.model(), py::return_value_policy::reference) : py::object(py::none());
      })
      .def_property_readonly("optimizer", [](const Callback& c) {
        return c.optimizer() ? py::cast(c.optimizer(), py::return_value_policy::reference) : py::object(py::none());
      })
      .def_property_readonly("scheduler", [](const Callback& c) {
        return c.scheduler() ? py::cast(c.scheduler(), py::return_value_policy::reference) : py::object(py::none());
      })
      .def_property_readonly("params", [](const Callback& c) { return params_dict(c.params()); });
  def_hooks<Callback>(cb);

  py::class_<EarlyStopping, Callback, PyCallback<EarlyStopping>, std::shared_ptr<EarlyStopping>> es(
      t, "EarlyStopping", py::metaclass(meta), R"doc(
Stops when `monitor` has not improved for `patience` epochs (Keras's rule): an epoch improves when
current < best - min_delta (mode "min"; "max": current > best + min_delta; "auto": max for
accuracies). With a baseline, epochs count as not improving until one beats it. With
restore_best_weights the best epoch's state_dict is loaded back when training stops (or ends).
best_epoch and stopped_epoch record what happened (None until then).)doc");
  es.def(init_pair<EarlyStopping>([](std::string monitor, double min_delta, int64_t patience, std::string mode,
                                      std::optional<double> baseline, bool restore_best_weights, int64_t start_from_epoch) {
           return EarlyStoppingOptions{.monitor = std::move(monitor), .min_delta = min_delta, .patience = patience,
                                       .mode = std::move(mode), .baseline = baseline,
                                       .restore_best_weights = restore_best_weights, .start_from_epoch = start_from_epoch};
         }),
         py::arg("monitor") = "val_loss", py::arg("min_delta") = 0.0, py::arg("patience") = 0, py::arg("mode") = "auto",
         py::arg("baseline") = py::none(), py::arg("restore_best_weights") = false, py::arg("start_from_epoch") = 0)
      .def_property_readonly("monitor", [](const EarlyStopping& e) { return e.options().monitor; })
      .def_property_readonly("min_delta", [](const EarlyStopping& e) { return e.options().min_delta; })
      .def_property_readonly("patience", [](const EarlyStopping& e) { return e.options().patience; })
      .def_property_readonly("mode", &EarlyStopping::mode)
      .def_property_readonly("baseline", [](const EarlyStopping& e) { return e.options().baseline; })
      .def_property_readonly("restore_best_weights", [](const EarlyStopping& e) { return e.options().restore_best_weights; })
      .def_property_readonly("start_from_epoch", [](const EarlyStopping& e) { return e.options().start_from_epoch; })
      .def_property_readonly("best", &EarlyStopping::best)
      .def_property_readonly("wait", &EarlyStopping::wait)
      .def_property_readonly("best_epoch", &EarlyStopping::best_epoch)
      .def_property_readonly("stopped_epoch", &EarlyStopping::stopped_epoch);
  def_hooks<EarlyStopping>(es);

  py::class_<ReduceLROnPlateau, Callback, PyCallback<ReduceLROnPlateau>, std::shared_ptr<ReduceLROnPlateau>> rlr(
      t, "ReduceLROnPlateau", py::metaclass(meta), R"doc(
Multiplies the learning rate by `factor` when `monitor` stops improving, with PyTorch's rule and
arguments (spire.optim.lr_scheduler.ReduceLROnPlateau does the bookkeeping, made over fit's
optimizer when training begins): after more than `patience` epochs without an improvement beyond
`threshold` (relative or absolute), lr = max(lr * factor, min_lr) (changes below eps are skipped),
then `cooldown` epochs pass before counting again.)doc");
  rlr.def(init_pair<ReduceLROnPlateau>([](std::string monitor, std::string mode, double factor, int64_t patience,
                                           double threshold, std::string threshold_mode, int64_t cooldown,
                                           py::object min_lr, double eps) {
            optim::PlateauOptions p{.factor = factor, .patience = patience, .threshold = threshold,
                                    .threshold_mode = std::move(threshold_mode), .cooldown = cooldown,
                                    .min_lr = per_group(min_lr, "ReduceLROnPlateau", "min_lr"), .eps = eps};
            return ReduceLROnPlateauOptions{.monitor = std::move(monitor), .mode = std::move(mode), .plateau = p};
          }),
          py::arg("monitor") = "val_loss", py::arg("mode") = "auto", py::arg("factor") = 0.1, py::arg("patience") = 10,
          py::arg("threshold") = 1e-4, py::arg("threshold_mode") = "rel", py::arg("cooldown") = 0,
          py::arg("min_lr") = py::float_(0.0), py::arg("eps") = 1e-8)
      .def_property_readonly("monitor", [](const ReduceLROnPlateau& r) { return r.options().monitor; })
      .def_property_readonly("mode", [](const ReduceLROnPlateau& r) { return r.options().plateau.mode; })
      .def_property_readonly("factor", [](const ReduceLROnPlateau& r) { return r.options().plateau.factor; })
      .def_property_readonly("patience", [](const ReduceLROnPlateau& r) { return r.options().plateau.patience; })
      .def_property_readonly("cooldown", [](const ReduceLROnPlateau& r) { return r.options().plateau.cooldown; })
      .def_property_readonly("min_lr", [](const ReduceLROnPlateau& r) { return per_group_value(r.options().plateau.min_lr); })
      .def_property_readonly("scheduler", [](const ReduceLROnPlateau& r) {
        return r.scheduler() ? py::cast(r.scheduler(), py::return_value_policy::reference) : py::object(py::none());
      }, "The spire.optim.lr_scheduler.ReduceLROnPlateau doing the bookkeeping (None before training).");
  def_hooks<ReduceLROnPlateau>(rlr);

  py::class_<ModelCheckpoint, Callback, PyCallback<ModelCheckpoint>, std::shared_ptr<ModelCheckpoint>> mc(
      t, "ModelCheckpoint", py::metaclass(meta), R"doc(
Saves the model after each epoch to `filepath`, which may hold {epoch} (from 1, as Keras) and log
keys in str.format syntax: "ckpt-{epoch:03d}-{val_loss:.3f}.h5". save_best_only saves only epochs
that improve `monitor`; save_freq=n (an int) saves every n batches instead (fields epoch, batch,
loss). .h5/.hdf5 files are spire checkpoints (spire.load_checkpoint reads them; include_optimizer
adds the optimizer's and scheduler's state, so training resumes from the file); other names are
NumPy .npz files of the state_dict. Every file is written to a temporary name beside the target and
renamed over it. `saved` lists (epoch, path) of the files written.)doc");
  mc.def(init_pair<ModelCheckpoint>([](py::object filepath, std::string monitor, bool save_best_only, std::string mode,
                     py::object save_freq, bool include_optimizer) {
           int64_t freq = 0;
           if (py::isinstance<py::str>(save_freq)) {
             if (save_freq.cast<std::string>() != "epoch")
               throw py::value_error("ModelCheckpoint: save_freq must be 'epoch' or a number of batches, got '" +
                                     save_freq.cast<std::string>() + "'");
           } else if (PyLong_Check(save_freq.ptr()) && !PyBool_Check(save_freq.ptr()) && save_freq.cast<int64_t>() > 0) {
             freq = save_freq.cast<int64_t>();
           } else {
             throw py::value_error("ModelCheckpoint: save_freq must be 'epoch' or a number of batches > 0, got " +
                                   std::string(py::repr(save_freq)));
           }
           std::string path = py::str(py::module_::import("os").attr("fspath")(filepath));
           // .h5 / .hdf5 in C++; any other name is an .npz written by spire.train.save_weights.
           WeightsWriter writer = [](const std::string& p, nn::Module& model, optim::Optimizer* opt,
                                     optim::LRScheduler* sched, int64_t epoch) {
             if (is_hdf5_path(p)) return save_weights(p, model, opt, sched, epoch);
             py::gil_scoped_acquire gil;
             py::module_::import("spire.train").attr("save_weights")(
                 py::cast(&model, py::return_value_policy::reference), p,
                 opt ? py::cast(opt, py::return_value_policy::reference) : py::object(py::none()), epoch);
           };
           return ModelCheckpointOptions{.filepath = path, .monitor = std::move(monitor),
                                         .save_best_only = save_best_only, .mode = std::move(mode), .save_freq = freq,
                                         .include_optimizer = include_optimizer, .writer = std::move(writer)};
         }),
         py::arg("filepath"), py::arg("monitor") = "val_loss", py::arg("save_best_only") = false,
         py::arg("mode") = "auto", py::arg("save_freq") = "epoch", py::arg("include_optimizer") = false)
      .def_property_readonly("filepath", [](const ModelCheckpoint& m) { return m.options().filepath; })
      .def_property_readonly("monitor", [](const ModelCheckpoint& m) { return m.options().monitor; })
      .def_property_readonly("save_best_only", [](const ModelCheckpoint& m) { return m.options().save_best_only; })
      .def_property_readonly("save_freq", [](const ModelCheckpoint& m) -> py::object {
        if (m.options().save_freq == 0) return py::str("epoch");
        return py::int_(m.options().save_freq);
      })
      .def_property_readonly("include_optimizer", [](const ModelCheckpoint& m) { return m.options().include_optimizer; })
      .def_property_readonly("mode", &ModelCheckpoint::mode)
      .def_property_readonly("best", &ModelCheckpoint::best)
      .def_property_readonly("saved", &ModelCheckpoint::saved);
  def_hooks<ModelCheckpoint>(mc);

  py::class_<ProgressBar, Callback, PyCallback<ProgressBar>, std::shared_ptr<ProgressBar>> pb(
      t, "ProgressBar", py::metaclass(meta), R"doc(
A one-line progress bar per epoch on `stream` (sys.stderr by default): batches done, rate (it/s),
ETA and the running mean loss, redrawn with \r; each finished epoch leaves a line
"Epoch 3/10 50/50 [==============================] 1.2s 41.0 it/s loss: 0.1234 - val_loss: 0.2000 - lr: 0.001".
Quiet when `stream` is not a terminal unless force=True; then only the end-of-epoch lines are
written (no redraws) unless redraw=True.)doc");
  pb.def(init_pair<ProgressBar>([](py::object stream, bool force, int64_t width, std::optional<bool> redraw) {
           if (stream.is_none()) stream = py::module_::import("sys").attr("stderr");
           return ProgressBarOptions{.stream = python_stream(stream), .force = force, .width = width, .redraw = redraw};
         }),
         py::arg("stream") = py::none(), py::arg("force") = false, py::arg("width") = 30, py::arg("redraw") = py::none())
      .def_property_readonly("enabled", &ProgressBar::enabled)
      .def_property_readonly("redraw", &ProgressBar::redraw)
      .def_property_readonly("width", [](const ProgressBar& p) { return p.options().width; });
  def_hooks<ProgressBar>(pb);

  py::class_<HistoryLogger, Callback, PyCallback<HistoryLogger>, std::shared_ptr<HistoryLogger>> hl(
      t, "HistoryLogger", py::metaclass(meta), R"doc(
Writes each epoch's logs to `path`: CSV (a header "epoch,<keys...>" then one row per epoch, written
and flushed at each epoch's end; values as repr, so they read back exactly) or, for .h5/.hdf5, an
HDF5 file with an int64 dataset "epoch" and one float64 dataset per key, rewritten to a temporary
name and renamed over `path` each epoch. append=True continues an existing file.)doc");
  hl.def(init_pair<HistoryLogger>([](py::object path, bool append, std::string separator) {
           std::string p = py::str(py::module_::import("os").attr("fspath")(path));
           return HistoryLoggerOptions{.path = p, .append = append, .separator = std::move(separator)};
         }),
         py::arg("path"), py::arg("append") = false, py::arg("separator") = ",")
      .def_property_readonly("path", [](const HistoryLogger& h) { return h.options().path; })
      .def_property_readonly("append", [](const HistoryLogger& h) { return h.options().append; })
      .def_property_readonly("separator", [](const HistoryLogger& h) { return h.options().separator; })
      .def_property_readonly("rows", [](const HistoryLogger& h) {
        py::list out;
        for (const auto& [e, logs] : h.rows()) out.append(py::make_tuple(e, logs_dict(logs)));
        return out;
      }, "(epoch, logs) of each epoch written.");
  def_hooks<HistoryLogger>(hl);

  py::class_<FlopsUtilization, Callback, PyCallback<FlopsUtilization>, std::shared_ptr<FlopsUtilization>> fu(
      t, "FlopsUtilization", py::metaclass(meta), R"doc(
Logs "flops" (achieved FLOP/s of the training steps) and "flops_utilization" (that over the peak)
each epoch. The FLOPs of each step, forward and backward, are counted by a FlopCounter installed
from on_batch_begin to on_batch_end (matmuls and convolutions: 2 per multiply-add); or, with
flops_per_batch, taken as that many per full batch (of batch_size samples; scaled by each batch's
size). peak (FLOP/s) is measured once with measure_peak_flops in the model's dtype unless given.
`total` is the epoch's FLOPs so far, `last_step` the last step's.)doc");
  fu.def(init_pair<FlopsUtilization>([](std::optional<double> flops_per_batch, std::optional<double> peak,
                                         std::optional<int64_t> batch_size) {
           return FlopsUtilizationOptions{.flops_per_batch = flops_per_batch, .peak = peak, .batch_size = batch_size};
         }),
         py::arg("flops_per_batch") = py::none(), py::arg("peak") = py::none(), py::arg("batch_size") = py::none())
      .def_property_readonly("total", &FlopsUtilization::total)
      .def_property_readonly("last_step", &FlopsUtilization::last_step)
      .def_property_readonly("peak", &FlopsUtilization::peak)
      .def_property_readonly("flops_per_batch", [](const FlopsUtilization& f) { return f.options().flops_per_batch; });
  def_hooks<FlopsUtilization>(fu);
}

py::dict logs_dict(const Logs& logs) {
  py::dict d;
  for (const auto& [k, v] : logs) d[py::str(k)] = py::float_(v);
  return d;
}

std::function<bool(int64_t, const Logs&)> logs_callback(const py::object& f) {
  if (f.is_none()) return nullptr;
  return [f](int64_t step, const Logs& logs) {
    py::gil_scoped_acquire gil;
    py::object r = f(step, logs_dict(logs));
    return r.is_none() || r.cast<bool>();
  };
}

std::function<void(const std::string&)> line_callback(const py::object& f) {
  if (f.is_none()) return nullptr;
  return [f](const std::string& line) {
    py::gil_scoped_acquire gil;
    f(line);
  };
}

}  // namespace spire::python
