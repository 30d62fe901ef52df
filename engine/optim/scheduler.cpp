#include "engine/optim/scheduler.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace spire::optim {

LRScheduler::LRScheduler(Optimizer& optimizer, const char* name)
    : opt_(optimizer), name_(name), base_lr_(optimizer.lr()), last_lr_(optimizer.lr()) {}

void LRScheduler::initial_step() {
  step_count_ = 0;
  step();
}

void LRScheduler::step() {
  ++step_count_;
  ++last_epoch_;
  double lr = get_lr();
  opt_.set_lr(lr);
  last_lr_ = lr;
}

StateDict LRScheduler::state_dict() const {
  StateDict s;
  s.set("last_epoch", last_epoch_);
  s.set("step_count", step_count_);
  s.set("base_lr", base_lr_);
  s.set("last_lr", last_lr_);
  return s;
}

void LRScheduler::load_state_dict(const StateDict& state) {
  int64_t last_epoch = state.integer("last_epoch"), step_count = state.integer("step_count");
  double base_lr = state.number("base_lr"), last_lr = state.number("last_lr");
  last_epoch_ = last_epoch, step_count_ = step_count, base_lr_ = base_lr, last_lr_ = last_lr;
}

// --- StepLR, ExponentialLR, CosineAnnealingLR: PyTorch's chainable forms --------------------------
StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer, "StepLR"), step_size_(step_size), gamma_(gamma) {
  check_option(step_size >= 1, name_, "step_size", double(step_size), ">= 1");
  check_option(gamma > 0, name_, "gamma", gamma, "> 0");
  initial_step();
}

double StepLR::get_lr() {
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return opt_.lr();
  return opt_.lr() * gamma_;
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma) : LRScheduler(optimizer, "ExponentialLR"), gamma_(gamma) {
  check_option(gamma > 0, name_, "gamma", gamma, "> 0");
  initial_step();
}

double ExponentialLR::get_lr() { return last_epoch_ == 0 ? opt_.lr() : opt_.lr() * gamma_; }

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer, "CosineAnnealingLR"), t_max_(T_max), eta_min_(eta_min) {
  check_option(T_max >= 1, name_, "T_max", double(T_max), ">= 1");
  check_option(eta_min >= 0, name_, "eta_min", eta_min, ">= 0");
  initial_step();
}

double CosineAnnealingLR::get_lr() {
  constexpr double pi = std::numbers::pi;
  const double e = double(last_epoch_), T = double(t_max_), lr = opt_.lr();
  if (last_epoch_ == 0) return lr;
  int64_t period = 2 * t_max_;
  if (((last_epoch_ - 1 - t_max_) % period + period) % period == 0)  // Python's modulo
    return lr + (base_lr_ - eta_min_) * (1 - std::cos(pi / T)) / 2;
  return (1 + std::cos(pi * e / T)) / (1 + std::cos(pi * (e - 1) / T)) * (lr - eta_min_) + eta_min_;
}

// --- WarmupCosineLR ---------------------------------------------------------------------------------
WarmupCosineLR::WarmupCosineLR(Optimizer& optimizer, int64_t warmup_epochs, int64_t T_max, double eta_min,
                               double warmup_start_factor)
    : LRScheduler(optimizer, "WarmupCosineLR"),
      warmup_(warmup_epochs),
      t_max_(T_max),
      eta_min_(eta_min),
      start_factor_(warmup_start_factor) {
  check_option(warmup_epochs >= 0, name_, "warmup_epochs", double(warmup_epochs), ">= 0");
  check_option(T_max > warmup_epochs, name_, "T_max", double(T_max), "> warmup_epochs");
  check_option(eta_min >= 0, name_, "eta_min", eta_min, ">= 0");
  check_option(warmup_start_factor >= 0 && warmup_start_factor <= 1, name_, "warmup_start_factor",
               warmup_start_factor, "in [0, 1]");
  initial_step();
}

double WarmupCosineLR::get_lr() {
  const int64_t e = last_epoch_;
  if (e < warmup_) return base_lr_ * (start_factor_ + (1 - start_factor_) * double(e) / double(warmup_));
  if (e > t_max_) return eta_min_;
  double progress = double(e - warmup_) / double(t_max_ - warmup_);
  return eta_min_ + (base_lr_ - eta_min_) * (1 + std::cos(std::numbers::pi * progress)) / 2;
}

// --- OneCycleLR --------------------------------------------------------------------------------------
OneCycleLR::OneCycleLR(Optimizer& optimizer, OneCycleOptions o) : LRScheduler(optimizer, "OneCycleLR"), options_(o) {
  if (o.total_steps <= 0) {
    SPIRE_CHECK(o.epochs > 0 && o.steps_per_epoch > 0, ValueError,
                "OneCycleLR: give total_steps > 0, or epochs > 0 and steps_per_epoch > 0; got total_steps ",
                o.total_steps, ", epochs ", o.epochs, ", steps_per_epoch ", o.steps_per_epoch);
    options_.total_steps = o.epochs * o.steps_per_epoch;
  }
  check_option(o.max_lr > 0, name_, "max_lr", o.max_lr, "> 0");
  check_option(o.pct_start >= 0 && o.pct_start <= 1, name_, "pct_start", o.pct_start, "in [0, 1]");
  check_option(o.div_factor > 0, name_, "div_factor", o.div_factor, "> 0");
  check_option(o.final_div_factor > 0, name_, "final_div_factor", o.final_div_factor, "> 0");
  SPIRE_CHECK(!o.cycle_momentum || opt_.has_momentum(), ValueError,
              "OneCycleLR: cycle_momentum needs an optimizer with momentum or beta1 (SGD, RMSprop, Adam, AdamW); pass "
              "cycle_momentum=false");
  initial_lr_ = o.max_lr / o.div_factor;
  min_lr_ = initial_lr_ / o.final_div_factor;
  base_lr_ = initial_lr_;
  initial_step();
}

double OneCycleLR::get_lr() {
  const OneCycleOptions& o = options_;
  const double n = double(o.total_steps), step = double(last_epoch_);
  SPIRE_CHECK(last_epoch_ <= o.total_steps, ValueError, "OneCycleLR: tried to step ", last_epoch_,
              " times; the schedule has total_steps = ", o.total_steps);
  struct Phase {
    double end_step, start_lr, end_lr, start_momentum, end_momentum;
  };
  std::vector<Phase> phases;
  if (o.three_phase) {
    phases = {{o.pct_start * n - 1, initial_lr_, o.max_lr, o.max_momentum, o.base_momentum},
              {2 * o.pct_start * n - 2, o.max_lr, initial_lr_, o.base_momentum, o.max_momentum},
              {n - 1, initial_lr_, min_lr_, o.max_momentum, o.max_momentum}};
  } else {
    phases = {{o.pct_start * n - 1, initial_lr_, o.max_lr, o.max_momentum, o.base_momentum},
              {n - 1, o.max_lr, min_lr_, o.base_momentum, o.max_momentum}};
  }
  auto anneal = [&](double start, double end, double pct) {
    if (o.anneal_strategy == AnnealStrategy::Linear) return (end - start) * pct + start;
    return end + (start - end) / 2.0 * (std::cos(std::numbers::pi * pct) + 1);
  };
  double start_step = 0, lr = 0;
  for (size_t i = 0; i < phases.size(); ++i) {
    const Phase& ph = phases[i];
    if (step <= ph.end_step || i == phases.size() - 1) {
      double pct = (step - start_step) / (ph.end_step - start_step);
      lr = anneal(ph.start_lr, ph.end_lr, pct);
      if (o.cycle_momentum) opt_.set_momentum(anneal(ph.start_momentum, ph.end_momentum, pct));
      break;
    }
    start_step = ph.end_step;
  }
  return lr;
}

// --- ReduceLROnPlateau -------------------------------------------------------------------------------
ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, PlateauOptions o)
    : LRScheduler(optimizer, "ReduceLROnPlateau"), options_(std::move(o)) {
  const PlateauOptions& p = options_;
  SPIRE_CHECK(p.mode == "min" || p.mode == "max", ValueError, "ReduceLROnPlateau: mode must be 'min' or 'max', got '",
              p.mode, "'");
  SPIRE_CHECK(p.threshold_mode == "rel" || p.threshold_mode == "abs", ValueError,
              "ReduceLROnPlateau: threshold_mode must be 'rel' or 'abs', got '", p.threshold_mode, "'");
  check_option(p.factor >= 0 && p.factor < 1, name_, "factor", p.factor, "in [0, 1)");
  check_option(p.patience >= 0, name_, "patience", double(p.patience), ">= 0");
  check_option(p.cooldown >= 0, name_, "cooldown", double(p.cooldown), ">= 0");
  check_option(p.min_lr >= 0, name_, "min_lr", p.min_lr, ">= 0");
  minimize_ = p.mode == "min";
  relative_ = p.threshold_mode == "rel";
  best_ = minimize_ ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  last_epoch_ = 0;  // no initial step: nothing changes until a metric arrives
}

void ReduceLROnPlateau::step() {
  SPIRE_CHECK(false, ValueError, "ReduceLROnPlateau: step needs the metric to watch, step(metric)");
}

bool ReduceLROnPlateau::is_better(double a) const {
  const double t = options_.threshold;
  if (minimize_) return relative_ ? a < best_ * (1 - t) : a < best_ - t;
  return relative_ ? a > best_ * (1 + t) : a > best_ + t;
}

void ReduceLROnPlateau::step(double metric) {
  ++step_count_;
  ++last_epoch_;
  if (is_better(metric)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (cooldown_counter_ > 0) {
    --cooldown_counter_;
    num_bad_epochs_ = 0;  // bad epochs during a cooldown do not count
  }
  if (num_bad_epochs_ > options_.patience) {
    double old_lr = opt_.lr(), new_lr = std::max(old_lr * options_.factor, options_.min_lr);
    if (old_lr - new_lr > options_.eps) opt_.set_lr(new_lr);
    cooldown_counter_ = options_.cooldown;
    num_bad_epochs_ = 0;
  }
  last_lr_ = opt_.lr();
}

StateDict ReduceLROnPlateau::state_dict() const {
  StateDict s = LRScheduler::state_dict();
  s.set("best", best_);
  s.set("num_bad_epochs", num_bad_epochs_);
  s.set("cooldown_counter", cooldown_counter_);
  return s;
}

void ReduceLROnPlateau::load_state_dict(const StateDict& state) {
  double best = state.number("best");
  int64_t bad = state.integer("num_bad_epochs"), cooldown = state.integer("cooldown_counter");
  LRScheduler::load_state_dict(state);
  best_ = best, num_bad_epochs_ = bad, cooldown_counter_ = cooldown;
}

}  // namespace spire::optim
