// Learning-rate schedules, as torch.optim.lr_scheduler: construct one over an optimizer (which it
// must not outlive) and call step() once per epoch after the optimizer's steps (OneCycleLR: once per
// batch; ReduceLROnPlateau: step(metric) with the validation metric). Construction performs the
// initial step to epoch 0, as PyTorch does, and get_last_lr() is the rate the optimizer uses now.
//
// Each parameter group is scheduled on its own, as in PyTorch: base_lrs() holds one starting rate
// per group (the group's initial_lr, which the first scheduler sets to its lr), get_last_lr() one
// rate per group. A schedule built for n groups refuses to step an optimizer that has gained groups
// since (ReduceLROnPlateau extends a single min_lr to them, as PyTorch's).
//
// StepLR, ExponentialLR and CosineAnnealingLR use PyTorch's chainable (recursive) forms, so their
// rates match PyTorch's to the last bit and compose with other changes to the optimizer's lr.
// WarmupCosineLR and OneCycleLR are closed forms of the epoch count.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "engine/optim/optimizer.h"

namespace spire::optim {

// A value given once for every parameter group or once per group, as PyTorch's float-or-list
// arguments (OneCycleLR's max_lr, ReduceLROnPlateau's min_lr): 0.1 or {0.1, 0.01}.
class PerGroup {
 public:
  PerGroup(double value) : values_{value}, scalar_(true) {}
  PerGroup(std::initializer_list<double> values) : values_(values) {}
  PerGroup(std::vector<double> values) : values_(std::move(values)) {}
  bool is_scalar() const { return scalar_; }
  const std::vector<double>& values() const { return values_; }
  // The value for each of n groups; a ValueError naming who and what when a list has another length.
  std::vector<double> expand(size_t n, const char* who, const char* what) const;

 private:
  std::vector<double> values_;
  bool scalar_ = false;
};

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  // Advances one epoch and sets each group's learning rate.
  virtual void step();
  // The rates set by the last step, one per group.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  // The rates the schedule starts from, one per group.
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  Optimizer& optimizer() const { return opt_; }
  const char* name() const { return name_; }

  // "last_epoch", "step_count", "base_lrs.<g>" and "last_lr.<g>" for each group g, and each
  // schedule's own counters. The hyperparameters (gamma, T_max, ...) are the constructor's.
  // load_state_dict() checks that the state has as many groups as the optimizer (a ValueError
  // naming both counts); the flat "base_lr" / "last_lr" of files from before groups load too.
  virtual StateDict state_dict() const;
  virtual void load_state_dict(const StateDict& state);

 protected:
  // set_initial_lr: false for ReduceLROnPlateau, which (as PyTorch's) leaves initial_lr alone.
  LRScheduler(Optimizer& optimizer, const char* name, bool set_initial_lr = true);
  // Steps to epoch 0; each subclass calls it at the end of its constructor (get_lr is virtual).
  void initial_step();
  // The learning rate of each group for last_epoch_, given the groups' current ones.
  virtual std::vector<double> get_lr() = 0;
  // A ValueError when the optimizer's group count is no longer the schedule's.
  void check_group_count() const;
  size_t groups() const { return opt_.num_param_groups(); }
  // Sets a group's rate or momentum as computed (the optimizer checks them at its next step).
  void assign_lr(size_t group, double lr) { opt_.set_scheduled_lr(group, lr); }
  void assign_momentum(size_t group, double momentum) { opt_.set_scheduled_momentum(group, momentum); }

  Optimizer& opt_;
  const char* name_;
  std::vector<double> base_lrs_;
  int64_t last_epoch_ = -1;
  int64_t step_count_ = 0;
  std::vector<double> last_lr_;
};

// lr = base_lr gamma^floor(epoch / step_size).
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 private:
  std::vector<double> get_lr() override;
  int64_t step_size_;
  double gamma_;
};

// lr = base_lr gamma^epoch.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 private:
  std::vector<double> get_lr() override;
  double gamma_;
};

// lr = eta_min + (base_lr - eta_min) (1 + cos(pi epoch / T_max)) / 2, continuing as a cosine (back
// up) past T_max, as PyTorch's (SGDR without restarts).
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);

 private:
  std::vector<double> get_lr() override;
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
  std::vector<double> get_lr() override;
  int64_t warmup_, t_max_;
  double eta_min_, start_factor_;
};

enum class AnnealStrategy { Cos, Linear };

struct OneCycleOptions {
  PerGroup max_lr = 0.0;          // one for every group, or one per group
  int64_t total_steps = 0;        // or epochs * steps_per_epoch when 0
  int64_t epochs = 0, steps_per_epoch = 0;
  double pct_start = 0.3;
  AnnealStrategy anneal_strategy = AnnealStrategy::Cos;
  bool cycle_momentum = true;     // needs an optimizer with momentum (SGD, RMSprop) or beta1 (Adam)
  PerGroup base_momentum = 0.85;  // one for every group, or one per group
  PerGroup max_momentum = 0.95;
  double div_factor = 25;         // initial_lr = max_lr / div_factor
  double final_div_factor = 1e4;  // min_lr = initial_lr / final_div_factor
  bool three_phase = false;
};

// The 1cycle policy (Smith & Topin 2017), as PyTorch's OneCycleLR: step() once per batch, at most
// total_steps times. Each group's rate rises from initial_lr to max_lr over the first pct_start of
// the steps and anneals to min_lr over the rest (three_phase: back to initial_lr, then to min_lr),
// while its momentum moves the opposite way between max_momentum and base_momentum. Sets each
// group's initial_lr to max_lr / div_factor.
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, OneCycleOptions options);
  const OneCycleOptions& options() const { return options_; }

 private:
  std::vector<double> get_lr() override;
  OneCycleOptions options_;
  std::vector<double> max_lrs_, min_lrs_, max_momentums_, base_momentums_;  // per group
};

struct PlateauOptions {
  std::string mode = "min";            // "min": the metric should fall; "max": rise
  double factor = 0.1;                 // new lr = max(lr factor, min_lr)
  int64_t patience = 10;               // bad epochs tolerated before reducing
  double threshold = 1e-4;             // what counts as an improvement
  std::string threshold_mode = "rel";  // "rel": best (1 -+ threshold); "abs": best -+ threshold
  int64_t cooldown = 0;                // epochs to wait after a reduction
  PerGroup min_lr = 0.0;               // one for every group, or one per group
  double eps = 1e-8;                   // reductions smaller than this are skipped
};

// Reduces every group's rate by factor when the metric has not improved for more than patience
// epochs, as PyTorch's ReduceLROnPlateau: lr = max(lr factor, min_lr of the group). step(metric) once
// per epoch; step() without a metric is an error.
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
  std::vector<double> get_lr() override;
  bool is_better(double a) const;
  PlateauOptions options_;
  std::vector<double> min_lrs_;  // per group
  bool minimize_, relative_;
  double best_;
  int64_t num_bad_epochs_ = 0, cooldown_counter_ = 0;
};

}  // namespace spire::optim
