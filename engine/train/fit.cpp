#include "engine/train/fit.h"

#include <chrono>

#include "engine/autodiff/mode.h"
#include "engine/optim/lbfgs.h"
#include "engine/train/progress_bar.h"

namespace spire::train {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The batch as (inputs, target): the last item is the target.
std::pair<Tensors, Tensor> split(const Batch& batch, const char* who) {
  SPIRE_CHECK(batch.size() >= 2, ValueError, who, ": each batch must be (inputs..., target), at least two tensors; "
              "got ", batch.size());
  return {Tensors(batch.begin(), batch.end() - 1), batch.back()};
}

int64_t batch_size(const Tensor& target) { return target.dim() > 0 ? target.shape(0) : 1; }

void check_loss(const Tensor& loss, const char* who) {
  SPIRE_CHECK(loss.defined() && loss.numel() == 1, ValueError, who, ": the loss must be a one-element tensor, got ",
              loss.defined() ? shape_str(loss.shape()) : std::string("an undefined tensor"),
              " (use reduction 'mean' or 'sum')");
}

double loss_value(const Tensor& loss, const char* who) {
  check_loss(loss, who);
  return loss.item<double>();
}

// Ends a source's pass however the loop is left (a loader's worker is joined).
struct PassGuard {
  BatchSource& source;
  ~PassGuard() { source.end_epoch(); }
};

// Sample-weighted sums of the loss and the metrics over one pass.
struct Sums {
  std::vector<std::pair<std::string, double>> sums;  // "loss", then each metric
  int64_t n = 0;

  explicit Sums(const std::vector<Metric>& metrics) {
    sums.emplace_back("loss", 0.0);
    for (const auto& m : metrics) sums.emplace_back(m.name, 0.0);
  }
  void add(double loss, const std::vector<Metric>& metrics, const Tensors& outputs, const Tensor& target, int64_t b) {
    sums[0].second += loss * double(b);
    for (size_t i = 0; i < metrics.size(); ++i) sums[i + 1].second += metrics[i].fn(outputs, target) * double(b);
    n += b;
  }
  void into(Logs& logs, const std::string& prefix) const {
    for (const auto& [k, v] : sums) logs.set(prefix + k, v / double(n));
  }
};

void check_metrics(const std::vector<Metric>& metrics) {
  for (const auto& m : metrics) {
    SPIRE_CHECK(!m.name.empty(), ValueError, "fit: a metric needs a name");
    SPIRE_CHECK(bool(m.fn), ValueError, "fit: metric '", m.name, "' has no function");
    SPIRE_CHECK(m.name != "loss", ValueError, "fit: a metric may not be named 'loss'");
  }
}

// The model's training/eval mode, restored when the scope ends.
struct ModeGuard {
  nn::Module& model;
  bool was_training;
  explicit ModeGuard(nn::Module& m) : model(m), was_training(m.is_training()) {}
  ~ModeGuard() { model.train(was_training); }
};

}  // namespace

Logs evaluate(nn::Module& model, const Loss& loss, BatchSource& data, const std::vector<Metric>& metrics) {
  check_metrics(metrics);
  Sums sums(metrics);
  {
    ModeGuard mode(model);
    model.eval();
    NoGradGuard no_grad;
    data.begin_epoch(std::nullopt);
    PassGuard pass{data};
    while (auto batch = data.next()) {
      auto [inputs, target] = split(*batch, "evaluate");
      Tensors outputs = model(inputs);
      sums.add(loss_value(loss(outputs, target), "evaluate"), metrics, outputs, target, batch_size(target));
    }
  }
  SPIRE_CHECK(sums.n > 0, ValueError, "evaluate: the data yielded no batches");
  Logs logs;
  sums.into(logs, "");
  return logs;
}

Logs evaluate(nn::Module& model, const Loss& loss, data::DataLoader& data, const std::vector<Metric>& metrics) {
  LoaderSource source(data);
  return evaluate(model, loss, source, metrics);
}

History fit(nn::Module& model, const Loss& loss, optim::Optimizer& optimizer, BatchSource& train, BatchSource* val,
            const FitOptions& options) {
  SPIRE_CHECK(options.epochs >= 0, ValueError, "fit: epochs must be >= 0, got ", options.epochs);
  SPIRE_CHECK(options.initial_epoch >= 0, ValueError, "fit: initial_epoch must be >= 0, got ", options.initial_epoch);
  SPIRE_CHECK(bool(loss), ValueError, "fit: no loss function given");
  check_metrics(options.metrics);
  const auto& metrics = options.metrics;

  std::vector<std::shared_ptr<Callback>> callbacks;
  bool has_bar = false;
  for (const auto& cb : options.callbacks) {
    SPIRE_CHECK(cb != nullptr, ValueError, "fit: a callback is null");
    callbacks.push_back(cb);
    has_bar = has_bar || dynamic_cast<ProgressBar*>(cb.get()) != nullptr;
  }
  if (options.verbose != Verbose::Never && !has_bar)
    callbacks.push_back(std::make_shared<ProgressBar>(
        ProgressBarOptions{.stream = options.progress_stream, .force = options.verbose == Verbose::Always}));

  optim::LRScheduler* scheduler = options.scheduler;
  auto* lbfgs = dynamic_cast<optim::LBFGS*>(&optimizer);
  const bool per_batch = dynamic_cast<optim::OneCycleLR*>(scheduler) != nullptr;
  auto* plateau = dynamic_cast<optim::ReduceLROnPlateau*>(scheduler);

  FitParams params{.epochs = options.epochs, .steps = train.size(), .initial_epoch = options.initial_epoch};
  for (auto& cb : callbacks) {
    cb->stop_training(false);
    cb->attach(&model, &optimizer, scheduler, params);
  }
  for (auto& cb : callbacks) cb->on_train_begin();

  History history;
  for (int64_t epoch = options.initial_epoch; epoch < options.initial_epoch + options.epochs; ++epoch) {
    train.begin_epoch(epoch);
    PassGuard pass{train};
    for (auto& cb : callbacks) cb->on_epoch_begin(epoch);
    const double lr = optimizer.lr();
    const auto t0 = Clock::now();
    model.train();
    Sums sums(metrics);
    int64_t i = 0;
    while (auto batch = train.next()) {
      auto [inputs, target] = split(*batch, "fit");
      for (auto& cb : callbacks) cb->on_batch_begin(i);
      Tensors outputs;
      Tensor value;
      optim::Closure closure = [&]() -> Tensor {
        optimizer.zero_grad();
        outputs = model(inputs);
        value = loss(outputs, target);
        check_loss(value, "fit");  // a clear error before backward's
        value.backward();
        return value;
      };
      if (lbfgs) {
        optimizer.step(closure);
      } else {
        closure();
        optimizer.step();
      }
      if (per_batch) scheduler->step();
      const int64_t b = batch_size(target);
      const double batch_loss = loss_value(value, "fit");
      sums.add(batch_loss, metrics, outputs, target, b);
      BatchLogs blogs{.loss = batch_loss, .size = b, .mean_loss = sums.sums[0].second / double(sums.n),
                      .inputs = inputs, .target = target, .outputs = outputs};
      for (auto& cb : callbacks) cb->on_batch_end(i, blogs);
      ++i;
    }
    train.end_epoch();
    SPIRE_CHECK(sums.n > 0, ValueError, "fit: the training data yielded no batches in epoch ", epoch);
    const double train_time = seconds_since(t0);
    Logs logs;
    sums.into(logs, "");
    if (val) {
      Logs v = evaluate(model, loss, *val, metrics);
      for (const auto& [k, x] : v) logs.set("val_" + k, x);
    }
    logs.set("lr", lr);
    if (scheduler && !per_batch) {
      if (plateau) plateau->step(logs.get("val_loss").value_or(logs.at("loss")));
      else scheduler->step();
    }
    logs.set("train_time", train_time);
    logs.set("time", seconds_since(t0));
    for (auto& cb : callbacks) cb->on_epoch_end(epoch, logs);
    history.append(epoch, logs);
    bool stop = false;
    for (auto& cb : callbacks) stop = stop || cb->stop_training();
    if (stop) break;
  }
  for (auto& cb : callbacks) cb->on_train_end(history);
  return history;
}

History fit(nn::Module& model, const Loss& loss, optim::Optimizer& optimizer, data::DataLoader& train,
            data::DataLoader* val, const FitOptions& options) {
  LoaderSource train_source(train);
  if (!val) return fit(model, loss, optimizer, train_source, nullptr, options);
  LoaderSource val_source(*val);
  return fit(model, loss, optimizer, train_source, &val_source, options);
}

}  // namespace spire::train
