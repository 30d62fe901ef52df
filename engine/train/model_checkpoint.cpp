#include "engine/train/model_checkpoint.h"

#include <limits>

#include "engine/parallel/runtime.h"
#include "engine/train/weights.h"

namespace spire::train {

ModelCheckpoint::ModelCheckpoint(ModelCheckpointOptions options) : options_(std::move(options)) {
  SPIRE_CHECK(!options_.filepath.empty(), ValueError, "ModelCheckpoint: filepath is empty");
  SPIRE_CHECK(options_.save_freq >= 0, ValueError, "ModelCheckpoint: save_freq must be 'epoch' (0) or a number of "
              "batches > 0, got ", options_.save_freq);
  mode_ = resolve_mode(options_.mode, options_.monitor, "ModelCheckpoint");
  best_ = mode_ == "min" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  if (!options_.writer) options_.writer = [](const std::string& path, nn::Module& model, optim::Optimizer* opt,
                                             optim::LRScheduler* sched, int64_t epoch) {
    // Replicas hold the same weights: one file, from rank 0 (a custom writer sees every rank).
    if (parallel::is_initialized() && parallel::rank() != 0) return;
    save_weights(path, model, opt, sched, epoch);
  };
}

void ModelCheckpoint::on_epoch_begin(int64_t epoch) { epoch_ = epoch; }

void ModelCheckpoint::maybe_save(int64_t epoch, int64_t epochs_done, const Fields& fields, const Logs& logs) {
  if (options_.save_best_only) {
    const double current = monitored(logs, options_.monitor, "ModelCheckpoint");
    if (!(mode_ == "min" ? current < best_ : current > best_)) return;
    best_ = current;
  }
  std::string path = format_fields(options_.filepath, fields);
  nn::Module& model = attached_model("ModelCheckpoint");
  optim::Optimizer* opt = options_.include_optimizer ? optimizer() : nullptr;
  optim::LRScheduler* sched = options_.include_optimizer ? scheduler() : nullptr;
  options_.writer(path, model, opt, sched, epochs_done);
  saved_.emplace_back(epoch, path);
}

void ModelCheckpoint::on_epoch_end(int64_t epoch, Logs& logs) {
  if (options_.save_freq != 0) return;
  Fields fields{{"epoch", epoch + 1}};
  for (const auto& [k, v] : logs) fields.emplace_back(k, v);
  maybe_save(epoch, epoch + 1, fields, logs);
}

void ModelCheckpoint::on_batch_end(int64_t batch, const BatchLogs& logs) {
  if (options_.save_freq == 0 || ++batches_since_save_ < options_.save_freq) return;
  batches_since_save_ = 0;
  Logs batch_logs{{"loss", logs.mean_loss}};
  maybe_save(epoch_, epoch_, {{"epoch", epoch_ + 1}, {"batch", batch + 1}, {"loss", logs.mean_loss}}, batch_logs);
}

}  // namespace spire::train
