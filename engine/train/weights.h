// A model's weights in one file: a spire checkpoint (engine/nn/checkpoint.h; HDF5, /model/<key>),
// written to a temporary name beside the target and renamed over it, so a reader never sees half a
// file. With an optimizer (and scheduler) their state is saved too, and the default generator's
// state always is, so spire::nn::load_checkpoint can resume training from the file bit for bit.
#pragma once
#include <cstdint>
#include <string>

#include "engine/nn/module.h"
#include "engine/optim/optimizer.h"
#include "engine/optim/scheduler.h"

namespace spire::train {

void save_weights(const std::string& path, nn::Module& model, optim::Optimizer* optimizer = nullptr,
                  optim::LRScheduler* scheduler = nullptr, int64_t epoch = 0);
// The file's model state; loaded into `model` (strictly) when one is given.
nn::StateDict load_weights(nn::Module* model, const std::string& path);

}  // namespace spire::train
