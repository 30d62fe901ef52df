// Optimizers over groups of parameter tensors, as torch.optim: SGD (optim/sgd.h), Adam and AdamW
// (optim/adam.h), RMSprop (optim/rmsprop.h), L-BFGS (optim/lbfgs.h). Gradient clipping is in
// optim/clip.h, learning-rate schedules in optim/scheduler.h, parameter groups in
// optim/param_group.h.
//
// Parameters are leaf tensors that require grad. A training loop zeroes the gradients, computes a
// loss, calls backward() and then step(); or hands step() a closure doing all of that (L-BFGS needs
// one: it evaluates the loss several times per step). Updates run with gradient recording off and
// rebind each parameter to its new values with Tensor::set_data, so every holder of the parameter
// (a model, a closure) sees them and no graph reaches back across steps. Every update is made of
// engine ops, so it runs on the parameters' device and gives the same bits on every run.
//
// The parameters form groups, each with its own options (param_group.h). A constructor given one
// list of tensors makes one group with the given options; one given ParamGroups makes one group
// each. Parameters are numbered group after group (params()), which is how state_dict() keys them.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/optim/param_group.h"
#include "engine/optim/state_dict.h"

namespace spire::optim {

// Re-evaluates the model: zeroes the gradients, computes the loss, calls backward, returns the loss.
using Closure = std::function<Tensor()>;

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // Drops every parameter's gradient (PyTorch's default, set_to_none), or sets it to zeros.
  void zero_grad(bool set_to_none = true);
  // One update, each group with its own options. With a closure, the loss is first re-evaluated by
  // it (with gradient recording on) and returned; without one, the current gradients are used and an
  // undefined tensor is returned. A parameter with no gradient is left as it is (SGD, Adam, RMSprop).
  virtual Tensor step(const Closure& closure = {}) = 0;

  // Every parameter, group after group; parameter i is "state.<i>" in state_dict().
  const Tensors& params() const { return params_; }
  size_t num_param_groups() const { return group_begin_.size() - 1; }
  // The parameters of one group, and their indices [first, last) in params().
  std::span<const Tensor> params(size_t group) const;
  std::pair<size_t, size_t> param_range(size_t group) const;
  // The group parameter i is in.
  size_t group_of(size_t i) const;

  // The learning rate: group 0's, and set_lr sets every group's (what a single-rate schedule wants).
  double lr() const { return lr(0); }
  void set_lr(double lr);
  // One group's learning rate.
  virtual double lr(size_t group) const = 0;
  virtual void set_lr(size_t group, double lr) = 0;
  // How many times step() has run.
  int64_t step_count() const { return step_count_; }

  // The rate a schedule started from (torch's group["initial_lr"]): set by the first scheduler
  // built over the optimizer (OneCycleLR: max_lr / div_factor), saved and restored with the state.
  std::optional<double> initial_lr(size_t group) const;
  void set_initial_lr(size_t group, std::optional<double> lr);

  // torch's layout, flattened (state_dict.h):
  //   "lr"                          group 0's rate (what readers of a one-group file look for)
  //   "step_count"                  (optional on load, for PyTorch's dicts: see read_step_count)
  //   "param_groups.<g>.params"     an int64 tensor of the group's parameter indices
  //   "param_groups.<g>.<option>"   each option of the group (param_group.h), and "initial_lr"
  //   "state.<i>.<name>"            per-parameter state of parameter i (absent before its first update)
  // load_state_dict() restores the groups' options and the state into an optimizer with as many
  // groups of as many parameters each, of the same shapes and dtypes; it changes nothing when any
  // of that does not match (a ValueError naming the group, the parameter or the key). A flat
  // state_dict from before parameter groups ("lr", "momentum", "state.<i>.<name>") loads too.
  virtual StateDict state_dict() const = 0;
  virtual void load_state_dict(const StateDict& state) = 0;

  // The momentum that OneCycleLR cycles: SGD's and RMSprop's momentum, Adam's beta1; momentum() is
  // group 0's and set_momentum() sets every group's.
  virtual bool has_momentum() const { return false; }
  double momentum() const { return momentum(0); }
  void set_momentum(double momentum);
  virtual double momentum(size_t group) const;
  virtual void set_momentum(size_t group, double momentum);

  const char* name() const { return name_; }

 private:
  friend class LRScheduler;
  // Schedulers set the rates and momenta they compute without a range check, as PyTorch's do (a
  // linear one-cycle schedule's step past its end gives a slightly negative rate); the next step
  // checks the options as always.
  virtual void set_scheduled_lr(size_t group, double lr) = 0;
  virtual void set_scheduled_momentum(size_t group, double momentum) = 0;

 protected:
  explicit Optimizer(const char* name) : name_(name) {}
  // Checks params (distinct floating-point leaves that require grad, in no other group) and appends
  // them as group `group` (the next one).
  void append_group(const Tensors& params, size_t group);
  // Runs the closure with gradient recording on and checks that it returned a one-element loss.
  Tensor evaluate(const Closure& closure) const;
  // The frame of a first-order step: checks every group's options, evaluates the closure if any,
  // then, with recording off, calls update(group, i, parameter, gradient) for each parameter that has
  // a gradient (negated when its group maximizes), counts the step and returns the closure's loss.
  Tensor step_each(const Closure& closure, const std::function<void(size_t, size_t, Tensor&, Tensor)>& update);
  // Throws a ValueError naming the group and the option when a group's options are out of range.
  virtual void check_groups() const = 0;
  virtual bool maximize(size_t group) const = 0;

  // Where each current parameter's state is in a state_dict: its saved index. Checks the group
  // count and sizes (after torch's load_state_dict); `legacy` for a flat dict without groups.
  struct Layout {
    std::vector<int64_t> saved_index;
    bool legacy = false;
  };
  Layout read_layout(const StateDict& state) const;
  // "step_count"; absent from PyTorch's dicts, where it is the largest per-parameter "step" (or 0).
  int64_t read_step_count(const StateDict& state, const Layout& layout) const;
  // state[key] as the state of parameter i: checked to have its shape and dtype, moved to its device.
  Tensor param_state(const StateDict& state, const std::string& key, size_t i) const;
  // "state.<i>.<name>"
  static std::string state_key(int64_t i, const char* name) { return "state." + std::to_string(i) + "." + name; }
  static std::string group_prefix(size_t g) { return "param_groups." + std::to_string(g) + "."; }
  // "SGD" with one group, "SGD param group 1" with several: who an option error is about.
  std::string who(size_t group) const;

  Tensors params_;
  std::vector<size_t> group_begin_{0};  // group g holds params_[group_begin_[g], group_begin_[g + 1])
  std::vector<std::optional<double>> initial_lr_;
  const char* name_;
  int64_t step_count_ = 0;
};

// Throws a ValueError naming the optimizer, the option and the allowed range when !ok.
void check_option(bool ok, const std::string& optimizer, const char* option, double value, const char* allowed);

// The common part of the optimizers: groups of parameters with options of type Options, which
// provides `static const std::vector<OptionField<Options>>& fields()` (param_group.h),
// `void check(const std::string& who) const` (a ValueError naming who and the option out of range)
// and `static double Options::* momentum_field()` (the momentum OneCycleLR cycles, or nullptr).
template <class Options>
class OptimizerOf : public Optimizer {
 public:
  using Optimizer::lr;
  using Optimizer::momentum;
  using Optimizer::set_lr;
  using Optimizer::set_momentum;

  // The constructor's options: those of a group added without options.
  const Options& defaults() const { return defaults_; }
  // Group 0's options (the options, for an optimizer over one list).
  const Options& options() const { return options_.at(0); }
  Options& options(size_t group) { return options_.at(group); }
  const Options& options(size_t group) const { return options_.at(group); }
  // Every group, its options editable: for (auto& g : opt.param_groups()) g.options.lr *= 0.1;
  // Edited options are checked at the next step.
  std::vector<ParamGroupRef<Options>> param_groups() {
    std::vector<ParamGroupRef<Options>> out;
    for (size_t g = 0; g < options_.size(); ++g) out.push_back({params(g), options_[g]});
    return out;
  }
  // Appends a group (with its options, or the defaults); a ValueError naming a parameter that is
  // already in a group, or an option out of range.
  void add_param_group(ParamGroup<Options> group) {
    SPIRE_CHECK(supports_groups(), ValueError, name_,
                " doesn't support per-parameter options (parameter groups); give it one list of parameters");
    add_group(std::move(group));
  }

  double lr(size_t group) const override { return options_.at(group).lr; }
  void set_lr(size_t group, double lr) override {
    edit(group, [&](Options& o) { o.lr = lr; });
  }
  bool has_momentum() const override { return Options::momentum_field() != nullptr; }
  double momentum(size_t group) const override {
    if (!has_momentum()) return Optimizer::momentum(group);
    return options_.at(group).*Options::momentum_field();
  }
  void set_momentum(size_t group, double m) override {
    if (!has_momentum()) return Optimizer::set_momentum(group, m);
    edit(group, [&](Options& o) { o.*Options::momentum_field() = m; });
  }

  StateDict state_dict() const override {
    StateDict s;
    s.set("lr", lr());
    s.set("step_count", step_count_);
    for (size_t g = 0; g < options_.size(); ++g) {
      auto [first, last] = param_range(g);
      std::vector<int64_t> index;
      for (size_t i = first; i < last; ++i) index.push_back(int64_t(i));
      s.set(group_prefix(g) + "params", from_vector<int64_t>(index, {int64_t(index.size())}));
      write_options(s, group_prefix(g), options_[g]);
      if (initial_lr_[g]) s.set(group_prefix(g) + "initial_lr", *initial_lr_[g]);
    }
    save_state(s);
    return s;
  }

  void load_state_dict(const StateDict& state) override {
    Layout layout = read_layout(state);
    std::vector<Options> options = options_;
    std::vector<std::optional<double>> initial = initial_lr_;
    for (size_t g = 0; g < options.size(); ++g) {
      Options& o = options[g];
      if (layout.legacy) {
        o.lr = state.number("lr");
        if (auto m = Options::momentum_field(); m && state.contains("momentum")) o.*m = state.number("momentum");
      } else {
        o = read_options(state, group_prefix(g), o);
        std::string key = group_prefix(g) + "initial_lr";
        initial[g] = state.contains(key) ? std::optional<double>(state.number(key)) : std::nullopt;
      }
      o.check(std::string(name_) + ".load_state_dict: " + who(g));
    }
    int64_t step_count = read_step_count(state, layout);
    load_state(state, layout.saved_index, options);  // reads all of it before changing anything
    options_ = std::move(options);
    initial_lr_ = std::move(initial);
    step_count_ = step_count;
  }

 protected:
  OptimizerOf(const char* name, Options defaults, std::vector<ParamGroup<Options>> groups)
      : Optimizer(name), defaults_(defaults) {
    defaults_.check(name_);
    SPIRE_CHECK(!groups.empty(), ValueError, name_, ": got an empty list of parameter groups");
    for (ParamGroup<Options>& g : groups) add_group(std::move(g));
  }
  // One group of params with the options o.
  static std::vector<ParamGroup<Options>> one_group(Tensors params, const Options& o) {
    std::vector<ParamGroup<Options>> g(1);
    g[0].params = std::move(params);
    g[0].options = o;
    return g;
  }

  // False for L-BFGS: one group only, as PyTorch's (its constructor checks that itself).
  virtual bool supports_groups() const { return true; }
  // Adds each parameter's state as "state.<i>.<name>"; and reads it back, parameter i's from
  // "state.<saved_index[i]>.<name>", assigning only once all of it has been read and checked.
  // `options` are the groups' options being loaded with it.
  virtual void save_state(StateDict& s) const = 0;
  virtual void load_state(const StateDict& s, const std::vector<int64_t>& saved_index,
                          const std::vector<Options>& options) = 0;

  void check_groups() const override {
    for (size_t g = 0; g < options_.size(); ++g) options_[g].check(who(g));
  }
  bool maximize(size_t group) const override { return options_[group].maximize; }

  Options defaults_;
  std::vector<Options> options_;  // per group

 private:
  void set_scheduled_lr(size_t group, double lr) override { options_.at(group).lr = lr; }
  void set_scheduled_momentum(size_t group, double m) override {
    if (!has_momentum()) return Optimizer::set_momentum(group, m);
    options_.at(group).*Options::momentum_field() = m;
  }
  void add_group(ParamGroup<Options> group) {
    size_t g = options_.size();
    Options o = group.options.value_or(defaults_);
    o.check(g == 0 ? std::string(name_) : std::string(name_) + " param group " + std::to_string(g));
    append_group(group.params, g);
    options_.push_back(o);
    initial_lr_.push_back(std::nullopt);
  }
  // Applies change to a copy of a group's options and keeps it when the result is in range.
  template <class F>
  void edit(size_t group, F change) {
    Options o = options_.at(group);
    change(o);
    o.check(who(group));
    options_[group] = o;
  }
};

}  // namespace spire::optim
