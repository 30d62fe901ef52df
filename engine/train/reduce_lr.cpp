#include "engine/train/reduce_lr.h"

namespace spire::train {

ReduceLROnPlateau::ReduceLROnPlateau(ReduceLROnPlateauOptions options) : options_(std::move(options)) {
  options_.plateau.mode = resolve_mode(options_.mode, options_.monitor, "ReduceLROnPlateau");
}

void ReduceLROnPlateau::on_train_begin() {
  scheduler_.reset();  // the one of a previous fit points at its optimizer
  scheduler_ = std::make_unique<optim::ReduceLROnPlateau>(attached_optimizer("ReduceLROnPlateau"), options_.plateau);
}

void ReduceLROnPlateau::on_epoch_end(int64_t, Logs& logs) {
  SPIRE_CHECK(scheduler_ != nullptr, ValueError, "ReduceLROnPlateau: on_epoch_end before on_train_begin");
  scheduler_->step(monitored(logs, options_.monitor, "ReduceLROnPlateau"));
}

}  // namespace spire::train
