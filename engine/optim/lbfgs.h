// L-BFGS, as torch.optim.LBFGS (after Schmidt's minFunc): one step runs up to max_iter iterations
// of the two-loop recursion over the last history_size curvature pairs, optionally with a line
// search satisfying the strong Wolfe conditions (c1 = 1e-4, c2 = 0.9; Nocedal & Wright, Numerical
// Optimization, algorithms 3.5 and 3.6, with cubic interpolation). The closure is required and may
// be called several times per step. The parameters are handled as one flat vector, so they must
// share a dtype and a device; the history keeps 2 history_size such vectors.
#pragma once
#include <deque>
#include <optional>

#include "engine/optim/optimizer.h"

namespace spire::optim {

struct LBFGSOptions {
  double lr = 1;
  int64_t max_iter = 20;                            // iterations per step
  std::optional<int64_t> max_eval = std::nullopt;   // closure calls per step; default max_iter * 5 / 4
  double tolerance_grad = 1e-7;                     // stop when max |grad| <= this
  double tolerance_change = 1e-9;                   // stop when the loss or the parameters move less
  int64_t history_size = 100;
  LineSearch line_search = LineSearch::None;        // None: fixed steps of lr (the first one scaled)
  bool maximize = false;

  // lr, max_iter, max_eval, tolerance_grad, tolerance_change, history_size, line_search_fn (0: None,
  // 1: "strong_wolfe"), maximize.
  static const std::vector<OptionField<LBFGSOptions>>& fields();
  void check(const std::string& who) const;
  static double LBFGSOptions::*momentum_field() { return nullptr; }
};

// One parameter group only, as torch.optim.LBFGS: the constructor taking groups accepts exactly one
// and add_param_group refuses.
class LBFGS : public OptimizerOf<LBFGSOptions> {
 public:
  explicit LBFGS(Tensors params, LBFGSOptions options = {});
  explicit LBFGS(std::vector<ParamGroup<LBFGSOptions>> groups, LBFGSOptions defaults = {});
  // Returns the loss from the closure's first call in this step.
  Tensor step(const Closure& closure) override;
  // Totals over all steps so far.
  int64_t iterations() const { return n_iter_; }
  int64_t function_evaluations() const { return func_evals_; }

 protected:
  bool supports_groups() const override { return false; }
  // The state carried across steps (after the first step), under the first parameter as in
  // PyTorch: "state.0.n_iter", "state.0.func_evals", "state.0.d", "state.0.t", "state.0.H_diag",
  // "state.0.prev_flat_grad", "state.0.prev_loss" and "state.0.old_dirs.<k>", "state.0.old_stps.<k>",
  // "state.0.ro.<k>" for each curvature pair k, oldest first.
  void save_state(StateDict& s) const override;
  void load_state(const StateDict& s, const std::vector<int64_t>& saved_index,
                  const std::vector<LBFGSOptions>& options) override;

 private:
  Tensor flat_grad() const;
  void add_to_params(double t, const Tensor& direction);  // params += t direction
  void set_params(const Tensors& values);
  Tensor flat_state(const StateDict& state, const std::string& key) const;  // a checked copy
  const LBFGSOptions& o() const { return options_[0]; }
  // Loss and flat gradient at params + t d; leaves the parameters at x.
  std::pair<double, Tensor> directional_evaluate(const Closure& closure, const Tensors& x, double t,
                                                 const Tensor& d);

  int64_t numel_ = 0;
  int64_t n_iter_ = 0, func_evals_ = 0;
  // Carried across steps, as in PyTorch: the last direction and step length, the curvature pairs
  // (y, s) with rho = 1 / y.s, the initial inverse-Hessian scale, and the last gradient and loss.
  Tensor d_, prev_flat_grad_;
  double t_ = 0, h_diag_ = 1, prev_loss_ = 0;
  std::deque<Tensor> old_dirs_, old_stps_;
  std::deque<double> ro_;
};

}  // namespace spire::optim
