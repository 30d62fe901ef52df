#include "engine/train/callback.h"

namespace spire::train {

void Callback::attach(nn::Module* model, optim::Optimizer* optimizer, optim::LRScheduler* scheduler,
                      FitParams params) {
  model_ = model;
  optimizer_ = optimizer;
  scheduler_ = scheduler;
  params_ = params;
}

nn::Module& Callback::attached_model(const char* who) const {
  SPIRE_CHECK(model_, ValueError, who, ": no model attached (fit attaches one before on_train_begin)");
  return *model_;
}

optim::Optimizer& Callback::attached_optimizer(const char* who) const {
  SPIRE_CHECK(optimizer_, ValueError, who, ": no optimizer attached (fit attaches one before on_train_begin)");
  return *optimizer_;
}

}  // namespace spire::train
