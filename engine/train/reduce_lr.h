// The callback form of ReduceLROnPlateau (Keras's callback, PyTorch's rule and defaults): after
// more than `patience` epochs without an improvement of the monitored quantity beyond `threshold`,
// lr = max(lr factor, min_lr) (changes below eps are skipped), then `cooldown` epochs pass before
// counting again. The bookkeeping is spire::optim::ReduceLROnPlateau's, made over fit's
// optimizer when training begins.
#pragma once
#include <memory>
#include <string>

#include "engine/optim/scheduler.h"
#include "engine/train/callback.h"

namespace spire::train {

struct ReduceLROnPlateauOptions {
  std::string monitor = "val_loss";
  std::string mode = "auto";  // auto: max for accuracies, else min
  optim::PlateauOptions plateau = {};  // factor, patience, threshold, threshold_mode, cooldown, min_lr, eps (its mode is ignored)
};

class ReduceLROnPlateau : public Callback {
 public:
  explicit ReduceLROnPlateau(ReduceLROnPlateauOptions options = {});
  void on_train_begin() override;
  void on_epoch_end(int64_t epoch, Logs& logs) override;

  const ReduceLROnPlateauOptions& options() const { return options_; }
  // The scheduler doing the bookkeeping (null before training begins).
  optim::ReduceLROnPlateau* scheduler() const { return scheduler_.get(); }

 private:
  ReduceLROnPlateauOptions options_;
  std::unique_ptr<optim::ReduceLROnPlateau> scheduler_;
};

}  // namespace spire::train
