// conv against a direct loop written here, conv_transpose against the adjoint identity
// <conv(x, w), y> = <x, conv_transpose(y, w)>, gradients against the same loops, and errors.
#include <gtest/gtest.h>

#include <omp.h>

#include <complex>
#include <cstring>
#include <random>

#include "engine/ops/conv.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

using namespace spire;

namespace {
using Ints = std::vector<int64_t>;

// Direct convolution for 1 to 3 spatial axes (missing axes treated as size 1).
template <class T>
std::vector<T> naive_conv(const std::vector<T>& x, const Shape& xs, const std::vector<T>& w, const Shape& ws,
                          const Ints& st, const Ints& pd, const Ints& dl, int64_t G, Shape& ys) {
  int64_t D = int64_t(xs.size()) - 2, N = xs[0], Cin = xs[1], Cout = ws[0], Cig = Cin / G, Cog = Cout / G;
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, o[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
  ys = {N, Cout};
  for (int64_t i = 0; i < D; ++i) {
    int64_t j = 3 - D + i;
    in[j] = xs[2 + i], k[j] = ws[2 + i], s[j] = st[i], p[j] = pd[i], d[j] = dl[i];
    o[j] = (in[j] + 2 * p[j] - d[j] * (k[j] - 1) - 1) / s[j] + 1;
    ys.push_back(o[j]);
  }
  std::vector<T> y(size_t(N * Cout * o[0] * o[1] * o[2]), T(0));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oc = 0; oc < Cout; ++oc) {
      int64_t grp = oc / Cog;
      for (int64_t a = 0; a < o[0]; ++a)
        for (int64_t b = 0; b < o[1]; ++b)
          for (int64_t c = 0; c < o[2]; ++c) {
            T acc(0);
            for (int64_t ic = 0; ic < Cig; ++ic)
              for (int64_t u = 0; u < k[0]; ++u)
                for (int64_t v = 0; v < k[1]; ++v)
                  for (int64_t q = 0; q < k[2]; ++q) {
                    int64_t i0 = a * s[0] - p[0] + u * d[0], i1 = b * s[1] - p[1] + v * d[1],
                            i2 = c * s[2] - p[2] + q * d[2];
                    if (i0 < 0 || i0 >= in[0] || i1 < 0 || i1 >= in[1] || i2 < 0 || i2 >= in[2]) continue;
                    T xv = x[size_t((((n * Cin + grp * Cig + ic) * in[0] + i0) * in[1] + i1) * in[2] + i2)];
                    T wv = w[size_t((((oc * Cig + ic) * k[0] + u) * k[1] + v) * k[2] + q)];
                    acc += xv * wv;
                  }
            y[size_t((((n * Cout + oc) * o[0] + a) * o[1] + b) * o[2] + c)] = acc;
          }
    }
  return y;
}

std::vector<double> randn(int64_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& e : v) e = u(g);
  return v;
}

struct Case {
  Shape xs, ws;
  Ints stride, padding, dilation;
  int64_t groups;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {{2, 3, 11}, {4, 3, 3}, {1}, {0}, {1}, 1},
      {{3, 4, 10}, {6, 2, 4}, {3}, {2}, {2}, 2},
      {{1, 2, 9}, {2, 1, 2}, {2}, {1}, {3}, 2},
      {{2, 2, 6, 7}, {3, 2, 3, 2}, {1, 2}, {1, 0}, {1, 2}, 1},
      {{3, 6, 5, 5}, {6, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 6},  // depthwise
      {{1, 4, 8, 6}, {4, 2, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 2},  // 1x1
      {{2, 2, 4, 5, 6}, {4, 1, 2, 3, 2}, {1, 2, 2}, {1, 0, 1}, {2, 1, 1}, 2},
      {{1, 3, 3, 3, 3}, {2, 3, 3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 1},
  };
  return c;
}

ConvOptions options(const Case& c) { return {c.stride, c.padding, c.dilation, c.groups}; }

// dL/dw of L = <conv(x, w), r> by the direct loop: conv is linear in w, so dL/dw_j = <conv(x, e_j), r>.
std::vector<double> weight_gradient(const Case& c, const std::vector<double>& x, const std::vector<double>& r) {
  std::vector<double> out(size_t(numel_of(c.ws)));
  for (size_t j = 0; j < out.size(); ++j) {
    std::vector<double> e(out.size(), 0.0);
    e[j] = 1;
    Shape ys;
    auto col = naive_conv(x, c.xs, e, c.ws, c.stride, c.padding, c.dilation, c.groups, ys);
    for (size_t i = 0; i < col.size(); ++i) out[j] += col[i] * r[i];
  }
  return out;
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

TEST(Conv, MatchesDirectLoop) {
  uint64_t seed = 1;
  for (const Case& c : cases()) {
    auto xv = randn(numel_of(c.xs), seed++), wv = randn(numel_of(c.ws), seed++);
    Shape ys;
    auto want = naive_conv(xv, c.xs, wv, c.ws, c.stride, c.padding, c.dilation, c.groups, ys);
    Tensor y = conv(from_vector(xv, c.xs), from_vector(wv, c.ws), options(c));
    ASSERT_EQ(y.shape(), ys) << shape_str(c.xs);
    expect_near(y.to_vector(), want, 1e-12);
    // float32 through sgemm
    std::vector<float> xf(xv.begin(), xv.end()), wf(wv.begin(), wv.end());
    Tensor yf = conv(from_vector(xf, c.xs), from_vector(wf, c.ws), options(c));
    EXPECT_EQ(yf.dtype(), DType::Float32);
    expect_near(yf.to_vector(), want, 1e-4);
  }
}

TEST(Conv, RankWrappersAndUnbatched) {
  auto xv = randn(2 * 9, 3), wv = randn(3 * 2 * 3, 4);
  Tensor x = from_vector(xv, {2, 9}), w = from_vector(wv, {3, 2, 3});
  Tensor y = conv1d(x, w, {{2}, {1}, {}, 1});
  Shape ys;
  auto want = naive_conv(xv, {1, 2, 9}, wv, {3, 2, 3}, {2}, {1}, {1}, 1, ys);
  EXPECT_EQ(y.shape(), (Shape{3, 5}));
  expect_near(y.to_vector(), want, 1e-12);
  // Scalar options apply to every axis.
  Tensor x2 = from_vector(randn(2 * 5 * 5, 5), {1, 2, 5, 5}), w2 = from_vector(randn(2 * 2 * 3 * 3, 6), {2, 2, 3, 3});
  EXPECT_EQ(conv2d(x2, w2, {{2}, {1}}).shape(), (Shape{1, 2, 3, 3}));
  EXPECT_THROW(conv2d(x, w), ShapeError);
  EXPECT_THROW(conv3d(x2, w2), ShapeError);
}

TEST(Conv, Complex) {
  Shape xs{2, 2, 6}, ws{2, 1, 3};
  auto a = randn(2 * 24, 7), b = randn(2 * 6, 8);
  std::vector<c128> xv(24), wv(6);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = {a[2 * i], a[2 * i + 1]};
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = {b[2 * i], b[2 * i + 1]};
  Shape ys;
  auto want = naive_conv(xv, xs, wv, ws, {2}, {1}, {1}, 2, ys);
  Tensor y = conv(from_vector(xv, xs), from_vector(wv, ws), {{2}, {1}, {1}, 2});
  ASSERT_EQ(y.shape(), ys);
  const c128* p = y.data<c128>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(std::abs(p[i] - want[i]), 0.0, 1e-12);
}

double dot(const Tensor& a, const Tensor& b) { return sum(mul(a, b)).item<double>(); }

TEST(ConvTranspose, AdjointOfConv) {
  uint64_t seed = 100;
  for (const Case& c : cases()) {
    Tensor x = from_vector(randn(numel_of(c.xs), seed++), c.xs);
    Tensor w = from_vector(randn(numel_of(c.ws), seed++), c.ws);
    Tensor y = conv(x, w, options(c));
    Tensor r = from_vector(randn(y.numel(), seed++), y.shape());
    // The output_padding that gives back x's sizes.
    Ints op;
    for (size_t i = 0; i < c.stride.size(); ++i) {
      int64_t k = c.ws[2 + i], n = y.shape(2 + int64_t(i));
      op.push_back(c.xs[2 + i] - ((n - 1) * c.stride[i] - 2 * c.padding[i] + c.dilation[i] * (k - 1) + 1));
    }
    Tensor xt = conv_transpose(r, w, options(c), op);
    ASSERT_EQ(xt.shape(), c.xs);
    EXPECT_NEAR(dot(y, r), dot(x, xt), 1e-10) << shape_str(c.xs);
  }
}

TEST(ConvTranspose, OutputSizeAndErrors) {
  // PyTorch's formula: (L-1)s - 2p + d(k-1) + output_padding + 1.
  Tensor y = ones({1, 2, 4}, DType::Float64), w = ones({2, 3, 3}, DType::Float64);
  EXPECT_EQ(conv_transpose(y, w, {{2}, {1}}, {1}).shape(), (Shape{1, 3, 8}));
  EXPECT_EQ(conv_transpose(y, w, {{2}, {1}}).shape(), (Shape{1, 3, 7}));
  EXPECT_THROW(conv_transpose(y, w, {{2}, {1}}, {2}), ValueError);  // output_padding >= stride
  EXPECT_THROW(conv_transpose(y, ones({3, 3, 3}, DType::Float64)), ShapeError);
}

TEST(Conv, GradientsMatchDirectLoops) {
  // L = <conv(x, w), r>: dL/dx = conv_transpose(r, w) (checked by the adjoint test), dL/dw[o,c,k]
  // = sum_{n,l} x[n, c, l s + k d - p] r[n, o, l], computed here by differentiating the direct
  // loop: conv is linear in w, so dL/dw_j = <conv(x, e_j), r>.
  for (const Case& c : {cases()[1], cases()[3], cases()[6]}) {
    auto xv = randn(numel_of(c.xs), 11), wv = randn(numel_of(c.ws), 12);
    Tensor x = from_vector(xv, c.xs).set_requires_grad(), w = from_vector(wv, c.ws).set_requires_grad();
    Tensor y = conv(x, w, options(c));
    auto rv = randn(y.numel(), 13);
    Tensor r = from_vector(rv, y.shape());
    sum(mul(y, r)).backward();
    std::vector<double> gw = w.grad().to_vector(), want = weight_gradient(c, xv, rv);
    for (int64_t j = 0; j < numel_of(c.ws); ++j) EXPECT_NEAR(gw[size_t(j)], want[size_t(j)], 1e-10);
    Ints op;
    for (size_t i = 0; i < c.stride.size(); ++i) {
      int64_t k = c.ws[2 + i], n = y.shape(2 + int64_t(i));
      op.push_back(c.xs[2 + i] - ((n - 1) * c.stride[i] - 2 * c.padding[i] + c.dilation[i] * (k - 1) + 1));
    }
    expect_near(x.grad().to_vector(), conv_transpose(r, w.detach(), options(c), op).to_vector(), 1e-12);
  }
}

TEST(Conv, BatchIndependentOfChunking) {
  // Each sample of a batch gives what it gives alone (the kernel may batch samples into one GEMM,
  // whose blocking may differ with its width: equal to rounding, not bits).
  Tensor x = from_vector(randn(5 * 3 * 7 * 6, 21), {5, 3, 7, 6});
  Tensor w = from_vector(randn(4 * 3 * 3 * 3, 22), {4, 3, 3, 3});
  Tensor y = conv(x, w, {{1}, {1}});
  auto all = y.to_vector();
  auto xv = x.to_vector();
  for (int64_t n = 0; n < 5; ++n) {
    std::vector<double> xn(xv.begin() + n * 126, xv.begin() + (n + 1) * 126);
    auto one = conv(from_vector(xn, {1, 3, 7, 6}), w, {{1}, {1}}).to_vector();
    for (size_t i = 0; i < one.size(); ++i) EXPECT_NEAR(one[i], all[size_t(n) * one.size() + i], 1e-13);
  }
}

TEST(Conv, LargeBatchInChunks) {
  // 3 samples whose column matrices (K = 400 rows of 90*90 doubles, 26 MB each) fit the kernel's
  // 64 MiB chunk budget two at a time: chunks of 2 and 1. Each sample must give what it gives alone, and the
  // weight gradient must be the sum over samples.
  Shape xs{3, 16, 90, 90}, ws{2, 16, 5, 5};
  Tensor x = from_vector(randn(numel_of(xs), 31), xs), w = from_vector(randn(numel_of(ws), 32), ws);
  ConvOptions o{{1}, {2}, {1}, 1};
  Tensor wl = w.detach().set_requires_grad(), xl = x.detach().set_requires_grad();
  Tensor y = conv(xl, wl, o);
  Tensor r = from_vector(randn(y.numel(), 33), y.shape());
  sum(mul(y, r)).backward();
  auto yv = y.to_vector(), gx = xl.grad().to_vector(), gw = wl.grad().to_vector();
  auto xv = x.to_vector(), rv = r.to_vector();
  int64_t xn = numel_of(xs) / 3, yn = y.numel() / 3;
  std::vector<double> gw_sum(gw.size(), 0.0);
  for (int64_t n = 0; n < 3; ++n) {
    Tensor x1 = from_vector(std::vector<double>(xv.begin() + n * xn, xv.begin() + (n + 1) * xn), {1, 16, 90, 90});
    Tensor r1 = from_vector(std::vector<double>(rv.begin() + n * yn, rv.begin() + (n + 1) * yn), {1, 2, 90, 90});
    Tensor w1 = w.detach().set_requires_grad(), x1l = x1.set_requires_grad();
    Tensor y1 = conv(x1l, w1, o);
    sum(mul(y1, r1)).backward();
    auto y1v = y1.to_vector(), gx1 = x1l.grad().to_vector(), gw1 = w1.grad().to_vector();
    for (int64_t i = 0; i < yn; i += 97) EXPECT_NEAR(y1v[size_t(i)], yv[size_t(n * yn + i)], 1e-12);
    for (int64_t i = 0; i < xn; i += 89) EXPECT_NEAR(gx1[size_t(i)], gx[size_t(n * xn + i)], 1e-12);
    for (size_t i = 0; i < gw1.size(); ++i) gw_sum[i] += gw1[i];
  }
  for (size_t i = 0; i < gw.size(); ++i) EXPECT_NEAR(gw[i], gw_sum[i], 1e-9);
}

// The CPU kernel cuts the batch into tasks of B samples (B > 1 when the output is small), runs the
// tasks on threads when there are enough, sums weight-gradient chunks in a fixed order and reads
// 1x1 unit-stride inputs in place. Each geometry below takes one of those paths; every result must
// match the direct loop, and be bit-identical whatever the thread count.
TEST(Conv, TaskPathsMatchAndIgnoreThreadCount) {
  struct TaskCase {
    Case c;
    const char* path;
  };
  const std::vector<TaskCase> tcs = {
      {{{12, 4, 9, 9}, {6, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2}, "tasks of 4 samples, 2 groups"},
      {{{70, 3, 2, 2}, {5, 3, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 1}, "1x1, batches of 64 and 6"},
      {{{20, 3, 16, 16}, {4, 3, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 1}, "1x1 in place, one sample per task"},
      {{{20, 2, 33, 33}, {3, 2, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 1}, "stride 2, 20 batches in 16 chunks"},
      {{{9, 2, 7, 40}, {4, 2, 2, 3}, {1, 3}, {0, 2}, {2, 1}, 1}, "stride 3 with padding and dilation"},
  };
  uint64_t seed = 300;
  for (const TaskCase& tc : tcs) {
    const Case& c = tc.c;
    auto xv = randn(numel_of(c.xs), seed++), wv = randn(numel_of(c.ws), seed++);
    Shape ys;
    auto want = naive_conv(xv, c.xs, wv, c.ws, c.stride, c.padding, c.dilation, c.groups, ys);
    auto rv = randn(numel_of(ys), seed++);
    // y, dL/dx and dL/dw of L = <conv(x, w), r> with `threads` OpenMP threads.
    auto run = [&](int threads, DType dt) {
      int saved = omp_get_max_threads();
      omp_set_num_threads(threads);
      Tensor x = cast(from_vector(xv, c.xs), dt).set_requires_grad(), w = cast(from_vector(wv, c.ws), dt).set_requires_grad();
      Tensor y = conv(x, w, options(c));
      sum(mul(y, cast(from_vector(rv, ys), dt))).backward();
      omp_set_num_threads(saved);
      return std::vector<Tensor>{y, x.grad(), w.grad()};
    };
    for (DType dt : {DType::Float64, DType::Float32}) {
      auto one = run(1, dt), many = run(3, dt);
      for (size_t k = 0; k < 3; ++k) {
        ASSERT_EQ(one[k].numel(), many[k].numel());
        const char *a = static_cast<const char*>(one[k].raw_data()), *b = static_cast<const char*>(many[k].raw_data());
        EXPECT_EQ(std::memcmp(a, b, size_t(one[k].numel()) * itemsize(dt)), 0) << tc.path << " output " << k;
      }
    }
    auto got = run(2, DType::Float64);
    SCOPED_TRACE(tc.path);
    expect_near(got[0].to_vector(), want, 1e-12);
    // dL/dx by the adjoint identity <conv(x, w), r> = <x, dL/dx>, tested per sample.
    double lhs = 0, rhs = 0;
    auto gx = got[1].to_vector();
    for (size_t i = 0; i < want.size(); ++i) lhs += want[i] * rv[i];
    for (size_t i = 0; i < xv.size(); ++i) rhs += xv[i] * gx[i];
    EXPECT_NEAR(lhs, rhs, 1e-9);
    // dL/dw_j = <conv(x, e_j), r>, conv being linear in w.
    auto gw = got[2].to_vector(), want_w = weight_gradient(c, xv, rv);
    for (int64_t j = 0; j < numel_of(c.ws); ++j) EXPECT_NEAR(gw[size_t(j)], want_w[size_t(j)], 1e-9) << "weight " << j;
  }
}

TEST(Conv, StridedInputs) {
  // A transposed (non-contiguous) x and w give what their contiguous copies give.
  Tensor xt = permute(from_vector(randn(2 * 3 * 8, 41), {8, 3, 2}), {2, 1, 0});  // [2, 3, 8]
  Tensor wt = permute(from_vector(randn(4 * 3 * 3, 42), {3, 3, 4}), {2, 1, 0});  // [4, 3, 3]
  auto a = conv1d(xt, wt, {{2}, {1}}).to_vector(), b = conv1d(contiguous(xt), contiguous(wt), {{2}, {1}}).to_vector();
  expect_near(a, b, 1e-14);
}

template <class E>
void expect_error(const std::function<void()>& f, const std::vector<std::string>& parts) {
  try {
    f();
    FAIL() << "no error";
  } catch (const E& e) {
    std::string m = e.what();
    for (auto& p : parts) EXPECT_NE(m.find(p), std::string::npos) << m << " lacks " << p;
  }
}

TEST(Conv, Errors) {
  Tensor x = ones({1, 4, 5, 5}, DType::Float64);
  expect_error<ShapeError>([&] { conv2d(x, ones({2, 3, 3, 3}, DType::Float64)); },
                           {"conv", "[1, 4, 5, 5]", "[2, 3, 3, 3]"});
  expect_error<ShapeError>([&] { conv2d(x, ones({3, 2, 3, 3}, DType::Float64), {{}, {}, {}, 2}); },
                           {"conv", "groups", "[1, 4, 5, 5]"});
  expect_error<ShapeError>([&] { conv2d(x, ones({2, 4, 6, 3}, DType::Float64)); },
                           {"conv", "larger than the padded input", "[1, 4, 5, 5]", "[2, 4, 6, 3]"});
  EXPECT_NO_THROW(conv2d(x, ones({2, 4, 6, 3}, DType::Float64), {{}, {1}}));
  expect_error<ValueError>([&] { conv2d(x, ones({2, 4, 3, 3}, DType::Float64), {{0}}); }, {"conv", "stride"});
  expect_error<ValueError>([&] { conv2d(x, ones({2, 4, 3, 3}, DType::Float64), {{1, 1, 1}}); }, {"conv", "stride"});
}

TEST(Conv, IntegerInputsPromote) {
  Tensor x = from_vector<int64_t>({1, 2, 3, 4}, {1, 1, 4});
  Tensor w = from_vector<double>({1, -1}, {1, 1, 2});
  Tensor y = conv1d(x, w);
  EXPECT_EQ(y.dtype(), DType::Float64);
  EXPECT_EQ(y.to_vector(), (std::vector<double>{-1, -1, -1}));
}

}  // namespace
