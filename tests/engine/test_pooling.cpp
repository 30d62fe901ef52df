// Pooling and resampling: closed forms on small inputs (ties, NaN, padding, ceil_mode,
// count_include_pad, divisor_override, adaptive windows that do not divide), a direct loop for
// dilated 2-d max pooling, gradients by hand, determinism across thread counts, errors, and the
// layers. The registry test checks the rules of max_pool, avg_pool and avg_pool_backward.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <limits>

#include "engine/autodiff/backward.h"
#include "engine/nn/functional/pooling.h"
#include "engine/nn/layers/pooling.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/interpolate.h"
#include "engine/ops/pool.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"
#include "tests/common/expect_error.h"

using namespace spire;
namespace F = spire::nn::functional;

namespace {
using Ints = std::vector<int64_t>;
using Doubles = std::vector<double>;

Tensor vec(const Doubles& v, const Shape& s) { return from_vector(v, s); }

void expect_values(const Tensor& t, const Doubles& want, double tol = 1e-12) {
  std::vector<double> got = t.to_vector();
  ASSERT_EQ(got.size(), want.size()) << shape_str(t.shape());
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
    else EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
  }
}

PoolOptions opts(Ints k, Ints s = {}, Ints p = {0}, Ints d = {1}, bool ceil = false) {
  return PoolOptions{std::move(k), std::move(s), std::move(p), std::move(d), ceil};
}

}  // namespace

TEST(Pooling, MaxPool1dValuesAndIndices) {
  Tensor x = vec({1, 3, 2, 5, 4}, {1, 1, 5});
  auto [v, i] = max_pool(x, 1, opts({2}));
  expect_values(v, {3, 5});
  expect_values(i, {1, 3});
  EXPECT_EQ(i.dtype(), DType::Int64);
  // ceil_mode keeps the tail window [4, 6), which holds one input element.
  auto [vc, ic] = max_pool(x, 1, opts({2}, {}, {0}, {1}, true));
  expect_values(vc, {3, 5, 4});
  expect_values(ic, {1, 3, 4});
  // Padding is -inf: never the maximum, even over negative values.
  auto [vp, ip] = max_pool(neg(x), 1, opts({3}, {1}, {1}));
  expect_values(vp, {-1, -1, -2, -2, -4});
  expect_values(ip, {0, 0, 2, 2, 4});
}

TEST(Pooling, MaxPoolTiesTakeTheFirstInWindowOrderAndNaNWins) {
  auto [v, i] = max_pool(vec({2, 2, 1, 1}, {1, 4}), 1, opts({2}));
  expect_values(v, {2, 1});
  expect_values(i, {0, 2});
  // 2-d: window order is row-major, so the tie at (0, 1) beats the one at (1, 0).
  auto [v2, i2] = max_pool(vec({0, 7, 7, 7}, {1, 2, 2}), 2, opts({2}));
  expect_values(v2, {7});
  expect_values(i2, {1});
  double nan = std::numeric_limits<double>::quiet_NaN();
  auto [vn, in] = max_pool(vec({1, nan, 3, 4}, {1, 4}), 1, opts({2}));
  expect_values(vn, {nan, 4});
  expect_values(in, {1, 3});
  // All -inf: the first element of the window, as torch.
  double inf = std::numeric_limits<double>::infinity();
  auto [vi, ii] = max_pool(vec({-inf, -inf, -inf}, {1, 3}), 1, opts({3}, {1}, {1}));
  expect_values(ii, {0, 0, 1});
  (void)vi;
}

// Direct dilated max pooling over [C, H, W] planes with -inf padding.
TEST(Pooling, MaxPool2dDilationAgainstADirectLoop) {
  Tensor x = rules::sample({2, 3, 7, 8}, -1, 1, 11);
  Ints k{3, 2}, s{2, 3}, p{1, 1}, d{2, 3};
  for (bool ceil : {false, true}) {
    auto [v, idx] = max_pool(x, 2, opts(k, s, p, d, ceil));
    std::vector<double> xs = x.to_vector(), vs = v.to_vector(), is = idx.to_vector();
    int64_t H = 7, W = 8, OH = v.shape(2), OW = v.shape(3);
    auto out_size = [&](int64_t in, int64_t i) {
      int64_t num = in + 2 * p[i] - d[i] * (k[i] - 1) - 1 + (ceil ? s[i] - 1 : 0), o = num / s[i] + 1;
      if (ceil && (o - 1) * s[i] >= in + p[i]) --o;
      return o;
    };
    ASSERT_EQ(OH, out_size(H, 0));
    ASSERT_EQ(OW, out_size(W, 1));
    for (int64_t plane = 0; plane < 6; ++plane)
      for (int64_t a = 0; a < OH; ++a)
        for (int64_t b = 0; b < OW; ++b) {
          double best = -INFINITY;
          int64_t arg = -1;
          for (int64_t u = 0; u < k[0]; ++u)
            for (int64_t w = 0; w < k[1]; ++w) {
              int64_t h = a * s[0] - p[0] + u * d[0], c = b * s[1] - p[1] + w * d[1];
              if (h < 0 || h >= H || c < 0 || c >= W) continue;
              double val = xs[size_t(plane * H * W + h * W + c)];
              if (val > best) best = val, arg = h * W + c;
            }
          size_t o = size_t((plane * OH + a) * OW + b);
          EXPECT_EQ(vs[o], best);
          EXPECT_EQ(int64_t(is[o]), arg);
        }
  }
}

TEST(Pooling, MaxPoolGradientGoesToTheArgmax) {
  Tensor x = vec({1, 3, 2, 5, 4}, {1, 5}).set_requires_grad(true);
  Tensor y = max_pool(x, 1, opts({3}, {1})).first;  // windows pick 3, 5, 5
  expect_values(y, {3, 5, 5});
  sum(y).backward();
  expect_values(x.grad(), {0, 1, 0, 2, 0});
  // Integer inputs pool too (no gradient).
  auto [vi, ii] = max_pool(from_vector<int64_t>({4, -2, 9, 9}, {1, 4}), 1, opts({2}));
  EXPECT_EQ(vi.dtype(), DType::Int64);
  expect_values(vi, {4, 9});
  expect_values(ii, {0, 2});
}

TEST(Pooling, AvgPoolPaddingCeilModeAndDivisors) {
  Tensor x = vec({0, 1, 2, 3, 4}, {1, 1, 5});
  expect_values(avg_pool(x, 1, opts({2}, {}, {0}, {1}, true)), {0.5, 2.5, 4});
  // Window 2 is [3, 6): padded input ends at 6, so it counts 3 with padding and 2 without.
  expect_values(avg_pool(x, 1, opts({3}, {2}, {1}, {1}, true), true), {1.0 / 3, 2, 7.0 / 3});
  expect_values(avg_pool(x, 1, opts({3}, {2}, {1}, {1}, true), false), {0.5, 2, 3.5});
  // A ceil_mode window past the padded end: [3, 6) with the padded input ending at 5 counts 2.
  expect_values(avg_pool(vec({1, 2, 3, 4}, {1, 4}), 1, opts({3}, {2}, {1}, {1}, true), true), {1, 3, 2});
  expect_values(avg_pool(ones({1, 1, 2, 2}, DType::Float64), 2, opts({2}), true, 3), {4.0 / 3});
  // 2-d with padding not counted: each corner window holds 1 element, edges 2, the centre 4.
  Tensor y = avg_pool(ones({1, 3, 3}, DType::Float64), 2, opts({2}, {1}, {1}), false);
  EXPECT_EQ(y.shape(), (Shape{1, 4, 4}));
  expect_values(y, Doubles(16, 1.0));
  // Integers average as float32 after a cast.
  EXPECT_EQ(avg_pool(from_vector<int64_t>({1, 2}, {1, 2}), 1, opts({2})).dtype(), DType::Float32);
}

TEST(Pooling, AvgPoolGradientIsTheTranspose) {
  // <avg_pool(x), g> = <x, avg_pool_backward(g)> for random x, g, over a 3-d ceil_mode geometry.
  Tensor x = rules::sample({2, 3, 5, 4, 6}, -1, 1, 3).set_requires_grad(true);
  PoolOptions o = opts({2, 3, 2}, {2, 1, 3}, {1, 1, 0}, {1}, true);
  for (bool include : {true, false}) {
    Tensor y = avg_pool(x, 3, o, include);
    Tensor g = rules::sample(y.shape(), -1, 1, 4);
    Tensor gx = autodiff::grad({sum(mul(y, g))}, {x})[0];
    Tensor u = rules::sample(x.shape(), -1, 1, 5);
    EXPECT_NEAR(sum(mul(avg_pool(u, 3, o, include), g)).item<double>(), sum(mul(u, gx)).item<double>(), 1e-12);
  }
  // By hand in 1-d: windows [0,2), [1,3), [2,4) of 4 ones, each divided by 2.
  Tensor z = vec({0, 0, 0, 0}, {1, 4}).set_requires_grad(true);
  sum(avg_pool(z, 1, opts({2}, {1}))).backward();
  expect_values(z.grad(), {0.5, 1, 1, 0.5});
}

TEST(Pooling, AdaptiveWindowsThatDoNotDivide) {
  Tensor x = vec({0, 1, 2, 3, 4}, {1, 1, 5});
  // 5 -> 3: windows [0, 2), [1, 4), [3, 5).
  expect_values(adaptive_avg_pool(x, {3}), {0.5, 2, 3.5});
  auto [v, i] = adaptive_max_pool(vec({0, 4, 1, 3, 2}, {1, 5}), {3});
  expect_values(v, {4, 4, 3});
  expect_values(i, {1, 1, 3});
  // Upsampling: 3 -> 5 repeats (windows [0,1), [0,2), [1,2), [1,3), [2,3)).
  expect_values(adaptive_avg_pool(vec({0, 1, 2}, {1, 3}), {5}), {0, 0.5, 1, 1.5, 2});
  // 2-d separable: the mean of an outer product is the outer product of the means.
  Tensor a = vec({1, 2, 3, 4, 5}, {5, 1}), b = vec({1, 10, 100}, {1, 3});
  Tensor y = adaptive_avg_pool(reshape(mul(a, b), {1, 5, 3}), {2, 2});
  expect_values(y, {2 * 5.5, 2 * 55, 4 * 5.5, 4 * 55});
  // nullopt keeps the size; zero outputs are allowed (torch), empty inputs are not.
  EXPECT_EQ(F::adaptive_avg_pool2d(zeros({2, 3, 4}), {std::nullopt, 2}).shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(F::adaptive_avg_pool1d(zeros({2, 3, 4}), {0}).shape(), (Shape{2, 3, 0}));
  expect_error_naming<ShapeError>([] { adaptive_avg_pool(zeros({1, 0}), {2}); }, {"empty", "spatial axis 0"});
}

TEST(Pooling, UnbatchedInputsMatchBatched) {
  Tensor x = rules::sample({3, 6, 5}, -1, 1, 7);
  Tensor xb = unsqueeze(x, 0);
  auto same = [](const Tensor& a, const Tensor& b) {
    EXPECT_EQ(a.shape(), Shape(b.shape().begin() + 1, b.shape().end()));
    EXPECT_EQ(a.to_vector(), b.to_vector());
  };
  same(F::max_pool2d(x, {2}), F::max_pool2d(xb, {2}));
  same(F::avg_pool2d(x, {3}, {{1}, {1}}), F::avg_pool2d(xb, {3}, {{1}, {1}}));
  same(F::adaptive_max_pool2d(x, {4, 3}), F::adaptive_max_pool2d(xb, {4, 3}));
  expect_error_naming<ShapeError>([] { F::max_pool2d(zeros({4, 4}), {2}); }, {"max_pool2d", "[N, C,"});
}

TEST(Pooling, ResultsDoNotDependOnTheThreadCount) {
  Tensor x = cast(rules::sample({4, 8, 40, 40}, -1, 1, 9), DType::Float32).set_requires_grad(true);
  auto run = [&](int threads) {
    int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    Tensor y = add(max_pool(x, 2, opts({3}, {2}, {1})).first, avg_pool(x, 2, opts({3}, {2}, {1}), false));
    Tensor g = autodiff::grad({sum(mul(y, y))}, {x})[0];
    omp_set_num_threads(before);
    return std::make_pair(y.to_vector(), g.to_vector());
  };
  auto one = run(1), four = run(4);
  EXPECT_EQ(one.first, four.first);
  EXPECT_EQ(one.second, four.second);
  // The reverse rule of avg_pool scatters per plane for many planes and gathers per input row for
  // few; both sum the same terms in the same order.
  Tensor many = rules::sample({8, 4, 9, 7}, -1, 1, 10).set_requires_grad(true);
  PoolOptions o = opts({3, 2}, {2, 1}, {1, 1}, {1}, true);
  Tensor gy = rules::sample(avg_pool(many, 2, o).shape(), -1, 1, 11);
  Tensor g_many = autodiff::grad({sum(mul(avg_pool(many, 2, o), gy))}, {many})[0];
  Tensor few = slice(many.detach(), 0, 0, 1).set_requires_grad(true);
  Tensor g_few = autodiff::grad({sum(mul(avg_pool(few, 2, o), slice(gy, 0, 0, 1)))}, {few})[0];
  EXPECT_EQ(g_few.to_vector(), slice(g_many, 0, 0, 1).to_vector());
}

TEST(Pooling, ErrorsNameWhatIsWrong) {
  Tensor x = zeros({1, 1, 5, 5});
  expect_error_naming<ShapeError>([&] { max_pool(x, 2, opts({6})); }, {"larger than the padded input", "6"});
  expect_error_naming<ValueError>([&] { max_pool(x, 2, opts({2}, {}, {2})); }, {"padding", "half the kernel"});
  expect_error_naming<ValueError>([&] { avg_pool(x, 2, opts({2}, {0})); }, {"stride", ">= 1"});
  expect_error_naming<ValueError>([&] { max_pool(x, 2, opts({2, 2, 2})); }, {"kernel_size", "3 entries"});
  expect_error_naming<ValueError>([&] { avg_pool(x, 2, opts({2}, {}, {0}, {2})); }, {"dilation"});
  expect_error_naming<ValueError>([&] { avg_pool(x, 2, opts({2}), true, 0); }, {"divisor_override"});
  expect_error_naming<DTypeError>([&] { max_pool(zeros({1, 4}, DType::Complex64), 1, opts({2})); }, {"complex64"});
  expect_error_naming<ValueError>([&] { adaptive_max_pool(x, {-1, 2}); }, {"output_size", ">= 0"});
  // A dilated window that skips the whole input (torch reads out of range here).
  expect_error_naming<ShapeError>([&] { max_pool(zeros({1, 5}), 1, opts({2}, {5}, {1}, {10}, true)); },
                                  {"covers only padding"});
}

TEST(Pooling, MaxUnpoolWritesValuesBackAtTheirIndices) {
  Tensor x = vec({1, 3, 2, 5, 4}, {1, 1, 5});
  auto [v, i] = max_pool(x, 1, opts({2}, {}, {0}, {1}, true));  // {3, 5, 4} at {1, 3, 4}
  expect_values(max_unpool(v, i, {5}), {0, 3, 0, 5, 4});
  // torch's default size (in - 1) stride + kernel - 2 padding: 4 for 2 windows of 2.
  auto [v2, i2] = max_pool(x, 1, opts({2}));
  expect_values(F::max_unpool1d(v2, i2, {2}), {0, 3, 0, 5});
  expect_error_naming<ValueError>([&] { max_unpool(v, i, {4}); }, {"index 4", "out of range"});
  expect_error_naming<ValueError>([&] { F::max_unpool1d(v2, i2, {2}, {.output_size = {7}}); },
                                  {"output_size", "between 2 and 6"});
  // Repeated indices keep the last value; the gradient gathers at the indices (torch's rule).
  Tensor w = vec({1, 2, 3}, {1, 3}).set_requires_grad(true);
  Tensor y = max_unpool(w, from_vector<int64_t>({0, 2, 2}, {1, 3}), {4});
  expect_values(y, {1, 0, 3, 0});
  sum(mul(y, vec({10, 20, 30, 40}, {1, 4}))).backward();
  expect_values(w.grad(), {10, 30, 30});
  nn::MaxUnpool2d layer({2});
  EXPECT_EQ(layer.repr(), "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))");
  auto [v3, i3] = F::max_pool2d_with_indices(rules::sample({2, 3, 4, 6}, -1, 1, 8), {2});
  Tensor back = layer.forward(v3, i3);
  EXPECT_EQ(back.shape(), (Shape{2, 3, 4, 6}));
  // Pooling the unpooled values gives them back.
  expect_values(F::max_pool2d(where(eq(back, 0.0), -10.0, back), {2}), v3.to_vector());
}

TEST(Interpolate, NearestAndLinearClosedForms) {
  Tensor x = vec({1, 2, 4}, {1, 1, 3});
  expect_values(resample(x, {6}, ResampleMode::Nearest), {1, 1, 2, 2, 4, 4});
  expect_values(resample(x, {2}, ResampleMode::Nearest), {1, 2});           // floor(o * 1.5)
  expect_values(resample(x, {2}, ResampleMode::NearestExact), {1, 4});      // floor((o + .5) * 1.5)
  expect_values(resample(x, {5}, ResampleMode::Linear, true), {1, 1.5, 2, 3, 4});
  // align_corners=False, 2 -> 4: sources -0.25 (clamped), 0.25, 0.75, 1.25 (clamped to the end).
  expect_values(resample(vec({0, 1}, {1, 2}), {4}, ResampleMode::Linear), {0, 0.25, 0.75, 1});
  // With a user scale factor of 3 on 2 -> 6 the map uses 1/3, not in/out.
  expect_values(resample(vec({0, 3}, {1, 2}), {6}, ResampleMode::Linear, false, {3.0}),
                {0, 0, 1, 2, 3, 3});
  // Bilinear of an outer product is the outer product of the linear resamplings.
  Tensor a = vec({1, 2, 5}, {3, 1}), b = vec({0, 4}, {1, 2});
  Tensor y = resample(reshape(mul(a, b), {1, 3, 2}), {4, 3}, ResampleMode::Linear, true);
  Tensor ya = resample(vec({1, 2, 5}, {3}), {4}, ResampleMode::Linear, true);
  Tensor yb = resample(vec({0, 4}, {2}), {3}, ResampleMode::Linear, true);
  expect_values(y, mul(reshape(ya, {4, 1}), reshape(yb, {1, 3})).to_vector());
  expect_values(resample(x, {2}, ResampleMode::Area), {1.5, 3});
}

TEST(Interpolate, FunctionalArguments) {
  Tensor x = rules::sample({2, 3, 4, 5}, -1, 1, 2);
  F::InterpolateArgs a;
  a.scale_factor = {2.5};
  EXPECT_EQ(F::interpolate(x, a).shape(), (Shape{2, 3, 10, 12}));  // floor(4 * 2.5), floor(5 * 2.5)
  a.mode = "bilinear";
  a.align_corners = true;
  EXPECT_EQ(F::interpolate(x, a).shape(), (Shape{2, 3, 10, 12}));
  a.mode = "linear";
  expect_error_naming<ShapeError>([&] { F::interpolate(x, a); }, {"linear", "3-d"});
  a.mode = "nearest";
  expect_error_naming<ValueError>([&] { F::interpolate(x, a); }, {"align_corners"});
  F::InterpolateArgs both;
  both.size = {3};
  both.scale_factor = {2};
  expect_error_naming<ValueError>([&] { F::interpolate(x, both); }, {"only one of size and scale_factor"});
  F::InterpolateArgs bad;
  bad.size = {3};
  bad.mode = "bicubic";
  expect_error_naming<ValueError>([&] { F::interpolate(x, bad); }, {"bicubic", "nearest"});
  // Gradients flow through the composition: the transpose of nearest 2x sums pairs.
  Tensor z = vec({1, 2}, {1, 1, 2}).set_requires_grad(true);
  F::InterpolateArgs up;
  up.scale_factor = {2};
  sum(mul(F::interpolate(z, up), vec({1, 10, 100, 1000}, {1, 1, 4}))).backward();
  expect_values(z.grad(), {11, 1100});
}

TEST(PoolingLayers, ReprsAndReturnIndices) {
  nn::MaxPool2d mp({2});
  EXPECT_EQ(mp.repr(), "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  nn::MaxPool1d mpi({3}, {.stride = {2}, .padding = {1}, .return_indices = true});
  Tensors out = mpi.forward(Tensors{vec({1, 5, 2, 0, 3}, {1, 1, 5})});
  ASSERT_EQ(out.size(), 2u);
  expect_values(out[0], {5, 5, 3});  // windows [-1, 2), [1, 4), [3, 6)
  expect_values(out[1], {1, 1, 4});
  EXPECT_EQ(nn::AvgPool1d({3}).repr(), "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))");
  EXPECT_EQ(nn::AvgPool3d({1, 2, 2}, {.ceil_mode = true}).repr(),
            "AvgPool3d(kernel_size=(1, 2, 2), stride=(1, 2, 2), padding=0)");
  EXPECT_EQ(nn::AdaptiveAvgPool2d({std::nullopt, 3}).repr(), "AdaptiveAvgPool2d(output_size=(None, 3))");
  EXPECT_EQ(nn::AdaptiveMaxPool1d({4}, true).repr(), "AdaptiveMaxPool1d(output_size=4)");
  F::InterpolateArgs a;
  a.scale_factor = {2};
  EXPECT_EQ(nn::Upsample(a).repr(), "Upsample(scale_factor=2.0, mode='nearest')");
  a.scale_factor = {};
  a.size = {3, 4};
  a.mode = "bilinear";
  EXPECT_EQ(nn::Upsample(a).repr(), "Upsample(size=(3, 4), mode='bilinear')");
  EXPECT_EQ(nn::Upsample(a).forward(zeros({1, 2, 5, 5})).shape(), (Shape{1, 2, 3, 4}));
  expect_error_naming<ValueError>([] { nn::MaxPool2d({2, 2, 2}); }, {"kernel_size", "1 or 2"});
}
