#include "engine/optim/lbfgs.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "engine/autodiff/mode.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

namespace spire::optim {
namespace {

double dot_value(const Tensor& a, const Tensor& b) { return dot(a, b).item<double>(); }
double max_abs(const Tensor& a) { return amax(abs(a)).item<double>(); }

// The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped to
// bounds (default: the interval between x1 and x2); the bounds' midpoint when the cubic has none.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  auto [lo, hi] = bounds ? *bounds : std::pair{std::min(x1, x2), std::max(x1, x2)};
  double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  double d2_square = d1 * d1 - g1 * g2;
  if (d2_square < 0) return (lo + hi) / 2;
  double d2 = std::sqrt(d2_square);
  double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                            : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
  return std::min(std::max(min_pos, lo), hi);
}

struct LineSearchResult {
  double f;
  Tensor g;
  double t;
  int64_t evals;
};

// A step length t along d satisfying the strong Wolfe conditions
//   f(x + t d) <= f + c1 t g.d   and   |g(x + t d).d| <= -c2 g.d,
// by bracketing then zooming with safeguarded cubic interpolation, in at most max_ls evaluations.
// `phi(t)` returns the loss and flat gradient at x + t d. Mirrors torch.optim.lbfgs._strong_wolfe.
template <class Phi>
LineSearchResult strong_wolfe(Phi phi, double t, const Tensor& d, double f, const Tensor& g, double gtd,
                              double tolerance_change, int64_t max_ls, double c1 = 1e-4, double c2 = 0.9) {
  double d_norm = max_abs(d);
  auto [f_new, g_new] = phi(t);
  int64_t evals = 1, ls_iter = 0;
  double gtd_new = dot_value(g_new, d);
  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Tensor g_prev = g;
  bool done = false;
  // The bracket [a, b] of step lengths with their losses, gradients and slopes.
  std::array<double, 2> bt{}, bf{}, bgtd{};
  std::array<Tensor, 2> bg;
  int n_bracket = 0;
  auto set_bracket = [&](double t0, double f0, Tensor g0, double gtd0, double t1, double f1, Tensor g1, double gtd1) {
    bt = {t0, t1}, bf = {f0, f1}, bg = {g0, g1}, bgtd = {gtd0, gtd1};
    n_bracket = 2;
  };
  while (ls_iter < max_ls) {
    if (f_new > f + c1 * t * gtd || (ls_iter > 1 && f_new >= f_prev)) {
      set_bracket(t_prev, f_prev, g_prev, gtd_prev, t, f_new, g_new, gtd_new);
      break;
    }
    if (std::abs(gtd_new) <= -c2 * gtd) {
      bt[0] = t, bf[0] = f_new, bg[0] = g_new;
      n_bracket = 1;
      done = true;
      break;
    }
    if (gtd_new >= 0) {
      set_bracket(t_prev, f_prev, g_prev, gtd_prev, t, f_new, g_new, gtd_new);
      break;
    }
    // Extrapolate, at least a little beyond t and at most 10 t.
    double min_step = t + 0.01 * (t - t_prev), max_step = t * 10;
    double tmp = t;
    t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, std::pair{min_step, max_step});
    t_prev = tmp, f_prev = f_new, g_prev = g_new, gtd_prev = gtd_new;
    std::tie(f_new, g_new) = phi(t);
    ++evals;
    gtd_new = dot_value(g_new, d);
    ++ls_iter;
  }
  if (ls_iter == max_ls) {
    // Out of evaluations while still extrapolating: the zoom below does not run.
    bt = {0, t}, bf = {f, f_new}, bg = {g, g_new};
    n_bracket = 2;
  }

  // Zoom: shrink the bracket until its low end satisfies the conditions.
  bool insuf_progress = false;
  int low = 0, high = 1;
  if (n_bracket == 2 && bf[0] > bf[1]) low = 1, high = 0;
  while (!done && ls_iter < max_ls) {
    if (std::abs(bt[1] - bt[0]) * d_norm < tolerance_change) break;
    t = cubic_interpolate(bt[0], bf[0], bgtd[0], bt[1], bf[1], bgtd[1]);
    // Keep t away from the bracket's ends: a point too near an end makes little progress.
    double b_max = std::max(bt[0], bt[1]), b_min = std::min(bt[0], bt[1]);
    double eps = 0.1 * (b_max - b_min);
    if (std::min(b_max - t, t - b_min) < eps) {
      if (insuf_progress || t >= b_max || t <= b_min) {
        t = std::abs(t - b_max) < std::abs(t - b_min) ? b_max - eps : b_min + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    std::tie(f_new, g_new) = phi(t);
    ++evals;
    gtd_new = dot_value(g_new, d);
    ++ls_iter;
    if (f_new > f + c1 * t * gtd || f_new >= bf[low]) {
      bt[high] = t, bf[high] = f_new, bg[high] = g_new, bgtd[high] = gtd_new;
      if (bf[0] <= bf[1]) low = 0, high = 1;
      else low = 1, high = 0;
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) {
        done = true;
      } else if (gtd_new * (bt[high] - bt[low]) >= 0) {
        bt[high] = bt[low], bf[high] = bf[low], bg[high] = bg[low], bgtd[high] = bgtd[low];
      }
      bt[low] = t, bf[low] = f_new, bg[low] = g_new, bgtd[low] = gtd_new;
    }
  }
  return {bf[low], bg[low], bt[low], evals};
}

}  // namespace

const std::vector<OptionField<LBFGSOptions>>& LBFGSOptions::fields() {
  static const std::vector<OptionField<LBFGSOptions>> f{
      {"lr", &LBFGSOptions::lr},
      {"max_iter", &LBFGSOptions::max_iter},
      {"max_eval", &LBFGSOptions::max_eval},
      {"tolerance_grad", &LBFGSOptions::tolerance_grad},
      {"tolerance_change", &LBFGSOptions::tolerance_change},
      {"history_size", &LBFGSOptions::history_size},
      {"line_search_fn", &LBFGSOptions::line_search},
      {"maximize", &LBFGSOptions::maximize},
  };
  return f;
}

void LBFGSOptions::check(const std::string& who) const {
  check_option(lr >= 0, who, "lr", lr, ">= 0");
  check_option(max_iter >= 1, who, "max_iter", double(max_iter), ">= 1");
  if (max_eval) check_option(*max_eval >= 1, who, "max_eval", double(*max_eval), ">= 1");
  check_option(history_size >= 1, who, "history_size", double(history_size), ">= 1");
  check_option(tolerance_grad >= 0, who, "tolerance_grad", tolerance_grad, ">= 0");
  check_option(tolerance_change >= 0, who, "tolerance_change", tolerance_change, ">= 0");
}

namespace {

// max_eval defaults to max_iter * 5 / 4, fixed when the options are given (as in PyTorch).
LBFGSOptions resolved(LBFGSOptions o) {
  if (!o.max_eval) o.max_eval = o.max_iter * 5 / 4;
  return o;
}

std::vector<ParamGroup<LBFGSOptions>> one_group_only(std::vector<ParamGroup<LBFGSOptions>> groups) {
  SPIRE_CHECK(groups.size() == 1, ValueError,
              "LBFGS doesn't support per-parameter options (parameter groups); give it one group, got ", groups.size());
  if (groups[0].options) groups[0].options = resolved(*groups[0].options);
  return groups;
}

}  // namespace

LBFGS::LBFGS(Tensors params, LBFGSOptions o) : LBFGS(one_group(std::move(params), resolved(o)), o) {}

LBFGS::LBFGS(std::vector<ParamGroup<LBFGSOptions>> groups, LBFGSOptions defaults)
    : OptimizerOf("LBFGS", resolved(defaults), one_group_only(std::move(groups))) {
  for (size_t i = 0; i < params_.size(); ++i) {
    SPIRE_CHECK(params_[i].dtype() == params_[0].dtype() && params_[i].device() == params_[0].device(), ValueError,
                "LBFGS: all parameters must share one dtype and device; parameter 0 is ",
                spire::name(params_[0].dtype()), " on ", params_[0].device().str(), ", parameter ", i, " is ",
                spire::name(params_[i].dtype()), " on ", params_[i].device().str());
    numel_ += params_[i].numel();
  }
}

void LBFGS::save_state(StateDict& s) const {
  if (!d_.defined()) return;
  auto key = [](const std::string& name) { return "state.0." + name; };
  s.set(key("func_evals"), func_evals_);
  s.set(key("n_iter"), n_iter_);
  s.set(key("d"), d_);
  s.set(key("t"), t_);
  s.set(key("H_diag"), h_diag_);
  s.set(key("prev_flat_grad"), prev_flat_grad_);
  s.set(key("prev_loss"), prev_loss_);
  for (size_t k = 0; k < old_dirs_.size(); ++k) {
    s.set(key("old_dirs." + std::to_string(k)), old_dirs_[k]);
    s.set(key("old_stps." + std::to_string(k)), old_stps_[k]);
    s.set(key("ro." + std::to_string(k)), ro_[k]);
  }
}

Tensor LBFGS::flat_state(const StateDict& state, const std::string& key) const {
  Tensor t = state.tensor(key);
  const Tensor& p = params_[0];
  SPIRE_CHECK(t.shape() == Shape{numel_} && t.dtype() == p.dtype(), ValueError, "LBFGS.load_state_dict: '", key,
              "' has shape ", shape_str(t.shape()), " and dtype ", spire::name(t.dtype()),
              "; the parameters need shape [", numel_, "] and dtype ", spire::name(p.dtype()));
  return t.device() == p.device() ? copy(t.detach()) : to(t.detach(), p.device());
}

void LBFGS::load_state(const StateDict& state, const std::vector<int64_t>& saved,
                       const std::vector<LBFGSOptions>& options) {
  // Under the first parameter's index; "state.<name>" in files from before parameter groups.
  std::string prefix = "state." + std::to_string(saved[0]) + ".";
  if (!state.contains(prefix + "d") && state.contains("state.d")) prefix = "state.";
  auto key = [&](const std::string& name) { return prefix + name; };
  if (!state.contains(key("d"))) {  // saved before the first step
    d_ = prev_flat_grad_ = Tensor();
    old_dirs_.clear(), old_stps_.clear(), ro_.clear();
    n_iter_ = func_evals_ = 0, t_ = 0, h_diag_ = 1, prev_loss_ = 0;
    return;
  }
  Tensor d = flat_state(state, key("d")), prev = flat_state(state, key("prev_flat_grad"));
  std::deque<Tensor> dirs, stps;
  std::deque<double> ro;
  for (int64_t k = 0; state.contains(key("old_dirs." + std::to_string(k))); ++k) {
    dirs.push_back(flat_state(state, key("old_dirs." + std::to_string(k))));
    stps.push_back(flat_state(state, key("old_stps." + std::to_string(k))));
    ro.push_back(state.number(key("ro." + std::to_string(k))));
  }
  SPIRE_CHECK(int64_t(dirs.size()) <= options[0].history_size, ValueError, "LBFGS.load_state_dict: ", dirs.size(),
              " curvature pairs do not fit history_size ", options[0].history_size);
  int64_t n_iter = state.integer(key("n_iter")), func_evals = state.integer(key("func_evals"));
  double t = state.number(key("t")), h_diag = state.number(key("H_diag")), prev_loss = state.number(key("prev_loss"));
  d_ = d, prev_flat_grad_ = prev, old_dirs_ = std::move(dirs), old_stps_ = std::move(stps), ro_ = std::move(ro);
  n_iter_ = n_iter, func_evals_ = func_evals, t_ = t, h_diag_ = h_diag, prev_loss_ = prev_loss;
}

Tensor LBFGS::flat_grad() const {
  Tensors views;
  for (const Tensor& p : params_) {
    Tensor g = p.grad();
    views.push_back(g.defined() ? reshape(g, {-1}) : zeros({p.numel()}, p.dtype(), p.device()));
  }
  Tensor flat = concat(views, 0);
  return o().maximize ? neg(flat) : flat;
}

void LBFGS::add_to_params(double t, const Tensor& direction) {
  int64_t offset = 0;
  for (Tensor& p : params_) {
    int64_t n = p.numel();
    p.set_data(add(p, mul(reshape(slice(direction, 0, offset, offset + n), p.shape()), t)));
    offset += n;
  }
}

void LBFGS::set_params(const Tensors& values) {
  for (size_t i = 0; i < params_.size(); ++i) params_[i].set_data(values[i]);
}

std::pair<double, Tensor> LBFGS::directional_evaluate(const Closure& closure, const Tensors& x, double t,
                                                      const Tensor& d) {
  add_to_params(t, d);
  double loss = evaluate(closure).item<double>();
  if (o().maximize) loss = -loss;
  Tensor g = flat_grad();
  set_params(x);
  return {loss, g};
}

Tensor LBFGS::step(const Closure& closure) {
  SPIRE_CHECK(bool(closure), ValueError, "LBFGS: step needs a closure that re-evaluates the loss "
              "(zero the gradients, compute the loss, call backward, return the loss)");
  check_groups();  // options edited through param_groups() since the last step
  NoGradGuard no_grad;
  const LBFGSOptions& o = options_[0];
  const int64_t max_eval = o.max_eval.value_or(o.max_iter * 5 / 4);
  ++step_count_;

  Tensor orig_loss = evaluate(closure);
  double loss = orig_loss.item<double>();
  if (o.maximize) loss = -loss;
  int64_t current_evals = 1;
  ++func_evals_;
  Tensor g = flat_grad();
  if (max_abs(g) <= o.tolerance_grad) return orig_loss;

  for (int64_t n_iter = 1; n_iter <= o.max_iter; ++n_iter) {
    ++n_iter_;
    // The direction d = -H g by the two-loop recursion, H the L-BFGS inverse Hessian.
    if (n_iter_ == 1) {
      d_ = neg(g);
      old_dirs_.clear(), old_stps_.clear(), ro_.clear();
      h_diag_ = 1;
    } else {
      Tensor y = sub(g, prev_flat_grad_), s = mul(d_, t_);
      double ys = dot_value(y, s);
      // Keep the pair only where the curvature is safely positive, so H stays positive definite.
      if (ys > 1e-10) {
        if (int64_t(old_dirs_.size()) == o.history_size) {
          old_dirs_.pop_front(), old_stps_.pop_front(), ro_.pop_front();
        }
        old_dirs_.push_back(y), old_stps_.push_back(s), ro_.push_back(1.0 / ys);
        h_diag_ = ys / dot_value(y, y);
      }
      size_t num_old = old_dirs_.size();
      std::vector<double> al(num_old);
      Tensor q = neg(g);
      for (size_t i = num_old; i-- > 0;) {
        al[i] = dot_value(old_stps_[i], q) * ro_[i];
        q = sub(q, mul(old_dirs_[i], al[i]));
      }
      Tensor r = mul(q, h_diag_);
      for (size_t i = 0; i < num_old; ++i) {
        double be_i = dot_value(old_dirs_[i], r) * ro_[i];
        r = add(r, mul(old_stps_[i], al[i] - be_i));
      }
      d_ = r;
    }
    prev_flat_grad_ = g;
    prev_loss_ = loss;

    // The first step of all is scaled so that it moves no parameter by more than lr.
    t_ = n_iter_ == 1 ? std::min(1.0, 1.0 / sum(abs(g)).item<double>()) * o.lr : o.lr;
    double gtd = dot_value(g, d_);
    if (gtd > -o.tolerance_change) break;  // not a descent direction any more

    int64_t ls_func_evals = 0;
    bool opt_cond = false;
    if (o.line_search == LineSearch::StrongWolfe) {
      Tensors x_init;
      for (const Tensor& p : params_) x_init.push_back(p.detach());  // updates rebind, never write
      auto phi = [&](double t) { return directional_evaluate(closure, x_init, t, d_); };
      LineSearchResult ls = strong_wolfe(phi, t_, d_, loss, g, gtd, o.tolerance_change, max_eval - current_evals);
      loss = ls.f, g = ls.g, t_ = ls.t, ls_func_evals = ls.evals;
      add_to_params(t_, d_);
      opt_cond = max_abs(g) <= o.tolerance_grad;
    } else {
      add_to_params(t_, d_);
      if (n_iter != o.max_iter) {
        loss = evaluate(closure).item<double>();
        if (o.maximize) loss = -loss;
        g = flat_grad();
        opt_cond = max_abs(g) <= o.tolerance_grad;
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    func_evals_ += ls_func_evals;

    if (n_iter == o.max_iter || current_evals >= max_eval || opt_cond) break;
    if (max_abs(d_) * std::abs(t_) <= o.tolerance_change) break;  // the parameters barely moved
    if (std::abs(loss - prev_loss_) < o.tolerance_change) break;  // the loss barely changed
  }
  return orig_loss;
}

}  // namespace spire::optim
