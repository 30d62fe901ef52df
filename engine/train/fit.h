// fit and evaluate: a training loop in the manner of Keras's Model.fit, for spire::nn modules,
// spire::optim optimizers and schedulers, and batch sources (a DataLoader, a list of batches).
//
//   train::FitOptions o;
//   o.epochs = 100;
//   o.callbacks = {std::make_shared<train::EarlyStopping>(train::EarlyStoppingOptions{.patience = 10}),
//                  std::make_shared<train::ModelCheckpoint>(train::ModelCheckpointOptions{.filepath = "best.h5"})};
//   train::History h = train::fit(model, loss, opt, train_loader, &val_loader, o);
//   h["val_loss"];   // one value per epoch
//
// Each epoch: train.begin_epoch(epoch) (a loader's shuffled order of (seed, epoch)); on_epoch_begin;
// model.train(); per batch (inputs..., target): on_batch_begin, optimizer.zero_grad(),
// loss(model(inputs), target).backward(), optimizer.step() (L-BFGS gets those as a closure),
// OneCycleLR.step(), on_batch_end. Then the validation data are evaluated (val_loss, val_<metric>),
// the scheduler steps (ReduceLROnPlateau with val_loss, else loss), and callbacks see the logs
// (loss and metrics: sample-weighted epoch means; lr: the rate the epoch trained with; train_time
// and time in seconds). Training ends early when a callback sets stop_training.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/data/loader.h"
#include "engine/nn/module.h"
#include "engine/optim/optimizer.h"
#include "engine/optim/scheduler.h"
#include "engine/train/callback.h"
#include "engine/train/history.h"
#include "engine/train/logs.h"
#include "engine/train/loss.h"
#include "engine/train/source.h"
#include "engine/train/stream.h"

namespace spire::train {

// Whether fit adds a ProgressBar (when none is among the callbacks).
enum class Verbose { Never, Always, Auto /* when the stream is a terminal */ };

struct FitOptions {
  int64_t epochs = 1;
  int64_t initial_epoch = 0;  // epochs are numbered from here (resuming a run)
  std::vector<std::shared_ptr<Callback>> callbacks = {};
  optim::LRScheduler* scheduler = nullptr;
  std::vector<Metric> metrics = {};
  Verbose verbose = Verbose::Auto;
  Stream progress_stream = Stream::standard_output();  // where the default progress bar writes
};

History fit(nn::Module& model, const Loss& loss, optim::Optimizer& optimizer, BatchSource& train, BatchSource* val,
            const FitOptions& options = {});
History fit(nn::Module& model, const Loss& loss, optim::Optimizer& optimizer, data::DataLoader& train,
            data::DataLoader* val = nullptr, const FitOptions& options = {});

// Sample-weighted mean loss and metrics over one pass of data, in eval mode without recording
// gradients; the model's mode is restored. Keys "loss" and each metric's name.
Logs evaluate(nn::Module& model, const Loss& loss, BatchSource& data, const std::vector<Metric>& metrics = {});
Logs evaluate(nn::Module& model, const Loss& loss, data::DataLoader& data, const std::vector<Metric>& metrics = {});

}  // namespace spire::train
