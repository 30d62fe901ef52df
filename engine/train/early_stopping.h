// Stops training when a monitored quantity has stopped improving (Keras's EarlyStopping, same
// arguments and rule): an epoch improves when current < best - min_delta (mode "min"; "max":
// current > best + min_delta; "auto": max for accuracies). Epochs before start_from_epoch are not
// looked at. Training stops at the end of an epoch once `patience` epochs in a row have not
// improved (with baseline: until an epoch beats the baseline, every epoch counts as not
// improving). With restore_best_weights the model gets the state_dict of the best epoch back when
// it stops (and at the end of training, if the last epoch was not the best).
#pragma once
#include <optional>
#include <string>

#include "engine/nn/module.h"
#include "engine/train/callback.h"

namespace spire::train {

struct EarlyStoppingOptions {
  std::string monitor = "val_loss";
  double min_delta = 0;  // its absolute value is used
  int64_t patience = 0;
  std::string mode = "auto";
  std::optional<double> baseline = std::nullopt;
  bool restore_best_weights = false;
  int64_t start_from_epoch = 0;
};

class EarlyStopping : public Callback {
 public:
  explicit EarlyStopping(EarlyStoppingOptions options = {});
  void on_train_begin() override;
  void on_epoch_end(int64_t epoch, Logs& logs) override;
  void on_train_end(const History& history) override;

  const EarlyStoppingOptions& options() const { return options_; }
  const std::string& mode() const { return mode_; }  // "min" or "max"
  double best() const { return best_; }
  int64_t wait() const { return wait_; }
  std::optional<int64_t> best_epoch() const { return best_epoch_; }
  std::optional<int64_t> stopped_epoch() const { return stopped_epoch_; }

 private:
  bool better(double current, double reference) const;
  void restore();
  EarlyStoppingOptions options_;
  std::string mode_;
  double best_ = 0;
  int64_t wait_ = 0;
  std::optional<int64_t> best_epoch_, stopped_epoch_;
  std::optional<nn::StateDict> best_weights_;
};

}  // namespace spire::train
