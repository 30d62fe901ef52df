// FFTs against a naive O(n^2) DFT written here, round trips, Parseval, rfft against fft of real
// input, and DCTs against scipy.fft values and their cosine-sum definitions.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <complex>
#include <random>

#include "engine/ops/elementwise.h"
#include "engine/ops/fft.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

using namespace spire;

namespace {
using cvec = std::vector<c128>;
const double kPi = 3.14159265358979323846;

// Naive DFT along `axis` of row-major data: sign -1 forward, +1 inverse (unnormalised).
cvec naive_dft(const cvec& x, const Shape& shape, int64_t axis, int sign) {
  int64_t n = shape[size_t(axis)], inner = 1, outer = 1;
  for (size_t i = size_t(axis) + 1; i < shape.size(); ++i) inner *= shape[i];
  for (size_t i = 0; i < size_t(axis); ++i) outer *= shape[i];
  cvec y(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      for (int64_t k = 0; k < n; ++k) {
        c128 acc = 0;
        for (int64_t j = 0; j < n; ++j)
          acc += x[size_t((o * n + j) * inner + i)] * std::polar(1.0, sign * 2 * kPi * double(j * k % n) / double(n));
        y[size_t((o * n + k) * inner + i)] = acc;
      }
  return y;
}

cvec random_complex(int64_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  cvec v(static_cast<size_t>(n));
  for (auto& e : v) e = {u(g), u(g)};
  return v;
}
std::vector<double> random_real(int64_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& e : v) e = u(g);
  return v;
}

cvec values(const Tensor& t) {
  Tensor c = contiguous(t.dtype() == DType::Complex128 ? t : cast(t, DType::Complex128));
  return cvec(c.data<c128>(), c.data<c128>() + c.numel());
}

void expect_close(const cvec& got, const cvec& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_LT(std::abs(got[i] - want[i]), tol) << "at " << i;
}

TEST(FFT, MatchesNaiveDFT1d) {
  for (int64_t n : {1, 2, 5, 8, 12, 17}) {
    for (int64_t axis : {0, 1}) {
      Shape s = axis == 1 ? Shape{3, n} : Shape{n, 3};
      cvec x = random_complex(3 * n, uint64_t(n));
      Tensor t = from_vector(x, s);
      expect_close(values(fft(t, axis)), naive_dft(x, s, axis, -1), 1e-12 * double(n));
      cvec inv = naive_dft(x, s, axis, +1);
      for (auto& v : inv) v /= double(n);
      expect_close(values(ifft(t, axis)), inv, 1e-12 * double(n));
      cvec ortho = naive_dft(x, s, axis, -1);
      for (auto& v : ortho) v /= std::sqrt(double(n));
      expect_close(values(fft(t, axis, "ortho")), ortho, 1e-12 * double(n));
      cvec fwd = naive_dft(x, s, axis, -1);
      for (auto& v : fwd) v /= double(n);
      expect_close(values(fft(t, axis, "forward")), fwd, 1e-12 * double(n));
    }
  }
}

TEST(FFT, FftnMatchesSeparableNaive) {
  Shape s{4, 3, 6};
  cvec x = random_complex(72, 3);
  Tensor t = from_vector(x, s);
  cvec want = naive_dft(naive_dft(naive_dft(x, s, 0, -1), s, 1, -1), s, 2, -1);
  expect_close(values(fftn(t)), want, 1e-11);
  cvec want02 = naive_dft(naive_dft(x, s, 0, -1), s, 2, -1);
  expect_close(values(fftn(t, {2, 0})), want02, 1e-11);
  expect_close(values(fftn(t, {-1, 0})), want02, 1e-11);
  // Strided input: the transpose of a contiguous tensor.
  Tensor tt = permute(t, {2, 0, 1});  // shape [6, 4, 3]
  cvec xt = values(contiguous(tt));
  Shape st{6, 4, 3};
  expect_close(values(fftn(tt, {0, 1})), naive_dft(naive_dft(xt, st, 0, -1), st, 1, -1), 1e-11);
}

TEST(FFT, BroadcastAndStridedInputs) {
  // A broadcast view (stride 0) and a transposed view go to FFTW with their strides as they are.
  cvec row = random_complex(6, 90);
  Tensor b = expand(from_vector(row, {1, 6}), {3, 6});
  cvec one = naive_dft(row, {6}, 0, -1);
  cvec got = values(fft(b));
  for (size_t r = 0; r < 3; ++r)
    for (size_t k = 0; k < 6; ++k) EXPECT_LT(std::abs(got[r * 6 + k] - one[k]), 1e-12);
  std::vector<double> x = random_real(4 * 5, 91);
  Tensor t = from_vector(x, {4, 5});
  Tensor tt = permute(t, {1, 0});  // [5, 4], strides (1, 5)
  expect_close(values(rfft(tt, 0)), values(rfft(contiguous(tt), 0)), 1e-13);
  expect_close(values(dct(tt, 2, 0)), values(dct(contiguous(tt), 2, 0)), 1e-13);
}

TEST(FFT, RealInputAndFloat32) {
  std::vector<double> x = random_real(10, 4);
  cvec xc(x.begin(), x.end());
  cvec want = naive_dft(xc, {10}, 0, -1);
  expect_close(values(fft(from_vector(x, {10}))), want, 1e-12);
  std::vector<float> xf(x.begin(), x.end());
  Tensor y = fft(from_vector(xf, {10}));
  EXPECT_EQ(y.dtype(), DType::Complex64);
  expect_close(values(y), want, 1e-5);
}

TEST(FFT, RoundTrips) {
  Shape s{3, 5, 4};
  cvec x = random_complex(60, 5);
  Tensor t = from_vector(x, s);
  for (const char* norm : {"backward", "ortho", "forward"}) {
    expect_close(values(ifftn(fftn(t, {}, norm), {}, norm)), x, 1e-13);
    expect_close(values(ifft(fft(t, 1, norm), 1, norm)), x, 1e-13);
  }
  for (int64_t n : {7, 8}) {
    std::vector<double> r = random_real(2 * n, uint64_t(n));
    Tensor rt = from_vector(r, {2, n});
    for (const char* norm : {"backward", "ortho", "forward"}) {
      Tensor back = irfft(rfft(rt, -1, norm), n, -1, norm);
      EXPECT_EQ(back.shape(), (Shape{2, n}));
      auto bv = back.to_vector();
      for (size_t i = 0; i < r.size(); ++i) EXPECT_NEAR(bv[i], r[i], 1e-13);
    }
  }
  // n-d real round trip with the halved axis in the middle, odd output length.
  std::vector<double> r = random_real(4 * 5 * 3, 9);
  Tensor rt = from_vector(r, {4, 5, 3});
  Tensor h = rfftn(rt, {0, 1});
  EXPECT_EQ(h.shape(), (Shape{4, 3, 3}));
  auto bv = irfftn(h, {4, 5}, {0, 1}).to_vector();
  for (size_t i = 0; i < r.size(); ++i) EXPECT_NEAR(bv[i], r[i], 1e-13);
}

TEST(FFT, Parseval) {
  cvec x = random_complex(64, 6);
  Tensor t = from_vector(x, {8, 8});
  cvec y = values(fftn(t));
  double ex = 0, ey = 0;
  for (auto& v : x) ex += std::norm(v);
  for (auto& v : y) ey += std::norm(v);
  EXPECT_NEAR(ey / 64.0, ex, 1e-12);
  cvec yo = values(fftn(t, {}, "ortho"));
  double eo = 0;
  for (auto& v : yo) eo += std::norm(v);
  EXPECT_NEAR(eo, ex, 1e-12);
}

TEST(FFT, RfftIsHalfOfFft) {
  for (int64_t n : {1, 6, 9}) {
    std::vector<double> x = random_real(2 * n, uint64_t(20 + n));
    Tensor t = from_vector(x, {2, n});
    cvec full = values(fft(t));
    cvec half = values(rfft(t));
    int64_t m = n / 2 + 1;
    ASSERT_EQ(int64_t(half.size()), 2 * m);
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t k = 0; k < m; ++k) EXPECT_LT(std::abs(half[size_t(r * m + k)] - full[size_t(r * n + k)]), 1e-12);
  }
  // n-d: halved along the last axis given.
  std::vector<double> x = random_real(4 * 6, 30);
  Tensor t = from_vector(x, {4, 6});
  cvec full = values(fftn(t));
  cvec half = values(rfftn(t, {1, 0}));  // halves axis 0: [3, 6]
  for (int64_t k0 = 0; k0 < 3; ++k0)
    for (int64_t k1 = 0; k1 < 6; ++k1) EXPECT_LT(std::abs(half[size_t(k0 * 6 + k1)] - full[size_t(k0 * 6 + k1)]), 1e-12);
}

TEST(FFT, IrfftOfNonHermitianInput) {
  // irfft is defined for any complex input as Re(sum_k c_k h_k e^{2 pi i jk/n}) / n with c = 2 on
  // the interior bins: imaginary parts of DC and Nyquist do not matter.
  for (int64_t n : {6, 7}) {
    int64_t m = n / 2 + 1;
    cvec h = random_complex(m, uint64_t(40 + n));
    auto got = irfft(from_vector(h, {m}), n).to_vector();
    for (int64_t j = 0; j < n; ++j) {
      c128 acc = 0;
      for (int64_t k = 0; k < m; ++k) {
        double ck = (k == 0 || (n % 2 == 0 && k == n / 2)) ? 1.0 : 2.0;
        acc += ck * h[size_t(k)] * std::polar(1.0, 2 * kPi * double(j * k) / double(n));
      }
      EXPECT_NEAR(got[size_t(j)], acc.real() / double(n), 1e-13);
    }
  }
}

TEST(FFT, IrfftLengths) {
  // Default length 2(m-1); a shorter or longer spectrum is cut or zero-padded to n/2+1.
  cvec h = random_complex(5, 50);
  EXPECT_EQ(irfft(from_vector(h, {5})).shape(), (Shape{8}));
  auto a = irfft(from_vector(h, {5}), 4).to_vector();
  auto b = irfft(from_vector(cvec(h.begin(), h.begin() + 3), {3}), 4).to_vector();
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(a[i], b[i], 1e-14);
}

TEST(FFT, GradientOfRealPart) {
  // L = sum_k a_k Re(fft(x)_k) for real x: dL/dx_j = sum_k a_k cos(2 pi jk/n).
  int64_t n = 7;
  std::vector<double> x = random_real(n, 60), a = random_real(n, 61);
  Tensor xt = from_vector(x, {n}).set_requires_grad();
  sum(mul(real(fft(xt)), from_vector(a, {n}))).backward();
  auto g = xt.grad().to_vector();
  for (int64_t j = 0; j < n; ++j) {
    double want = 0;
    for (int64_t k = 0; k < n; ++k) want += a[size_t(k)] * std::cos(2 * kPi * double(j * k) / double(n));
    EXPECT_NEAR(g[size_t(j)], want, 1e-12);
  }
  // Same through rfft: only the half spectrum enters.
  Tensor xr = from_vector(x, {n}).set_requires_grad();
  int64_t m = n / 2 + 1;
  sum(mul(real(rfft(xr)), from_vector(std::vector<double>(a.begin(), a.begin() + m), {m}))).backward();
  auto gr = xr.grad().to_vector();
  for (int64_t j = 0; j < n; ++j) {
    double want = 0;
    for (int64_t k = 0; k < m; ++k) want += a[size_t(k)] * std::cos(2 * kPi * double(j * k) / double(n));
    EXPECT_NEAR(gr[size_t(j)], want, 1e-12);
  }
}

std::vector<double> naive_dct(const std::vector<double>& x, int type) {
  size_t n = x.size();
  std::vector<double> y(n, 0.0);
  for (size_t k = 0; k < n; ++k)
    for (size_t j = 0; j < n; ++j) {
      if (type == 1) {
        double w = (j == 0 || j == n - 1) ? 1.0 : 2.0;
        y[k] += w * x[j] * std::cos(kPi * double(k * j) / double(n - 1));
      } else if (type == 2) {
        y[k] += 2 * x[j] * std::cos(kPi * double(k) * double(2 * j + 1) / double(2 * n));
      } else {
        double w = j == 0 ? 1.0 : 2.0;
        y[k] += w * x[j] * std::cos(kPi * double(j) * double(2 * k + 1) / double(2 * n));
      }
    }
  return y;
}

TEST(DCT, KnownValues) {
  Tensor x = from_vector<double>({1, 2, 3, 4}, {4});
  // scipy.fft.dct([1, 2, 3, 4]) and scipy.fft.dct([1, 2, 3, 4], type=1)
  std::vector<double> want2{20, -6.30864406, 0, -0.44834153}, want1{15, -4, 0, -1};
  auto y2 = dct(x).to_vector(), y1 = dct(x, 1).to_vector();
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(y2[i], want2[i], 1e-8);
    EXPECT_NEAR(y1[i], want1[i], 1e-12);
  }
  // scipy.fft.dct([1, 2, 3, 4], norm='ortho') = [5, -2.2304425, 0, -0.15851267]
  auto yo = dct(x, 2, -1, "ortho").to_vector();
  std::vector<double> wanto{5, -2.23044250, 0, -0.15851267};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(yo[i], wanto[i], 1e-8);
}

TEST(DCT, MatchesDefinitionsAndInverts) {
  for (int64_t n : {2, 5, 8}) {
    std::vector<double> x = random_real(n, uint64_t(70 + n));
    Tensor t = from_vector(x, {n});
    for (int type : {1, 2, 3}) {
      auto want = naive_dct(x, type);
      auto got = dct(t, type).to_vector();
      for (size_t i = 0; i < size_t(n); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << "type " << type;
      for (const char* norm : {"backward", "ortho", "forward"}) {
        auto back = idct(dct(t, type, 0, norm), type, 0, norm).to_vector();
        for (size_t i = 0; i < size_t(n); ++i) EXPECT_NEAR(back[i], x[i], 1e-13) << type << norm;
      }
      // ortho is orthonormal: the norm is kept.
      auto yo = dct(t, type, 0, "ortho").to_vector();
      double ex = 0, ey = 0;
      for (size_t i = 0; i < size_t(n); ++i) ex += x[i] * x[i], ey += yo[i] * yo[i];
      EXPECT_NEAR(ex, ey, 1e-12) << "type " << type;
    }
  }
}

TEST(DCT, AlongAxisAndComplex) {
  std::vector<double> x = random_real(15, 80);
  Tensor t = from_vector(x, {5, 3});
  auto got = dct(t, 2, 0).to_vector();
  for (int64_t c = 0; c < 3; ++c) {
    std::vector<double> col;
    for (int64_t r = 0; r < 5; ++r) col.push_back(x[size_t(r * 3 + c)]);
    auto want = naive_dct(col, 2);
    for (int64_t r = 0; r < 5; ++r) EXPECT_NEAR(got[size_t(r * 3 + c)], want[size_t(r)], 1e-12);
  }
  cvec z = random_complex(4, 81);
  cvec zd = values(dct(from_vector(z, {4})));
  std::vector<double> re, im;
  for (auto& v : z) re.push_back(v.real()), im.push_back(v.imag());
  auto wr = naive_dct(re, 2), wi = naive_dct(im, 2);
  for (size_t i = 0; i < 4; ++i) EXPECT_LT(std::abs(zd[i] - c128(wr[i], wi[i])), 1e-12);
}

TEST(FFT, Errors) {
  Tensor c = from_vector<c128>({1, 2}, {2});
  EXPECT_THROW(rfft(c), DTypeError);
  EXPECT_THROW(fft(c, 0, "none"), ValueError);
  EXPECT_THROW(fft(c, 1), ShapeError);
  EXPECT_THROW(fftn(c, {0, 0}), ShapeError);
  EXPECT_THROW(fft(zeros({0}, DType::Float64)), ValueError);
  EXPECT_THROW(irfft(from_vector<c128>({1}, {1})), ValueError);  // default n = 0
  EXPECT_THROW(dct(from_vector<double>({1}, {1}), 1), ValueError);
  EXPECT_THROW(dct(from_vector<double>({1, 2}, {2}), 4), ValueError);
}

TEST(FFT, LargeRealTransform) {
  // 2^20 float64 rfft: against the DFT of a pure tone, which it must concentrate in one bin.
  int64_t n = int64_t(1) << 20, f = 12345;
  std::vector<double> x(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) x[size_t(j)] = std::cos(2 * kPi * double(f * j % n) / double(n));
  Tensor t = from_vector(x, {n});
  rfft(t);  // plan
  auto t0 = std::chrono::steady_clock::now();
  Tensor y = rfft(t);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ timing ] rfft of 2^20 float64: %.2f ms\n", ms);
  const c128* p = y.data<c128>();
  EXPECT_NEAR(p[f].real(), double(n) / 2, 1e-6 * double(n));
  EXPECT_LT(std::abs(p[f + 1]), 1e-6);
  EXPECT_LT(std::abs(p[0]), 1e-6);
}

}  // namespace
