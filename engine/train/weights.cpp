#include "engine/train/weights.h"

#include "engine/nn/checkpoint.h"

namespace spire::train {

void save_weights(const std::string& path, nn::Module& model, optim::Optimizer* optimizer,
                  optim::LRScheduler* scheduler, int64_t epoch) {
  nn::CheckpointTargets targets;
  targets.model = &model;
  targets.optimizer = optimizer;
  targets.scheduler = scheduler;
  nn::save_checkpoint(path, targets, epoch);  // atomic: a temporary file renamed over path
}

nn::StateDict load_weights(nn::Module* model, const std::string& path) {
  nn::CheckpointData data = nn::read_checkpoint(path);
  SPIRE_CHECK(data.model.has_value(), ValueError, "load_weights: '", path, "' holds no model state");
  if (model) model->load_state_dict(*data.model);
  return *data.model;
}

}  // namespace spire::train
