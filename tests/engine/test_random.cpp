// Philox against the Random123 known-answer vectors, then reproducibility and the statistics of
// each distribution (tolerances are several standard errors, so the tests are not flaky).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/core/op.h"
#include "engine/random/philox.h"
#include "engine/ops/random.h"

using namespace spire;

namespace {

// Known-answer tests from Random123's kat_vectors (philox4x32 10 rounds).
TEST(Philox, Random123KnownAnswers) {
  using philox::Block;
  EXPECT_EQ(philox::philox4x32({0, 0, 0, 0}, {0, 0}),
            (Block{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(philox::philox4x32({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}),
            (Block{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(philox::philox4x32({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u}),
            (Block{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
  // The layout: key = seed, counter = (index, stream), low words first.
  EXPECT_EQ(philox::block(0x299f31d0a4093822ull, 0x0370734413198a2eull, 0x85a308d3243f6a88ull),
            (Block{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

// Counter-based: the same coordinates give the same block at compile time too.
static_assert(philox::philox4x32({0, 0, 0, 0}, {0, 0})[0] == 0x6627e8d5u);

TEST(Philox, BoundedStaysInRangeAndUsesTopBits) {
  EXPECT_EQ(philox::bounded({0, 0, 0, 0}, 10), 0u);
  EXPECT_EQ(philox::bounded({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, 10), 9u);
  EXPECT_EQ(philox::bounded({0x80000000u, 0, 0, 0}, 10), 5u);  // U = 1/2
  EXPECT_EQ(philox::bounded({0x80000000u, 0, 0, 0}, ~0ull), 0x7fffffffffffffffull);
}

// The portable log, sin and cos behind Box-Muller (identical bits on CPU and GPU) agree with the
// C library to a few ulp over the whole range they are used on.
TEST(Philox, PortableMathMatchesLibm) {
  double worst_log = 0, worst_trig = 0;
  for (uint64_t i = 0; i < 200000; ++i) {
    philox::Block b = philox::block(3, 0, i);
    double u = philox::unit_double_open0(b[0], b[1]);
    if (i % 4 == 0) u = std::ldexp(u, -int(b[2] % 1000));  // tiny arguments too
    double l = philox::detail::log_portable(u), ref = std::log(u);
    if (ref != 0) worst_log = std::max(worst_log, std::abs(l - ref) / std::abs(ref));
    double v = philox::unit_double(b[2], b[3]), s, c;
    philox::detail::sincos_turns(v, s, c);
    worst_trig = std::max({worst_trig, std::abs(s - std::sin(2 * M_PI * v)), std::abs(c - std::cos(2 * M_PI * v))});
  }
  EXPECT_LT(worst_log, 1e-15);  // a few ulp
  EXPECT_LT(worst_trig, 1e-15);  // the reference carries the rounding of 2 pi v (4e-16)
  EXPECT_EQ(philox::detail::log_portable(1.0), 0.0);
  double s, c;
  philox::detail::sincos_turns(0.25, s, c);
  EXPECT_EQ(s, 1.0);
  EXPECT_EQ(c, 0.0);
}

std::vector<uint8_t> raw_bytes(const Tensor& t) {
  std::vector<uint8_t> b(t.nbytes());
  std::memcpy(b.data(), t.raw_data(), b.size());
  return b;
}

TEST(Random, SameSeedSameBitsAndDrawsDoNotOverlap) {
  Generator g1(1234), g2(1234);
  Tensor a = uniform({1000}, 0, 1, DType::Float32, g1);
  Tensor b = uniform({1000}, 0, 1, DType::Float32, g2);
  EXPECT_EQ(raw_bytes(a), raw_bytes(b));
  EXPECT_EQ(g1.offset(), 250u);  // 4 float32 per block
  Tensor c = uniform({1000}, 0, 1, DType::Float32, g1);
  EXPECT_NE(raw_bytes(a), raw_bytes(c));
  // Restoring the offset (a checkpoint) replays the second draw.
  Generator g3(1234);
  g3.set_offset(250);
  EXPECT_EQ(raw_bytes(uniform({1000}, 0, 1, DType::Float32, g3)), raw_bytes(c));
}

TEST(Random, StreamsAndSeedsDiffer) {
  Generator s0(7, 0), s1(7, 1), other(8, 0);
  Tensor a = normal({64}, 0, 1, DType::Float64, s0);
  Tensor b = normal({64}, 0, 1, DType::Float64, s1);
  Tensor c = normal({64}, 0, 1, DType::Float64, other);
  auto va = a.to_vector(), vb = b.to_vector(), vc = c.to_vector();
  int same_ab = 0, same_ac = 0;
  for (int i = 0; i < 64; ++i) same_ab += va[i] == vb[i], same_ac += va[i] == vc[i];
  EXPECT_EQ(same_ab, 0);
  EXPECT_EQ(same_ac, 0);
}

TEST(Random, ElementDependsOnlyOnItsIndex) {
  // The first 10 elements of a long draw equal a short draw from the same coordinates.
  Generator g1(99), g2(99);
  auto longer = normal({100000}, 0, 1, DType::Float32, g1).to_vector();
  auto shorter = normal({10}, 0, 1, DType::Float32, g2).to_vector();
  for (int i = 0; i < 10; ++i) EXPECT_EQ(longer[i], shorter[i]);
  // And element i of uniform float64 is the documented function of block i / 2.
  Generator g3(5, 3);
  g3.set_offset(17);
  auto u = uniform({5}, 0, 1, DType::Float64, g3).to_vector();
  philox::Block b = philox::block(5, 3, 17 + 1);
  EXPECT_EQ(u[3], philox::unit_double(b[2], b[3]));
}

// What a CUDA kernel must reproduce: each element as the documented function of its block.
TEST(Random, KernelsFollowTheDocumentedElementFormulas) {
  const uint64_t seed = 0x1234567890abcdefull, stream = 9, offset = 5;
  auto gen = [&] {
    Generator g(seed, stream);
    g.set_offset(offset);
    return g;
  };
  auto blk = [&](int64_t b) { return philox::block(seed, stream, offset + uint64_t(b)); };
  const int64_t n = 37;  // not a whole batch
  Generator g = gen();
  auto u32 = uniform({n}, 0, 1, DType::Float32, g).to_vector();
  g = gen();
  auto n64 = normal({n}, 0, 1, DType::Float64, g).to_vector();
  g = gen();
  auto n32 = normal({n}, 0, 1, DType::Float32, g).to_vector();
  g = gen();
  auto ri = randint({n}, -50, 1000, DType::Int64, g).to_vector();
  g = gen();
  auto be = bernoulli({n}, 0.7, g).to_vector();
  for (int64_t i = 0; i < n; ++i) {
    philox::Block b4 = blk(i / 4), b2 = blk(i / 2), b1 = blk(i);
    EXPECT_EQ(u32[i], double(philox::unit_float(b4[i % 4]))) << i;
    double z0, z1;
    philox::box_muller(philox::unit_double_open0(b2[0], b2[1]), philox::unit_double(b2[2], b2[3]), z0, z1);
    EXPECT_EQ(n64[i], i % 2 ? z1 : z0) << i;
    int pair = int(i % 4) / 2;
    philox::box_muller(philox::unit_float_open0(b4[2 * pair]), philox::unit_float(b4[2 * pair + 1]), z0, z1);
    EXPECT_EQ(n32[i], double(float(i % 2 ? z1 : z0))) << i;
    EXPECT_EQ(ri[i], double(-50 + int64_t(philox::bounded(b1, 1050)))) << i;
    EXPECT_EQ(be[i], double(uint64_t(b4[i % 4]) < uint64_t(std::ceil(0.7 * 0x1.0p32)))) << i;
  }
}

TEST(Random, ThreadCountDoesNotChangeBits) {
  int saved = omp_get_max_threads();
  auto draw_all = [] {
    Generator g(2024, 5);
    std::vector<std::vector<uint8_t>> out;
    const Shape big{300001};  // above the parallel grain
    out.push_back(raw_bytes(uniform(big, -2, 3, DType::Float32, g)));
    out.push_back(raw_bytes(uniform(big, -2, 3, DType::Float64, g)));
    out.push_back(raw_bytes(normal(big, 1, 2, DType::Float32, g)));
    out.push_back(raw_bytes(normal(big, 1, 2, DType::Float64, g)));
    out.push_back(raw_bytes(bernoulli(big, 0.25, g)));
    out.push_back(raw_bytes(randint(big, -7, 1000, DType::Int32, g)));
    out.push_back(raw_bytes(permutation(100000, g)));
    return out;
  };
  omp_set_num_threads(1);
  auto one = draw_all();
  omp_set_num_threads(2);
  auto two = draw_all();
  omp_set_num_threads(saved);
  ASSERT_EQ(one.size(), two.size());
  for (size_t i = 0; i < one.size(); ++i) EXPECT_EQ(one[i], two[i]) << "draw " << i;
}

struct Moments {
  double mean = 0, var = 0, skew = 0, kurt = 0, min = 1e300, max = -1e300;
};
Moments moments(const std::vector<double>& v) {
  Moments m;
  double n = double(v.size());
  for (double x : v) m.mean += x / n, m.min = std::min(m.min, x), m.max = std::max(m.max, x);
  for (double x : v) {
    double d = x - m.mean;
    m.var += d * d / n, m.skew += d * d * d / n, m.kurt += d * d * d * d / n;
  }
  m.skew /= std::pow(m.var, 1.5);
  m.kurt /= m.var * m.var;
  return m;
}

TEST(Random, UniformMoments) {
  const int n = 200000;
  for (DType dt : {DType::Float32, DType::Float64}) {
    Generator g(11);
    auto m = moments(uniform({n}, -1, 3, dt, g).to_vector());
    // U(-1, 3): mean 1, variance 16/12. Standard error of the mean: sqrt(4/3 / n) = 0.0026.
    EXPECT_NEAR(m.mean, 1.0, 0.015) << name(dt);
    EXPECT_NEAR(m.var, 16.0 / 12.0, 0.02) << name(dt);
    EXPECT_NEAR(m.skew, 0.0, 0.03) << name(dt);
    EXPECT_GE(m.min, -1.0);
    EXPECT_LT(m.max, 3.0);
  }
  // Rounding never reaches `high`, even where float32 spacing is coarse.
  Generator g(3);
  auto v = uniform({100000}, 1e7, 1e7 + 2, DType::Float32, g).to_vector();
  for (double x : v) ASSERT_LT(x, 1e7 + 2);
}

TEST(Random, NormalMoments) {
  const int n = 200000;
  for (DType dt : {DType::Float32, DType::Float64}) {
    Generator g(12);
    auto m = moments(normal({n}, 2, 3, dt, g).to_vector());
    // SE of the mean 3/sqrt(n) = 0.0067; of the variance 9 sqrt(2/n) = 0.028.
    EXPECT_NEAR(m.mean, 2.0, 0.04) << name(dt);
    EXPECT_NEAR(m.var, 9.0, 0.15) << name(dt);
    EXPECT_NEAR(m.skew, 0.0, 0.03) << name(dt);
    EXPECT_NEAR(m.kurt, 3.0, 0.08) << name(dt);
  }
  // Odd lengths and consecutive elements (the cosine and sine of one pair) are uncorrelated.
  Generator g(13);
  auto v = normal({100001}, 0, 1, DType::Float64, g).to_vector();
  double c = 0;
  for (size_t i = 0; i + 1 < v.size(); i += 2) c += v[i] * v[i + 1];
  EXPECT_NEAR(c / 50000, 0.0, 0.025);
}

TEST(Random, BernoulliRate) {
  Generator g(14);
  Tensor b = bernoulli({100000}, 0.3, g);
  EXPECT_EQ(b.dtype(), DType::Bool);
  auto v = b.to_vector();
  double rate = 0;
  for (double x : v) rate += x;
  rate /= double(v.size());
  EXPECT_NEAR(rate, 0.3, 0.006);  // SE 0.00145
  for (double x : bernoulli({1000}, 0.0, g).to_vector()) ASSERT_EQ(x, 0.0);
  for (double x : bernoulli({1000}, 1.0, g).to_vector()) ASSERT_EQ(x, 1.0);
}

TEST(Random, RandintRangeAndUniformity) {
  Generator g(15);
  Tensor t = randint({70000}, -3, 4, DType::Int32, g);
  EXPECT_EQ(t.dtype(), DType::Int32);
  std::vector<int> counts(7);
  for (double x : t.to_vector()) {
    ASSERT_GE(x, -3);
    ASSERT_LT(x, 4);
    counts[int(x) + 3]++;
  }
  // Chi-square with 6 degrees of freedom: 22.5 is its 0.999 quantile.
  double chi2 = 0;
  for (int c : counts) chi2 += (c - 10000.0) * (c - 10000.0) / 10000.0;
  EXPECT_LT(chi2, 22.5);
  // The widest ranges work too.
  auto wide = randint({1000}, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                      DType::Int64, g);
  int negative = 0;
  for (int64_t i = 0; i < 1000; ++i) negative += wide.data<int64_t>()[i] < 0;
  EXPECT_NEAR(negative, 500, 80);
  EXPECT_EQ(randint({5}, 9, 10, DType::Int64, g).to_vector(), std::vector<double>(5, 9.0));
}

TEST(Random, PermutationIsAPermutation) {
  Generator g(16);
  Tensor p = permutation(1000, g);
  EXPECT_EQ(p.shape(), Shape{1000});
  std::vector<int64_t> v(p.data<int64_t>(), p.data<int64_t>() + 1000);
  int fixed = 0;
  for (int64_t i = 0; i < 1000; ++i) fixed += v[i] == i;
  std::sort(v.begin(), v.end());
  for (int64_t i = 0; i < 1000; ++i) ASSERT_EQ(v[i], i);
  EXPECT_LT(fixed, 8);  // Poisson(1) fixed points
  EXPECT_NE(raw_bytes(permutation(1000, g)), raw_bytes(p));
  EXPECT_EQ(permutation(0, g).numel(), 0);
  // Every position is equally likely to hold element 0: over many 4-permutations, each of the 24
  // orders appears about equally often.
  std::vector<int> orders(256);
  for (int k = 0; k < 4800; ++k) {
    auto q = permutation(4, g);
    const int64_t* d = q.data<int64_t>();
    orders[d[0] * 64 + d[1] * 16 + d[2] * 4 + d[3]]++;
  }
  double chi2 = 0;
  for (int c : orders)
    if (c) chi2 += (c - 200.0) * (c - 200.0) / 200.0;
  EXPECT_LT(chi2, 49.7);  // 0.999 quantile of chi-square with 23 degrees of freedom
}

TEST(Random, DefaultGeneratorAndManualSeed) {
  manual_seed(77);
  auto a = uniform({8}).to_vector();
  manual_seed(77);
  auto b = uniform({8}).to_vector();
  EXPECT_EQ(a, b);
  EXPECT_EQ(default_generator().seed(), 77u);
  EXPECT_EQ(default_generator().offset(), 2u);
}

TEST(Random, ErrorsNameTheOp) {
  Generator g(1);
  EXPECT_THROW(uniform({3}, 2, 1, DType::Float32, g), ValueError);
  EXPECT_THROW(uniform({3}, 0, 1, DType::Int32, g), DTypeError);
  EXPECT_THROW(normal({3}, 0, -1, DType::Float32, g), ValueError);
  EXPECT_THROW(bernoulli({3}, 1.5, g), ValueError);
  EXPECT_THROW(randint({3}, 5, 5, DType::Int64, g), ValueError);
  EXPECT_THROW(randint({3}, 0, int64_t(1) << 40, DType::Int32, g), ValueError);
  EXPECT_THROW(randint({3}, 0, 5, DType::Float32, g), DTypeError);
  EXPECT_THROW(permutation(-1, g), ValueError);
  EXPECT_THROW(uniform({-2}, 0, 1, DType::Float32, g), ShapeError);
  try {
    uniform({3}, 2, 1, DType::Float32, g);
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("uniform"), std::string::npos);
  }
}

TEST(Random, DrawsCarryNoGradient) {
  for (const char* op : {"uniform", "normal", "bernoulli", "randint", "permutation"})
    EXPECT_FALSE(op_def(op).differentiable) << op;
  Tensor u = uniform({3}, 0, 1, DType::Float64);
  EXPECT_FALSE(u.requires_grad());
}

}  // namespace
