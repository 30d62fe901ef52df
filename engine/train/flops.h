// FLOP accounting for training: the FLOPs a training step actually executes, counted by the
// engine's FlopCounter (engine/core/observer.h: 2 per real multiply-add of every matmul and
// convolution, forward and backward; elementwise work is not counted, as in PyTorch's
// FlopCounterMode), against the machine's measured matmul rate.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>

#include "engine/core/observer.h"
#include "engine/nn/module.h"
#include "engine/train/callback.h"

namespace spire::train {

// The FLOPs of one forward pass of `model` on `inputs`, counted on a dry run in eval mode without
// recording gradients (so BatchNorm statistics and dropout are untouched; the mode is restored).
double count_flops(nn::Module& model, const Tensors& inputs);
// The same for one input of zeros of `input_shape`, in the dtype and on the device of the model's
// first floating-point parameter (float32 on the CPU without one).
double count_flops(nn::Module& model, const Shape& input_shape);

// The achievable matmul rate (FLOP/s): the best of `repeats` timed n x n @ n x n products (2 n^3
// FLOPs each) after a warm-up, on `device` (waiting for it to finish). Inputs come from a private
// generator, so the default one is not advanced. Cached per (n, dtype, device) for the process.
double measure_peak_flops(int64_t n = 2048, DType dtype = DType::Float32, Device device = kCPU, int64_t repeats = 3);

struct FlopsUtilizationOptions {
  // FLOPs of one training step (forward and backward) on a full batch, to use instead of counting
  // (for work the counter does not see); scaled by each batch's size over batch_size.
  std::optional<double> flops_per_batch = std::nullopt;
  std::optional<double> peak = std::nullopt;         // FLOP/s; default: measure_peak_flops() in the model's dtype, once
  std::optional<int64_t> batch_size = std::nullopt;  // the full batch size; default: each batch's own
};

// Logs "flops" (achieved FLOP/s of the epoch's training steps: FLOPs counted around each step,
// from on_batch_begin to on_batch_end, over train_time) and "flops_utilization" (that over peak).
class FlopsUtilization : public Callback {
 public:
  explicit FlopsUtilization(FlopsUtilizationOptions options = {});
  void on_epoch_begin(int64_t epoch) override;
  void on_batch_begin(int64_t batch) override;
  void on_batch_end(int64_t batch, const BatchLogs& logs) override;
  void on_epoch_end(int64_t epoch, Logs& logs) override;
  void on_train_end(const History& history) override;

  const FlopsUtilizationOptions& options() const { return options_; }
  // FLOPs of the current (or last) epoch's training steps so far.
  double total() const { return total_; }
  // FLOPs of the last training step.
  double last_step() const { return last_step_; }
  std::optional<double> peak() const { return options_.peak; }

 private:
  FlopsUtilizationOptions options_;
  FlopCounter counter_;
  std::unique_ptr<ObserverScope> scope_;
  double total_ = 0, last_step_ = 0;
};

}  // namespace spire::train
