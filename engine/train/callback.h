// The base of fit's callbacks (Keras's keras.callbacks.Callback). fit attaches each callback to
// the model, optimizer and scheduler it trains with and then calls, in this order:
//
//   on_train_begin()
//   for each epoch:  on_epoch_begin(epoch)
//                    for each batch: on_batch_begin(i), the training step, on_batch_end(i, batch logs)
//                    (validation, the scheduler's step)
//                    on_epoch_end(epoch, logs)    // may add entries to logs (FlopsUtilization does)
//   on_train_end(history)
//
// Callbacks run in the order given, each seeing what the earlier ones added. A callback ends
// training after the current epoch with stop_training(true).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "engine/core/tensor.h"
#include "engine/train/history.h"
#include "engine/train/logs.h"

namespace spire::nn {
class Module;
}
namespace spire::optim {
class Optimizer;
class LRScheduler;
}  // namespace spire::optim

namespace spire::train {

// What fit was asked to do.
struct FitParams {
  int64_t epochs = 0;                  // epochs to run (from initial_epoch)
  std::optional<int64_t> steps = std::nullopt;      // batches per epoch, when the data knows its length
  int64_t initial_epoch = 0;
};

// One training step, as on_batch_end sees it.
struct BatchLogs {
  double loss = 0;       // this batch's loss
  int64_t size = 0;      // samples in it (the target's first dimension; 1 for a scalar target)
  double mean_loss = 0;  // sample-weighted mean of the epoch's batch losses so far
  Tensors inputs = {};      // the batch's inputs (all items but the last)
  Tensor target = {};       // its last item
  Tensors outputs = {};     // the model's outputs on inputs
};

class Callback {
 public:
  virtual ~Callback() = default;

  virtual void on_train_begin() {}
  virtual void on_train_end(const History& history) {}
  virtual void on_epoch_begin(int64_t epoch) {}
  virtual void on_epoch_end(int64_t epoch, Logs& logs) {}
  virtual void on_batch_begin(int64_t batch) {}
  virtual void on_batch_end(int64_t batch, const BatchLogs& logs) {}

  bool stop_training() const { return stop_training_; }
  void stop_training(bool on) { stop_training_ = on; }

  // Set by fit before on_train_begin (null before; the scheduler is null when fit has none).
  nn::Module* model() const { return model_; }
  optim::Optimizer* optimizer() const { return optimizer_; }
  optim::LRScheduler* scheduler() const { return scheduler_; }
  const FitParams& params() const { return params_; }
  void attach(nn::Module* model, optim::Optimizer* optimizer, optim::LRScheduler* scheduler, FitParams params);

 protected:
  // The attached model / optimizer, or a ValueError naming `who` when the callback is used outside fit.
  nn::Module& attached_model(const char* who) const;
  optim::Optimizer& attached_optimizer(const char* who) const;

 private:
  bool stop_training_ = false;
  nn::Module* model_ = nullptr;
  optim::Optimizer* optimizer_ = nullptr;
  optim::LRScheduler* scheduler_ = nullptr;
  FitParams params_;
};

}  // namespace spire::train
