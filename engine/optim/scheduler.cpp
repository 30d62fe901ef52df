#include "engine/optim/scheduler.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace spire::optim {

std::vector<double> PerGroup::expand(size_t n, const char* who, const char* what) const {
  if (scalar_) return std::vector<double>(n, values_[0]);
  SPIRE_CHECK(values_.size() == n, ValueError, who, ": ", what, " must have one value per parameter group; ", what,
              " has ", values_.size(), " values, the optimizer has ", n, " param groups");
  return values_;
}

// As PyTorch's LRScheduler with last_epoch = -1: each group's initial_lr is set to its lr unless an
// earlier scheduler set it, and the schedule starts from it.
LRScheduler::LRScheduler(Optimizer& optimizer, const char* name, bool set_initial_lr) : opt_(optimizer), name_(name) {
  for (size_t g = 0; g < groups(); ++g) {
    if (set_initial_lr && !opt_.initial_lr(g)) opt_.set_initial_lr(g, opt_.lr(g));
    base_lrs_.push_back(set_initial_lr ? *opt_.initial_lr(g) : opt_.lr(g));
    last_lr_.push_back(opt_.lr(g));
  }
}

void LRScheduler::initial_step() {
  step_count_ = 0;
  step();
}

void LRScheduler::check_group_count() const {
  SPIRE_CHECK(groups() == base_lrs_.size(), ValueError, name_, ": the schedule was built for ", base_lrs_.size(),
              " param groups but the optimizer now has ", groups(), "; build a new scheduler after add_param_group");
}

void LRScheduler::step() {
  check_group_count();
  ++step_count_;
  ++last_epoch_;
  std::vector<double> lrs = get_lr();
  for (size_t g = 0; g < lrs.size(); ++g) assign_lr(g, lrs[g]);
  last_lr_ = std::move(lrs);
}

namespace {

std::string indexed(const char* name, size_t g) { return std::string(name) + "." + std::to_string(g); }

// "<name>.<g>" for each group; the flat "<legacy>" of files from before groups for every group.
std::vector<double> per_group(const StateDict& state, const char* name, const char* legacy, size_t n,
                              const char* scheduler) {
  if (!state.contains(indexed(name, 0)) && state.contains(legacy)) return std::vector<double>(n, state.number(legacy));
  size_t saved = 0;
  while (state.contains(indexed(name, saved))) ++saved;
  SPIRE_CHECK(saved == n, ValueError, scheduler, ".load_state_dict: the state has ", saved, " param groups ('",
              name, ".<g>'), the optimizer has ", n);
  std::vector<double> out;
  for (size_t g = 0; g < n; ++g) out.push_back(state.number(indexed(name, g)));
  return out;
}

}  // namespace

StateDict LRScheduler::state_dict() const {
  StateDict s;
  s.set("last_epoch", last_epoch_);
  s.set("step_count", step_count_);
  for (size_t g = 0; g < base_lrs_.size(); ++g) s.set(indexed("base_lrs", g), base_lrs_[g]);
  for (size_t g = 0; g < last_lr_.size(); ++g) s.set(indexed("last_lr", g), last_lr_[g]);
  return s;
}

void LRScheduler::load_state_dict(const StateDict& state) {
  int64_t last_epoch = state.integer("last_epoch"), step_count = state.integer("step_count");
  std::vector<double> base = per_group(state, "base_lrs", "base_lr", groups(), name_);
  std::vector<double> last = per_group(state, "last_lr", "last_lr", groups(), name_);
  last_epoch_ = last_epoch, step_count_ = step_count, base_lrs_ = std::move(base), last_lr_ = std::move(last);
}

// --- StepLR, ExponentialLR, CosineAnnealingLR: PyTorch's chainable forms --------------------------
StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer, "StepLR"), step_size_(step_size), gamma_(gamma) {
  check_option(step_size >= 1, name_, "step_size", double(step_size), ">= 1");
  check_option(gamma > 0, name_, "gamma", gamma, "> 0");
  initial_step();
}

std::vector<double> StepLR::get_lr() {
  std::vector<double> lrs;
  for (size_t g = 0; g < groups(); ++g) {
    double lr = opt_.lr(g);
    lrs.push_back(last_epoch_ == 0 || last_epoch_ % step_size_ != 0 ? lr : lr * gamma_);
  }
  return lrs;
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma) : LRScheduler(optimizer, "ExponentialLR"), gamma_(gamma) {
  check_option(gamma > 0, name_, "gamma", gamma, "> 0");
  initial_step();
}

std::vector<double> ExponentialLR::get_lr() {
  std::vector<double> lrs;
  for (size_t g = 0; g < groups(); ++g) lrs.push_back(last_epoch_ == 0 ? opt_.lr(g) : opt_.lr(g) * gamma_);
  return lrs;
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer, "CosineAnnealingLR"), t_max_(T_max), eta_min_(eta_min) {
  check_option(T_max >= 1, name_, "T_max", double(T_max), ">= 1");
  check_option(eta_min >= 0, name_, "eta_min", eta_min, ">= 0");
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() {
  constexpr double pi = std::numbers::pi;
  const double e = double(last_epoch_), T = double(t_max_);
  const int64_t period = 2 * t_max_;
  const bool restart_edge = ((last_epoch_ - 1 - t_max_) % period + period) % period == 0;  // Python's modulo
  std::vector<double> lrs;
  for (size_t g = 0; g < groups(); ++g) {
    const double lr = opt_.lr(g);
    if (last_epoch_ == 0) lrs.push_back(lr);
    else if (restart_edge) lrs.push_back(lr + (base_lrs_[g] - eta_min_) * (1 - std::cos(pi / T)) / 2);
    else lrs.push_back((1 + std::cos(pi * e / T)) / (1 + std::cos(pi * (e - 1) / T)) * (lr - eta_min_) + eta_min_);
  }
  return lrs;
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

std::vector<double> WarmupCosineLR::get_lr() {
  const int64_t e = last_epoch_;
  std::vector<double> lrs;
  for (double base : base_lrs_) {
    if (e < warmup_) {
      lrs.push_back(base * (start_factor_ + (1 - start_factor_) * double(e) / double(warmup_)));
    } else if (e > t_max_) {
      lrs.push_back(eta_min_);
    } else {
      double progress = double(e - warmup_) / double(t_max_ - warmup_);
      lrs.push_back(eta_min_ + (base - eta_min_) * (1 + std::cos(std::numbers::pi * progress)) / 2);
    }
  }
  return lrs;
}

// --- OneCycleLR --------------------------------------------------------------------------------------
OneCycleLR::OneCycleLR(Optimizer& optimizer, OneCycleOptions o) : LRScheduler(optimizer, "OneCycleLR"), options_(o) {
  if (o.total_steps <= 0) {
    SPIRE_CHECK(o.epochs > 0 && o.steps_per_epoch > 0, ValueError,
                "OneCycleLR: give total_steps > 0, or epochs > 0 and steps_per_epoch > 0; got total_steps ",
                o.total_steps, ", epochs ", o.epochs, ", steps_per_epoch ", o.steps_per_epoch);
    options_.total_steps = o.epochs * o.steps_per_epoch;
  }
  max_lrs_ = o.max_lr.expand(groups(), name_, "max_lr");
  for (double m : max_lrs_) check_option(m > 0, name_, "max_lr", m, "> 0");
  check_option(o.pct_start >= 0 && o.pct_start <= 1, name_, "pct_start", o.pct_start, "in [0, 1]");
  check_option(o.div_factor > 0, name_, "div_factor", o.div_factor, "> 0");
  check_option(o.final_div_factor > 0, name_, "final_div_factor", o.final_div_factor, "> 0");
  if (o.cycle_momentum) {
    SPIRE_CHECK(opt_.has_momentum(), ValueError,
                "OneCycleLR: cycle_momentum needs an optimizer with momentum or beta1 (SGD, RMSprop, Adam, AdamW); "
                "pass cycle_momentum=false");
    max_momentums_ = o.max_momentum.expand(groups(), name_, "max_momentum");
    base_momentums_ = o.base_momentum.expand(groups(), name_, "base_momentum");
  }
  // PyTorch sets each group's initial_lr (whatever an earlier scheduler set) and starts from it.
  for (size_t g = 0; g < groups(); ++g) {
    double initial = max_lrs_[g] / o.div_factor;
    opt_.set_initial_lr(g, initial);
    base_lrs_[g] = initial;
    min_lrs_.push_back(initial / o.final_div_factor);
  }
  initial_step();
}

std::vector<double> OneCycleLR::get_lr() {
  const OneCycleOptions& o = options_;
  const double n = double(o.total_steps), step = double(last_epoch_);
  SPIRE_CHECK(last_epoch_ <= o.total_steps, ValueError, "OneCycleLR: tried to step ", last_epoch_,
              " times; the schedule has total_steps = ", o.total_steps);
  // The phases by the names of their end points: initial, max and min rates, max and base momenta.
  enum Point { Initial, Max, Min };
  struct Phase {
    double end_step;
    Point start_lr, end_lr;
    bool start_at_max_momentum, end_at_max_momentum;
  };
  std::vector<Phase> phases;
  if (o.three_phase) {
    phases = {{o.pct_start * n - 1, Initial, Max, true, false},
              {2 * o.pct_start * n - 2, Max, Initial, false, true},
              {n - 1, Initial, Min, true, true}};
  } else {
    phases = {{o.pct_start * n - 1, Initial, Max, true, false}, {n - 1, Max, Min, false, true}};
  }
  auto anneal = [&](double start, double end, double pct) {
    if (o.anneal_strategy == AnnealStrategy::Linear) return (end - start) * pct + start;
    return end + (start - end) / 2.0 * (std::cos(std::numbers::pi * pct) + 1);
  };
  std::vector<double> lrs;
  for (size_t g = 0; g < groups(); ++g) {
    const double rate[] = {base_lrs_[g], max_lrs_[g], min_lrs_[g]};
    double start_step = 0;
    for (size_t i = 0; i < phases.size(); ++i) {
      const Phase& ph = phases[i];
      if (step <= ph.end_step || i == phases.size() - 1) {
        double pct = (step - start_step) / (ph.end_step - start_step);
        lrs.push_back(anneal(rate[ph.start_lr], rate[ph.end_lr], pct));
        if (o.cycle_momentum) {
          auto momentum = [&](bool at_max) { return at_max ? max_momentums_[g] : base_momentums_[g]; };
          assign_momentum(g, anneal(momentum(ph.start_at_max_momentum), momentum(ph.end_at_max_momentum), pct));
        }
        break;
      }
      start_step = ph.end_step;
    }
  }
  return lrs;
}

// --- ReduceLROnPlateau -------------------------------------------------------------------------------
ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, PlateauOptions o)
    : LRScheduler(optimizer, "ReduceLROnPlateau", false), options_(std::move(o)) {
  const PlateauOptions& p = options_;
  SPIRE_CHECK(p.mode == "min" || p.mode == "max", ValueError, "ReduceLROnPlateau: mode must be 'min' or 'max', got '",
              p.mode, "'");
  SPIRE_CHECK(p.threshold_mode == "rel" || p.threshold_mode == "abs", ValueError,
              "ReduceLROnPlateau: threshold_mode must be 'rel' or 'abs', got '", p.threshold_mode, "'");
  check_option(p.factor >= 0 && p.factor < 1, name_, "factor", p.factor, "in [0, 1)");
  check_option(p.patience >= 0, name_, "patience", double(p.patience), ">= 0");
  check_option(p.cooldown >= 0, name_, "cooldown", double(p.cooldown), ">= 0");
  min_lrs_ = p.min_lr.expand(groups(), name_, "min_lr");
  for (double m : min_lrs_) check_option(m >= 0, name_, "min_lr", m, ">= 0");
  minimize_ = p.mode == "min";
  relative_ = p.threshold_mode == "rel";
  best_ = minimize_ ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  last_epoch_ = 0;  // no initial step: nothing changes until a metric arrives
}

void ReduceLROnPlateau::step() {
  SPIRE_CHECK(false, ValueError, "ReduceLROnPlateau: step needs the metric to watch, step(metric)");
}

std::vector<double> ReduceLROnPlateau::get_lr() {
  std::vector<double> lrs;
  for (size_t g = 0; g < groups(); ++g) lrs.push_back(opt_.lr(g));
  return lrs;
}

bool ReduceLROnPlateau::is_better(double a) const {
  const double t = options_.threshold;
  if (minimize_) return relative_ ? a < best_ * (1 - t) : a < best_ - t;
  return relative_ ? a > best_ * (1 + t) : a > best_ + t;
}

void ReduceLROnPlateau::step(double metric) {
  // Groups added since construction get the single min_lr; a per-group list cannot be extended.
  if (min_lrs_.size() != groups()) {
    SPIRE_CHECK(options_.min_lr.is_scalar(), ValueError, "ReduceLROnPlateau: min_lr has ", min_lrs_.size(),
                " values but the optimizer now has ", groups(), " param groups; build a new scheduler");
    min_lrs_.assign(groups(), options_.min_lr.values()[0]);
  }
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
    for (size_t g = 0; g < groups(); ++g) {
      double old_lr = opt_.lr(g), new_lr = std::max(old_lr * options_.factor, min_lrs_[g]);
      if (old_lr - new_lr > options_.eps) assign_lr(g, new_lr);
    }
    cooldown_counter_ = options_.cooldown;
    num_bad_epochs_ = 0;
  }
  last_lr_ = get_lr();
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
