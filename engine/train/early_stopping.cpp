#include "engine/train/early_stopping.h"

#include <cmath>
#include <limits>

#include "engine/autodiff/mode.h"
#include "engine/ops/shape.h"

namespace spire::train {

EarlyStopping::EarlyStopping(EarlyStoppingOptions options) : options_(std::move(options)) {
  options_.min_delta = std::abs(options_.min_delta);
  SPIRE_CHECK(options_.patience >= 0, ValueError, "EarlyStopping: patience must be >= 0, got ", options_.patience);
  mode_ = resolve_mode(options_.mode, options_.monitor, "EarlyStopping");
  on_train_begin();
}

bool EarlyStopping::better(double current, double reference) const {
  return mode_ == "min" ? current < reference - options_.min_delta : current > reference + options_.min_delta;
}

void EarlyStopping::on_train_begin() {
  wait_ = 0;
  stopped_epoch_.reset();
  best_epoch_.reset();
  best_ = mode_ == "min" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  best_weights_.reset();
}

void EarlyStopping::on_epoch_end(int64_t epoch, Logs& logs) {
  if (epoch < options_.start_from_epoch) return;
  const double current = monitored(logs, options_.monitor, "EarlyStopping");
  ++wait_;
  if (better(current, best_)) {
    best_ = current;
    best_epoch_ = epoch;
    if (options_.restore_best_weights) {
      NoGradGuard no_grad;
      nn::StateDict copy;
      for (const auto& [k, v] : attached_model("EarlyStopping").state_dict()) copy.insert(k, spire::copy(v));
      best_weights_ = std::move(copy);
    }
    // Keras: an improvement that does not beat the baseline still counts towards patience.
    if (!options_.baseline || better(current, *options_.baseline)) wait_ = 0;
    return;
  }
  if (wait_ >= options_.patience && epoch > 0) {
    stop_training(true);
    stopped_epoch_ = epoch;
    restore();
  }
}

void EarlyStopping::restore() {
  if (options_.restore_best_weights && best_weights_) {
    attached_model("EarlyStopping").load_state_dict(*best_weights_);
    best_weights_.reset();
  }
}

void EarlyStopping::on_train_end(const History&) { restore(); }

}  // namespace spire::train
