// Periodic boxes: minimum image against a brute-force search over lattice images, widths against
// the reciprocal vectors of an independently inverted cell matrix, wrapping and fractional
// coordinates round-tripping, and the reduced-form checks naming what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "engine/core/error.h"
#include "science/sponge/box.h"
#include "tests/science/sponge/support_errors.h"

namespace spire::sponge {
namespace {

using testing::message_of;
// A random reduced triclinic box (tilts up to the bounds).
Box random_box(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> edge(1.0, 3.0), tilt(-0.5, 0.5);
  double ax = edge(rng), by = edge(rng), cz = edge(rng);
  return Box::triclinic({ax, 0, 0}, {tilt(rng) * ax, by, 0}, {tilt(rng) * ax, tilt(rng) * by, cz});
}

// The nearest image by trying every n1 a + n2 b + n3 c with |n| <= 3.
Vec3 brute_min_image(const Box& box, const Vec3& d) {
  Vec3 best = d;
  for (int i = -3; i <= 3; ++i)
    for (int j = -3; j <= 3; ++j)
      for (int k = -3; k <= 3; ++k) {
        Vec3 e = d + double(i) * box.a() + double(j) * box.b() + double(k) * box.c();
        if (norm2(e) < norm2(best)) best = e;
      }
  return best;
}

// Widths as 1/|g_k| with g_k the rows of the inverse of H = [a b c] (columns), inverted by
// Gauss-Jordan elimination: face k's plane is s_k = const, and |grad s_k| = |g_k|.
Vec3 reciprocal_widths(const Box& box) {
  double h[3][6];
  const Vec3 v[3] = {box.a(), box.b(), box.c()};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      h[r][c] = v[c][r];
      h[r][c + 3] = r == c;
    }
  for (int p = 0; p < 3; ++p) {
    int best = p;
    for (int r = p + 1; r < 3; ++r)
      if (std::fabs(h[r][p]) > std::fabs(h[best][p])) best = r;
    for (int c = 0; c < 6; ++c) std::swap(h[p][c], h[best][c]);
    double pivot = h[p][p];
    for (int c = 0; c < 6; ++c) h[p][c] /= pivot;
    for (int r = 0; r < 3; ++r)
      if (r != p) {
        double f = h[r][p];
        for (int c = 0; c < 6; ++c) h[r][c] -= f * h[p][c];
      }
  }
  Vec3 w;
  for (int k = 0; k < 3; ++k) w[k] = 1 / std::sqrt(h[k][3] * h[k][3] + h[k][4] * h[k][4] + h[k][5] * h[k][5]);
  return w;
}

TEST(Box, NonPeriodic) {
  Box box = Box::none();
  EXPECT_FALSE(box.periodic());
  Vec3 d{7.5, -3.25, 100};
  EXPECT_EQ(box.min_image(d), d);
  EXPECT_EQ(box.wrap(d), d);
  EXPECT_TRUE(std::isinf(box.max_cutoff()));
  EXPECT_THROW(box.scaled(1.1), ValueError);
}

TEST(Box, Orthorhombic) {
  Box box = Box::orthorhombic(2, 3, 4);
  EXPECT_TRUE(box.periodic());
  EXPECT_TRUE(box.orthorhombic());
  EXPECT_EQ(box.volume(), 24);
  EXPECT_EQ(box.width(), (Vec3{2, 3, 4}));
  EXPECT_EQ(box.max_cutoff(), 1);
  EXPECT_EQ(box.min_image({1.5, -2, 3.5}), (Vec3{-0.5, 1, -0.5}));
  EXPECT_EQ(box.wrap({-0.5, 7, 4}), (Vec3{1.5, 1, 0}));
  // A coordinate a hair below zero: r + L rounds to L, which is outside [0, L).
  Vec3 w = box.wrap({-1e-300, -1e-17, 4 * (1 - 1e-16)});
  EXPECT_GE(w.x, 0);
  EXPECT_LT(w.x, 2);
  EXPECT_GE(w.y, 0);
  EXPECT_LT(w.y, 3);
  EXPECT_GE(w.z, 0);
  EXPECT_LT(w.z, 4);
  EXPECT_THROW(Box::orthorhombic(1, 0, 1), ValueError);
  EXPECT_THROW(Box::orthorhombic(1, 1, std::numeric_limits<double>::quiet_NaN()), ValueError);
}

TEST(Box, MinImageMatchesBruteForceWithinHalfWidth) {
  std::mt19937_64 rng(17);
  int tested = 0;
  for (int b = 0; b < 40; ++b) {
    Box box = random_box(rng);
    double reach = box.max_cutoff();
    std::uniform_real_distribution<double> u(-1, 1), far(-10, 10);
    for (int t = 0; t < 200; ++t) {
      // A short displacement moved by a random lattice vector: its nearest image is known to be
      // within reach, where minimum image must find it exactly.
      Vec3 d{u(rng), u(rng), u(rng)};
      d *= 0.999 * reach / norm(d) * std::fabs(u(rng));
      Vec3 shifted = d + std::round(far(rng)) * box.a() + std::round(far(rng)) * box.b() + std::round(far(rng)) * box.c();
      Vec3 m = box.min_image(shifted);
      EXPECT_NEAR(norm(m - d), 0, 1e-12);
      // And no image of m within three cells of it is nearer (the brute force's reach).
      Vec3 brute = brute_min_image(box, m);
      EXPECT_NEAR(norm(m - brute), 0, 1e-12);
      ++tested;
    }
  }
  EXPECT_EQ(tested, 8000);
}

TEST(Box, WidthsAreReciprocalVectorLengths) {
  std::mt19937_64 rng(5);
  for (int b = 0; b < 50; ++b) {
    Box box = random_box(rng);
    Vec3 w = box.width(), ref = reciprocal_widths(box);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(w[k], ref[k], 1e-12 * ref[k]);
    EXPECT_EQ(box.max_cutoff(), 0.5 * std::fmin(w.x, std::fmin(w.y, w.z)));
    EXPECT_DOUBLE_EQ(box.volume(), std::fabs(dot(box.a(), cross(box.b(), box.c()))));
  }
  // A cell with a strong tilt: the height across the a-c faces is by cz / |c_yz|.
  Box box = Box::triclinic({2, 0, 0}, {1, 2, 0}, {-1, 1, 2});
  EXPECT_NEAR(box.width().y, 2 * 2 / std::sqrt(1 + 4), 1e-15);
  EXPECT_EQ(box.width().z, 2);
}

TEST(Box, WrapAndFractional) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(-20, 20);
  for (int b = 0; b < 20; ++b) {
    Box box = random_box(rng);
    for (int t = 0; t < 100; ++t) {
      Vec3 r{u(rng), u(rng), u(rng)};
      Vec3 w = box.wrap(r);
      Vec3 s = box.to_fractional(w);
      for (int k = 0; k < 3; ++k) {
        EXPECT_GE(s[k], -1e-14);
        EXPECT_LT(s[k], 1 + 1e-14);
      }
      // r - wrap(r) is a lattice vector: integer fractional coordinates.
      Vec3 n = box.to_fractional(r - w);
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(n[k], std::round(n[k]), 1e-12);
      Vec3 back = box.from_fractional(box.to_fractional(r));
      EXPECT_NEAR(norm(back - r), 0, 1e-13);
      EXPECT_EQ(box.wrap(w), w);
    }
  }
}

TEST(Box, ReducedFormErrorsNameTheRule) {
  EXPECT_NE(message_of([] { Box::triclinic({2, 0.1, 0}, {0, 2, 0}, {0, 0, 2}); }).find("vector a must lie along x"),
            std::string::npos);
  EXPECT_NE(message_of([] { Box::triclinic({2, 0, 0}, {0, 2, 0.3}, {0, 0, 2}); }).find("xy plane"), std::string::npos);
  EXPECT_NE(message_of([] { Box::triclinic({2, 0, 0}, {0, 2, 0}, {0, 0, -2}); }).find("cz must be > 0"),
            std::string::npos);
  std::string m = message_of([] { Box::triclinic({2, 0, 0}, {1.2, 2, 0}, {0, 0, 2}); });
  EXPECT_NE(m.find("bx = 1.2"), std::string::npos) << m;
  EXPECT_NE(m.find("at most ax/2"), std::string::npos) << m;
  m = message_of([] { Box::triclinic({2, 0, 0}, {0, 2, 0}, {0, -1.5, 2}); });
  EXPECT_NE(m.find("cy"), std::string::npos) << m;
  EXPECT_NE(m.find("by/2"), std::string::npos) << m;
  EXPECT_THROW(Box::triclinic({2, 0, 0}, {0, 2, 0}, {1.01, 0, 2}), ValueError);
  // Exactly at the bound, and at the bound up to round-off (gamma = 60 degrees from angles).
  EXPECT_NO_THROW(Box::triclinic({2, 0, 0}, {-1, 2, 0}, {1, 1, 2}));
  EXPECT_NO_THROW(Box::triclinic({2, 0, 0}, {2 * std::cos(M_PI / 3), 2 * std::sin(M_PI / 3), 0}, {0, 0, 2}));
}

TEST(Box, Scaled) {
  Box box = Box::triclinic({2, 0, 0}, {0.5, 2, 0}, {-0.3, 0.4, 3});
  Box big = box.scaled(1.1);
  EXPECT_NEAR(big.volume(), box.volume() * 1.331, 1e-12);
  EXPECT_EQ(big.b(), box.b() * 1.1);
  Mat3 mu = Mat3::identity();
  mu(0, 0) = 1.02;
  mu(2, 2) = 0.97;
  Box aniso = box.scaled(mu);
  EXPECT_EQ(aniso.a(), (Vec3{2 * 1.02, 0, 0}));
  EXPECT_EQ(aniso.c(), (Vec3{-0.3 * 1.02, 0.4, 3 * 0.97}));
  // Shear that takes a out of the x axis: no longer reduced.
  Mat3 shear = Mat3::identity();
  shear(1, 0) = 0.1;
  EXPECT_THROW(box.scaled(shear), ValueError);
  EXPECT_THROW(box.scaled(-1.0), ValueError);
}

}  // namespace
}  // namespace spire::sponge
