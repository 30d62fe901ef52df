// A one-line progress bar per epoch (Keras's ProgbarLogger): on a terminal it is redrawn after each
// batch with the batches done, the rate, the ETA and the running mean loss,
//   Epoch 3/10 12/50 [=======>......................] 41.0 it/s ETA 0:01 loss: 0.1234
// and each finished epoch leaves a line with its logs:
//   Epoch 3/10 50/50 [==============================] 1.2s 41.0 it/s loss: 0.1234 - val_loss: 0.2000 - lr: 0.001
// Quiet on a stream that is not a terminal unless forced; then only the end-of-epoch lines are
// written (no redraws) unless redraw is set.
#pragma once
#include <chrono>
#include <optional>
#include <string>

#include "engine/train/callback.h"
#include "engine/train/stream.h"

namespace spire::train {

struct ProgressBarOptions {
  Stream stream = Stream::standard_error();
  bool force = false;                // write even when the stream is not a terminal
  int64_t width = 30;                // characters between the brackets
  std::optional<bool> redraw = std::nullopt;      // redraw after each batch; default: when a terminal
};

class ProgressBar : public Callback {
 public:
  explicit ProgressBar(ProgressBarOptions options = {});
  void on_epoch_begin(int64_t epoch) override;
  void on_batch_end(int64_t batch, const BatchLogs& logs) override;
  void on_epoch_end(int64_t epoch, Logs& logs) override;

  bool enabled() const { return enabled_; }
  bool redraw() const { return redraw_; }
  const ProgressBarOptions& options() const { return options_; }

  // "12/50 [=====>....]" (or "12" when the total is unknown) and "m:ss" / "h:mm:ss".
  std::string bar(int64_t done, std::optional<int64_t> total) const;
  static std::string format_time(double seconds);

 private:
  std::string head() const;
  ProgressBarOptions options_;
  bool enabled_, redraw_;
  int64_t epoch_ = 0, seen_ = 0;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace spire::train
