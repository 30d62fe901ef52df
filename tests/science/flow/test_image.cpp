// image.h: the colour maps against matplotlib's tables, the font's glyphs, the colour plot's
// geometry and colours against the values it was given, overlays clipped to the plot area, PNG files
// read back through libpng, and the errors of bad input.
#include "science/flow/image.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "engine/core/error.h"

namespace spire::image {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("spire_test_image_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

int distance(Rgb a, Rgb b) {
  return std::max({std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)});
}

// matplotlib 3.11, at its 256-entry tables' own points s = k / 255:
//   [round(255 * v) for v in matplotlib.colormaps[name](k / 255)[:3]]
struct Expected {
  int k;
  Rgb rgb;
};

TEST(ImageColourMap, ViridisIsMatplotlibs) {
  for (Expected e : {Expected{0, {68, 1, 84}}, {77, {52, 96, 141}}, {128, {33, 145, 140}}, {255, {253, 231, 37}}})
    EXPECT_LE(distance(viridis(e.k / 255.0), e.rgb), 1) << "k = " << e.k;
  EXPECT_EQ(viridis(-3), viridis(0));
  EXPECT_EQ(viridis(7), viridis(1));
  EXPECT_EQ(viridis(NAN), viridis(0));
}

TEST(ImageColourMap, RedWhiteBlueIsMatplotlibsRdBuReversed) {
  const Expected table[] = {{0, {5, 48, 97}},        {13, {19, 76, 135}},   {26, {34, 103, 172}},
                            {64, {107, 172, 209}},   {102, {209, 229, 240}}, {128, {247, 246, 246}},
                            {153, {253, 219, 199}},  {191, {229, 131, 104}}, {230, {177, 24, 43}},
                            {247, {127, 8, 35}},     {255, {103, 0, 31}}};
  for (Expected e : table) EXPECT_LE(distance(red_white_blue(e.k / 255.0), e.rgb), 1) << "k = " << e.k;
  // Zero of a symmetric range is the near-white centre; the ends saturate.
  EXPECT_EQ(red_white_blue(0.5), (Rgb{247, 247, 247}));
  EXPECT_EQ(red_white_blue(-1), red_white_blue(0));
  EXPECT_EQ(red_white_blue(2), red_white_blue(1));
  EXPECT_EQ(colour(ColourMap::red_white_blue, 0.3), red_white_blue(0.3));
  EXPECT_EQ(colour(ColourMap::viridis, 0.3), viridis(0.3));
}

TEST(ImageFont, DrawsGlyphsInSixPixelCells) {
  Image im(40, 10);
  im.text(1, 1, "T|E");
  // 'T': the top row full, then the middle column.
  for (int k = 0; k < 5; ++k) EXPECT_EQ(im.at(1 + k, 1), kInk);
  EXPECT_EQ(im.at(3, 5), kInk);
  EXPECT_EQ(im.at(1, 5), (Rgb{255, 255, 255}));
  // '|' in the next cell: its middle column on every row.
  for (int r = 0; r < 7; ++r) EXPECT_EQ(im.at(7 + 2, 1 + r), kInk);
  // 'E': left column on every row.
  for (int r = 0; r < 7; ++r) EXPECT_EQ(im.at(13, 1 + r), kInk);
  EXPECT_EQ(text_width("T|E"), 17);
  EXPECT_EQ(label(0.000123456), "0.000123");
  EXPECT_EQ(label(-2.5e7), "-2.5e+07");
  // Every letter has a glyph (a blank cell would be all background).
  for (char c : std::string("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")) {
    Image one(6, 7);
    one.text(0, 0, std::string(1, c));
    int ink = 0;
    for (int y = 0; y < 7; ++y)
      for (int x = 0; x < 5; ++x) ink += one.at(x, y) == kInk;
    EXPECT_GT(ink, 4) << "glyph " << c;
  }
}

TEST(ImageColourPlot, ColoursFollowTheValuesOnNonUniformCoordinates) {
  // v(x, y) = x on x_i = i^2 (non-uniform) and y_j = j: the sampling interpolates linearly between
  // neighbouring sample positions, which is exact for v linear in x, so every pixel column shows
  // the x its centre stands for.
  std::vector<double> xs, ys{0, 1, 2};
  for (int i = 0; i <= 10; ++i) xs.push_back(double(i * i));
  std::vector<double> v;
  for (size_t j = 0; j < ys.size(); ++j)
    for (double x : xs) v.push_back(x);
  ColourPlot p;
  p.values = v.data(), p.across = xs, p.up = ys, p.width = 100, p.height = 30;
  PlotArea a;
  Image im = colour_plot(p, &a);
  EXPECT_EQ(im.width(), 100 + 56 + 88);
  EXPECT_EQ(im.height(), 30 + 12 + 28);
  EXPECT_EQ(colour_plot_size(p), std::make_pair(im.width(), im.height()));
  EXPECT_EQ(a.left, 56);
  EXPECT_EQ(a.top, 12);
  EXPECT_DOUBLE_EQ(a.lo, 0);
  EXPECT_DOUBLE_EQ(a.hi, 100);
  for (int px = 0; px < 100; ++px) {
    const double x = 100.0 * (px + 0.5) / 100;  // what this pixel column stands for
    EXPECT_LE(distance(im.at(56 + px, 12 + 15), viridis(x / 100)), 1) << "pixel " << px;
  }
  // PlotArea::pixel inverts the pixel-centre rule.
  auto [fx, fy] = a.pixel(100.0 * 10.5 / 100, 2 - 2.0 * 4.5 / 30);
  EXPECT_NEAR(fx, 56 + 10, 1e-12);
  EXPECT_NEAR(fy, 12 + 4, 1e-12);
  // The colour bar: largest value at the top.
  EXPECT_EQ(im.at(56 + 100 + 10 + 7, 12), viridis(1 - 0.5 / 30));
  EXPECT_EQ(im.at(56 + 100 + 10 + 7, 12 + 29), viridis(0.5 / 30));
}

TEST(ImageColourPlot, RedWhiteBlueRangeIsSymmetricAndNaNIsGrey) {
  // Rows: -1 .. 2 along x; the range becomes [-2, 2] so zero is white; one NaN sample.
  std::vector<double> xs{0, 1, 2, 3}, ys{0, 1};
  std::vector<double> v{-1, 0, 1, 2, -1, 0, 1, NAN};
  ColourPlot p;
  p.values = v.data(), p.across = xs, p.up = ys, p.map = ColourMap::red_white_blue;
  p.width = 60, p.height = 20, p.title = "Re Ez";
  PlotArea a;
  Image im = colour_plot(p, &a);
  EXPECT_DOUBLE_EQ(a.lo, -2);
  EXPECT_DOUBLE_EQ(a.hi, 2);
  EXPECT_EQ(a.top, 24);  // the title's line
  EXPECT_EQ(im.height(), 20 + 12 + 12 + 28);
  // The column over x = 1 (v = 0): pixel centre (px + 0.5) * 3 / 60 = 1 at px = 19.5: take the
  // bottom row's pixels 19 and 20, which straddle it symmetrically.
  const Rgb left = im.at(a.left + 19, a.top + 19), right = im.at(a.left + 20, a.top + 19);
  EXPECT_LE(distance(left, Rgb{247, 247, 247}), 4);
  EXPECT_LE(distance(right, Rgb{247, 247, 247}), 4);
  // The top-right corner interpolates towards the NaN sample: grey.
  EXPECT_EQ(im.at(a.left + 59, a.top), kNotFinite);
  // The explicit range wins.
  p.lo = -4, p.hi = 4;
  colour_plot(p, &a);
  EXPECT_DOUBLE_EQ(a.hi, 4);
}

TEST(ImageColourPlot, PolylineStaysInsideThePlotArea) {
  std::vector<double> xs{-1, 1}, ys{-1, 1}, v{0, 0, 0, 0};
  ColourPlot p;
  p.values = v.data(), p.across = xs, p.up = ys, p.width = 40, p.height = 40;
  PlotArea a;
  Image im = colour_plot(p, &a);
  const Image before = im;
  // A diagonal from far outside to far outside through the area.
  draw_polyline(im, a, {-5, 5}, {-5, 5}, Rgb{255, 0, 0});
  int inside = 0;
  for (int y = 0; y < im.height(); ++y)
    for (int x = 0; x < im.width(); ++x)
      if (!(im.at(x, y) == before.at(x, y))) {
        EXPECT_TRUE(x >= a.left && x < a.left + a.width && y >= a.top && y < a.top + a.height) << x << ", " << y;
        ++inside;
      }
  EXPECT_EQ(inside, 40);  // one pixel per column of the diagonal
  EXPECT_THROW(draw_polyline(im, a, {0, 1}, {0}), ValueError);
}

TEST(ImagePng, RoundTripsThroughLibpngAndLeavesNoTemporaryFile) {
  const fs::path dir = temp_dir("png");
  Image im(7, 5);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 7; ++x) im.set(x, y, Rgb{uint8_t(30 * x), uint8_t(50 * y), uint8_t(x * y)});
  const std::string path = (dir / "a.png").string();
  write_png(path, im, "test");
  const Image back = read_png(path);
  ASSERT_EQ(back.width(), 7);
  ASSERT_EQ(back.height(), 5);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 7; ++x) EXPECT_EQ(back.at(x, y), im.at(x, y));
  size_t files = 0;
  for (auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);
  // A folder that does not exist: IOError naming who and the path; nothing is left behind.
  const std::string missing = (dir / "no" / "b.png").string();
  try {
    write_png(missing, im, "test plot");
    FAIL() << "no error";
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find("test plot"), std::string::npos) << e.what();
  }
  // Not a PNG.
  { std::ofstream(dir / "c.png") << "not a picture"; }
  EXPECT_THROW(read_png((dir / "c.png").string()), IOError);
  fs::remove_all(dir);
}

TEST(ImageErrors, BadPlotsAreNamed) {
  std::vector<double> v{1, 2, 3, 4};
  ColourPlot p;
  p.across = {0, 1}, p.up = {0, 1};
  EXPECT_THROW(colour_plot(p), ValueError);  // no values
  p.values = v.data();
  p.across = {1, 0};
  try {
    colour_plot(p);
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("must increase"), std::string::npos) << e.what();
  }
  p.across = {0, 1}, p.width = 0;
  EXPECT_THROW(colour_plot(p), ValueError);
  EXPECT_THROW(Image(0, 3), ValueError);
}

}  // namespace
}  // namespace spire::image
