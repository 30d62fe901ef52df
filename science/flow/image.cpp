// Colour pictures: raster, font, colour maps, the colour plot and PNG files (image.h).
#include "science/flow/image.h"

#include <png.h>

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <tuple>

#include "engine/core/error.h"
#include "engine/data/atomic_file.h"

namespace spire::image {
namespace {

constexpr int kLeft = 56, kRight = 88, kTop = 12, kBottom = 28;  // margins: labels and the bar
constexpr int kTitle = 12;                                        // added above when there is a title
constexpr int kBarGap = 10, kBarWidth = 14;

// matplotlib's viridis, 256 entries of rrggbb.
const char* const kViridis =
    "44015444025645045745055946075a46085c460a5d460b5e470d60470e61471063471164471365481467481668481769"
    "48186a481a6c481b6d481c6e481d6f481f70482071482173482374482475482576482677482878482979472a7a472c7a"
    "472d7b472e7c472f7d46307e46327e46337f463480453581453781453882443983443a83443b84433d84433e85423f85"
    "4240864241864142874144874045884046883f47883f48893e49893e4a893e4c8a3d4d8a3d4e8a3c4f8a3c508b3b518b"
    "3b528b3a538b3a548c39558c39568c38588c38598c375a8c375b8d365c8d365d8d355e8d355f8d34608d34618d33628d"
    "33638d32648e32658e31668e31678e31688e30698e306a8e2f6b8e2f6c8e2e6d8e2e6e8e2e6f8e2d708e2d718e2c718e"
    "2c728e2c738e2b748e2b758e2a768e2a778e2a788e29798e297a8e297b8e287c8e287d8e277e8e277f8e27808e26818e"
    "26828e26828e25838e25848e25858e24868e24878e23888e23898e238a8d228b8d228c8d228d8d218e8d218f8d21908d"
    "21918c20928c20928c20938c1f948c1f958b1f968b1f978b1f988b1f998a1f9a8a1e9b8a1e9c891e9d891f9e891f9f88"
    "1fa0881fa1881fa1871fa28720a38620a48621a58521a68522a78522a88423a98324aa8325ab8225ac8226ad8127ad81"
    "28ae8029af7f2ab07f2cb17e2db27d2eb37c2fb47c31b57b32b67a34b67935b77937b87838b9773aba763bbb753dbc74"
    "3fbc7340bd7242be7144bf7046c06f48c16e4ac16d4cc26c4ec36b50c46a52c56954c56856c66758c7655ac8645cc863"
    "5ec96260ca6063cb5f65cb5e67cc5c69cd5b6ccd5a6ece5870cf5773d05675d05477d1537ad1517cd2507fd34e81d34d"
    "84d44b86d54989d5488bd6468ed64590d74393d74195d84098d83e9bd93c9dd93ba0da39a2da37a5db36a8db34aadc32"
    "addc30b0dd2fb2dd2db5de2bb8de29bade28bddf26c0df25c2df23c5e021c8e020cae11fcde11dd0e11cd2e21bd5e21a"
    "d8e219dae319dde318dfe318e2e418e5e419e7e419eae51aece51befe51cf1e51df4e61ef6e620f8e621fbe723fde725";

// ColorBrewer's RdBu, 11 classes, from blue (low) to red (high): matplotlib's RdBu_r interpolates
// linearly between these.
constexpr Rgb kRedWhiteBlue[11] = {{5, 48, 97},    {33, 102, 172}, {67, 147, 195}, {146, 197, 222},
                                   {209, 229, 240}, {247, 247, 247}, {253, 219, 199}, {244, 165, 130},
                                   {214, 96, 77},   {178, 24, 43},   {103, 0, 31}};

int hex(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }

// A 5 x 7 font: rows top to bottom, bit 4 the leftmost column.
struct Glyph {
  char c;
  uint8_t rows[7];
};
const Glyph kFont[] = {
    {'0', {14, 17, 19, 21, 25, 17, 14}}, {'1', {4, 12, 4, 4, 4, 4, 14}},     {'2', {14, 17, 1, 2, 4, 8, 31}},
    {'3', {31, 2, 4, 2, 1, 17, 14}},     {'4', {2, 6, 10, 18, 31, 2, 2}},    {'5', {31, 16, 30, 1, 1, 17, 14}},
    {'6', {6, 8, 16, 30, 17, 17, 14}},   {'7', {31, 1, 2, 4, 8, 8, 8}},      {'8', {14, 17, 17, 14, 17, 17, 14}},
    {'9', {14, 17, 17, 15, 1, 2, 12}},   {'.', {0, 0, 0, 0, 0, 12, 12}},     {'-', {0, 0, 0, 14, 0, 0, 0}},
    {'+', {0, 4, 4, 31, 4, 4, 0}},       {'=', {0, 0, 31, 0, 31, 0, 0}},     {'_', {0, 0, 0, 0, 0, 0, 31}},
    {'|', {4, 4, 4, 4, 4, 4, 4}},        {'(', {2, 4, 8, 8, 8, 4, 2}},       {')', {8, 4, 2, 2, 2, 4, 8}},
    {'[', {14, 8, 8, 8, 8, 8, 14}},      {']', {14, 2, 2, 2, 2, 2, 14}},     {'/', {0, 1, 2, 4, 8, 16, 0}},
    {',', {0, 0, 0, 0, 12, 4, 8}},       {':', {0, 12, 12, 0, 12, 12, 0}},   {'*', {0, 4, 21, 14, 21, 4, 0}},
    {'%', {24, 25, 2, 4, 8, 19, 3}},     {'^', {4, 10, 17, 0, 0, 0, 0}},     {'~', {0, 0, 8, 21, 2, 0, 0}},
    {'a', {0, 0, 14, 1, 15, 17, 15}},    {'b', {16, 16, 22, 25, 17, 17, 30}}, {'c', {0, 0, 14, 16, 16, 17, 14}},
    {'d', {1, 1, 13, 19, 17, 17, 15}},   {'e', {0, 0, 14, 17, 31, 16, 14}},  {'f', {6, 9, 8, 28, 8, 8, 8}},
    {'g', {0, 0, 15, 17, 15, 1, 14}},    {'h', {16, 16, 22, 25, 17, 17, 17}}, {'i', {4, 0, 12, 4, 4, 4, 14}},
    {'j', {2, 0, 6, 2, 2, 18, 12}},      {'k', {16, 16, 18, 20, 24, 20, 18}}, {'l', {12, 4, 4, 4, 4, 4, 14}},
    {'m', {0, 0, 26, 21, 21, 21, 21}},   {'n', {0, 0, 22, 25, 17, 17, 17}},  {'o', {0, 0, 14, 17, 17, 17, 14}},
    {'p', {0, 0, 30, 17, 30, 16, 16}},   {'q', {0, 0, 13, 19, 15, 1, 1}},    {'r', {0, 0, 22, 25, 16, 16, 16}},
    {'s', {0, 0, 15, 16, 14, 1, 30}},    {'t', {8, 8, 28, 8, 8, 9, 6}},      {'u', {0, 0, 17, 17, 17, 19, 13}},
    {'v', {0, 0, 17, 17, 17, 10, 4}},    {'w', {0, 0, 17, 17, 21, 21, 10}},  {'x', {0, 0, 17, 10, 4, 10, 17}},
    {'y', {0, 0, 17, 17, 15, 1, 14}},    {'z', {0, 0, 31, 2, 4, 8, 31}},     {'A', {14, 17, 17, 31, 17, 17, 17}},
    {'B', {30, 17, 17, 30, 17, 17, 30}}, {'C', {14, 17, 16, 16, 16, 17, 14}}, {'D', {28, 18, 17, 17, 17, 18, 28}},
    {'E', {31, 16, 16, 30, 16, 16, 31}}, {'F', {31, 16, 16, 30, 16, 16, 16}}, {'G', {14, 17, 16, 23, 17, 17, 15}},
    {'H', {17, 17, 17, 31, 17, 17, 17}}, {'I', {14, 4, 4, 4, 4, 4, 14}},     {'J', {7, 2, 2, 2, 2, 18, 12}},
    {'K', {17, 18, 20, 24, 20, 18, 17}}, {'L', {16, 16, 16, 16, 16, 16, 31}}, {'M', {17, 27, 21, 21, 17, 17, 17}},
    {'N', {17, 17, 25, 21, 19, 17, 17}}, {'O', {14, 17, 17, 17, 17, 17, 14}}, {'P', {30, 17, 17, 30, 16, 16, 16}},
    {'Q', {14, 17, 17, 17, 21, 18, 13}}, {'R', {30, 17, 17, 30, 20, 18, 17}}, {'S', {15, 16, 16, 14, 1, 1, 30}},
    {'T', {31, 4, 4, 4, 4, 4, 4}},       {'U', {17, 17, 17, 17, 17, 17, 14}}, {'V', {17, 17, 17, 17, 17, 10, 4}},
    {'W', {17, 17, 17, 21, 21, 21, 10}}, {'X', {17, 17, 10, 4, 10, 17, 17}}, {'Y', {17, 17, 17, 10, 4, 4, 4}},
    {'Z', {31, 1, 2, 4, 8, 16, 31}},
};

const Glyph* glyph(char c) {
  for (const Glyph& g : kFont)
    if (g.c == c) return &g;
  return nullptr;
}

// Position of v in the increasing points c as a fractional index (clamped to the ends).
double fractional_index(const std::vector<double>& c, double v) {
  if (c.size() < 2 || v <= c.front()) return 0;
  if (v >= c.back()) return double(c.size() - 1);
  size_t hi = size_t(std::upper_bound(c.begin(), c.end(), v) - c.begin());
  size_t lo = hi - 1;
  return double(lo) + (v - c[lo]) / (c[hi] - c[lo]);
}

// Bilinear in index space; values[j * nx + i].
double sample(const double* values, size_t nx, size_t ny, double fx, double fy) {
  const size_t i0 = std::min(size_t(fx), nx - 1), j0 = std::min(size_t(fy), ny - 1);
  const size_t i1 = std::min(i0 + 1, nx - 1), j1 = std::min(j0 + 1, ny - 1);
  const double a = fx - double(i0), b = fy - double(j0);
  auto v = [&](size_t j, size_t i) { return values[j * nx + i]; };
  return (1 - b) * ((1 - a) * v(j0, i0) + a * v(j0, i1)) + b * ((1 - a) * v(j1, i0) + a * v(j1, i1));
}

void check_axis(const std::vector<double>& c, const std::string& name) {
  SPIRE_CHECK(!c.empty(), ValueError, "colour_plot: no coordinates along ", name);
  for (size_t k = 1; k < c.size(); ++k)
    SPIRE_CHECK(c[k] >= c[k - 1], ValueError, "colour_plot: the coordinates along ", name,
                " must increase; coordinate ", k, " is ", c[k], " after ", c[k - 1]);
}

// setjmp-based error handling of libpng: nothing with a destructor lives in this function.
bool write_png_file(const char* path, const Image& im) {
  FILE* f = std::fopen(path, "wb");
  if (!f) return false;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(f);
    return false;
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, png_uint_32(im.width()), png_uint_32(im.height()), 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < im.height(); ++y) png_write_row(png, reinterpret_cast<png_const_bytep>(im.row(y)));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return std::fclose(f) == 0;
}

// Reads the PNG at `path` into `rgb` (3 bytes per pixel) through the simplified API.
bool read_png_file(const char* path, int& width, int& height, std::vector<uint8_t>& rgb) {
  png_image img{};
  img.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&img, path)) return false;
  img.format = PNG_FORMAT_RGB;
  width = int(img.width), height = int(img.height);
  rgb.resize(PNG_IMAGE_SIZE(img));
  if (!png_image_finish_read(&img, nullptr, rgb.data(), 0, nullptr)) {
    png_image_free(&img);
    return false;
  }
  return true;
}

}  // namespace

Rgb viridis(double s) {
  if (std::isnan(s)) s = 0;
  const int i = std::clamp(int(s * 255.0 + 0.5), 0, 255);
  const char* p = kViridis + 6 * i;
  return {uint8_t(hex(p[0]) * 16 + hex(p[1])), uint8_t(hex(p[2]) * 16 + hex(p[3])), uint8_t(hex(p[4]) * 16 + hex(p[5]))};
}

Rgb red_white_blue(double s) {
  const double u = std::isnan(s) ? 0.0 : std::clamp(s, 0.0, 1.0) * 10;
  const int k = std::min(int(u), 9);
  const double w = u - k;
  const Rgb a = kRedWhiteBlue[k], b = kRedWhiteBlue[k + 1];
  auto mix = [w](uint8_t x, uint8_t y) { return uint8_t(std::lround(x + w * (double(y) - double(x)))); };
  return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

Rgb colour(ColourMap map, double s) { return map == ColourMap::viridis ? viridis(s) : red_white_blue(s); }

int text_width(const std::string& s) { return int(s.size()) * kCharWidth - 1; }

std::string label(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

Image::Image(int width, int height, Rgb background)
    : w_(width), h_(height), background_(background), px_(size_t(std::max(width, 0)) * size_t(std::max(height, 0)), background) {
  SPIRE_CHECK(width > 0 && height > 0, ValueError, "Image: a size of ", width, " x ", height,
              " pixels; both must be positive");
}

Rgb Image::at(int x, int y) const {
  return x >= 0 && y >= 0 && x < w_ && y < h_ ? px_[size_t(y) * size_t(w_) + size_t(x)] : background_;
}

void Image::text(int x, int y, const std::string& s, Rgb c) {
  for (char ch : s) {
    if (const Glyph* g = glyph(ch))
      for (int r = 0; r < 7; ++r)
        for (int k = 0; k < 5; ++k)
          if (g->rows[r] & (16 >> k)) set(x + k, y + r, c);
    x += kCharWidth;
  }
}

void Image::frame(int x0, int y0, int x1, int y1, Rgb c) {
  for (int x = x0; x <= x1; ++x) set(x, y0, c), set(x, y1, c);
  for (int y = y0; y <= y1; ++y) set(x0, y, c), set(x1, y, c);
}

void Image::line(int x0, int y0, int x1, int y1, Rgb c) {
  const int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1, dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
  for (int err = dx + dy;;) {
    set(x0, y0, c), set(x0, y0 + 1, c);
    if (x0 == x1 && y0 == y1) break;
    const int e2 = 2 * err;
    if (e2 >= dy) err += dy, x0 += sx;
    if (e2 <= dx) err += dx, y0 += sy;
  }
}

std::pair<double, double> finite_range(const double* v, size_t n) {
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (size_t k = 0; k < n; ++k)
    if (std::isfinite(v[k])) lo = std::min(lo, v[k]), hi = std::max(hi, v[k]);
  if (!(lo <= hi)) return {0, 1};  // nothing finite
  if (hi - lo < 1e-300 + 1e-12 * std::abs(hi)) {  // a constant: a band around it
    const double pad = std::max(1e-12, 0.5 * std::abs(hi));
    lo -= pad, hi += pad;
  }
  return {lo, hi};
}

void write_png(const std::string& path, const Image& image, const std::string& who) {
  data::write_atomically(path, who, [&](const std::string& tmp) {
    SPIRE_CHECK(write_png_file(tmp.c_str(), image), IOError, who, ": cannot write the PNG file ", path);
  });
}

Image read_png(const std::string& path) {
  int w = 0, h = 0;
  std::vector<uint8_t> rgb;
  SPIRE_CHECK(read_png_file(path.c_str(), w, h, rgb) && w > 0 && h > 0, IOError, "read_png: ", path,
              " is not a readable PNG file");
  Image im(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint8_t* p = rgb.data() + 3 * (size_t(y) * size_t(w) + size_t(x));
      im.set(x, y, {p[0], p[1], p[2]});
    }
  return im;
}

std::pair<int, int> colour_plot_size(const ColourPlot& p) {
  return {p.width + kLeft + kRight, p.height + kTop + kBottom + (p.title.empty() ? 0 : kTitle)};
}

Image colour_plot(const ColourPlot& p, PlotArea* area_out) {
  SPIRE_CHECK(p.values, ValueError, "colour_plot: no values to draw");
  SPIRE_CHECK(p.width > 0 && p.height > 0, ValueError, "colour_plot: a plot area of ", p.width, " x ", p.height,
              " pixels; both must be positive");
  check_axis(p.across, p.across_name);
  check_axis(p.up, p.up_name);
  const size_t nx = p.across.size(), ny = p.up.size(), count = nx * ny;
  double lo = p.lo, hi = p.hi;
  if (std::isnan(lo) || std::isnan(hi)) {
    if (p.map == ColourMap::red_white_blue) {  // symmetric, so that white is zero
      double m = 0;
      for (size_t k = 0; k < count; ++k)
        if (std::isfinite(p.values[k])) m = std::max(m, std::abs(p.values[k]));
      const double band[2] = {-m, m};
      std::tie(lo, hi) = finite_range(band, 2);
    } else {
      std::tie(lo, hi) = finite_range(p.values, count);
    }
  }

  const int w = p.width, h = p.height, top = kTop + (p.title.empty() ? 0 : kTitle);
  const auto [iw, ih] = colour_plot_size(p);
  Image im(iw, ih);
  const double ax0 = p.across.front(), ax1 = p.across.back(), up0 = p.up.front(), up1 = p.up.back();
  for (int py = 0; py < h; ++py) {
    const double vy = up1 - (up1 - up0) * (py + 0.5) / h;  // the top row is the largest coordinate
    const double fy = fractional_index(p.up, vy);
    for (int px = 0; px < w; ++px) {
      const double vx = ax0 + (ax1 - ax0) * (px + 0.5) / w;
      const double v = sample(p.values, nx, ny, fractional_index(p.across, vx), fy);
      im.set(kLeft + px, top + py, std::isfinite(v) ? colour(p.map, (v - lo) / (hi - lo)) : kNotFinite);
    }
  }
  im.frame(kLeft - 1, top - 1, kLeft + w, top + h);
  if (!p.title.empty()) im.text(kLeft, top - kTitle - 6, p.title);
  // Axis ranges at the ends, the axis names at the middles.
  const int below = top + h + 6;
  im.text(kLeft, below, label(ax0));
  im.text(kLeft + w - text_width(label(ax1)), below, label(ax1));
  im.text(kLeft + w / 2 - 2, below + 10, p.across_name);
  im.text(kLeft - 6 - text_width(label(up1)), top, label(up1));
  im.text(kLeft - 6 - text_width(label(up0)), top + h - 7, label(up0));
  im.text(kLeft - 14, top + h / 2 - 3, p.up_name);
  // The colour bar: the largest value at the top.
  const int bx = kLeft + w + kBarGap;
  for (int py = 0; py < h; ++py) {
    const Rgb c = colour(p.map, 1.0 - (py + 0.5) / h);
    for (int k = 0; k < kBarWidth; ++k) im.set(bx + k, top + py, c);
  }
  im.frame(bx - 1, top - 1, bx + kBarWidth, top + h);
  im.text(bx + kBarWidth + 4, top, label(hi));
  const double mid = 0.5 * (lo + hi);  // "0", not round-off, when the range is symmetric
  im.text(bx + kBarWidth + 4, top + h / 2 - 3, label(std::abs(mid) < 1e-9 * (hi - lo) ? 0.0 : mid));
  im.text(bx + kBarWidth + 4, top + h - 7, label(lo));
  if (area_out) *area_out = {kLeft, top, w, h, ax0, ax1, up0, up1, lo, hi};
  return im;
}

void draw_polyline(Image& im, const PlotArea& a, const std::vector<double>& across, const std::vector<double>& up,
                   Rgb c) {
  SPIRE_CHECK(across.size() == up.size(), ValueError, "draw_polyline: ", across.size(), " horizontal and ",
              up.size(), " vertical coordinates; they must pair up");
  auto inside = [&](int x, int y) { return x >= a.left && y >= a.top && x < a.left + a.width && y < a.top + a.height; };
  for (size_t k = 0; k + 1 < across.size(); ++k) {
    auto [fx0, fy0] = a.pixel(across[k], up[k]);
    auto [fx1, fy1] = a.pixel(across[k + 1], up[k + 1]);
    if (!std::isfinite(fx0) || !std::isfinite(fy0) || !std::isfinite(fx1) || !std::isfinite(fy1)) continue;
    // Bresenham between the nearest pixels; a segment far outside is skipped whole.
    const double far = 4.0 * (a.width + a.height);
    if (std::abs(fx0 - a.left) > far || std::abs(fx1 - a.left) > far || std::abs(fy0 - a.top) > far ||
        std::abs(fy1 - a.top) > far)
      continue;
    int x0 = int(std::lround(fx0)), y0 = int(std::lround(fy0));
    const int x1 = int(std::lround(fx1)), y1 = int(std::lround(fy1));
    const int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1, dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    for (int err = dx + dy;;) {
      if (inside(x0, y0)) im.set(x0, y0, c);
      if (x0 == x1 && y0 == y1) break;
      const int e2 = 2 * err;
      if (e2 >= dy) err += dy, x0 += sx;
      if (e2 <= dx) err += dx, y0 += sy;
    }
  }
}

}  // namespace spire::image
