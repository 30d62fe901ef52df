// Saves the model after each epoch (Keras's ModelCheckpoint): to `filepath`, which may name the
// epoch (from 1, as Keras) and log keys in Python's format syntax, "ckpt-{epoch:03d}-{val_loss:.3f}.h5".
// With save_best_only only epochs whose monitored quantity improves on the best so far
// (current < best in mode min, > in max) are saved. save_freq = n > 0 saves every n batches
// instead, with the fields epoch, batch (from 1) and loss (the epoch's running mean). Files are
// written atomically (save_weights: a temporary name, then a rename); include_optimizer adds the
// optimizer's and the scheduler's state so that training can resume from the file.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/train/callback.h"
#include "engine/train/format.h"

namespace spire::train {

// Writes the model (and, when given, the optimizer and scheduler) to path; epoch is the number of
// epochs completed (a save every n batches happens inside an epoch).
using WeightsWriter = std::function<void(const std::string& path, nn::Module& model, optim::Optimizer* optimizer,
                                         optim::LRScheduler* scheduler, int64_t epoch)>;

struct ModelCheckpointOptions {
  std::string filepath = "";
  std::string monitor = "val_loss";
  bool save_best_only = false;
  std::string mode = "auto";
  int64_t save_freq = 0;            // 0: at the end of every epoch; n > 0: every n batches
  bool include_optimizer = false;
  WeightsWriter writer = nullptr;           // default: save_weights (a spire checkpoint, HDF5)
};

class ModelCheckpoint : public Callback {
 public:
  explicit ModelCheckpoint(ModelCheckpointOptions options);
  void on_epoch_begin(int64_t epoch) override;
  void on_epoch_end(int64_t epoch, Logs& logs) override;
  void on_batch_end(int64_t batch, const BatchLogs& logs) override;

  const ModelCheckpointOptions& options() const { return options_; }
  const std::string& mode() const { return mode_; }
  double best() const { return best_; }
  // (epoch, path) of each file written, in order.
  const std::vector<std::pair<int64_t, std::string>>& saved() const { return saved_; }

 private:
  void maybe_save(int64_t epoch, int64_t epochs_done, const Fields& fields, const Logs& logs);
  ModelCheckpointOptions options_;
  std::string mode_;
  double best_;
  int64_t epoch_ = 0, batches_since_save_ = 0;
  std::vector<std::pair<int64_t, std::string>> saved_;
};

}  // namespace spire::train
