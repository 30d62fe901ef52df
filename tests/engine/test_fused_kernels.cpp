// Fused kernels: the relu and relu_backward primitives (values against max(x, 0) and torch's
// threshold_backward, one op call each way) and the fused Adam, SGD and RMSprop updates (against their formulas
// written out on plain doubles, results independent of the thread count, errors). The optimizers'
// use of the fused update is tested against torch's formulas in test_optim.cpp, and its rules by
// test_registry.cpp.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "engine/core/observer.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/optim_update.h"
#include "engine/ops/reduce.h"
#include "engine/ops/relu.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"
#include "tests/common/expect_error.h"

using namespace spire;
using Vec = std::vector<double>;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The names of the ops called while it is installed, in order.
struct OpLog : OpObserver {
  std::vector<std::string> names;
  void on_call(const OpDef& op, const std::vector<Tensor>&, const std::vector<Tensor>&, const Attrs&) override {
    names.push_back(op.name);
  }
};

bool same_bits(const Tensor& a, const Tensor& b) {
  Tensor x = contiguous(a), y = contiguous(b);
  return x.dtype() == y.dtype() && x.shape() == y.shape() && std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) == 0;
}

}  // namespace

TEST(Relu, IsMaxWithZeroAndKeepsNaN) {
  Vec x{-2.5, -0.0, 0.0, 1e-300, 3.0, -kInf, kInf, kNaN};
  for (DType t : {DType::Float32, DType::Float64}) {
    Tensor y = relu(cast(from_vector<double>(x, {int64_t(x.size())}), t));
    EXPECT_EQ(y.dtype(), t);
    Vec v = y.to_vector();
    Vec want{0, 0, 0, t == DType::Float64 ? 1e-300 : 0.0, 3, 0, kInf};
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(v[i], want[i]) << "entry " << i;
    EXPECT_FALSE(std::signbit(v[1])) << "relu(-0) is +0";
    EXPECT_TRUE(std::isnan(v.back())) << "NaN passes through, as torch.relu";
  }
  Tensor xi = from_vector<int32_t>({-3, 0, 7}, {3});
  EXPECT_EQ(relu(xi).dtype(), DType::Int32);
  EXPECT_EQ(relu(xi).to_vector(), (Vec{0, 0, 7}));
  EXPECT_EQ(relu(from_vector<int64_t>({-1, 5}, {2})).to_vector(), (Vec{0, 5}));
  // Strided input: a transposed matrix.
  Tensor m = from_vector<double>({-1, 2, 3, -4, 5, -6}, {2, 3});
  EXPECT_EQ(relu(transpose(m, 0, 1)).to_vector(), (Vec{0, 0, 2, 5, 3, 0}));
}

TEST(Relu, GradientIsZeroAtZeroAndPassesAbove) {
  Tensor x = from_vector<double>({-1.0, 0.0, 2.0, 0.5}, {4});
  x.set_requires_grad();
  Tensor g = from_vector<double>({10, 20, 30, 40}, {4});
  relu(x).backward(g);
  EXPECT_EQ(x.grad().to_vector(), (Vec{0, 0, 30, 40}));
}

TEST(Relu, IsOneOpEachWay) {
  Tensor x = rules::sample({8, 5}, -1, 1, 3);
  x.set_requires_grad();
  OpLog log;
  Tensor y;
  {
    ObserverScope scope(log);
    y = relu(x);
  }
  EXPECT_EQ(log.names, (std::vector<std::string>{"relu"}));
  Tensor g = rules::sample({8, 5}, -1, 1, 4);
  log.names.clear();
  {
    ObserverScope scope(log);
    y.backward(g);
  }
  EXPECT_EQ(std::count(log.names.begin(), log.names.end(), "relu_backward"), 1);
  EXPECT_EQ(std::count(log.names.begin(), log.names.end(), "where"), 0);
}

TEST(Relu, BackwardBroadcastsAndMatchesWhere) {
  Tensor x = rules::sample({3, 4}, -1, 1, 5);
  Tensor g_row = rules::sample({4}, -1, 1, 6);
  Tensor got = relu_backward(g_row, x);
  Tensor want = where(gt(x, 0.0), expand(g_row, {3, 4}), 0.0);
  EXPECT_TRUE(same_bits(got, want));
  Tensor x_col = rules::sample({3, 1}, -1, 1, 7);
  Tensor g = rules::sample({2, 3, 4}, -1, 1, 8);
  EXPECT_TRUE(same_bits(relu_backward(g, x_col), where(gt(expand(x_col, {2, 3, 4}), 0.0), g, 0.0)));
  // torch's threshold_backward: a NaN x passes the gradient, x <= 0 stops it.
  Tensor xn = from_vector<double>({kNaN, 0.0, -1.0, 1.0}, {4});
  EXPECT_EQ(relu_backward(from_vector<double>({1, 2, 3, 4}, {4}), xn).to_vector(), (Vec{1, 0, 0, 4}));
}

TEST(Relu, RefusesComplexAndMixedDtypes) {
  Tensor z = cast(rules::sample({3}, -1, 1, 9), DType::Complex128);
  expect_error_naming<DTypeError>([&] { relu(z); }, {"relu", "complex128", "float64"});
  Tensor a = rules::sample({3}), b = cast(rules::sample({3}), DType::Float32);
  expect_error_naming<DTypeError>([&] { relu_backward(a, b); }, {"relu_backward"});
}

namespace {

// Adam's update written out on doubles (torch.optim.adam, ops/optim_update.h), element by element.
struct AdamRef {
  Vec p, m, v, vmax;
};
AdamRef reference_adam(Vec p, Vec g, Vec m, Vec v, Vec vmax, const AdamHyper& h) {
  const double t = double(h.step);
  for (size_t i = 0; i < p.size(); ++i) {
    double d = h.maximize ? -g[i] : g[i];
    if (h.weight_decay != 0) {
      if (h.decoupled) p[i] *= 1 - h.lr * h.weight_decay;
      else d += h.weight_decay * p[i];
    }
    m[i] = h.beta1 * m[i] + (1 - h.beta1) * d;
    v[i] = h.beta2 * v[i] + (1 - h.beta2) * d * d;
    double vhat = v[i];
    if (h.amsgrad) vhat = vmax[i] = std::max(vmax[i], v[i]);
    double denom = std::sqrt(vhat) / std::sqrt(1 - std::pow(h.beta2, t)) + h.eps;
    p[i] -= h.lr / (1 - std::pow(h.beta1, t)) * m[i] / denom;
  }
  return {p, m, v, vmax};
}

// Entries near 0 come out of cancellation (m = beta1 m + (1 - beta1) g), so errors are measured
// against the largest entry.
void expect_close(const Tensor& got, const Vec& want, double rtol, const char* what) {
  Vec g = got.to_vector();
  ASSERT_EQ(g.size(), want.size()) << what;
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (size_t i = 0; i < g.size(); ++i) ASSERT_NEAR(g[i], want[i], rtol * scale) << what << " entry " << i;
}

const AdamHyper kCases[] = {
    {.step = 1},
    {.lr = 0.01, .weight_decay = 0.1, .step = 4},
    {.lr = 0.01, .weight_decay = 0.2, .decoupled = true, .step = 7},
    {.beta1 = 0.3, .beta2 = 0.99, .eps = 1e-6, .amsgrad = true, .maximize = true, .step = 2},
    {.lr = 0.1, .beta1 = 0.0, .weight_decay = 0.05, .decoupled = true, .amsgrad = true, .step = 30},
};

}  // namespace

TEST(FusedAdam, MatchesTheFormula) {
  const Shape s{37, 29};  // 1073 entries: vector loops and their remainders
  for (DType t : {DType::Float64, DType::Float32}) {
    for (const AdamHyper& h : kCases) {
      SCOPED_TRACE(std::string(name(t)) + " step " + std::to_string(h.step));
      Tensor p = cast(rules::sample(s, -1, 1, 1), t), g = cast(rules::sample(s, -1, 1, 2), t);
      Tensor m = cast(rules::sample(s, -0.1, 0.1, 3), t), v = cast(rules::sample(s, 0, 0.01, 4), t);
      Tensor vmax = h.amsgrad ? cast(rules::sample(s, 0, 0.02, 5), t) : Tensor();
      AdamUpdate u = adam_update(p, g, m, v, vmax, h);
      AdamRef r = reference_adam(p.to_vector(), g.to_vector(), m.to_vector(), v.to_vector(),
                                 h.amsgrad ? vmax.to_vector() : Vec(), h);
      // float32: every coefficient and intermediate is rounded to float32, a few ulps in all.
      const double rtol = t == DType::Float64 ? 1e-15 : 1e-6;
      expect_close(u.param, r.p, rtol, "param");
      expect_close(u.exp_avg, r.m, rtol, "exp_avg");
      expect_close(u.exp_avg_sq, r.v, rtol, "exp_avg_sq");
      if (h.amsgrad) expect_close(u.max_exp_avg_sq, r.vmax, rtol, "max_exp_avg_sq");
      else EXPECT_FALSE(u.max_exp_avg_sq.defined());
      EXPECT_EQ(u.param.dtype(), t);
      // The inputs are left as they were.
      EXPECT_TRUE(same_bits(p, cast(rules::sample(s, -1, 1, 1), t)));
    }
  }
}

TEST(FusedAdam, IsIndependentOfTheThreadCount) {
  const Shape s{100003};  // several chunks of the parallel loop
  const AdamHyper h{.lr = 0.01, .weight_decay = 0.1, .amsgrad = true, .step = 3};
  Tensor p = cast(rules::sample(s, -1, 1, 11), DType::Float32), g = cast(rules::sample(s, -1, 1, 12), DType::Float32);
  Tensor m = cast(rules::sample(s, -0.1, 0.1, 13), DType::Float32);
  Tensor v = cast(rules::sample(s, 0, 0.01, 14), DType::Float32);
  Tensor vmax = cast(rules::sample(s, 0, 0.01, 15), DType::Float32);
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  AdamUpdate one = adam_update(p, g, m, v, vmax, h);
  omp_set_num_threads(3);
  AdamUpdate three = adam_update(p, g, m, v, vmax, h);
  omp_set_num_threads(before);
  EXPECT_TRUE(same_bits(one.param, three.param));
  EXPECT_TRUE(same_bits(one.exp_avg, three.exp_avg));
  EXPECT_TRUE(same_bits(one.exp_avg_sq, three.exp_avg_sq));
  EXPECT_TRUE(same_bits(one.max_exp_avg_sq, three.max_exp_avg_sq));
}

TEST(FusedAdam, TakesStridedInputs) {
  const AdamHyper h{.lr = 0.05, .step = 2};
  Tensor p = rules::sample({4, 6}, -1, 1, 21), g = rules::sample({6, 4}, -1, 1, 22);
  Tensor m = rules::sample({4, 6}, -0.1, 0.1, 23), v = rules::sample({4, 6}, 0, 0.01, 24);
  Tensor gt_ = transpose(g, 0, 1);  // not contiguous
  AdamUpdate strided = adam_update(p, gt_, m, v, Tensor(), h);
  AdamUpdate dense = adam_update(p, contiguous(gt_), m, v, Tensor(), h);
  EXPECT_TRUE(same_bits(strided.param, dense.param));
  EXPECT_TRUE(same_bits(strided.exp_avg_sq, dense.exp_avg_sq));
}

TEST(FusedAdam, ErrorsNameWhatIsWrong) {
  Tensor p = rules::sample({3}), g = rules::sample({3}), m = rules::sample({3}), v = rules::sample({3});
  expect_error_naming<ValueError>([&] { adam_update(p, g, m, v, Tensor(), {.amsgrad = true}); },
                                  {"adam_update", "max_exp_avg_sq", "amsgrad"});
  expect_error_naming<ValueError>([&] { adam_update(p, g, m, v, v, {}); }, {"max_exp_avg_sq", "only with amsgrad"});
  expect_error_naming<DTypeError>([&] { adam_update(p, cast(g, DType::Float32), m, v, Tensor(), {}); },
                                  {"adam_update", "grad", "float32", "float64"});
  expect_error_naming<ShapeError>([&] { adam_update(p, g, rules::sample({4}), v, Tensor(), {}); },
                                  {"adam_update", "exp_avg", "[4]", "[3]"});
  Tensor pi = from_vector<int64_t>({1, 2, 3}, {3});
  expect_error_naming<DTypeError>([&] { adam_update(pi, pi, pi, pi, Tensor(), {}); },
                                  {"adam_update", "int64", "float32, float64"});
  expect_error_naming<ValueError>([&] { adam_update(p, g, m, v, Tensor(), {.step = 0}); }, {"step", ">= 1"});
  EXPECT_TRUE(fused_update_available("adam_update", p));
  EXPECT_FALSE(fused_update_available("adam_update", pi));
}

namespace {

// SGD's update written out on doubles (torch.optim.sgd, ops/optim_update.h).
std::pair<Vec, Vec> reference_sgd(Vec p, Vec g, Vec b, bool has_buffer, const SGDHyper& h) {
  for (size_t i = 0; i < p.size(); ++i) {
    double d = h.maximize ? -g[i] : g[i];
    d += h.weight_decay * p[i];
    if (h.momentum != 0) {
      b[i] = has_buffer ? h.momentum * b[i] + (1 - h.dampening) * d : d;
      d = h.nesterov ? d + h.momentum * b[i] : b[i];
    }
    p[i] -= h.lr * d;
  }
  return {p, b};
}

}  // namespace

TEST(FusedSGD, MatchesTheFormula) {
  const Shape s{37, 29};
  struct Case {
    SGDHyper h;
    bool buffer;
  };
  const Case cases[] = {
      {{.lr = 0.1}, false},
      {{.lr = 0.1, .weight_decay = 0.2, .maximize = true}, false},
      {{.lr = 0.05, .momentum = 0.9, .weight_decay = 0.1}, false},  // first step: the buffer starts at g
      {{.lr = 0.05, .momentum = 0.9, .dampening = 0.3}, true},
      {{.lr = 0.05, .momentum = 0.8, .weight_decay = 0.01, .nesterov = true, .maximize = true}, true},
  };
  for (DType t : {DType::Float64, DType::Float32}) {
    int k = 0;
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(name(t)) + " case " + std::to_string(k++));
      Tensor p = cast(rules::sample(s, -1, 1, 1), t), g = cast(rules::sample(s, -1, 1, 2), t);
      Tensor b = cast(rules::sample(s, -1, 1, 3), t);
      SGDUpdate u = sgd_update(p, g, c.buffer ? b : Tensor(), c.h);
      auto [rp, rb] = reference_sgd(p.to_vector(), g.to_vector(), b.to_vector(), c.buffer, c.h);
      const double rtol = t == DType::Float64 ? 1e-15 : 1e-6;
      expect_close(u.param, rp, rtol, "param");
      if (c.h.momentum != 0) expect_close(u.momentum_buffer, rb, rtol, "momentum_buffer");
      else EXPECT_FALSE(u.momentum_buffer.defined());
    }
  }
}

TEST(FusedSGD, IsIndependentOfTheThreadCountAndChecksItsInputs) {
  const Shape s{100003};
  const SGDHyper h{.lr = 0.01, .momentum = 0.9, .weight_decay = 0.1, .nesterov = true};
  Tensor p = rules::sample(s, -1, 1, 31), g = rules::sample(s, -1, 1, 32), b = rules::sample(s, -1, 1, 33);
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  SGDUpdate one = sgd_update(p, g, b, h);
  omp_set_num_threads(3);
  SGDUpdate three = sgd_update(p, g, b, h);
  omp_set_num_threads(before);
  EXPECT_TRUE(same_bits(one.param, three.param));
  EXPECT_TRUE(same_bits(one.momentum_buffer, three.momentum_buffer));

  Tensor q = rules::sample({3});
  expect_error_naming<ValueError>([&] { sgd_update(q, q, q, {.lr = 0.1}); }, {"sgd_update", "momentum"});
  expect_error_naming<ShapeError>([&] { sgd_update(q, rules::sample({2}), Tensor(), {}); },
                                  {"sgd_update", "grad", "[2]", "[3]"});
}

TEST(FusedRMSprop, MatchesTheFormula) {
  const Shape s{37, 29};
  const RMSpropHyper cases[] = {
      {},
      {.lr = 0.05, .weight_decay = 0.1, .momentum = 0.9, .maximize = true},
      {.alpha = 0.9, .eps = 1e-6, .centered = true},
      {.lr = 0.02, .alpha = 0.3, .momentum = 0.5, .centered = true},  // PyTorch's lerp for weights >= 0.5
  };
  for (DType t : {DType::Float64, DType::Float32}) {
    int k = 0;
    for (const RMSpropHyper& h : cases) {
      SCOPED_TRACE(std::string(name(t)) + " case " + std::to_string(k++));
      Tensor p = cast(rules::sample(s, -1, 1, 1), t), g = cast(rules::sample(s, -1, 1, 2), t);
      Tensor sq = cast(rules::sample(s, 0.5, 1, 3), t), a = cast(rules::sample(s, -0.1, 0.1, 4), t);
      Tensor b = cast(rules::sample(s, -1, 1, 5), t);
      RMSpropUpdate u = rmsprop_update(p, g, sq, h.centered ? a : Tensor(), h.momentum > 0 ? b : Tensor(), h);
      Vec P = p.to_vector(), G = g.to_vector(), S = sq.to_vector(), A = a.to_vector(), B = b.to_vector();
      for (size_t i = 0; i < P.size(); ++i) {  // torch.optim.rmsprop, on doubles
        double d = h.maximize ? -G[i] : G[i];
        d += h.weight_decay * P[i];
        S[i] = h.alpha * S[i] + (1 - h.alpha) * d * d;
        double avg;
        if (h.centered) {
          A[i] = h.alpha * A[i] + (1 - h.alpha) * d;
          avg = std::sqrt(S[i] - A[i] * A[i]) + h.eps;
        } else {
          avg = std::sqrt(S[i]) + h.eps;
        }
        if (h.momentum > 0) {
          B[i] = h.momentum * B[i] + d / avg;
          P[i] -= h.lr * B[i];
        } else {
          P[i] -= h.lr * d / avg;
        }
      }
      const double rtol = t == DType::Float64 ? 1e-15 : 1e-6;
      expect_close(u.param, P, rtol, "param");
      expect_close(u.square_avg, S, rtol, "square_avg");
      if (h.centered) expect_close(u.grad_avg, A, rtol, "grad_avg");
      else EXPECT_FALSE(u.grad_avg.defined());
      if (h.momentum > 0) expect_close(u.momentum_buffer, B, rtol, "momentum_buffer");
      else EXPECT_FALSE(u.momentum_buffer.defined());
    }
  }
  Tensor q = rules::sample({3});
  expect_error_naming<ValueError>([&] { rmsprop_update(q, q, q, Tensor(), Tensor(), {.centered = true}); },
                                  {"rmsprop_update", "grad_avg", "centered"});
  expect_error_naming<ValueError>([&] { rmsprop_update(q, q, q, Tensor(), Tensor(), {.momentum = 0.9}); },
                                  {"rmsprop_update", "momentum_buffer"});
  const int before = omp_get_max_threads();
  Tensor big = rules::sample({70001}, 0.1, 1, 41);
  const RMSpropHyper h{.momentum = 0.9, .centered = true};
  omp_set_num_threads(1);
  RMSpropUpdate one = rmsprop_update(big, big, big, mul(big, 0.5), big, h);
  omp_set_num_threads(3);
  RMSpropUpdate three = rmsprop_update(big, big, big, mul(big, 0.5), big, h);
  omp_set_num_threads(before);
  EXPECT_TRUE(same_bits(one.param, three.param));
  EXPECT_TRUE(same_bits(one.momentum_buffer, three.momentum_buffer));
}
