// Learning-rate schedules, as torch.optim.lr_scheduler: construct one over an optimizer (which it
// must not outlive) and call step() once per epoch after the optimizer's steps (OneCycleLR: once per
// batch; ReduceLROnPlateau: step(metric) with the validation metric). Construction performs the
// initial step to epoch 0, as PyTorch does, and get_last_lr() is the rate the optimizer uses now.
//
// StepLR, ExponentialLR and CosineAnnealingLR use PyTorch's chainable (recursive) forms, so their
// rates match PyTorch's to the last bit and compose with other changes to the optimizer's lr.
// WarmupCosineLR and OneCycleLR are closed forms of the epoch count.
#pragma once
#include <cstdint>
#include <string>

#include "engine/optim/optimizer.h"

namespace spire::optim {

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  // Advances one epoch and sets the optimizer's learning rate.
  virtual void step();
  double get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  double base_lr() const { return base_lr_; }
  Optimizer& optimizer() const { return opt_; }
  const char* name() const { return name_; }

  // "last_epoch", "step_count", "base_lr", "last_lr" and each schedule's own counters. The
  // hyperparameters (gamma, T_max, ...) are the constructor's.
  virtual StateDict state_dict() const;
  virtual void load_state_dict(const StateDict& state);

 protected:
  LRScheduler(Optimizer& optimizer, const char* name);
  // Steps to epoch 0; each subclass calls it at the end of its constructor (get_lr is virtual).
  void initial_step();
  // The learning rate for last_epoch_, given the optimizer's current one.
  virtual double get_lr() = 0;

  Optimizer& opt_;
  const char* name_;
  double base_lr_;
  int64_t last_epoch_ = -1;
  int64_t step_count_ = 0;
  double last_lr_;
};

// lr = base_lr gamma^floor(epoch / step_size).
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 private:
  double get_lr() override;
  int64_t step_size_;
  double gamma_;
};

// lr = base_lr gamma^epoch.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 private:
  double get_lr() override;
  double gamma_;
};

// lr = eta_min + (base_lr - eta_min) (1 + cos(pi epoch / T_max)) / 2, continuing as a cosine (back
// up) past T_max, as PyTorch's (SGDR without restarts).
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);

 private:
  double get_lr() override;
  int64_t t_max_;
  double eta_min_;
};

// Linear warm-up then cosine annealing, with s = warmup_start_factor, w = warmup_epochs, T = T_max:
//   epoch < w:        lr = base_lr (s + (1 - s) epoch / w)
//   w <= epoch <= T:  lr = eta_min + (base_lr - eta_min) (1 + cos(pi (epoch - w) / (T - w))) / 2
//   epoch > T:        lr = eta_min
// With s = 0 this is the schedule of transformers' get_cosine_schedule_with_warmup (eta_min = 0); it
// equals SequentialLR(LinearLR(s, 1, w), CosineAnnealingLR(T - w, eta_min), [w]) up to rounding.
class WarmupCosineLR : public LRScheduler {
 public:
  WarmupCosineLR(Optimizer& optimizer, int64_t warmup_epochs, int64_t T_max, double eta_min = 0,
                 double warmup_start_factor = 0);

 private:
  double get_lr() override;
  int64_t warmup_, t_max_;
  double eta_min_, start_factor_;
};

enum class AnnealStrategy { Cos, Linear };

struct OneCycleOptions {
  double max_lr = 0;
  int64_t total_steps = 0;        // or epochs * steps_per_epoch when 0
  int64_t epochs = 0, steps_per_epoch = 0;
  double pct_start = 0.3;
  AnnealStrategy anneal_strategy = AnnealStrategy::Cos;
  bool cycle_momentum = true;     // needs an optimizer with momentum (SGD, RMSprop) or beta1 (Adam)
  double base_momentum = 0.85;
  double max_momentum = 0.95;
  double div_factor = 25;         // initial_lr = max_lr / div_factor
  double final_div_factor = 1e4;  // min_lr = initial_lr / final_div_factor
  bool three_phase = false;
};

// The 1cycle policy (Smith & Topin 2017), as PyTorch's OneCycleLR: step() once per batch, at most
// total_steps times. The rate rises from initial_lr to max_lr over the first pct_start of the steps
// and anneals to min_lr over the rest (three_phase: back to initial_lr, then to min_lr), while the
// momentum moves the opposite way between max_momentum and base_momentum.
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, OneCycleOptions options);
  const OneCycleOptions& options() const { return options_; }

 private:
  double get_lr() override;
  OneCycleOptions options_;
  double initial_lr_, min_lr_;
};

struct PlateauOptions {
  std::string mode = "min";            // "min": the metric should fall; "max": rise
  double factor = 0.1;                 // new lr = max(lr factor, min_lr)
  int64_t patience = 10;               // bad epochs tolerated before reducing
  double threshold = 1e-4;             // what counts as an improvement
  std::string threshold_mode = "rel";  // "rel": best (1 -+ threshold); "abs": best -+ threshold
  int64_t cooldown = 0;                // epochs to wait after a reduction
  double min_lr = 0;
  double eps = 1e-8;                   // reductions smaller than this are skipped
};

// Reduces the rate by factor when the metric has not improved for more than patience epochs, as
// PyTorch's ReduceLROnPlateau. step(metric) once per epoch; step() without a metric is an error.
class ReduceLROnPlateau : public LRScheduler {
 public:
  ReduceLROnPlateau(Optimizer& optimizer, PlateauOptions options = {});
  void step() override;
  void step(double metric);
  double best() const { return best_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }
  const PlateauOptions& options() const { return options_; }
  // Adds "best", "num_bad_epochs" and "cooldown_counter".
  StateDict state_dict() const override;
  void load_state_dict(const StateDict& state) override;

 private:
  double get_lr() override { return opt_.lr(); }
  bool is_better(double a) const;
  PlateauOptions options_;
  bool minimize_, relative_;
  double best_;
  int64_t num_bad_epochs_ = 0, cooldown_counter_ = 0;
};

}  // namespace spire::optim
