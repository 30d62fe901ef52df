// The collective ops (engine/parallel/collectives.h) on the world communicator, on each rank count
// the suite runs with (1, 2, 4). Values against their definitions computed locally (every rank
// builds every rank's input from a seed), in float32 and float64. Derivatives of the global
// function F(x_0, ..., x_{n-1}) = sum_r <w_r, f_r(x)> (f_r: rank r's output): the reverse rule
// against central differences of F along random directions, the forward rule against the reverse
// rule (<jvp(v), w> = <v, vjp(w)>, both summed over ranks), Taylor coefficients, vmap against the
// loop, and second order for all_reduce and all_gather.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "engine/autodiff/backward.h"
#include "engine/autodiff/forward.h"
#include "engine/autodiff/taylor.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"
#include "engine/parallel/collectives.h"

using namespace spire;
namespace par = spire::parallel;

namespace {

int me() { return par::rank(); }
int ranks() { return par::size(); }

// Rank r's input for a seed; any rank can build any rank's.
Tensor input_of(int r, const Shape& shape, uint64_t seed, DType dtype = DType::Float64) {
  return cast(rules::sample(shape, -1, 1, seed * 1009 + uint64_t(r) + 1), dtype);
}

double sum_over_ranks(double v) {
  Tensor t = full({1}, v, DType::Float64);
  par::world().all_reduce(t, par::ReduceOp::Sum);
  return t.item<double>();
}

double max_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  if (a.shape() != b.shape()) return 1e300;
  if (a.numel() == 0) return 0;
  return amax(abs(sub(cast(a, DType::Float64), cast(b, DType::Float64)))).item<double>();
}

double inner(const Tensor& a, const Tensor& b) { return sum(mul(a, b)).item<double>(); }

template <class T>
double tol() {
  return std::is_same_v<T, float> ? 2e-6 : 1e-14;
}

template <class T>
class CollectiveOps : public ::testing::Test {};
using Floats = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CollectiveOps, Floats);

// --- values against the definitions --------------------------------------------------------------

TYPED_TEST(CollectiveOps, AllReduce) {
  const DType dt = dtype_of<TypeParam>::value;
  const int n = ranks();
  for (const char* op : {"sum", "mean", "max", "min"}) {
    Tensor want = input_of(0, {3, 5}, 1, dt);
    for (int r = 1; r < n; ++r) {
      Tensor x = input_of(r, {3, 5}, 1, dt);
      std::string o = op;
      want = o == "max" ? maximum(want, x) : o == "min" ? minimum(want, x) : add(want, x);
    }
    if (std::string(op) == "mean") want = div(want, Scalar(double(n)));
    Tensor got = par::all_reduce(input_of(me(), {3, 5}, 1, dt), op);
    EXPECT_EQ(got.dtype(), dt);
    EXPECT_LE(max_diff(got, want), tol<TypeParam>() * n) << op;
  }
}

TYPED_TEST(CollectiveOps, AllGatherAlongEachAxis) {
  const DType dt = dtype_of<TypeParam>::value;
  for (int64_t axis : {0, 1, 2, -1}) {
    std::vector<Tensor> parts;
    for (int r = 0; r < ranks(); ++r) parts.push_back(input_of(r, {2, 3, 2}, 2, dt));
    Tensor got = par::all_gather(input_of(me(), {2, 3, 2}, 2, dt), axis);
    EXPECT_EQ(max_diff(got, concat(parts, axis)), 0.0) << "axis " << axis;
  }
}

TYPED_TEST(CollectiveOps, ReduceScatter) {
  const DType dt = dtype_of<TypeParam>::value;
  const int n = ranks();
  for (int64_t axis : {0, 1}) {
    Shape shape = axis == 0 ? Shape{2 * n, 3} : Shape{2, 2 * n, 3};
    for (const char* op : {"sum", "mean", "max", "min"}) {
      std::string o = op;
      Tensor full_ = input_of(0, shape, 3, dt);
      for (int r = 1; r < n; ++r) {
        Tensor x = input_of(r, shape, 3, dt);
        full_ = o == "max" ? maximum(full_, x) : o == "min" ? minimum(full_, x) : add(full_, x);
      }
      if (o == "mean") full_ = div(full_, Scalar(double(n)));
      Tensor want = slice(full_, axis, 2 * me(), 2 * me() + 2);
      Tensor got = par::reduce_scatter(input_of(me(), shape, 3, dt), axis, o);
      EXPECT_LE(max_diff(got, want), tol<TypeParam>() * n) << op << " along axis " << axis;
    }
  }
}

TYPED_TEST(CollectiveOps, AllToAll) {
  const DType dt = dtype_of<TypeParam>::value;
  const int n = ranks();
  const Shape shape{2 * n, 3 * n, 2};
  for (auto [split, cat] : std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {1, 0}, {0, 2}, {1, 2}, {2 % 3, 1}}) {
    if (shape[split] % n) continue;
    // Rank me receives chunk me (along split) of every rank, concatenated along cat in rank order.
    std::vector<Tensor> parts;
    for (int r = 0; r < n; ++r) parts.push_back(chunk(input_of(r, shape, 4, dt), n, split)[me()]);
    Tensor got = par::all_to_all(input_of(me(), shape, 4, dt), split, cat);
    EXPECT_EQ(max_diff(got, concat(parts, cat)), 0.0) << "split " << split << " concat " << cat;
  }
}

TYPED_TEST(CollectiveOps, Broadcast) {
  const DType dt = dtype_of<TypeParam>::value;
  for (int root : {0, ranks() - 1}) {
    Tensor got = par::broadcast(input_of(me(), {4, 3}, 5, dt), root);
    EXPECT_EQ(max_diff(got, input_of(root, {4, 3}, 5, dt)), 0.0) << "root " << root;
  }
}

TYPED_TEST(CollectiveOps, PermuteRingChainAndSwap) {
  const DType dt = dtype_of<TypeParam>::value;
  const int n = ranks(), r = me();
  // A large ring shift: blocking sends of rendezvous size, which deadlock unless ordered.
  std::vector<std::pair<int, int>> ring;
  for (int s = 0; s < n; ++s) ring.emplace_back(s, (s + 1) % n);
  Tensor got = par::permute(input_of(r, {200, 500}, 6, dt), ring);
  EXPECT_EQ(max_diff(got, input_of((r + n - 1) % n, {200, 500}, 6, dt)), 0.0) << "ring";
  // A chain 0 -> 1 -> ... -> n-1: rank 0 receives nothing (zeros).
  std::vector<std::pair<int, int>> chain;
  for (int s = 0; s + 1 < n; ++s) chain.emplace_back(s, s + 1);
  got = par::permute(input_of(r, {3, 4}, 7, dt), chain);
  Tensor want = r == 0 ? zeros({3, 4}, dt) : input_of(r - 1, {3, 4}, 7, dt);
  EXPECT_EQ(max_diff(got, want), 0.0) << "chain";
  // Reversal r -> n-1-r: swaps in pairs (and a fixed point in the middle for odd n).
  std::vector<std::pair<int, int>> rev;
  for (int s = 0; s < n; ++s) rev.emplace_back(s, n - 1 - s);
  got = par::permute(input_of(r, {5}, 8, dt), rev);
  EXPECT_EQ(max_diff(got, input_of(n - 1 - r, {5}, 8, dt)), 0.0) << "reversal";
}

TEST(CollectiveOpsErrors, BadArgumentsAreNamed) {
  const int n = ranks();
  try {
    par::reduce_scatter(zeros({2 * n + 1, 2}, DType::Float64), 0, "sum");
    if (n > 1) ADD_FAILURE() << "an axis that does not split evenly was accepted";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("equal chunks"), std::string::npos) << e.what();
  }
  EXPECT_THROW(par::all_reduce(zeros({2}, DType::Complex128), "max"), DTypeError);
  EXPECT_THROW(par::all_reduce(zeros({2}, DType::Int64), "mean"), DTypeError);
  EXPECT_THROW(par::all_reduce(zeros({2}), "prod"), ValueError);
  EXPECT_THROW(par::permute(zeros({2}), {{0, 0}, {0, 0}}), ValueError);
  EXPECT_THROW(par::permute(zeros({2}), {{0, n}}), ValueError);
  EXPECT_THROW(par::broadcast(zeros({2}), n), ValueError);
  EXPECT_THROW(par::send(zeros({2}), 0, par::kMaxTag), ValueError);
}

TEST(CollectiveOpsPointToPoint, SendRecvAroundTheRing) {
  const int n = ranks(), r = me();
  if (n == 1) {
    // One rank: nobody to talk to, and the self communicator says so instead of hanging.
    EXPECT_THROW(par::send(zeros({2}), 0, 3), ValueError);
    EXPECT_THROW(par::recv({2}, DType::Float32, 0, 3), ValueError);
    par::barrier();
    return;
  }
  Tensor x = input_of(r, {4, 2}, 9).set_requires_grad(true);
  const int next = (r + 1) % n, prev = (r + n - 1) % n;
  // Blocking calls around a ring: even ranks send first and odd ranks receive first; with an odd
  // number of ranks the last (even) rank receives first too, so the ring never waits on itself.
  Tensor got;
  if (r % 2 == 0 && !(n % 2 && r == n - 1)) {
    par::send(x, next, 5);
    got = par::recv({4, 2}, DType::Float64, prev, 5);
  } else {
    got = par::recv({4, 2}, DType::Float64, prev, 5);
    par::send(x, next, 5);
  }
  EXPECT_FALSE(got.requires_grad());
  EXPECT_EQ(max_diff(got, input_of(prev, {4, 2}, 9)), 0.0);
  par::barrier();
}

// --- derivatives of the global function -----------------------------------------------------------

struct Case {
  std::string name;
  Shape shape;  // of each rank's input
  std::function<Tensor(const Tensor&)> f;
};

std::vector<std::pair<int, int>> ring_pairs() {
  std::vector<std::pair<int, int>> p;
  for (int s = 0; s < ranks(); ++s) p.emplace_back(s, (s + 1) % ranks());
  return p;
}

std::vector<Case> linear_cases() {
  const int64_t n = ranks();
  return {
      {"all_reduce sum", {3, 4}, [](const Tensor& x) { return par::all_reduce(x, "sum"); }},
      {"all_reduce mean", {3, 4}, [](const Tensor& x) { return par::all_reduce(x, "mean"); }},
      {"all_gather axis 1", {2, 3, 2}, [](const Tensor& x) { return par::all_gather(x, 1); }},
      {"reduce_scatter sum axis 1", {2, 2 * n, 3}, [](const Tensor& x) { return par::reduce_scatter(x, 1, "sum"); }},
      {"reduce_scatter mean axis 0", {2 * n, 3}, [](const Tensor& x) { return par::reduce_scatter(x, 0, "mean"); }},
      {"all_to_all split 1 concat 0", {2, 3 * n}, [](const Tensor& x) { return par::all_to_all(x, 1, 0); }},
      {"all_to_all split 0 concat 2", {2 * n, 3, 2}, [](const Tensor& x) { return par::all_to_all(x, 0, 2); }},
      {"broadcast from the last rank", {3, 2}, [n](const Tensor& x) { return par::broadcast(x, int(n - 1)); }},
      {"permute ring", {3, 2}, [](const Tensor& x) { return par::permute(x, ring_pairs()); }},
      {"permute 0 -> last only", {4}, [n](const Tensor& x) { return par::permute(x, {{0, int(n - 1)}}); }},
  };
}

std::vector<Case> extreme_cases() {
  const int64_t n = ranks();
  return {
      {"all_reduce max", {3, 4}, [](const Tensor& x) { return par::all_reduce(x, "max"); }},
      {"all_reduce min", {3, 4}, [](const Tensor& x) { return par::all_reduce(x, "min"); }},
      {"reduce_scatter max axis 0", {2 * n, 3}, [](const Tensor& x) { return par::reduce_scatter(x, 0, "max"); }},
      {"reduce_scatter min axis 1", {2, 2 * n}, [](const Tensor& x) { return par::reduce_scatter(x, 1, "min"); }},
  };
}

// Nonlinear around the collective, so that the second derivative goes through its rules twice.
std::vector<Case> second_order_cases() {
  return {
      {"sin(all_reduce sum(x^2))", {3, 2}, [](const Tensor& x) { return sin(par::all_reduce(mul(x, x), "sum")); }},
      {"sin(all_reduce mean(x^2)) x", {3, 2},
       [](const Tensor& x) { return mul(sin(par::all_reduce(mul(x, x), "mean")), x); }},
      {"sin(all_reduce max(x^3))", {4}, [](const Tensor& x) { return sin(par::all_reduce(mul(mul(x, x), x), "max")); }},
      {"sin(all_gather(x^2, 1))", {2, 3}, [](const Tensor& x) { return sin(par::all_gather(mul(x, x), 1)); }},
      {"all_gather(x, 0) * all_gather(x, 0)", {2, 2},
       [](const Tensor& x) { return exp(mul(par::all_gather(x, 0), par::all_gather(x, 0))); }},
  };
}

// Gradient of L_r = <w_r, f(x_r)> on this rank: the reverse rules make it dF/dx_r.
Tensor gradient_at(const Case& c, const Tensor& x0, const Tensor& w, bool create_graph, Tensor* leaf = nullptr) {
  Tensor x = x0.detach().set_requires_grad(true);
  if (leaf) *leaf = x;
  Tensor l = sum(mul(w, c.f(x)));
  Tensor g = autodiff::grad({l}, {x}, {}, false, create_graph, true)[0];
  return g.defined() ? g : zeros_like(x);
}

double global_loss(const Case& c, const Tensor& x, const Tensor& w) {
  return sum_over_ranks(inner(w, c.f(x)));
}

void check_first_order(const Case& c, uint64_t seed) {
  SCOPED_TRACE(c.name + " on " + std::to_string(ranks()) + " ranks");
  Tensor x = input_of(me(), c.shape, seed);
  Tensor v = input_of(me(), c.shape, seed + 1);
  Tensor w = input_of(me(), c.f(x).shape(), seed + 2);
  Tensor g = gradient_at(c, x, w, false);
  ASSERT_EQ(g.shape(), x.shape());
  const double analytic = sum_over_ranks(inner(g, v));
  const double h = 1e-6;
  const double fd = (global_loss(c, add(x, mul(v, Scalar(h))), w) - global_loss(c, sub(x, mul(v, Scalar(h))), w)) / (2 * h);
  EXPECT_NEAR(analytic, fd, 1e-6 * (1 + std::abs(fd))) << "reverse rule against finite differences";
  forward_ad::Level level;
  Tensor y = c.f(forward_ad::make_dual(x, v, level.get()));
  Tensor t = forward_ad::tangent(y, level.get());
  ASSERT_TRUE(t.defined()) << "no tangent came out";
  const double fwd = sum_over_ranks(inner(w, t));
  EXPECT_NEAR(fwd, analytic, 1e-10 * (1 + std::abs(analytic))) << "forward rule against the reverse rule";
}

TEST(CollectiveOpsDerivatives, LinearOpsAgainstFiniteDifferencesAndForwardMode) {
  uint64_t seed = 100;
  for (const Case& c : linear_cases()) check_first_order(c, seed += 10);
}

TEST(CollectiveOpsDerivatives, MaxAndMinAgainstFiniteDifferencesAndForwardMode) {
  uint64_t seed = 300;
  for (const Case& c : extreme_cases()) check_first_order(c, seed += 10);
}

// Every rank holds the same values: the maximum is attained n times, and each rank gets 1/n of
// the sum of the cotangents (the even split of jnp.max and amax, across ranks).
TEST(CollectiveOpsDerivatives, MaxTiesAcrossRanksShareTheGradientEvenly) {
  const int n = ranks();
  Tensor x = input_of(0, {5}, 41).set_requires_grad(true);  // rank 0's values on every rank
  Tensor w = input_of(me(), {5}, 42);
  Tensor g = autodiff::grad({sum(mul(w, par::all_reduce(x, "max")))}, {x})[0];
  Tensor wsum = input_of(0, {5}, 42);
  for (int r = 1; r < n; ++r) wsum = add(wsum, input_of(r, {5}, 42));
  EXPECT_LE(max_diff(g, div(wsum, Scalar(double(n)))), 1e-14);
}

TEST(CollectiveOpsDerivatives, SecondOrderThroughAllReduceAndAllGather) {
  uint64_t seed = 500;
  for (const Case& c : second_order_cases()) {
    SCOPED_TRACE(c.name + " on " + std::to_string(ranks()) + " ranks");
    seed += 10;
    Tensor x0 = input_of(me(), c.shape, seed);
    Tensor v = input_of(me(), c.shape, seed + 1);
    Tensor u = input_of(me(), c.shape, seed + 2);
    Tensor w = input_of(me(), c.f(x0).shape(), seed + 3);
    // M(x) = sum_r <grad_r F(x), u_r>; its gradient (reverse over reverse) along v, against
    // central differences of M, which needs a first-order backward pass on every rank.
    Tensor leaf;
    Tensor g = gradient_at(c, x0, w, true, &leaf);
    Tensor m = sum(mul(g, u));
    ASSERT_TRUE(m.requires_grad());
    Tensor hv = autodiff::grad({m}, {leaf}, {}, false, false, true)[0];
    const double analytic = sum_over_ranks(hv.defined() ? inner(hv, v) : 0.0);
    const double h = 1e-5;
    auto m_at = [&](double s) { return sum_over_ranks(inner(gradient_at(c, add(x0, mul(v, Scalar(s))), w, false), u)); };
    const double fd = (m_at(h) - m_at(-h)) / (2 * h);
    EXPECT_NEAR(analytic, fd, 1e-5 * (1 + std::abs(fd))) << "second order against finite differences of the gradient";
  }
}

// Taylor mode: the ops are linear, so coefficient k of f(x(t)) is f(x_k), with every coefficient
// (the zero ones included, even where only some ranks have them) going through the collective; all_reduce max is locally linear, so
// coefficient k is x_k of the rank that holds the maximum, computed here from the definition.
TEST(CollectiveOpsDerivatives, TaylorCoefficients) {
  constexpr int K = 3;
  for (const Case& c : linear_cases()) {
    SCOPED_TRACE(c.name);
    Tensor x0 = input_of(me(), c.shape, 700);
    // x2 is missing (zero) on even ranks only: a rule that skipped it there would deadlock.
    Series xs{input_of(me(), c.shape, 701), me() % 2 ? input_of(me(), c.shape, 702) : Tensor(),
              input_of(me(), c.shape, 703)};
    taylor::Level level({.order = K});
    Series z = taylor::coefficients(c.f(taylor::make_jet(x0, xs, level.get())), level.get());
    ASSERT_EQ(z.size(), size_t(K));
    for (int k = 0; k < K; ++k) {
      Tensor want = c.f(xs[k].defined() ? xs[k] : zeros_like(x0));
      Tensor got = z[k].defined() ? z[k] : zeros_like(want);
      EXPECT_LE(max_diff(got, want), 1e-14) << "coefficient " << k + 1;
    }
  }
  const int n = ranks();
  Tensor x0 = input_of(me(), {6}, 710), x1 = input_of(me(), {6}, 711);
  taylor::Level level({.order = 1});
  Tensor z1 = taylor::coefficients(par::all_reduce(taylor::make_jet(x0, {x1}, level.get()), "max"), level.get())[0];
  std::vector<double> want(6);
  for (int64_t i = 0; i < 6; ++i) {
    int best = 0;
    for (int r = 1; r < n; ++r)
      if (input_of(r, {6}, 710).to_vector()[i] > input_of(best, {6}, 710).to_vector()[i]) best = r;
    want[i] = input_of(best, {6}, 711).to_vector()[i];
  }
  EXPECT_LE(max_diff(z1, from_vector<double>(want, {6})), 1e-15);
}

// vmap: the mapped axis is data, so vmap of a collective equals the collective per entry, stacked.
TEST(CollectiveOpsDerivatives, VmapEqualsTheLoop) {
  constexpr int64_t B = 3;
  std::vector<Case> cases = linear_cases();
  for (auto& c : extreme_cases()) cases.push_back(c);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Shape bs = c.shape;
    bs.insert(bs.begin(), B);
    Tensor xb = input_of(me(), bs, 800);
    Function fn = [&](const Tensors& in) { return Tensors{c.f(in[0])}; };
    Tensor got = vmap(fn)({xb})[0];
    std::vector<Tensor> loop;
    for (int64_t b = 0; b < B; ++b) loop.push_back(c.f(select(xb, 0, b)));
    EXPECT_EQ(max_diff(got, stack(loop, 0)), 0.0);
  }
}

}  // namespace
