// Layers and their functional forms: closed forms written here (linear, layer_norm, softplus, the
// spectral convolution as a direct DFT sum, batch norm's running statistics), gradients against
// central finite differences, dropout's determinism per seed, and the initialisers' ranges and
// orthogonality. Parity with PyTorch itself is in tests/python/test_nn_layers.py.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <functional>
#include <random>

#include "engine/autodiff/mode.h"
#include "tests/common/expect_error.h"
#include "engine/nn/functional/functional.h"
#include "engine/nn/init.h"
#include "engine/nn/layers/layers.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

using namespace spire;
namespace F = spire::nn::functional;
using Vec = std::vector<double>;

namespace {

Tensor rand64(const Shape& s, uint64_t seed, double lo = -1, double hi = 1) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  Vec v(size_t(numel_of(s)));
  for (auto& x : v) x = u(g);
  return from_vector<double>(v, s);
}

// Checks d/dx sum(f(x) * probe) against central differences, for each input in turn.
void check_grad(const std::function<Tensor(const Tensors&)>& f, Tensors xs, double tol = 1e-6) {
  for (auto& x : xs) x = copy(x).set_requires_grad();
  Tensor y = f(xs);
  Tensor probe = rand64(y.shape(), 99);
  sum(y * probe).backward();
  for (size_t k = 0; k < xs.size(); ++k) {
    Vec g = xs[k].grad().to_vector(), base = xs[k].detach().to_vector();
    const double h = 1e-6;
    for (size_t i = 0; i < base.size(); ++i) {
      auto eval = [&](double d) {
        NoGradGuard ng;
        Tensors ys;
        for (size_t j = 0; j < xs.size(); ++j) ys.push_back(xs[j].detach());
        Vec b = base;
        b[i] += d;
        ys[k] = from_vector<double>(b, xs[k].shape());
        return sum(f(ys) * probe).item<double>();
      };
      double fd = (eval(h) - eval(-h)) / (2 * h);
      EXPECT_NEAR(g[i], fd, tol * (1 + std::abs(fd))) << "input " << k << " element " << i;
    }
  }
}

}  // namespace

TEST(NnFunctional, LinearClosedForm) {
  Tensor x = rand64({2, 3}, 1), w = rand64({4, 3}, 2), b = rand64({4}, 3);
  Vec xv = x.to_vector(), wv = w.to_vector(), bv = b.to_vector(), y = F::linear(x, w, b).to_vector();
  for (int n = 0; n < 2; ++n)
    for (int o = 0; o < 4; ++o) {
      double acc = bv[o];
      for (int i = 0; i < 3; ++i) acc += xv[n * 3 + i] * wv[o * 3 + i];
      EXPECT_NEAR(y[n * 4 + o], acc, 1e-14);
    }
  EXPECT_THROW(F::linear(x, rand64({4, 2}, 4)), ShapeError);
}

TEST(NnFunctional, LayerNormClosedForm) {
  Tensor x = rand64({3, 5}, 5), w = rand64({5}, 6), b = rand64({5}, 7);
  Vec xv = x.to_vector(), wv = w.to_vector(), bv = b.to_vector(), y = F::layer_norm(x, {5}, w, b, 1e-5).to_vector();
  for (int r = 0; r < 3; ++r) {
    double m = 0, v = 0;
    for (int i = 0; i < 5; ++i) m += xv[r * 5 + i] / 5;
    for (int i = 0; i < 5; ++i) v += (xv[r * 5 + i] - m) * (xv[r * 5 + i] - m) / 5;
    for (int i = 0; i < 5; ++i)
      EXPECT_NEAR(y[r * 5 + i], (xv[r * 5 + i] - m) / std::sqrt(v + 1e-5) * wv[i] + bv[i], 1e-13);
  }
}

TEST(NnFunctional, SoftplusClosedFormAndThreshold) {
  Vec xs{-30, -2, -0.5, 0, 0.7, 3, 9.9, 10.1, 40};
  Tensor x = from_vector<double>(xs, {int64_t(xs.size())});
  Vec y = F::softplus(x, 2.0, 20.0).to_vector();
  for (size_t i = 0; i < xs.size(); ++i) {
    double want = 2.0 * xs[i] > 20.0 ? xs[i] : std::log1p(std::exp(2.0 * xs[i])) / 2.0;
    EXPECT_NEAR(y[i], want, 1e-14) << xs[i];
  }
}

TEST(NnFunctional, ActivationsPointwise) {
  Vec xs{-3, -0.5, 0.0, 0.25, 2};
  Tensor x = from_vector<double>(xs, {5});
  Vec relu = F::relu(x).to_vector(), gelu = F::gelu(x).to_vector(), gt = F::gelu(x, "tanh").to_vector(),
      silu = F::silu(x).to_vector(), lr = F::leaky_relu(x, 0.1).to_vector(), elu = F::elu(x, 1.5).to_vector();
  for (size_t i = 0; i < xs.size(); ++i) {
    double v = xs[i];
    EXPECT_EQ(relu[i], std::max(v, 0.0));
    EXPECT_NEAR(gelu[i], 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))), 1e-15);
    EXPECT_NEAR(gt[i], 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))), 1e-15);
    EXPECT_NEAR(silu[i], v / (1 + std::exp(-v)), 1e-15);
    EXPECT_NEAR(lr[i], v > 0 ? v : 0.1 * v, 1e-15);
    EXPECT_NEAR(elu[i], v > 0 ? v : 1.5 * std::expm1(v), 1e-15);
  }
  EXPECT_THROW(F::gelu(x, "fast"), ValueError);
}

TEST(NnFunctional, SpectralConv1dIsDirectDft) {
  // y[b, o, t] = irfft(sum_i X[b, i, k] W[i, o, k] for k < modes), with X the DFT, written out.
  const int B = 2, I = 3, O = 2, N = 8, M = 3;
  Tensor x = rand64({B, I, N}, 11);
  Tensor w = complex(rand64({I, O, M}, 12), rand64({I, O, M}, 13));
  Vec y = F::spectral_conv1d(x, w, M).to_vector(), xv = x.to_vector();
  Vec wr = real(w).to_vector(), wi = imag(w).to_vector();
  using C = std::complex<double>;
  for (int b = 0; b < B; ++b)
    for (int o = 0; o < O; ++o) {
      std::vector<C> Y(N / 2 + 1, 0.0);
      for (int k = 0; k < M; ++k)
        for (int i = 0; i < I; ++i) {
          C X = 0;
          for (int t = 0; t < N; ++t) X += xv[(b * I + i) * N + t] * std::polar(1.0, -2 * M_PI * k * t / N);
          Y[k] += X * C(wr[(i * O + o) * M + k], wi[(i * O + o) * M + k]);
        }
      for (int t = 0; t < N; ++t) {
        // Hermitian inverse: the DC term once, the others twice (real part); the imaginary part of
        // the DC term is dropped, as irfft does.
        double v = Y[0].real();
        for (int k = 1; k < M; ++k) v += 2 * (Y[k] * std::polar(1.0, 2 * M_PI * k * t / N)).real();
        EXPECT_NEAR(y[(b * O + o) * N + t], v / N, 1e-12);
      }
    }
}

TEST(NnFunctional, GradientsByFiniteDifferences) {
  check_grad([](const Tensors& a) { return F::linear(a[0], a[1], a[2]); },
             {rand64({2, 3}, 1), rand64({4, 3}, 2), rand64({4}, 3)});
  check_grad([](const Tensors& a) { return F::layer_norm(a[0], {4}, a[1], a[2]); },
             {rand64({3, 4}, 4), rand64({4}, 5), rand64({4}, 6)});
  check_grad([](const Tensors& a) { return F::group_norm(a[0], 2, a[1], a[2]); },
             {rand64({2, 4, 3}, 7), rand64({4}, 8), rand64({4}, 9)});
  check_grad([](const Tensors& a) { return F::batch_norm(a[0], Tensor(), Tensor(), a[1], a[2], true); },
             {rand64({3, 2, 2}, 10), rand64({2}, 11), rand64({2}, 12)});
  check_grad([](const Tensors& a) { return F::conv2d(a[0], a[1], a[2], {{2}, {1}, {1}, 1, "zeros"}); },
             {rand64({1, 2, 5, 4}, 13), rand64({3, 2, 3, 2}, 14), rand64({3}, 15)});
  check_grad([](const Tensors& a) { return F::conv_transpose1d(a[0], a[1], a[2], {{2}, {1}, {1}, 1, "zeros"}, {1}); },
             {rand64({1, 2, 4}, 16), rand64({2, 3, 3}, 17), rand64({3}, 18)});
  check_grad([](const Tensors& a) { return F::spectral_conv(a[0], {complex(a[1], a[2]), complex(a[2], a[1])}, {2, 2}); },
             {rand64({1, 2, 4, 6}, 19), rand64({2, 2, 2, 2}, 20), rand64({2, 2, 2, 2}, 21)});
  check_grad([](const Tensors& a) {
    return F::scaled_dot_product_attention(a[0], a[1], a[2], Tensor(), 0.0, true);
  }, {rand64({2, 3, 4}, 22), rand64({2, 3, 4}, 23), rand64({2, 3, 2}, 24)});
  check_grad([](const Tensors& a) {
    return F::gelu(a[0]) + F::gelu(a[0], "tanh") + F::silu(a[0]) + F::softplus(a[0], 3.0, 2.0) + F::elu(a[0]) +
           F::leaky_relu(a[0]);
  }, {rand64({7}, 25)});
}

TEST(NnFunctional, DropoutDeterministicPerSeed) {
  Tensor x = ones({1000}, DType::Float64);
  Generator g1(7), g2(7), g3(8);
  Vec a = F::dropout(x, 0.3, true, &g1).to_vector(), b = F::dropout(x, 0.3, true, &g2).to_vector(),
      c = F::dropout(x, 0.3, true, &g3).to_vector();
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  int zeros_seen = 0;
  for (double v : a) {
    EXPECT_TRUE(v == 0.0 || std::abs(v - 1 / 0.7) < 1e-15);
    zeros_seen += v == 0.0;
  }
  EXPECT_NEAR(zeros_seen / 1000.0, 0.3, 0.05);
  EXPECT_EQ(F::dropout(x, 0.3, false).to_vector(), x.to_vector());
}

TEST(NnLayers, BatchNormRunningStatistics) {
  auto bn = std::make_shared<nn::BatchNorm1d>(2, 1e-5, 0.1, true, true, DType::Float64);
  Tensor x = rand64({4, 2}, 30);
  bn->forward(x);
  Vec xv = x.to_vector(), rm = bn->running_mean.to_vector(), rv = bn->running_var.to_vector();
  for (int c = 0; c < 2; ++c) {
    double m = 0, v = 0;
    for (int n = 0; n < 4; ++n) m += xv[n * 2 + c] / 4;
    for (int n = 0; n < 4; ++n) v += (xv[n * 2 + c] - m) * (xv[n * 2 + c] - m) / 3;  // unbiased
    EXPECT_NEAR(rm[c], 0.1 * m, 1e-15);
    EXPECT_NEAR(rv[c], 0.9 + 0.1 * v, 1e-15);
  }
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  bn->eval();
  Vec y = bn->forward(x).to_vector();
  for (int n = 0; n < 4; ++n)
    for (int c = 0; c < 2; ++c) EXPECT_NEAR(y[n * 2 + c], (xv[n * 2 + c] - rm[c]) / std::sqrt(rv[c] + 1e-5), 1e-14);
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
}

TEST(NnLayers, DefaultInitialisationRanges) {
  Generator g(3);
  nn::Linear lin(50, 20, true, DType::Float64, &g);
  double bound = 1 / std::sqrt(50.0);
  for (double v : lin.weight.to_vector()) EXPECT_LE(std::abs(v), bound);
  for (double v : lin.bias.to_vector()) EXPECT_LE(std::abs(v), bound);
  EXPECT_TRUE(lin.weight.requires_grad());
  EXPECT_EQ(lin.state_dict().keys(), (std::vector<std::string>{"weight", "bias"}));
  Generator g2(3);
  nn::Linear again(50, 20, true, DType::Float64, &g2);
  EXPECT_EQ(again.weight.to_vector(), lin.weight.to_vector());

  nn::Conv2d conv(4, 6, {3, 3}, {.dtype = DType::Float64, .gen = &g});
  double cb = 1 / std::sqrt(4.0 * 9);
  for (double v : conv.weight.to_vector()) EXPECT_LE(std::abs(v), cb);
  EXPECT_EQ(conv.weight.shape(), (Shape{6, 4, 3, 3}));
  EXPECT_EQ(conv.repr(), "Conv2d(4, 6, kernel_size=(3, 3), stride=(1, 1))");

  nn::Embedding emb(5, 3, 1, DType::Float64, &g);
  for (double v : select(emb.weight, 0, 1).to_vector()) EXPECT_EQ(v, 0.0);
}

TEST(NnInit, OrthogonalXavierKaimingSiren) {
  Generator g(5);
  for (Shape s : {Shape{6, 4}, Shape{3, 7}}) {
    Tensor w = zeros(s, DType::Float64);
    nn::init::orthogonal_(w, 2.0, g);
    Tensor qtq = s[0] >= s[1] ? matmul(mT(w), w) : matmul(w, mT(w));
    Vec e = qtq.to_vector();
    int64_t k = std::min(s[0], s[1]);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < k; ++j) EXPECT_NEAR(e[size_t(i * k + j)], i == j ? 4.0 : 0.0, 1e-12);
  }
  EXPECT_NEAR(nn::init::calculate_gain("leaky_relu", 0.2), std::sqrt(2 / 1.04), 1e-15);
  EXPECT_NEAR(nn::init::calculate_gain("tanh"), 5.0 / 3.0, 1e-15);
  EXPECT_THROW(nn::init::calculate_gain("softmax"), ValueError);
  Tensor w = zeros({40, 10, 3}, DType::Float64);
  nn::init::xavier_uniform_(w, 1.0, g);
  double a = std::sqrt(6.0 / (30 + 120));
  double mx = amax(abs(w)).item<double>();
  EXPECT_LE(mx, a);
  EXPECT_GT(mx, 0.9 * a);
  nn::init::kaiming_normal_(w, 0.0, "fan_out", "relu", g);
  EXPECT_NEAR(spire::std(w).item<double>(), std::sqrt(2.0 / 120), 0.02);
  nn::init::siren_uniform_(w, false, 30.0, g);
  EXPECT_LE(amax(abs(w)).item<double>(), std::sqrt(6.0 / 30) / 30);
  nn::init::siren_uniform_(w, true, 30.0, g);
  EXPECT_LE(amax(abs(w)).item<double>(), 1.0 / 30);
}

TEST(NnLayers, TransformerEncoderLayerShapesAndModes) {
  Generator g(1);
  nn::TransformerEncoderLayer layer(8, 2, 16, 0.1, "gelu", 1e-5, true, true, true, DType::Float64, &g);
  Tensor x = rand64({3, 5, 8}, 40);
  layer.eval();
  Tensor y1 = layer.forward(x), y2 = layer.forward(x);
  EXPECT_EQ(y1.shape(), x.shape());
  EXPECT_EQ(y1.to_vector(), y2.to_vector());  // no dropout in eval mode
  auto keys = layer.state_dict().keys();
  EXPECT_EQ(keys.front(), "self_attn.in_proj_weight");
  EXPECT_EQ(keys.size(), 12u);
}

// Flatten merges start_dim..end_dim in row-major order: element (i, j, k) of [2, 3, 4] lands at
// (i, 4 j + k) by default and at (3 i + j, k) for (0, 1).
TEST(NnLayers, FlattenMergesAxesInOrder) {
  Tensor x = reshape(arange(0, 24, 1, DType::Float64), {2, 3, 4});
  Tensor a = nn::Flatten()(x), b = nn::Flatten(0, 1)(x);
  ASSERT_EQ(a.shape(), (Shape{2, 12}));
  ASSERT_EQ(b.shape(), (Shape{6, 4}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k) {
        double v = double(12 * i + 4 * j + k);
        EXPECT_EQ(select(select(a, 0, i), 0, 4 * j + k).item<double>(), v);
        EXPECT_EQ(select(select(b, 0, 3 * i + j), 0, k).item<double>(), v);
      }
  EXPECT_EQ(nn::Flatten().extra_repr(), "start_dim=1, end_dim=-1");
}

// ---------------------------------------------------------------------------------------------
// Convolution padding: torch's "same" / "valid" strings and padding_mode "replicate", against
// closed forms written here, and gradients by central differences.

TEST(NnFunctional, ConvSameValidClosedForms) {
  Tensor x = from_vector<double>({1, 2, 3, 4, 5}, {1, 1, 5});
  // Kernel [1, 10] (two taps): "same" pads 1 in total, on the right: y[i] = x[i] + 10 x[i + 1].
  Tensor w2 = from_vector<double>({1, 10}, {1, 1, 2});
  F::ConvArgs same;
  same.padding_rule = "same";
  EXPECT_EQ(F::conv1d(x, w2, Tensor(), same).to_vector(), (Vec{21, 32, 43, 54, 5}));
  // Three taps with dilation 2: 4 in total, 2 a side: y[i] = x[i - 2] + 10 x[i] + 100 x[i + 2].
  Tensor w3 = from_vector<double>({1, 10, 100}, {1, 1, 3});
  F::ConvArgs same_d = same;
  same_d.dilation = {2};
  EXPECT_EQ(F::conv1d(x, w3, Tensor(), same_d).to_vector(), (Vec{310, 420, 531, 42, 53}));
  // "valid": no padding.
  F::ConvArgs valid;
  valid.padding_rule = "valid";
  EXPECT_EQ(F::conv1d(x, w3, Tensor(), valid).to_vector(), (Vec{321, 432, 543}));
  // Replicate (the edge value repeated), asymmetric through "same" with an even kernel:
  // [1 2 3 4 5] padded (1, 2) for 4 taps is [1 1 2 3 4 5 5 5].
  Tensor w4 = from_vector<double>({1, 10, 100, 1000}, {1, 1, 4});
  F::ConvArgs rep = same;
  rep.padding_mode = "replicate";
  EXPECT_EQ(F::conv1d(x, w4, Tensor(), rep).to_vector(), (Vec{3211, 4321, 5432, 5543, 5554}));
  F::ConvArgs rep_n;
  rep_n.padding = {2};
  rep_n.padding_mode = "replicate";
  EXPECT_EQ(F::conv1d(x, w3, Tensor(), rep_n).to_vector(), (Vec{111, 211, 321, 432, 543, 554, 555}));

  // 2-d "same" keeps the spatial size for odd and even kernels.
  Tensor x2 = rand64({2, 3, 6, 5}, 50);
  for (int64_t k : {2, 3, 4}) {
    Tensor w = rand64({4, 3, k, k + 1}, 51);
    EXPECT_EQ(F::conv2d(x2, w, Tensor(), same).shape(), (Shape{2, 4, 6, 5}));
  }

  // The errors torch gives.
  F::ConvArgs strided = same;
  strided.stride = {2};
  expect_error_naming<ValueError>([&] { F::conv1d(x, w3, Tensor(), strided); },
                                  {"padding='same'", "strided convolutions"});
  F::ConvArgs bad;
  bad.padding_rule = "full";
  expect_error_naming<ValueError>([&] { F::conv1d(x, w3, Tensor(), bad); }, {"'full'", "'valid', 'same'"});
  expect_error_naming<ValueError>([&] { F::conv_transpose1d(x, w3, Tensor(), same); }, {"transposed"});
  F::ConvArgs mode;
  mode.padding_mode = "edge";
  mode.padding = {1};
  expect_error_naming<ValueError>([&] { F::conv1d(x, w3, Tensor(), mode); }, {"\"edge\"", "replicate"});
}

TEST(NnFunctional, ConvPaddingGradientsByFiniteDifferences) {
  F::ConvArgs a;
  a.padding_rule = "same";
  a.padding_mode = "replicate";
  a.dilation = {1, 2};
  check_grad([&](const Tensors& t) { return F::conv2d(t[0], t[1], t[2], a); },
             {rand64({1, 2, 4, 5}, 60), rand64({3, 2, 2, 3}, 61), rand64({3}, 62)});
  F::ConvArgs z;
  z.padding_rule = "same";  // zeros, asymmetric for the even kernel
  check_grad([&](const Tensors& t) { return F::conv3d(t[0], t[1], Tensor(), z); },
             {rand64({1, 1, 3, 3, 4}, 63), rand64({2, 1, 2, 3, 2}, 64)});
  F::ConvArgs r;
  r.padding = {2};
  r.padding_mode = "replicate";
  check_grad([&](const Tensors& t) { return F::conv1d(t[0], t[1], Tensor(), r); },
             {rand64({2, 2, 3}, 65), rand64({1, 2, 3}, 66)});
}

TEST(NnLayers, ConvLayerPaddingOptions) {
  nn::ConvLayerOptions o;
  o.padding_rule = "same";
  o.padding_mode = "replicate";
  o.dtype = DType::Float64;
  o.dilation = {2};
  nn::Conv1d c(2, 3, {4}, o);
  EXPECT_EQ(c.forward(rand64({1, 2, 7}, 70)).shape(), (Shape{1, 3, 7}));
  EXPECT_NE(c.extra_repr().find("padding=same"), std::string::npos);
  EXPECT_NE(c.extra_repr().find("padding_mode=replicate"), std::string::npos);
  nn::ConvLayerOptions s = o;
  s.stride = {2};
  expect_error_naming<ValueError>([&] { nn::Conv1d(2, 3, {4}, s); }, {"strided"});
  expect_error_naming<ValueError>([&] { nn::ConvTranspose1d(2, 3, {4}, o); }, {"padding_mode"});
  nn::ConvLayerOptions t;
  t.padding_rule = "valid";
  expect_error_naming<ValueError>([&] { nn::ConvTranspose2d(2, 3, {3}, t); }, {"transposed"});
}

// ---------------------------------------------------------------------------------------------
// MultiheadAttention with kdim/vdim (separate projection weights under torch's names),
// add_bias_kv and add_zero_attn.

TEST(NnLayers, MultiheadAttentionSeparateProjections) {
  Generator g(3);
  nn::MultiheadAttentionOptions o;
  o.kdim = 5, o.vdim = 3, o.add_bias_kv = true, o.dtype = DType::Float64, o.gen = &g;
  nn::MultiheadAttention m(8, 2, o);
  EXPECT_EQ(m.state_dict().keys(), (std::vector<std::string>{"q_proj_weight", "k_proj_weight", "v_proj_weight",
                                                             "in_proj_bias", "bias_k", "bias_v", "out_proj.weight",
                                                             "out_proj.bias"}));
  EXPECT_EQ(m.k_proj_weight.shape(), (Shape{8, 5}));
  EXPECT_EQ(m.v_proj_weight.shape(), (Shape{8, 3}));
  EXPECT_FALSE(m.in_proj_weight.defined());
  auto r = m.attend(rand64({4, 2, 8}, 80), rand64({6, 2, 5}, 81), rand64({6, 2, 3}, 82));
  EXPECT_EQ(r.output.shape(), (Shape{4, 2, 8}));
  EXPECT_EQ(r.weights.shape(), (Shape{2, 4, 7}));  // one more source position: bias_k / bias_v

  // With kdim = vdim = embed_dim the packed weight's three blocks, given separately, give the same.
  nn::MultiheadAttention packed(4, 2, 0.0, true, false, DType::Float64, &g);
  Tensor q = rand64({3, 2, 4}, 83), kv = rand64({5, 2, 4}, 84);
  F::MultiheadAttentionArgs sep;
  sep.q_proj_weight = slice(packed.in_proj_weight, 0, 0, 4);
  sep.k_proj_weight = slice(packed.in_proj_weight, 0, 4, 8);
  sep.v_proj_weight = slice(packed.in_proj_weight, 0, 8, 12);
  auto a = packed.attend(q, kv, kv);
  auto b = F::multi_head_attention(q, kv, kv, 2, Tensor(), packed.in_proj_bias, packed.out_proj->weight,
                                   packed.out_proj->bias, sep);
  EXPECT_EQ(a.output.to_vector(), b.output.to_vector());

  // add_zero_attn with every real key masked out: each query attends only to the zero key, whose
  // value is zero, so the output is out_proj's bias alone.
  F::MultiheadAttentionArgs z = sep;
  z.add_zero_attn = true;
  z.key_padding_mask = full({2, 5}, true, DType::Bool);
  auto c = F::multi_head_attention(q, kv, kv, 2, Tensor(), packed.in_proj_bias, packed.out_proj->weight,
                                   rand64({4}, 85), z);
  Vec bias = rand64({4}, 85).to_vector(), out = c.output.to_vector();
  for (size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], bias[i % 4], 1e-12);

  // Gradients through every new part (separate weights, bias_k/bias_v, the zero position, masks).
  check_grad([&](const Tensors& t) {
    F::MultiheadAttentionArgs args;
    args.q_proj_weight = t[3], args.k_proj_weight = t[4], args.v_proj_weight = t[5];
    args.bias_k = t[6], args.bias_v = t[7];
    args.add_zero_attn = true;
    args.attn_mask = from_vector<double>({0, -1, 0.5, 0, 0, 0.2}, {2, 3});
    args.key_padding_mask = from_vector<bool>({false, false, true, false, false, false}, {2, 3});
    return F::multi_head_attention(t[0], t[1], t[2], 2, Tensor(), t[8], t[9], Tensor(), args).output;
  }, {rand64({2, 2, 4}, 86), rand64({3, 2, 5}, 87), rand64({3, 2, 3}, 88), rand64({4, 4}, 89), rand64({4, 5}, 90),
      rand64({4, 3}, 91), rand64({1, 1, 4}, 92), rand64({1, 1, 4}, 93), rand64({12}, 94), rand64({4, 4}, 95)});
}
