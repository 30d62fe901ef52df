// vmap (autodiff/vmap.h) against explicit loops over the batch: in_axes (mapped, unmapped, any
// axis), out_axes, nesting, common ops inside the mapped function, composition with reverse and
// forward mode, and the errors it gives.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "engine/autodiff/backward.h"
#include "engine/autodiff/differential.h"
#include "engine/autodiff/functional.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"
#include "tests/common/expect_error.h"

using namespace spire;

namespace {

Tensor data(const Shape& s, uint64_t seed) { return rules::sample(s, -1, 1, seed); }

void expect_same(const Tensor& got, const Tensor& want, double tol = 1e-13, const std::string& what = "") {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  if (want.numel() == 0) return;
  Tensor g64 = cast(got, DType::Float64), w64 = cast(want, DType::Float64);
  double err = amax(abs(sub(g64, w64))).item<double>(), scale = amax(abs(w64)).item<double>();
  EXPECT_LE(err, tol * (1 + scale)) << what;
}

// f run on entry b of every mapped argument, stacked along `out_axis`.
Tensor loop(const std::function<Tensor(const Tensors&)>& f, const Tensors& args,
            const std::vector<std::optional<int64_t>>& in_axes, int64_t n, int64_t out_axis = 0) {
  std::vector<Tensor> outs;
  for (int64_t b = 0; b < n; ++b) {
    Tensors entry = args;
    for (size_t i = 0; i < args.size(); ++i)
      if (in_axes[i]) entry[i] = select(args[i], *in_axes[i], b);
    outs.push_back(f(entry));
  }
  return stack(outs, out_axis);
}

Function one(const std::function<Tensor(const Tensors&)>& f) {
  return [f](const Tensors& in) { return Tensors{f(in)}; };
}

}  // namespace

TEST(Vmap, InAxesWithUnmappedInputs) {
  // f(x, w, b) = tanh(x @ w + b) per example; w and b shared.
  auto f = [](const Tensors& in) { return tanh(add(matmul(in[0], in[1]), in[2])); };
  Tensor x = data({6, 4}, 1), w = data({4, 3}, 2), b = data({3}, 3);
  std::vector<std::optional<int64_t>> axes{0, std::nullopt, std::nullopt};
  Tensors got = vmap(one(f), axes)({x, w, b});
  ASSERT_EQ(got.size(), 1u);
  expect_same(got[0], loop(f, {x, w, b}, axes, 6));
  // Per-example weights instead, data shared.
  Tensor ws = data({5, 4, 3}, 4), x1 = data({4}, 5);
  axes = {std::nullopt, 0, std::nullopt};
  expect_same(vmap(one(f), axes)({x1, ws, b})[0], loop(f, {x1, ws, b}, axes, 5));
}

TEST(Vmap, InAxesOtherThanZeroAndOutAxes) {
  auto f = [](const Tensors& in) { return add(mul(in[0], in[1]), sin(in[0])); };
  Tensor x = data({3, 5}, 10), y = data({3}, 11);
  // Axis 1 of x mapped (5 entries of shape [3]); result mapped axis first, or at out_axes.
  std::vector<std::optional<int64_t>> axes{1, std::nullopt};
  expect_same(vmap(one(f), axes)({x, y})[0], loop(f, {x, y}, axes, 5, 0));
  expect_same(vmap(one(f), axes, {1})({x, y})[0], loop(f, {x, y}, axes, 5, 1));
  expect_same(vmap(one(f), axes, {-1})({x, y})[0], loop(f, {x, y}, axes, 5, 1));
  // Negative in_axes; two mapped inputs on different axes.
  Tensor a = data({4, 2, 5}, 12), c = data({5, 4, 2}, 13);
  auto g = [](const Tensors& in) { return mul(in[0], in[1]); };
  std::vector<std::optional<int64_t>> ax2{-1, 0};
  expect_same(vmap(one(g), ax2)({a, c})[0], loop(g, {a, c}, ax2, 5));
  // A mapped axis in the middle, out_axes in the middle too.
  Tensor m = data({2, 6, 3}, 14);
  auto h = [](const Tensors& in) { return sum(exp(in[0]), {0}, true); };  // [2, 3] -> [1, 3]
  std::vector<std::optional<int64_t>> ax3{1};
  expect_same(vmap(one(h), ax3, {1})({m})[0], loop(h, {m}, ax3, 6, 1));
}

TEST(Vmap, SeveralOutputsAndUnmappedOutputs) {
  Function f = [](const Tensors& in) {
    return Tensors{sum(in[0], {-1}), mul(in[1], 2.0), in[1]};  // the last two ignore the mapped input
  };
  Tensor x = data({4, 3}, 20), y = data({2}, 21);
  Tensors got = vmap(f, {0, std::nullopt}, {0, 1, 0})({x, y});
  ASSERT_EQ(got.size(), 3u);
  expect_same(got[0], sum(x, {-1}));
  expect_same(got[1], expand(unsqueeze(mul(y, 2.0), 1), {2, 4}));  // broadcast along the mapped axis
  expect_same(got[2], expand(unsqueeze(y, 0), {4, 2}));
}

TEST(Vmap, MatmulVersusLoops) {
  auto mm = [](const Tensors& in) { return matmul(in[0], in[1]); };
  Tensor A = data({5, 3, 4}, 30), B = data({5, 4, 2}, 31), M = data({3, 4}, 32), v = data({5, 4}, 33);
  Tensor N = data({4, 2}, 34);
  struct Case {
    Tensors args;
    std::vector<std::optional<int64_t>> axes;
    const char* what;
  };
  std::vector<Case> cases{
      {{A, B}, {0, 0}, "both batched"},
      {{A, N}, {0, std::nullopt}, "left batched"},
      {{M, B}, {std::nullopt, 0}, "right batched"},
      {{M, v}, {std::nullopt, 0}, "matrix-vector, vector batched"},
      {{v, B}, {0, 0}, "vector-matrix"},
      {{v, v}, {0, 0}, "dot products"},
      {{A, v}, {0, 0}, "batched matrix-vector"},
  };
  for (auto& c : cases)
    expect_same(vmap(one(mm), c.axes)(c.args)[0], loop(mm, c.args, c.axes, 5), 1e-13, c.what);
  // Mapped axis last on the right operand: columns of a matrix, one matvec each.
  std::vector<std::optional<int64_t>> ax{std::nullopt, 1};
  Tensor cols = data({4, 5}, 35);
  expect_same(vmap(one(mm), ax)({M, cols})[0], loop(mm, {M, cols}, ax, 5), 1e-13, "columns");
}

TEST(Vmap, ElementwiseWithBroadcasting) {
  Tensor x = data({5, 3}, 40), y = data({2, 1, 3}, 41), z = data({5, 4, 1}, 42), s = data({5}, 43);
  struct Case {
    std::function<Tensor(const Tensors&)> f;
    Tensors args;
    std::vector<std::optional<int64_t>> axes;
    const char* what;
  };
  std::vector<Case> cases{
      {[](const Tensors& in) { return add(in[0], in[1]); }, {x, y}, {0, std::nullopt}, "unmapped of higher rank"},
      {[](const Tensors& in) { return mul(in[0], in[1]); }, {x, z}, {0, 0}, "mapped of different ranks"},
      {[](const Tensors& in) { return div(in[0], add(exp(in[1]), 1.0)); }, {s, z}, {0, 0}, "scalar entries"},
      {[](const Tensors& in) { return maximum(in[0], in[1]); }, {y, x}, {std::nullopt, 0}, "maximum"},
      {[](const Tensors& in) { return where(gt(in[0], 0.0), in[0], in[1]); }, {x, y}, {0, std::nullopt}, "where"},
      {[](const Tensors& in) { return pow(abs(in[0]), in[1]); }, {x, s}, {0, 0}, "pow"},
  };
  for (auto& c : cases) expect_same(vmap(one(c.f), c.axes)(c.args)[0], loop(c.f, c.args, c.axes, 5), 1e-13, c.what);
}

TEST(Vmap, ReductionsVersusLoops) {
  Tensor x = data({4, 3, 5}, 50);
  std::vector<std::pair<std::function<Tensor(const Tensors&)>, const char*>> fs{
      {[](const Tensors& in) { return sum(in[0]); }, "sum all"},
      {[](const Tensors& in) { return sum(in[0], {1}); }, "sum axis 1"},
      {[](const Tensors& in) { return sum(in[0], {-1}, true); }, "sum axis -1 keepdims"},
      {[](const Tensors& in) { return mean(in[0], {0}); }, "mean"},
      {[](const Tensors& in) { return amax(in[0], {1}); }, "amax"},
      {[](const Tensors& in) { return amin(in[0]); }, "amin"},
      {[](const Tensors& in) { return prod(in[0], {0}); }, "prod"},
      {[](const Tensors& in) { return logsumexp(in[0], {-1}); }, "logsumexp"},
      {[](const Tensors& in) { return var(in[0], {1}, 1); }, "var"},
      {[](const Tensors& in) { return cumsum(in[0], 1); }, "cumsum"},
      {[](const Tensors& in) { return cast(argmax(in[0], 1), DType::Float64); }, "argmax"},
      {[](const Tensors& in) {
         Tensor e = exp(sub(in[0], amax(in[0], {-1}, true)));
         return div(e, sum(e, {-1}, true));
       }, "softmax"},
  };
  std::vector<std::optional<int64_t>> ax0{0}, ax2{2};
  for (auto& [f, what] : fs) {
    expect_same(vmap(one(f), ax0)({x})[0], loop(f, {x}, ax0, 4), 1e-13, std::string(what) + ", axis 0 mapped");
    expect_same(vmap(one(f), ax2)({x})[0], loop(f, {x}, ax2, 5), 1e-13, std::string(what) + ", axis 2 mapped");
  }
}

TEST(Vmap, ViewsAndIndexingVersusLoops) {
  Tensor x = data({4, 3, 6}, 60), y = data({4, 3, 2}, 61);
  Tensor idx = from_vector<int64_t>({2, 0, 5, 5}, {4});
  std::vector<std::pair<std::function<Tensor(const Tensors&)>, const char*>> fs{
      {[](const Tensors& in) { return reshape(in[0], {6, 3}); }, "reshape"},
      {[](const Tensors& in) { return transpose(in[0], 0, 1); }, "transpose"},
      {[](const Tensors& in) { return slice(in[0], 1, 1, 5); }, "slice"},
      {[](const Tensors& in) { return select(in[0], -1, 2); }, "select"},
      {[](const Tensors& in) { return expand(unsqueeze(in[0], 0), {2, 3, 6}); }, "expand"},
      {[](const Tensors& in) { return concat({in[0], in[1]}, -1); }, "concat"},
      {[](const Tensors& in) { return stack({select(in[0], -1, 0), select(in[1], -1, 1)}, 0); }, "stack"},
      {[](const Tensors& in) { return diagonal(slice(in[0], 1, 0, 3)); }, "diagonal"},
      {[](const Tensors& in) { return flip(in[0], {1}); }, "flip"},
      {[](const Tensors& in) { return tril(slice(in[0], 1, 0, 3)); }, "tril"},
  };
  std::vector<std::optional<int64_t>> ax{0, 0};
  for (auto& [f, what] : fs) expect_same(vmap(one(f), ax)({x, y})[0], loop(f, {x, y}, ax, 4), 0, what);
  // Per-example indices.
  auto take = [](const Tensors& in) { return index_select(in[0], 1, reshape(in[1], {1})); };
  std::vector<std::optional<int64_t>> axi{0, 0};
  expect_same(vmap(one(take), axi)({x, idx})[0], loop(take, {x, idx}, axi, 4), 0, "index_select, batched index");
}

TEST(Vmap, NestedVmap) {
  // out[i, j] = A[i] @ B[j]: the outer vmap maps A, the inner maps B.
  Tensor A = data({3, 2, 4}, 70), B = data({5, 4, 2}, 71);
  Function inner = vmap([](const Tensors& in) { return Tensors{matmul(in[0], in[1])}; }, {std::nullopt, 0});
  Function outer = vmap(inner, {0, std::nullopt});
  Tensor got = outer({A, B})[0];
  ASSERT_EQ(got.shape(), (Shape{3, 5, 2, 2}));
  std::vector<Tensor> rows;
  for (int64_t i = 0; i < 3; ++i) {
    std::vector<Tensor> row;
    for (int64_t j = 0; j < 5; ++j) row.push_back(matmul(select(A, 0, i), select(B, 0, j)));
    rows.push_back(stack(row, 0));
  }
  expect_same(got, stack(rows, 0));
  // Both levels mapping the same input over two axes, with a reduction inside.
  Tensor x = data({3, 5, 4}, 72);
  Function f = vmap(vmap([](const Tensors& in) { return Tensors{logsumexp(in[0], {0})}; }), {1});
  Tensor y = f({x})[0];  // outer over axis 1 (5), inner over axis 0 (3)
  expect_same(y, transpose(logsumexp(x, {2}), 0, 1));
}

TEST(Vmap, ReverseModeThroughVmap) {
  // d/dW sum_b sum(tanh(x_b @ W)) through the batched computation against the loop.
  Tensor x = data({6, 4}, 80), w0 = data({4, 3}, 81);
  Tensor w = w0.detach().set_requires_grad(true);
  auto f = [](const Tensors& in) { return tanh(matmul(in[0], in[1])); };
  Tensor l1 = sum(vmap(one(f), {0, std::nullopt})({x, w})[0]);
  Tensor g1 = autodiff::grad({l1}, {w})[0];
  Tensor w2 = w0.detach().set_requires_grad(true);
  Tensor l2 = sum(loop(f, {x, w2}, {0, std::nullopt}, 6));
  Tensor g2 = autodiff::grad({l2}, {w2})[0];
  expect_same(g1, g2);
}

TEST(Vmap, VmapOfJvpAndJvpOfVmap) {
  Tensor x = data({5, 3}, 92), v = data({5, 3}, 93);
  Function f = [](const Tensors& in) { return Tensors{mul(sin(in[0]), in[0])}; };
  Tensor want = mul(add(mul(cos(x), x), sin(x)), v);
  // Tangents attached inside the mapped function and tangents of the mapped function's inputs.
  Function per = [f](const Tensors& in) { return jvp(f, {in[0]}, {in[1]}).second; };
  expect_same(vmap(per)({x, v})[0], want);
  expect_same(jvp(vmap(f), {x}, {v}).second[0], want);
}

// Taylor mode on either side of vmap: the Laplacian of a batch of point functions, and the
// Laplacian of a function that maps a per-point function with vmap.
TEST(Vmap, TaylorModeInsideAndOutside) {
  Tensor w = data({3, 4}, 94);
  PointFunction f = [w](const Tensor& x) { return sum(tanh(matmul(x, w)), {-1}); };  // [..., 3] -> [...]
  Tensor x = data({2, 6, 3}, 95);
  Function lap = [f](const Tensors& in) { return Tensors{laplacian(f)(in[0])}; };
  Tensor want = laplacian(f)(x);
  expect_same(vmap(lap)({x})[0], want, 1e-13, "vmap of laplacian");
  expect_same(vmap(lap, {1}, {1})({x})[0], want, 1e-13, "vmap of laplacian, axis 1");
  PointFunction mapped = [f](const Tensor& x) {
    return vmap([f](const Tensors& in) { return Tensors{f(in[0])}; })({x})[0];
  };
  expect_same(laplacian(mapped)(x), want, 1e-13, "laplacian of vmap");
  expect_same(hessian_diag(mapped)(x), hessian_diag(f)(x), 1e-13, "hessian_diag of vmap");
}

TEST(Vmap, DataAccessInsideRaises) {
  Tensor x = data({3, 2}, 100);
  expect_error_naming<ValueError>([&] { vmap(one([](const Tensors& in) { in[0].item<double>(); return in[0]; }))({data({3}, 1)}); },
                                  {"vmap"});
  expect_error_naming<ValueError>([&] { vmap(one([](const Tensors& in) { in[0].to_vector(); return in[0]; }))({x}); },
                                  {"vmap", "[2]"});
  expect_error_naming<ValueError>([&] { vmap(one([](const Tensors& in) { (void)in[0].data<double>(); return in[0]; }))({x}); },
                                  {"vmap"});
}

TEST(Vmap, Errors) {
  auto add2 = one([](const Tensors& in) { return add(in[0], in[1]); });
  expect_error_naming<ShapeError>([&] { vmap(add2)({data({3, 2}, 1), data({4, 2}, 2)}); }, {"vmap", "3", "4"});
  expect_error_naming<ValueError>([&] { vmap(add2, {0})({data({3}, 1), data({3}, 2)}); }, {"in_axes", "1", "2"});
  expect_error_naming<ValueError>([&] { vmap(add2, {std::nullopt, std::nullopt})({data({3}, 1), data({3}, 2)}); },
                                  {"vmap", "None"});
  expect_error_naming<ValueError>([&] { vmap(add2, {}, {0, 1})({data({3}, 1), data({3}, 2)}); }, {"out_axes", "2", "1"});
  expect_error_naming<Error>([&] { vmap(add2, {2, 0})({data({3, 2}, 1), data({3}, 2)}); }, {"vmap"});
  expect_error_naming<Error>([&] { vmap(add2, {0, 0}, {3})({data({3, 2}, 1), data({3, 2}, 2)}); }, {"vmap"});
}
