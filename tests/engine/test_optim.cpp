// Optimizers: each update against PyTorch's formulas written out by hand in plain doubles, the
// convergence of L-BFGS (to 1e-8) and of the first-order methods on problems with known minima, and
// the errors for bad options and parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "engine/autodiff/mode.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"
#include "engine/optim/adam.h"
#include "engine/optim/clip.h"
#include "engine/optim/lbfgs.h"
#include "engine/optim/rmsprop.h"
#include "engine/optim/scheduler.h"
#include "engine/optim/sgd.h"
#include "tests/common/expect_error.h"

using namespace spire;
using Vec = std::vector<double>;

namespace {

Tensor param(const Vec& v) {
  Tensor t = from_vector<double>(v, {int64_t(v.size())});
  t.set_requires_grad();
  return t;
}

// f(p) = sum_i a_i p_i^2 / 2 + c_i p_i + p_i^4 / 12: a gradient that is easy to write by hand and
// not linear in p, so each update formula is exercised away from a fixed point.
const Vec kA{1.0, 3.0, 0.5}, kC{0.3, -1.0, 2.0};
Tensor loss_of(const Tensor& p) {
  Tensor a = from_vector<double>(kA, {3}), c = from_vector<double>(kC, {3});
  return sum(mul(square(p), a) * 0.5 + mul(p, c) + square(square(p)) / 12.0);
}
Vec grad_of(const Vec& p) {
  Vec g(p.size());
  for (size_t i = 0; i < p.size(); ++i) g[i] = kA[i] * p[i] + kC[i] + p[i] * p[i] * p[i] / 3;
  return g;
}

void backward_loss(optim::Optimizer& opt) {
  opt.zero_grad();
  loss_of(opt.params()[0]).backward();
}

void expect_near(const Tensor& t, const Vec& want, double tol) {
  Vec got = t.to_vector();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

// The reference SGD of torch.optim.SGD (_single_tensor_sgd), on plain doubles.
Vec reference_sgd(Vec p, const optim::SGDOptions& o, int steps) {
  Vec buf;
  for (int s = 0; s < steps; ++s) {
    Vec g = grad_of(p);
    for (size_t i = 0; i < p.size(); ++i) {
      double d = o.maximize ? -g[i] : g[i];
      d += o.weight_decay * p[i];
      if (o.momentum != 0) {
        if (buf.size() < p.size()) buf.push_back(d);
        else buf[i] = o.momentum * buf[i] + (1 - o.dampening) * d;
        d = o.nesterov ? d + o.momentum * buf[i] : buf[i];
      }
      p[i] -= o.lr * d;
    }
  }
  return p;
}

// The reference Adam / AdamW of torch.optim (_single_tensor_adam), on plain doubles.
Vec reference_adam(Vec p, const optim::AdamOptions& o, bool decoupled, int steps) {
  Vec m(p.size(), 0.0), v(p.size(), 0.0), vmax(p.size(), 0.0);
  for (int t = 1; t <= steps; ++t) {
    Vec g = grad_of(p);
    for (size_t i = 0; i < p.size(); ++i) {
      double d = o.maximize ? -g[i] : g[i];
      if (decoupled) p[i] *= 1 - o.lr * o.weight_decay;
      else d += o.weight_decay * p[i];
      m[i] = o.beta1 * m[i] + (1 - o.beta1) * d;
      v[i] = o.beta2 * v[i] + (1 - o.beta2) * d * d;
      vmax[i] = std::max(vmax[i], v[i]);
      double vhat = o.amsgrad ? vmax[i] : v[i];
      double denom = std::sqrt(vhat) / std::sqrt(1 - std::pow(o.beta2, t)) + o.eps;
      p[i] -= o.lr / (1 - std::pow(o.beta1, t)) * m[i] / denom;
    }
  }
  return p;
}

template <class Opt, class Options>
Tensor run(const Vec& p0, Options o, int steps) {
  Tensor p = param(p0);
  Opt opt({p}, o);
  for (int s = 0; s < steps; ++s) {
    backward_loss(opt);
    opt.step();
  }
  return p;
}

const Vec kStart{0.8, -1.5, 0.4};

}  // namespace

TEST(Optim, SGDMatchesPyTorchFormulas) {
  std::vector<optim::SGDOptions> cases{
      {.lr = 0.1},
      {.lr = 0.05, .momentum = 0.9},
      {.lr = 0.05, .momentum = 0.8, .dampening = 0.3, .weight_decay = 0.1},
      {.lr = 0.05, .momentum = 0.9, .weight_decay = 0.01, .nesterov = true},
      {.lr = 0.01, .momentum = 0.5, .maximize = true},
  };
  for (auto& o : cases) expect_near(run<optim::SGD>(kStart, o, 7), reference_sgd(kStart, o, 7), 1e-14);
}

TEST(Optim, AdamMatchesPyTorchFormulas) {
  std::vector<optim::AdamOptions> cases{
      {.lr = 0.1},
      {.lr = 0.05, .beta1 = 0.8, .beta2 = 0.99, .eps = 1e-6, .weight_decay = 0.1},
      {.lr = 0.1, .amsgrad = true},
      {.lr = 0.02, .maximize = true},
      {.lr = 0.05, .beta1 = 0.3, .weight_decay = 0.05, .amsgrad = true},  // PyTorch's lerp for weights >= 0.5
  };
  for (auto& o : cases) expect_near(run<optim::Adam>(kStart, o, 9), reference_adam(kStart, o, false, 9), 1e-14);
}

TEST(Optim, AdamWDecouplesWeightDecay) {
  std::vector<optim::AdamOptions> cases{
      optim::AdamW::defaults(),
      {.lr = 0.1, .weight_decay = 0.3},
      {.lr = 0.1, .weight_decay = 0.2, .amsgrad = true},
  };
  for (auto& o : cases) expect_near(run<optim::AdamW>(kStart, o, 9), reference_adam(kStart, o, true, 9), 1e-14);
  // With decay, AdamW and Adam differ: the decay bypasses the moment estimates.
  optim::AdamOptions o{.lr = 0.1, .weight_decay = 0.3};
  EXPECT_GT(std::abs(run<optim::AdamW>(kStart, o, 3).to_vector()[0] - run<optim::Adam>(kStart, o, 3).to_vector()[0]),
            1e-4);
}

TEST(Optim, AdamFirstStepMovesEachCoordinateByLr) {
  // Bias correction makes the first Adam step lr * sign(g) (up to eps), whatever the gradient scale.
  Tensor p = param({1.0, -2.0, 3.0});
  optim::Adam opt({p}, {.lr = 0.01});
  opt.zero_grad();
  sum(mul(p, from_vector<double>({0.5, -50.0, 7.0}, {3}))).backward();
  opt.step();
  expect_near(p, {1.0 - 0.01, -2.0 + 0.01, 3.0 - 0.01}, 1e-9);
}

TEST(Optim, UpdatesRebindLeavesWithoutHistory) {
  Tensor p = param({1.0, 2.0, 3.0});
  Tensor alias_of_p = p;  // another holder of the same tensor sees the update
  optim::SGD opt({p}, {.lr = 0.5});
  backward_loss(opt);
  opt.step();
  EXPECT_TRUE(p.is_leaf());
  EXPECT_TRUE(p.requires_grad());
  EXPECT_FALSE(p.grad_fn());
  expect_near(alias_of_p, reference_sgd({1.0, 2.0, 3.0}, {.lr = 0.5}, 1), 1e-15);
  EXPECT_EQ(opt.step_count(), 1);
}

TEST(Optim, ParametersWithoutGradientAreSkipped) {
  Tensor p = param({1.0, 2.0}), q = param({3.0, 4.0});
  optim::Adam opt({p, q}, {.lr = 0.1});
  opt.zero_grad();
  sum(square(p)).backward();
  opt.step();
  expect_near(q, {3.0, 4.0}, 0);
  EXPECT_NE(p.to_vector()[0], 1.0);
}

TEST(Optim, ZeroGradDropsOrZeroes) {
  Tensor p = param({1.0, 2.0});
  optim::SGD opt({p});
  sum(square(p)).backward();
  opt.zero_grad(false);
  ASSERT_TRUE(p.grad().defined());
  expect_near(p.grad(), {0.0, 0.0}, 0);
  opt.zero_grad();
  EXPECT_FALSE(p.grad().defined());
}

TEST(Optim, ClosureLossIsReturnedAndRecorded) {
  Tensor p = param({1.0, 2.0});
  optim::SGD opt({p}, {.lr = 0.1});
  NoGradGuard no_grad;  // the closure still records: the optimizer turns recording on for it
  Tensor loss = opt.step([&] {
    opt.zero_grad();
    Tensor l = sum(square(p));
    l.backward();
    return l;
  });
  EXPECT_DOUBLE_EQ(loss.item<double>(), 5.0);
  expect_near(p, {0.8, 1.6}, 1e-15);
  EXPECT_FALSE(opt.step().defined());  // no closure: no loss
}

TEST(Optim, Float32ParametersStayFloat32) {
  Tensor p = from_vector<float>({1.0f, -1.0f}, {2});
  p.set_requires_grad();
  optim::Adam opt({p}, {.lr = 0.1});
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    sum(square(p)).backward();
    opt.step();
  }
  EXPECT_EQ(p.dtype(), DType::Float32);
  EXPECT_EQ(opt.exp_avg(0).dtype(), DType::Float32);
  EXPECT_LT(std::abs(p.to_vector()[0]), 1.0);
}

TEST(Optim, LrCanBeScheduled) {
  Tensor p = param(kStart);
  optim::SGD opt({p}, {.lr = 0.1});
  opt.set_lr(0.25);
  EXPECT_EQ(opt.lr(), 0.25);
  backward_loss(opt);
  opt.step();
  expect_near(p, reference_sgd(kStart, {.lr = 0.25}, 1), 1e-15);
  EXPECT_THROW(opt.set_lr(-1), ValueError);
}

// ---- L-BFGS

namespace {

// f(x) = x^T A x / 2 - b^T x with A symmetric positive definite: the minimiser solves A x = b.
struct Quadratic {
  int64_t n = 12;
  Tensor A, b;
  Quadratic() {
    Vec a(n * n), bv(n);
    for (int64_t i = 0; i < n; ++i) {
      bv[i] = std::sin(1.0 + i);
      for (int64_t j = 0; j < n; ++j) a[i * n + j] = 1.0 / (1.0 + std::abs(double(i - j))) + (i == j ? double(i) : 0.0);
    }
    A = from_vector<double>(a, {n, n});
    b = from_vector<double>(bv, {n});
  }
  Tensor operator()(const Tensor& x) const { return sub(dot(x, matmul(A, x)) * 0.5, dot(b, x)); }
  Vec minimiser() const { return solve(A, b).to_vector(); }
};

Tensor rosenbrock(const Tensor& x) {
  int64_t n = x.shape(0);
  Tensor head = slice(x, 0, 0, n - 1), tail = slice(x, 0, 1, n);
  return sum(square(sub(head, 1.0)) + mul(square(tail - square(head)), 100.0));
}

template <class F>
optim::Closure closure_for(optim::Optimizer& opt, const Tensor& p, F f) {
  return [&opt, p, f] {
    opt.zero_grad();
    Tensor l = f(p);
    l.backward();
    return l;
  };
}

}  // namespace

TEST(Optim, LBFGSFirstIterationsMatchHandWrittenSteps) {
  // Without a line search: x1 = x0 - t g0 with t = min(1, 1 / |g0|_1) lr; then one curvature pair
  // (s, y) and the two-loop direction d = -H g1 with H = (s^T y / y^T y) I updated by the pair.
  Vec x0 = kStart;
  double lr = 0.7;
  Vec g0 = grad_of(x0);
  double l1 = 0;
  for (double g : g0) l1 += std::abs(g);
  double t0 = std::min(1.0, 1.0 / l1) * lr;
  Vec x1(3), s(3), y(3);
  for (int i = 0; i < 3; ++i) x1[i] = x0[i] - t0 * g0[i], s[i] = -t0 * g0[i];
  Vec g1 = grad_of(x1);
  for (int i = 0; i < 3; ++i) y[i] = g1[i] - g0[i];
  auto dotv = [](const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; };
  double ys = dotv(y, s), rho = 1 / ys, gamma = ys / dotv(y, y);
  Vec q(3), r(3), x2(3);
  for (int i = 0; i < 3; ++i) q[i] = -g1[i];
  double alpha = rho * dotv(s, q);
  for (int i = 0; i < 3; ++i) r[i] = gamma * (q[i] - alpha * y[i]);
  double beta = rho * dotv(y, r);
  for (int i = 0; i < 3; ++i) x2[i] = x1[i] + lr * (r[i] + (alpha - beta) * s[i]);

  Tensor p = param(x0);
  optim::LBFGS opt({p}, {.lr = lr, .max_iter = 1});
  auto c = [&] {
    opt.zero_grad();
    Tensor l = loss_of(p);
    l.backward();
    return l;
  };
  opt.step(c);
  expect_near(p, x1, 1e-15);
  opt.step(c);
  expect_near(p, x2, 1e-14);
  EXPECT_EQ(opt.iterations(), 2);
}

TEST(Optim, LBFGSMinimisesAQuadraticTo1e8) {
  Quadratic f;
  Vec want = f.minimiser();
  for (auto ls : {optim::LineSearch::StrongWolfe, optim::LineSearch::None}) {
    Tensor x = param(Vec(f.n, 0.0));
    optim::LBFGS opt({x}, {.max_iter = 100, .tolerance_grad = 1e-11, .tolerance_change = 0, .line_search = ls});
    opt.step(closure_for(opt, x, f));
    expect_near(x, want, 1e-8);
    EXPECT_LE(opt.iterations(), 100);
  }
}

TEST(Optim, LBFGSMinimisesRosenbrockTo1e8) {
  Tensor x = param({-1.2, 1.0, -0.5, 0.8, 1.3});
  optim::LBFGS opt({x}, {.max_iter = 500, .tolerance_grad = 1e-12, .tolerance_change = 1e-15,
                         .line_search = optim::LineSearch::StrongWolfe});
  Tensor first = opt.step(closure_for(opt, x, rosenbrock));
  EXPECT_NEAR(first.item<double>(), 24.2 + 225 + 32.5 + 43.6, 1e-12);  // the loss at the start
  expect_near(x, Vec(5, 1.0), 1e-8);
  EXPECT_LT(opt.function_evaluations(), 200);
}

TEST(Optim, LBFGSStepsResumeTheirHistory) {
  // Ten steps of max_iter 5 make the same iterates as one step of max_iter 50, as in PyTorch.
  Quadratic f;
  Tensor a = param(Vec(f.n, 0.0)), b = param(Vec(f.n, 0.0));
  optim::LBFGSOptions o{.max_iter = 5, .tolerance_grad = 0, .tolerance_change = 0, .history_size = 4,
                        .line_search = optim::LineSearch::StrongWolfe};
  optim::LBFGS oa({a}, o);
  for (int i = 0; i < 4; ++i) oa.step(closure_for(oa, a, f));
  o.max_iter = 20;
  optim::LBFGS ob({b}, o);
  ob.step(closure_for(ob, b, f));
  EXPECT_EQ(oa.iterations(), 20);
  EXPECT_EQ(ob.iterations(), 20);
  Vec va = a.to_vector(), vb = b.to_vector();
  for (size_t i = 0; i < va.size(); ++i) EXPECT_NEAR(va[i], vb[i], 1e-12);
}

TEST(Optim, FirstOrderMethodsConvergeOnAQuadratic) {
  Quadratic f;
  Vec want = f.minimiser();
  auto solve_with = [&](auto make, int steps) {
    Tensor x = param(Vec(f.n, 0.0));
    auto opt = make(x);
    for (int i = 0; i < steps; ++i) {
      opt.zero_grad();
      f(x).backward();
      opt.step();
    }
    return x;
  };
  // A has eigenvalues in about [0.5, 14.4]: plain gradient descent with lr < 2 / 14.4 converges.
  expect_near(solve_with([](Tensor x) { return optim::SGD({x}, {.lr = 0.1}); }, 2000), want, 1e-8);
  expect_near(solve_with([](Tensor x) { return optim::SGD({x}, {.lr = 0.05, .momentum = 0.9, .nesterov = true}); }, 600),
              want, 1e-8);
  expect_near(solve_with([](Tensor x) { return optim::Adam({x}, {.lr = 0.01}); }, 5000), want, 1e-5);
}

TEST(Optim, AdamApproachesRosenbrocksMinimum) {
  Tensor x = param({-1.2, 1.0});
  optim::Adam opt({x}, {.lr = 0.02});
  for (int i = 0; i < 6000; ++i) {
    opt.zero_grad();
    rosenbrock(x).backward();
    opt.step();
  }
  expect_near(x, {1.0, 1.0}, 1e-3);
}

TEST(Optim, RunsAreDeterministic) {
  auto once = [] {
    Tensor x = param({-1.2, 1.0, 0.3});
    optim::LBFGS opt({x}, {.max_iter = 30, .line_search = optim::LineSearch::StrongWolfe});
    opt.step(closure_for(opt, x, rosenbrock));
    return x.to_vector();
  };
  EXPECT_EQ(once(), once());
}

TEST(Optim, LBFGSStopsAtAStationaryStart) {
  Tensor x = param({1.0, 1.0});
  optim::LBFGS opt({x});
  Tensor loss = opt.step(closure_for(opt, x, rosenbrock));
  EXPECT_EQ(loss.item<double>(), 0.0);
  EXPECT_EQ(opt.iterations(), 0);
  EXPECT_EQ(opt.function_evaluations(), 1);
}

// ---- errors

TEST(Optim, BadOptionsNameTheAllowedRange) {
  Tensor p = param({1.0});
  EXPECT_NE(message_of<Error>([&] { optim::SGD({p}, {.lr = -0.1}); }).find("SGD: lr must be >= 0, got -0.1"), std::string::npos);
  EXPECT_NE(message_of<Error>([&] { optim::SGD({p}, {.momentum = -1}); }).find("momentum must be >= 0"), std::string::npos);
  EXPECT_NE(message_of<Error>([&] { optim::SGD({p}, {.nesterov = true}); }).find("nesterov needs momentum > 0 and dampening = 0"),
            std::string::npos);
  EXPECT_NE(message_of<Error>([&] { optim::Adam({p}, {.beta1 = 1.0}); }).find("Adam: beta1 (betas[0]) must be in [0, 1), got 1"),
            std::string::npos);
  EXPECT_NE(message_of<Error>([&] { optim::AdamW({p}, {.beta2 = -0.5}); }).find("AdamW: beta2 (betas[1]) must be in [0, 1)"),
            std::string::npos);
  EXPECT_NE(message_of<Error>([&] { optim::Adam({p}, {.eps = -1e-8}); }).find("eps must be >= 0"), std::string::npos);
  EXPECT_NE(message_of<Error>([&] { optim::Adam({p}, {.weight_decay = -1}); }).find("weight_decay must be >= 0"),
            std::string::npos);
  EXPECT_NE(message_of<Error>([&] { optim::LBFGS({p}, {.max_iter = 0}); }).find("LBFGS: max_iter must be >= 1"),
            std::string::npos);
  EXPECT_NE(message_of<Error>([&] { optim::LBFGS({p}, {.history_size = 0}); }).find("history_size must be >= 1"),
            std::string::npos);
  EXPECT_NE(message_of<Error>([&] { optim::LBFGS({p}, {.tolerance_grad = -1}); }).find("tolerance_grad must be >= 0"),
            std::string::npos);
  EXPECT_THROW(optim::LBFGS({p}, {.lr = -1}), ValueError);
}

TEST(Optim, BadParametersAreRejected) {
  Tensor leaf = param({1.0, 2.0});
  Tensor computed = mul(leaf, 2.0);
  Tensor frozen = from_vector<double>({1.0}, {1});
  Tensor ints = from_vector<int64_t>({1}, {1});
  EXPECT_NE(message_of<Error>([] { optim::SGD(Tensors{}); }).find("SGD: got an empty parameter list"), std::string::npos);
  EXPECT_NE(message_of<Error>([&] { optim::Adam({computed}); }).find("parameter 0 is not a leaf (it was computed by 'mul')"),
            std::string::npos);
  EXPECT_NE(message_of<Error>([&] { optim::SGD({frozen}); }).find("does not require grad"), std::string::npos);
  EXPECT_NE(message_of<Error>([&] { optim::SGD({leaf, leaf}); }).find("parameter 1 is the same tensor as parameter 0"),
            std::string::npos);
  EXPECT_NE(message_of<Error>([&] { optim::SGD({ints}); }).find("must be float32 or float64"), std::string::npos);
  Tensor f32 = from_vector<float>({1.0f}, {1});
  f32.set_requires_grad();
  EXPECT_NE(message_of<Error>([&] { optim::LBFGS({leaf, f32}); }).find("share one dtype and device"), std::string::npos);
  optim::LBFGS opt({leaf});
  optim::Optimizer& base = opt;  // the closure is required; through the base class it is checked at run time
  EXPECT_NE(message_of<Error>([&] { base.step(); }).find("LBFGS: step needs a closure"), std::string::npos);
  optim::SGD sgd({leaf});
  EXPECT_NE(message_of<Error>([&] { sgd.step([&] { return leaf; }); }).find("closure must return the loss as a one-element"),
            std::string::npos);
}

// --- RMSprop, clipping, schedulers, state_dict ----------------------------------------------------

namespace {

// The reference RMSprop of torch.optim (_single_tensor_rmsprop), on plain doubles.
Vec reference_rmsprop(Vec p, const optim::RMSpropOptions& o, int steps) {
  Vec v(p.size(), 0.0), m(p.size(), 0.0), b(p.size(), 0.0);
  for (int s = 0; s < steps; ++s) {
    Vec g = grad_of(p);
    for (size_t i = 0; i < p.size(); ++i) {
      double d = o.maximize ? -g[i] : g[i];
      d += o.weight_decay * p[i];
      v[i] = o.alpha * v[i] + (1 - o.alpha) * d * d;
      double avg;
      if (o.centered) {
        m[i] = m[i] + (1 - o.alpha) * (d - m[i]);
        avg = std::sqrt(v[i] - m[i] * m[i]) + o.eps;
      } else {
        avg = std::sqrt(v[i]) + o.eps;
      }
      if (o.momentum > 0) {
        b[i] = o.momentum * b[i] + d / avg;
        p[i] -= o.lr * b[i];
      } else {
        p[i] -= o.lr * d / avg;
      }
    }
  }
  return p;
}

// Two parameters, so per-parameter state keys for more than one index are exercised.
Tensor two_param_loss(const Tensors& ps) { return add(loss_of(ps[0]), sum(square(square(ps[1])))); }

template <class Opt, class Options>
std::pair<Vec, Vec> train_with_resume(const Options& o, int first, int second, bool resume) {
  Tensor a = param(kStart), b = param({0.5, -0.25});
  auto opt = std::make_unique<Opt>(Tensors{a, b}, o);
  auto steps = [&](Opt& opt, int n) {
    for (int s = 0; s < n; ++s) {
      opt.zero_grad();
      two_param_loss(opt.params()).backward();
      opt.step();
    }
  };
  steps(*opt, first);
  if (resume) {
    optim::StateDict state = opt->state_dict();
    opt = std::make_unique<Opt>(Tensors{a, b}, o);
    opt->load_state_dict(state);
    EXPECT_EQ(opt->step_count(), first);
  }
  steps(*opt, second);
  return {a.to_vector(), b.to_vector()};
}

void expect_bitwise(const Vec& x, const Vec& y) {
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(x[i], y[i]) << "at " << i;
}

template <class Opt, class Options>
void expect_resume_bitwise(const Options& o) {
  auto straight = train_with_resume<Opt>(o, 10, 0, false);
  auto resumed = train_with_resume<Opt>(o, 5, 5, true);
  expect_bitwise(straight.first, resumed.first);
  expect_bitwise(straight.second, resumed.second);
}

}  // namespace

TEST(Optim, RMSpropMatchesPyTorchFormulas) {
  std::vector<optim::RMSpropOptions> cases{
      {.lr = 0.01},
      {.lr = 0.02, .alpha = 0.9, .eps = 1e-6, .weight_decay = 0.1},
      {.lr = 0.01, .momentum = 0.9},
      {.lr = 0.01, .momentum = 0.5, .centered = true},
      {.lr = 0.01, .centered = true, .maximize = true},
  };
  for (auto& o : cases) expect_near(run<optim::RMSprop>(kStart, o, 9), reference_rmsprop(kStart, o, 9), 1e-13);
}

TEST(Optim, StateDictResumesBitForBit) {
  expect_resume_bitwise<optim::SGD>(optim::SGDOptions{.lr = 0.05, .momentum = 0.9, .nesterov = true});
  expect_resume_bitwise<optim::Adam>(optim::AdamOptions{.lr = 0.05, .weight_decay = 0.1, .amsgrad = true});
  expect_resume_bitwise<optim::AdamW>(optim::AdamW::defaults());
  expect_resume_bitwise<optim::RMSprop>(optim::RMSpropOptions{.lr = 0.01, .momentum = 0.9, .centered = true});
}

TEST(Optim, LBFGSStateDictResumesBitForBit) {
  Quadratic f;
  optim::LBFGSOptions o{.max_iter = 3, .tolerance_grad = 0, .tolerance_change = 0, .history_size = 4,
                        .line_search = optim::LineSearch::StrongWolfe};
  Tensor a = param(Vec(f.n, 0.0)), b = param(Vec(f.n, 0.0));
  optim::LBFGS straight({a}, o);
  for (int i = 0; i < 4; ++i) straight.step(closure_for(straight, a, f));
  auto first = std::make_unique<optim::LBFGS>(Tensors{b}, o);
  for (int i = 0; i < 2; ++i) first->step(closure_for(*first, b, f));
  optim::StateDict state = first->state_dict();
  EXPECT_TRUE(state.contains("state.0.old_dirs.1"));  // curvature pairs carried across the save
  first.reset();
  optim::LBFGS resumed({b}, o);
  resumed.load_state_dict(state);
  for (int i = 0; i < 2; ++i) resumed.step(closure_for(resumed, b, f));
  expect_bitwise(a.to_vector(), b.to_vector());
  EXPECT_EQ(straight.function_evaluations(), resumed.function_evaluations());
}

TEST(Optim, StateDictNamesItsEntriesAndRejectsMismatches) {
  Tensor a = param(kStart);
  optim::Adam opt({a}, {.lr = 0.1});
  EXPECT_FALSE(opt.state_dict().contains("state.0.exp_avg"));  // nothing before the first update
  backward_loss(opt);
  opt.step();
  optim::StateDict s = opt.state_dict();
  std::vector<std::string> keys;
  for (auto& [k, v] : s.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"lr", "step_count", "param_groups.0.params", "param_groups.0.lr",
                                            "param_groups.0.betas.0", "param_groups.0.betas.1", "param_groups.0.eps",
                                            "param_groups.0.weight_decay", "param_groups.0.amsgrad",
                                            "param_groups.0.maximize", "state.0.step", "state.0.exp_avg",
                                            "state.0.exp_avg_sq"}));
  Tensor other = param({1.0, 2.0});
  optim::Adam wrong({other}, {});
  try {
    wrong.load_state_dict(s);
    FAIL() << "expected a ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("state.0.exp_avg"), std::string::npos) << e.what();
  }
  optim::StateDict missing;
  missing.set("lr", 0.1);
  try {
    opt.load_state_dict(missing);
    FAIL() << "expected a ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("step_count"), std::string::npos) << e.what();
  }
}

TEST(Optim, ClipGradNormMatchesPyTorch) {
  Tensor a = param({3.0, -4.0}), b = param({12.0});
  a.set_grad(from_vector<double>({3.0, -4.0}, {2}));
  b.set_grad(from_vector<double>({12.0}, {1}));
  Tensor total = optim::clip_grad_norm_({a, b}, 6.5);
  EXPECT_DOUBLE_EQ(total.item<double>(), 13.0);  // sqrt(9 + 16 + 144)
  double coef = 6.5 / (13.0 + 1e-6);
  expect_near(a.grad(), {3 * coef, -4 * coef}, 1e-15);
  expect_near(b.grad(), {12 * coef}, 1e-15);
  // The infinity norm is the largest |g|; a norm under max_norm leaves the gradients as they are.
  EXPECT_DOUBLE_EQ(optim::clip_grad_norm_({a, b}, 100.0, INFINITY).item<double>(), 12 * coef);
  expect_near(b.grad(), {12 * coef}, 1e-15);
  // p = 1: the sum of |g|.
  a.set_grad(from_vector<double>({1.0, -2.0}, {2}));
  b.set_grad(from_vector<double>({3.0}, {1}));
  EXPECT_DOUBLE_EQ(optim::clip_grad_norm_({a, b}, 100.0, 1.0).item<double>(), 6.0);
  b.set_grad(from_vector<double>({NAN}, {1}));
  EXPECT_THROW(optim::clip_grad_norm_({a, b}, 1.0, 2.0, true), ValueError);
}

TEST(Optim, ClipGradValueClamps) {
  Tensor a = param({0.0, 0.0, 0.0});
  a.set_grad(from_vector<double>({-3.0, 0.5, 2.0}, {3}));
  optim::clip_grad_value_({a}, 1.0);
  expect_near(a.grad(), {-1.0, 0.5, 1.0}, 0);
}

TEST(Scheduler, StepExponentialCosineFollowTheirFormulas) {
  Tensor p = param(kStart);
  optim::SGD opt({p}, {.lr = 0.1});
  optim::StepLR step(opt, 3, 0.5);
  for (int e = 0; e < 10; ++e) {
    EXPECT_NEAR(step.get_last_lr()[0], 0.1 * std::pow(0.5, e / 3), 1e-15) << e;
    EXPECT_EQ(opt.lr(), step.get_last_lr()[0]);
    step.step();
  }
  optim::SGD opt2({param(kStart)}, {.lr = 0.2});
  optim::ExponentialLR expo(opt2, 0.9);
  for (int e = 0; e < 10; ++e, expo.step()) EXPECT_NEAR(expo.get_last_lr()[0], 0.2 * std::pow(0.9, e), 1e-15);
  optim::SGD opt3({param(kStart)}, {.lr = 0.2});
  optim::CosineAnnealingLR cosine(opt3, 10, 0.01);
  for (int e = 0; e <= 25; ++e, cosine.step())
    EXPECT_NEAR(cosine.get_last_lr()[0], 0.01 + 0.19 * (1 + std::cos(M_PI * e / 10)) / 2, 1e-14) << e;
}

TEST(Scheduler, WarmupCosineFollowsItsFormula) {
  optim::SGD opt({param(kStart)}, {.lr = 1.0});
  optim::WarmupCosineLR s(opt, 4, 14, 0.1, 0.2);
  for (int e = 0; e <= 20; ++e, s.step()) {
    double want = e < 4 ? 0.2 + 0.8 * e / 4.0 : e > 14 ? 0.1 : 0.1 + 0.9 * (1 + std::cos(M_PI * (e - 4) / 10.0)) / 2;
    EXPECT_NEAR(s.get_last_lr()[0], want, 1e-15) << e;
  }
}

TEST(Scheduler, OneCycleCyclesLrAndMomentum) {
  optim::SGD opt({param(kStart)}, {.lr = 0.1, .momentum = 0.9});
  optim::OneCycleLR s(opt, {.max_lr = 1.0, .total_steps = 100});
  EXPECT_NEAR(s.get_last_lr()[0], 1.0 / 25, 1e-16);
  EXPECT_DOUBLE_EQ(opt.momentum(), 0.95);
  double peak = 0;
  for (int i = 0; i < 99; ++i) {
    s.step();
    peak = std::max(peak, s.get_last_lr()[0]);
    if (i == 28) EXPECT_DOUBLE_EQ(opt.momentum(), 0.85);  // step 29 = pct_start 100 - 1: the peak
  }
  EXPECT_DOUBLE_EQ(peak, 1.0);
  EXPECT_NEAR(s.get_last_lr()[0], 1.0 / 25 / 1e4, 1e-18);
  EXPECT_DOUBLE_EQ(opt.momentum(), 0.95);
  s.step();  // step 100 is allowed, as in PyTorch; 101 is not
  EXPECT_THROW(s.step(), ValueError);
  optim::LBFGS lbfgs({param(kStart)});
  EXPECT_THROW(optim::OneCycleLR(lbfgs, {.max_lr = 1.0, .total_steps = 10}), ValueError);
}

TEST(Scheduler, ReduceLROnPlateauWaitsPatienceThenCoolsDown) {
  optim::SGD opt({param(kStart)}, {.lr = 1.0});
  optim::ReduceLROnPlateau s(opt, {.factor = 0.5, .patience = 2, .cooldown = 1, .min_lr = 0.2});
  std::vector<double> metrics{1.0, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9};
  std::vector<double> lrs;
  for (double m : metrics) {
    s.step(m);
    lrs.push_back(opt.lr());
  }
  // Bad epochs 1, 2, 3 (> patience) reduce at the 5th metric; then one cooldown epoch, then 3 more.
  EXPECT_EQ(lrs, (std::vector<double>{1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25}));
  for (int i = 0; i < 10; ++i) s.step(0.9);
  EXPECT_EQ(opt.lr(), 0.2);  // min_lr
  EXPECT_THROW(s.step(), ValueError);
}

TEST(Scheduler, StateDictResumesBitForBit) {
  auto run_schedule = [](bool resume) {
    Tensor p = param(kStart);
    auto opt = std::make_unique<optim::Adam>(Tensors{p}, optim::AdamOptions{.lr = 0.1});
    auto sched = std::make_unique<optim::OneCycleLR>(*opt, optim::OneCycleOptions{.max_lr = 0.3, .total_steps = 10});
    auto cosine_opt = std::make_unique<optim::SGD>(Tensors{param(kStart)}, optim::SGDOptions{.lr = 0.1});
    auto cosine = std::make_unique<optim::CosineAnnealingLR>(*cosine_opt, 4);
    for (int i = 0; i < 10; ++i) {
      if (resume && i == 5) {
        optim::StateDict os = opt->state_dict(), ss = sched->state_dict();
        optim::StateDict cos_os = cosine_opt->state_dict(), cos_ss = cosine->state_dict();
        sched.reset(), cosine.reset();
        opt = std::make_unique<optim::Adam>(Tensors{p}, optim::AdamOptions{.lr = 0.1});
        sched = std::make_unique<optim::OneCycleLR>(*opt, optim::OneCycleOptions{.max_lr = 0.3, .total_steps = 10});
        opt->load_state_dict(os);
        sched->load_state_dict(ss);
        cosine_opt = std::make_unique<optim::SGD>(Tensors{param(kStart)}, optim::SGDOptions{.lr = 0.1});
        cosine = std::make_unique<optim::CosineAnnealingLR>(*cosine_opt, 4);
        cosine_opt->load_state_dict(cos_os);
        cosine->load_state_dict(cos_ss);
      }
      backward_loss(*opt);
      opt->step();
      sched->step();
      cosine->step();
    }
    Vec out = p.to_vector();
    out.push_back(cosine->get_last_lr()[0]);
    out.push_back(opt->momentum());
    return out;
  };
  expect_bitwise(run_schedule(false), run_schedule(true));
}

// --- parameter groups ----------------------------------------------------------------------------

namespace {

using optim::ParamGroup;

// The reference for one optimizer over two groups: two one-group optimizers, one per parameter, each
// with its group's options. The updates must agree to the bit, as a group's update uses only its own
// options and state (the one-group updates are checked against PyTorch's formulas above).
template <class Opt, class Options>
void expect_groups_match_separate(const Options& defaults, const std::type_identity_t<Options>& first,
                                  std::optional<std::type_identity_t<Options>> second, int steps = 12) {
  Tensor a = param(kStart), b = param({0.5, -0.25});
  Opt grouped(std::vector<ParamGroup<Options>>{{{a}, first}, {{b}, second}}, defaults);
  Tensor ra = param(kStart), rb = param({0.5, -0.25});
  Opt ref_a(Tensors{ra}, first), ref_b(Tensors{rb}, second.value_or(defaults));
  for (int s = 0; s < steps; ++s) {
    grouped.zero_grad();
    two_param_loss({a, b}).backward();
    grouped.step();
    ref_a.zero_grad(), ref_b.zero_grad();
    two_param_loss({ra, rb}).backward();
    ref_a.step(), ref_b.step();
  }
  expect_bitwise(a.to_vector(), ra.to_vector());
  expect_bitwise(b.to_vector(), rb.to_vector());
  // And the groups really differ: the same run with the first group's options everywhere does not agree.
  if (second && steps > 0) {
    Tensor c = param({0.5, -0.25});
    Opt same(Tensors{c}, first);
    for (int s = 0; s < steps; ++s) {
      same.zero_grad();
      sum(square(square(c))).backward();
      same.step();
    }
    EXPECT_NE(c.to_vector(), b.to_vector());
  }
}

template <class Opt>
std::vector<double> group_lrs(const Opt& opt) {
  std::vector<double> out;
  for (size_t g = 0; g < opt.num_param_groups(); ++g) out.push_back(opt.lr(g));
  return out;
}

}  // namespace

TEST(ParamGroups, EachGroupStepsWithItsOwnOptions) {
  expect_groups_match_separate<optim::SGD>(optim::SGDOptions{.lr = 0.01},
                                           {.lr = 0.05, .momentum = 0.9, .nesterov = true},
                                           optim::SGDOptions{.lr = 0.02, .momentum = 0.5, .dampening = 0.1,
                                                             .weight_decay = 0.1});
  expect_groups_match_separate<optim::Adam>(optim::AdamOptions{}, {.lr = 0.05, .weight_decay = 0.1},
                                            optim::AdamOptions{.lr = 0.01, .beta1 = 0.8, .amsgrad = true});
  expect_groups_match_separate<optim::AdamW>(optim::AdamW::defaults(), {.lr = 0.05, .weight_decay = 0.2},
                                             optim::AdamOptions{.lr = 0.02, .weight_decay = 0, .maximize = true});
  expect_groups_match_separate<optim::RMSprop>(optim::RMSpropOptions{}, {.lr = 0.01, .momentum = 0.9, .centered = true},
                                               optim::RMSpropOptions{.lr = 0.005, .alpha = 0.9, .weight_decay = 0.05});
}

TEST(ParamGroups, AGroupWithoutOptionsTakesTheDefaults) {
  expect_groups_match_separate<optim::Adam>(optim::AdamOptions{.lr = 0.03, .weight_decay = 0.1}, {.lr = 0.05},
                                            std::nullopt);
  Tensor a = param(kStart), b = param({1.0});
  optim::SGD opt(std::vector<ParamGroup<optim::SGDOptions>>{{{a}, optim::SGDOptions{.lr = 0.5}}, {{b}}},
                 {.lr = 0.1, .momentum = 0.9});
  EXPECT_EQ(opt.options(1).lr, 0.1);
  EXPECT_EQ(opt.options(1).momentum, 0.9);
  EXPECT_EQ(opt.options(0).momentum, 0.0);  // a group's options are all its own
  EXPECT_EQ(opt.defaults().lr, 0.1);
}

TEST(ParamGroups, EditedOptionsApplyFromTheNextStep) {
  Tensor a = param(kStart), b = param(kStart);
  optim::SGD opt(std::vector<ParamGroup<optim::SGDOptions>>{{{a}}, {{b}}}, {.lr = 0.1});
  for (auto& g : opt.param_groups()) g.options.weight_decay = 0.2;
  opt.param_groups()[1].options.lr = 0.3;
  EXPECT_EQ(opt.param_groups()[1].params.size(), 1u);
  EXPECT_TRUE(opt.param_groups()[1].params[0].same(b));
  auto step = [&] {
    opt.zero_grad();
    add(loss_of(a), loss_of(b)).backward();
    opt.step();
  };
  step();
  expect_near(a, reference_sgd(kStart, {.lr = 0.1, .weight_decay = 0.2}, 1), 1e-15);
  expect_near(b, reference_sgd(kStart, {.lr = 0.3, .weight_decay = 0.2}, 1), 1e-15);
  // lr() is group 0's; set_lr(lr) sets every group's; set_lr(g, lr) one group's.
  EXPECT_EQ(opt.lr(), 0.1);
  opt.set_lr(0.05);
  EXPECT_EQ(group_lrs(opt), (std::vector<double>{0.05, 0.05}));
  opt.set_lr(1, 0.07);
  EXPECT_EQ(group_lrs(opt), (std::vector<double>{0.05, 0.07}));
  EXPECT_NE(message_of<Error>([&] { opt.set_lr(1, -1.0); }).find("SGD param group 1: lr must be >= 0, got -1"), std::string::npos);
  EXPECT_NE(message_of<Error>([&] { opt.set_lr(-1.0); }).find("lr must be >= 0"), std::string::npos);
  EXPECT_EQ(group_lrs(opt), (std::vector<double>{0.05, 0.07}));  // a refused rate changes no group
  // An edit out of range is refused at the next step, naming the group, before any parameter moves.
  opt.options(1).momentum = -0.5;
  Vec before = a.to_vector();
  EXPECT_NE(message_of<Error>(step).find("SGD param group 1: momentum must be >= 0, got -0.5"), std::string::npos);
  EXPECT_EQ(a.to_vector(), before);
  opt.options(1).momentum = 0;
  step();
}

TEST(ParamGroups, AddParamGroupRefusesAParameterInAnotherGroup) {
  Tensor a = param(kStart), b = param({1.0}), c = param({2.0, 3.0});
  optim::Adam opt(Tensors{a}, {.lr = 0.1});
  opt.add_param_group({{b, c}, optim::AdamOptions{.lr = 0.01}});
  opt.add_param_group({{param({4.0})}});
  ASSERT_EQ(opt.num_param_groups(), 3u);
  EXPECT_EQ(opt.params().size(), 4u);
  EXPECT_EQ(group_lrs(opt), (std::vector<double>{0.1, 0.01, 0.1}));  // the third takes the defaults
  EXPECT_EQ(opt.param_range(1), (std::pair<size_t, size_t>{1, 3}));
  EXPECT_NE(message_of<Error>([&] { opt.add_param_group({{param({5.0}), c}}); })
                .find("Adam: parameter 1 of param group 3 is already in param group 1 (its parameter 1)"),
            std::string::npos);
  Tensor d = param({7.0});
  EXPECT_NE(message_of<Error>([&] { opt.add_param_group({{d, d}}); }).find("parameter 1 of param group 3 is the same tensor as parameter 0"),
            std::string::npos);
  EXPECT_NE(message_of<Error>([&] { opt.add_param_group({{param({6.0})}, optim::AdamOptions{.eps = -1}}); })
                .find("Adam param group 3: eps must be >= 0"),
            std::string::npos);
  EXPECT_EQ(opt.num_param_groups(), 3u);  // nothing was added by the refused calls
  EXPECT_NE(message_of<Error>([&] {
              optim::SGD(std::vector<ParamGroup<optim::SGDOptions>>{{{a}}, {{b, a}}});
            }).find("parameter 1 of param group 1 is already in param group 0 (its parameter 0)"),
            std::string::npos);
  // A group added after some steps is stepped from then on.
  for (int i = 0; i < 2; ++i) {
    opt.zero_grad();
    add(loss_of(a), sum(square(c))).backward();
    opt.step();
  }
  EXPECT_NE(c.to_vector(), (Vec{2.0, 3.0}));
}

TEST(ParamGroups, LBFGSTakesOneGroupOnly) {
  Tensor a = param(kStart), b = param({1.0});
  EXPECT_NE(message_of<Error>([&] {
              optim::LBFGS(std::vector<ParamGroup<optim::LBFGSOptions>>{{{a}}, {{b}}});
            }).find("LBFGS doesn't support per-parameter options (parameter groups)"),
            std::string::npos);
  optim::LBFGS opt(std::vector<ParamGroup<optim::LBFGSOptions>>{{{a}, optim::LBFGSOptions{.max_iter = 4}}});
  EXPECT_EQ(opt.options().max_iter, 4);
  EXPECT_EQ(opt.options().max_eval, 5);  // max_iter * 5 / 4, fixed when given
  EXPECT_NE(message_of<Error>([&] { opt.add_param_group({{b}}); }).find("LBFGS doesn't support per-parameter options"),
            std::string::npos);
}

TEST(ParamGroups, StateDictHasEachGroupAndResumesBitForBit) {
  // Two groups with different options; the resumed optimizer is built with other options, which the
  // state restores, as PyTorch's load_state_dict does.
  auto run = [](bool resume) {
    Tensor a = param(kStart), b = param({0.5, -0.25});
    auto make = [&](double lr0) {
      return std::make_unique<optim::Adam>(
          std::vector<ParamGroup<optim::AdamOptions>>{{{a}, optim::AdamOptions{.lr = lr0, .amsgrad = true}}, {{b}}},
          optim::AdamOptions{.lr = 0.02, .weight_decay = 0.1});
    };
    auto opt = make(0.05);
    auto sched = std::make_unique<optim::OneCycleLR>(*opt, optim::OneCycleOptions{.max_lr = {0.1, 0.03}, .total_steps = 12});
    for (int i = 0; i < 12; ++i) {
      if (resume && i == 6) {
        optim::StateDict os = opt->state_dict(), ss = sched->state_dict();
        EXPECT_EQ(os.tensor("param_groups.1.params").to_vector(), (Vec{1}));
        EXPECT_EQ(os.integer("param_groups.0.amsgrad"), 1);
        EXPECT_EQ(os.number("param_groups.1.weight_decay"), 0.1);
        EXPECT_TRUE(os.contains("param_groups.1.initial_lr"));
        EXPECT_TRUE(os.contains("state.1.exp_avg"));
        EXPECT_EQ(ss.number("base_lrs.1"), 0.03 / 25);
        sched.reset();
        opt = make(0.5);
        sched = std::make_unique<optim::OneCycleLR>(*opt, optim::OneCycleOptions{.max_lr = {0.1, 0.03}, .total_steps = 12});
        opt->load_state_dict(os);
        sched->load_state_dict(ss);
        EXPECT_TRUE(opt->options(0).amsgrad);
      }
      opt->zero_grad();
      two_param_loss({a, b}).backward();
      opt->step();
      sched->step();
    }
    Vec out = a.to_vector();
    for (double x : b.to_vector()) out.push_back(x);
    for (size_t g = 0; g < 2; ++g) out.push_back(opt->lr(g)), out.push_back(opt->momentum(g));
    return out;
  };
  expect_bitwise(run(false), run(true));
}

TEST(ParamGroups, LoadStateDictNamesMismatchedGroupsAndChangesNothing) {
  Tensor a = param(kStart), b = param({1.0}), c = param({2.0});
  optim::SGD two(std::vector<ParamGroup<optim::SGDOptions>>{{{a}}, {{b, c}}}, {.lr = 0.1, .momentum = 0.9});
  two.zero_grad();
  add(loss_of(a), sum(square(add(b, c)))).backward();
  two.step();
  optim::StateDict state = two.state_dict();

  optim::SGD one(Tensors{param(kStart), param({1.0}), param({2.0})}, {.lr = 0.3});
  EXPECT_NE(message_of<Error>([&] { one.load_state_dict(state); })
                .find("SGD.load_state_dict: the state has a different number of parameter groups: 2 in the state, 1 in this optimizer"),
            std::string::npos);
  optim::SGD sizes(std::vector<ParamGroup<optim::SGDOptions>>{{{param(kStart)}}, {{param({1.0})}}}, {.lr = 0.3});
  EXPECT_NE(message_of<Error>([&] { sizes.load_state_dict(state); })
                .find("param group 1 has 2 parameters in the state and 1 in this optimizer"),
            std::string::npos);
  optim::SGD shapes(std::vector<ParamGroup<optim::SGDOptions>>{{{param(kStart)}}, {{param({1.0}), param({2.0, 3.0})}}},
                    {.lr = 0.3});
  EXPECT_NE(message_of<Error>([&] { shapes.load_state_dict(state); }).find("'state.2.momentum_buffer' has shape [1]"),
            std::string::npos);
  optim::StateDict bad = state;
  bad.set("param_groups.1.lr", -1.0);
  optim::SGD fine(std::vector<ParamGroup<optim::SGDOptions>>{{{param(kStart)}}, {{param({1.0}), param({2.0})}}},
                  {.lr = 0.3});
  EXPECT_NE(message_of<Error>([&] { fine.load_state_dict(bad); }).find("SGD.load_state_dict: SGD param group 1: lr must be >= 0"),
            std::string::npos);
  // Every refusal left the optimizer as it was.
  for (optim::SGD* o : {&one, &sizes, &shapes, &fine}) {
    EXPECT_EQ(o->lr(), 0.3);
    EXPECT_EQ(o->step_count(), 0);
  }
  fine.load_state_dict(state);
  EXPECT_EQ(group_lrs(fine), (std::vector<double>{0.1, 0.1}));
  EXPECT_EQ(fine.options(1).momentum, 0.9);
  EXPECT_EQ(fine.step_count(), 1);
}

TEST(ParamGroups, FlatStateDictsFromBeforeGroupsLoad) {
  // The layout written before parameter groups: "lr", "step_count", "momentum" and "state.<i>.<name>".
  Tensor p = param(kStart);
  optim::StateDict old;
  old.set("lr", 0.25);
  old.set("step_count", int64_t(3));
  old.set("momentum", 0.5);
  old.set("state.0.momentum_buffer", from_vector<double>({1.0, 2.0, 3.0}, {3}));
  optim::SGD opt(Tensors{p}, {.lr = 0.1, .momentum = 0.9});
  opt.load_state_dict(old);
  EXPECT_EQ(opt.lr(), 0.25);
  EXPECT_EQ(opt.momentum(), 0.5);
  EXPECT_EQ(opt.step_count(), 3);
  opt.zero_grad();
  loss_of(p).backward();
  opt.step();
  Vec g = grad_of(kStart), want(3);
  for (size_t i = 0; i < 3; ++i) want[i] = kStart[i] - 0.25 * (0.5 * double(i + 1) + g[i]);
  expect_near(p, want, 1e-15);
  // A scheduler's: one "base_lr" and "last_lr" for the (one) group.
  optim::StateDict old_schedule;
  old_schedule.set("last_epoch", int64_t(4));
  old_schedule.set("step_count", int64_t(5));
  old_schedule.set("base_lr", 0.5);
  old_schedule.set("last_lr", 0.125);
  optim::StepLR s(opt, 2, 0.5);
  s.load_state_dict(old_schedule);
  EXPECT_EQ(s.base_lrs(), (std::vector<double>{0.5}));
  EXPECT_EQ(s.get_last_lr(), (std::vector<double>{0.125}));
  EXPECT_EQ(s.last_epoch(), 4);
}

TEST(Scheduler, EachGroupFollowsItsOwnSchedule) {
  // A schedule over two groups gives each group the rates it would get alone (to the bit).
  auto rates = [](auto make, std::vector<double> lrs, int epochs) {
    Tensors ps;
    std::vector<ParamGroup<optim::SGDOptions>> groups;
    for (double lr : lrs) groups.push_back({{param({1.0})}, optim::SGDOptions{.lr = lr, .momentum = 0.9}});
    optim::SGD opt(groups);
    auto s = make(opt);
    std::vector<Vec> out(lrs.size());
    for (int e = 0; e < epochs; ++e, s->step())
      for (size_t g = 0; g < lrs.size(); ++g) {
        out[g].push_back(s->get_last_lr()[g]);
        EXPECT_EQ(opt.lr(g), s->get_last_lr()[g]);
      }
    return out;
  };
  auto check = [&](auto make, int epochs) {
    auto both = rates(make, {0.1, 0.02}, epochs);
    EXPECT_EQ(both[0], rates(make, {0.1}, epochs)[0]);
    EXPECT_EQ(both[1], rates(make, {0.02}, epochs)[0]);
    EXPECT_NE(both[0], both[1]);
  };
  check([](optim::Optimizer& o) { return std::make_unique<optim::StepLR>(o, 3, 0.5); }, 12);
  check([](optim::Optimizer& o) { return std::make_unique<optim::ExponentialLR>(o, 0.9); }, 12);
  check([](optim::Optimizer& o) { return std::make_unique<optim::CosineAnnealingLR>(o, 5, 0.001); }, 23);
  check([](optim::Optimizer& o) { return std::make_unique<optim::WarmupCosineLR>(o, 3, 10, 0.001, 0.1); }, 14);
  // OneCycleLR: max_lr and base_momentum per group; each group's rate and momentum as a one-group
  // schedule with its own values.
  auto one_cycle = [](optim::PerGroup max_lr, optim::PerGroup base_momentum, size_t groups) {
    std::vector<ParamGroup<optim::SGDOptions>> gs;
    for (size_t g = 0; g < groups; ++g) gs.push_back({{param({1.0})}});
    optim::SGD opt(gs, {.lr = 0.1, .momentum = 0.9});
    optim::OneCycleLR s(opt, {.max_lr = max_lr, .total_steps = 20, .base_momentum = base_momentum});
    std::vector<Vec> out(groups);
    for (int i = 0; i < 20; ++i, s.step())
      for (size_t g = 0; g < groups; ++g) out[g].push_back(opt.lr(g)), out[g].push_back(opt.momentum(g));
    EXPECT_EQ(s.base_lrs().size(), groups);
    return out;
  };
  auto both = one_cycle({1.0, 0.1}, {0.8, 0.85}, 2);
  EXPECT_EQ(both[0], one_cycle(1.0, 0.8, 1)[0]);
  EXPECT_EQ(both[1], one_cycle(0.1, 0.85, 1)[0]);
  // ReduceLROnPlateau: min_lr per group.
  optim::SGD opt(std::vector<ParamGroup<optim::SGDOptions>>{{{param({1.0})}, optim::SGDOptions{.lr = 1.0}},
                                                            {{param({1.0})}, optim::SGDOptions{.lr = 0.5}}});
  optim::ReduceLROnPlateau plateau(opt, {.factor = 0.5, .patience = 0, .min_lr = {0.2, 0.1}});
  for (int i = 0; i < 3; ++i) plateau.step(1.0);  // the first metric is an improvement, then two reductions
  EXPECT_EQ(plateau.get_last_lr(), (std::vector<double>{0.25, 0.125}));
  for (int i = 0; i < 3; ++i) plateau.step(1.0);
  EXPECT_EQ(group_lrs(opt), (std::vector<double>{0.2, 0.1}));  // each at its own min_lr
}

TEST(Scheduler, PerGroupValuesMustMatchTheGroups) {
  Tensor a = param(kStart), b = param({1.0});
  optim::SGD opt(std::vector<ParamGroup<optim::SGDOptions>>{{{a}}, {{b}}}, {.lr = 0.1, .momentum = 0.9});
  EXPECT_NE(message_of<Error>([&] { optim::OneCycleLR(opt, {.max_lr = {1.0, 0.5, 0.1}, .total_steps = 10}); })
                .find("OneCycleLR: max_lr must have one value per parameter group; max_lr has 3 values, the optimizer has 2"),
            std::string::npos);
  EXPECT_NE(message_of<Error>([&] { optim::ReduceLROnPlateau(opt, {.min_lr = {0.1}}); })
                .find("min_lr has 1 values, the optimizer has 2"),
            std::string::npos);
  // A schedule refuses to step an optimizer that gained groups; ReduceLROnPlateau extends a single
  // min_lr to them, as PyTorch's.
  optim::StepLR step(opt, 2);
  optim::ReduceLROnPlateau plateau(opt, {.patience = 0, .min_lr = 0.01});
  optim::ReduceLROnPlateau per_group(opt, {.min_lr = {0.01, 0.02}});
  opt.add_param_group({{param({2.0})}});
  EXPECT_NE(message_of<Error>([&] { step.step(); }).find("StepLR: the schedule was built for 2 param groups but the optimizer now has 3"),
            std::string::npos);
  plateau.step(1.0);
  plateau.step(2.0);
  EXPECT_EQ(plateau.get_last_lr().size(), 3u);
  EXPECT_NE(message_of<Error>([&] { per_group.step(1.0); }).find("min_lr has 2 values but the optimizer now has 3 param groups"),
            std::string::npos);
  // A state for another number of groups is refused.
  optim::SGD pair(std::vector<ParamGroup<optim::SGDOptions>>{{{param(kStart)}}, {{param({1.0})}}}, {.lr = 0.1});
  optim::StepLR two_groups(pair, 2);
  optim::SGD one(Tensors{param(kStart)}, {.lr = 0.1});
  optim::StepLR one_group(one, 2);
  EXPECT_NE(message_of<Error>([&] { one_group.load_state_dict(two_groups.state_dict()); })
                .find("StepLR.load_state_dict: the state has 2 param groups ('base_lrs.<g>'), the optimizer has 1"),
            std::string::npos);
}

TEST(Scheduler, InitialLrIsSetByTheFirstScheduleAndSaved) {
  // As PyTorch's: the first scheduler records each group's initial_lr, a later one starts from it
  // even when the rate has moved since, and the optimizer's state carries it.
  Tensor p = param(kStart);
  optim::SGD opt(Tensors{p}, {.lr = 0.1});
  EXPECT_FALSE(opt.initial_lr(0).has_value());
  EXPECT_FALSE(opt.state_dict().contains("param_groups.0.initial_lr"));
  optim::WarmupCosineLR warm(opt, 4, 10);
  EXPECT_EQ(opt.initial_lr(0), 0.1);
  EXPECT_EQ(opt.lr(), 0.0);  // warm-up starts from 0
  optim::ExponentialLR expo(opt, 0.5);
  EXPECT_EQ(expo.base_lrs(), (std::vector<double>{0.1}));
  EXPECT_EQ(opt.state_dict().number("param_groups.0.initial_lr"), 0.1);
  optim::OneCycleLR cycle(opt, {.max_lr = 1.0, .total_steps = 5});  // sets it whatever was there
  EXPECT_EQ(opt.initial_lr(0), 1.0 / 25);
  optim::SGD fresh(Tensors{param(kStart)}, {.lr = 0.3});
  fresh.load_state_dict(opt.state_dict());
  EXPECT_EQ(fresh.initial_lr(0), 1.0 / 25);
}

TEST(Scheduler, ARateScheduledOutOfRangeIsRefusedOnlyByTheNextStep) {
  // As PyTorch's: a linear one-cycle schedule stepped total_steps times ends just below zero (its last
  // phase extrapolates one step). The schedule sets it; a step with it is refused, naming it.
  Tensor p = param(kStart);
  optim::SGD opt(Tensors{p}, {.lr = 0.1, .momentum = 0.9});
  optim::OneCycleLR s(opt, {.max_lr = 1.0, .total_steps = 10, .anneal_strategy = optim::AnnealStrategy::Linear});
  for (int i = 0; i < 10; ++i) s.step();
  EXPECT_LT(opt.lr(), 0.0);
  backward_loss(opt);
  EXPECT_NE(message_of<Error>([&] { opt.step(); }).find("SGD: lr must be >= 0"), std::string::npos);
}
