// Colour images of solutions (plot.h).
#include "science/flow/plot.h"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "engine/core/error.h"
#include "engine/data/atomic_file.h"
#include "science/flow/output.h"

namespace spire::flow {
namespace {

constexpr int kLeft = 56, kRight = 88, kTop = 12, kBottom = 28;  // margins: labels and the bar
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

struct Rgb {
  uint8_t r, g, b;
};

int hex(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }

Rgb viridis(double s) {  // s in [0, 1]
  const int i = std::clamp(int(s * 255.0 + 0.5), 0, 255);
  const char* p = kViridis + 6 * i;
  return {uint8_t(hex(p[0]) * 16 + hex(p[1])), uint8_t(hex(p[2]) * 16 + hex(p[3])), uint8_t(hex(p[4]) * 16 + hex(p[5]))};
}

// A 5 x 7 font for the labels: digits, the characters of numbers and the axis names.
struct Glyph {
  char c;
  uint8_t rows[7];  // bit 4 is the leftmost column
};
const Glyph kFont[] = {
    {'0', {14, 17, 19, 21, 25, 17, 14}}, {'1', {4, 12, 4, 4, 4, 4, 14}},     {'2', {14, 17, 1, 2, 4, 8, 31}},
    {'3', {31, 2, 4, 2, 1, 17, 14}},     {'4', {2, 6, 10, 18, 31, 2, 2}},    {'5', {31, 16, 30, 1, 1, 17, 14}},
    {'6', {6, 8, 16, 30, 17, 17, 14}},   {'7', {31, 1, 2, 4, 8, 8, 8}},      {'8', {14, 17, 17, 14, 17, 17, 14}},
    {'9', {14, 17, 17, 15, 1, 2, 12}},   {'.', {0, 0, 0, 0, 0, 12, 12}},     {'-', {0, 0, 0, 14, 0, 0, 0}},
    {'+', {0, 4, 4, 31, 4, 4, 0}},       {'e', {0, 0, 14, 17, 31, 16, 14}},  {'x', {0, 0, 17, 10, 4, 10, 17}},
    {'t', {8, 8, 28, 8, 8, 9, 6}},       {'y', {0, 0, 17, 17, 15, 1, 14}},   {'=', {0, 0, 31, 0, 31, 0, 0}},
    {'n', {0, 0, 22, 25, 17, 17, 17}},   {'a', {0, 0, 14, 1, 15, 17, 15}},   {'i', {4, 0, 12, 4, 4, 4, 14}},
    {'f', {6, 9, 8, 28, 8, 8, 8}},       {'T', {31, 4, 4, 4, 4, 4, 4}},      {'E', {31, 16, 16, 30, 16, 16, 31}},
    {'P', {30, 17, 17, 30, 16, 16, 16}}, {'S', {15, 16, 16, 14, 1, 1, 30}},  {'m', {0, 0, 26, 21, 21, 21, 21}},
    {'p', {0, 0, 30, 17, 30, 16, 16}},   {'r', {0, 0, 22, 25, 16, 16, 16}},  {'o', {0, 0, 14, 17, 17, 17, 14}},
    {'g', {0, 0, 15, 17, 15, 1, 14}},    {'s', {0, 0, 15, 16, 14, 1, 30}},   {'_', {0, 0, 0, 0, 0, 0, 31}},
};
constexpr int kCharWidth = 6;  // 5 columns and a space

class Image {
 public:
  Image(int w, int h) : w_(w), h_(h), px_(size_t(w) * size_t(h), Rgb{255, 255, 255}) {}
  int width() const { return w_; }
  int height() const { return h_; }
  void set(int x, int y, Rgb c) {
    if (x >= 0 && y >= 0 && x < w_ && y < h_) px_[size_t(y) * size_t(w_) + size_t(x)] = c;
  }
  const Rgb* row(int y) const { return px_.data() + size_t(y) * size_t(w_); }
  // Text with its top-left corner at (x, y); characters without a glyph are left blank.
  void text(int x, int y, const std::string& s, Rgb c = {40, 40, 40}) {
    for (char ch : s) {
      for (const Glyph& g : kFont)
        if (g.c == ch)
          for (int r = 0; r < 7; ++r)
            for (int k = 0; k < 5; ++k)
              if (g.rows[r] & (16 >> k)) set(x + k, y + r, c);
      x += kCharWidth;
    }
  }
  void frame(int x0, int y0, int x1, int y1, Rgb c = {40, 40, 40}) {  // inclusive corners
    for (int x = x0; x <= x1; ++x) set(x, y0, c), set(x, y1, c);
    for (int y = y0; y <= y1; ++y) set(x0, y, c), set(x1, y, c);
  }

 private:
  int w_, h_;
  std::vector<Rgb> px_;
};

int text_width(const std::string& s) { return int(s.size()) * kCharWidth - 1; }

std::string label(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

// Position of v in the increasing points c as a fractional index (clamped to the ends).
double fractional_index(const std::vector<double>& c, double v) {
  if (c.size() < 2 || v <= c.front()) return 0;
  if (v >= c.back()) return double(c.size() - 1);
  size_t hi = size_t(std::upper_bound(c.begin(), c.end(), v) - c.begin());
  size_t lo = hi - 1;
  return double(lo) + (v - c[lo]) / (c[hi] - c[lo]);
}

// The plotted plane: values[row][column], row along the vertical axis (t or y), column along x.
struct Plane {
  const double* values;
  std::vector<double> across, up;  // coordinates of the columns and of the rows
  std::string across_name, up_name;
};

double sample_plane(const Plane& p, double fx, double fy) {  // bilinear in index space
  const size_t nx = p.across.size(), ny = p.up.size();
  const size_t i0 = std::min(size_t(fx), nx - 1), j0 = std::min(size_t(fy), ny - 1);
  const size_t i1 = std::min(i0 + 1, nx - 1), j1 = std::min(j0 + 1, ny - 1);
  const double a = fx - double(i0), b = fy - double(j0);
  auto v = [&](size_t j, size_t i) { return p.values[j * nx + i]; };
  return (1 - b) * ((1 - a) * v(j0, i0) + a * v(j0, i1)) + b * ((1 - a) * v(j1, i0) + a * v(j1, i1));
}

std::pair<int, int> area(const Solution& s, const PlotOptions& o) {
  int w = o.width, h = o.height;
  if (s.coords.size() == 2) {
    if (w <= 0) w = 400;
    if (h <= 0) {
      // 2D grids are periodic and uniform: the period is n spacings.
      auto period = [](const std::vector<double>& c) {
        return c.size() > 1 ? (c.back() - c.front()) * double(c.size()) / double(c.size() - 1) : 1.0;
      };
      const double lx = period(s.coords[0]), ly = period(s.coords[1]);
      h = std::clamp(int(std::lround(w * ly / lx)), 100, 800);
    }
  } else {
    if (w <= 0) w = 512;
    if (h <= 0) h = 320;
  }
  return {w, h};
}

// A line from (x0, y0) to (x1, y1), two pixels thick (Bresenham).
void draw_line(Image& im, int x0, int y0, int x1, int y1, Rgb c) {
  const int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1, dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
  for (int err = dx + dy;;) {
    im.set(x0, y0, c), im.set(x0, y0 + 1, c);
    if (x0 == x1 && y0 == y1) break;
    const int e2 = 2 * err;
    if (e2 >= dy) err += dy, x0 += sx;
    if (e2 <= dx) err += dx, y0 += sy;
  }
}

// The finite range of v, widened around a constant.
std::pair<double, double> finite_range(const std::vector<double>& v) {
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (double x : v)
    if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
  if (!(lo <= hi)) return {0, 1};  // nothing finite
  if (hi - lo < 1e-300 + 1e-12 * std::abs(hi)) {
    const double pad = std::max(1e-12, 0.5 * std::abs(hi));
    lo -= pad, hi += pad;
  }
  return {lo, hi};
}

// setjmp-based error handling of libpng: nothing with a destructor lives in this function.
bool write_png(const char* path, const Image& im) {
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
  for (int y = 0; y < im.height(); ++y)
    png_write_row(png, reinterpret_cast<png_const_bytep>(im.row(y)));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return std::fclose(f) == 0;
}

}  // namespace

std::pair<int, int> plot_size(const Solution& solution, const PlotOptions& options) {
  auto [w, h] = area(solution, options);
  return {w + kLeft + kRight, h + kTop + kBottom};
}

void plot_solution(const Solution& s, int field, const std::string& png, const PlotOptions& options) {
  SPIRE_CHECK(field >= 0 && size_t(field) < s.fields.size(), ValueError, "pde plot: field ", field,
              " out of range; the solution has ", s.fields.size());
  SPIRE_CHECK(!s.t.empty() && (s.coords.size() == 1 || s.coords.size() == 2), ValueError,
              "pde plot: the solution has no snapshots or is not 1D or 2D");
  const std::vector<double>& u = s.fields[size_t(field)];
  Plane p;
  std::vector<double> last;
  if (s.coords.size() == 1) {
    p = {u.data(), s.coords[0], s.t, "x", "t"};
  } else {  // the last snapshot, stored x-major: row = x, so transpose into rows of y
    const size_t nx = s.coords[0].size(), ny = s.coords[1].size();
    last.resize(nx * ny);
    const double* snap = u.data() + (s.t.size() - 1) * nx * ny;
    for (size_t i = 0; i < nx; ++i)
      for (size_t j = 0; j < ny; ++j) last[j * nx + i] = snap[i * ny + j];
    p = {last.data(), s.coords[0], s.coords[1], "x", "y"};
  }
  const size_t count = p.across.size() * p.up.size();
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (size_t k = 0; k < count; ++k)
    if (std::isfinite(p.values[k])) lo = std::min(lo, p.values[k]), hi = std::max(hi, p.values[k]);
  if (!(lo <= hi)) lo = 0, hi = 1;  // nothing finite
  if (hi - lo < 1e-300 + 1e-12 * std::abs(hi)) {  // a constant: a band around it
    const double pad = std::max(1e-12, 0.5 * std::abs(hi));
    lo -= pad, hi += pad;
  }

  auto [w, h] = area(s, options);
  Image im(w + kLeft + kRight, h + kTop + kBottom);
  const double ax0 = p.across.front(), ax1 = p.across.back(), up0 = p.up.front(), up1 = p.up.back();
  for (int py = 0; py < h; ++py) {
    const double vy = up1 - (up1 - up0) * (py + 0.5) / h;  // top row is the largest t (or y)
    const double fy = fractional_index(p.up, vy);
    for (int px = 0; px < w; ++px) {
      const double vx = ax0 + (ax1 - ax0) * (px + 0.5) / w;
      const double v = sample_plane(p, fractional_index(p.across, vx), fy);
      im.set(kLeft + px, kTop + py, std::isfinite(v) ? viridis((v - lo) / (hi - lo)) : Rgb{128, 128, 128});
    }
  }
  im.frame(kLeft - 1, kTop - 1, kLeft + w, kTop + h);
  // Axis ranges at the ends, the axis names at the middles.
  const int below = kTop + h + 6;
  im.text(kLeft, below, label(ax0));
  im.text(kLeft + w - text_width(label(ax1)), below, label(ax1));
  im.text(kLeft + w / 2 - 2, below + 10, p.across_name);
  im.text(kLeft - 6 - text_width(label(up1)), kTop, label(up1));
  im.text(kLeft - 6 - text_width(label(up0)), kTop + h - 7, label(up0));
  im.text(kLeft - 14, kTop + h / 2 - 3, p.up_name);
  // The colour bar: the largest value at the top.
  const int bx = kLeft + w + kBarGap;
  for (int py = 0; py < h; ++py) {
    const Rgb c = viridis(1.0 - (py + 0.5) / h);
    for (int k = 0; k < kBarWidth; ++k) im.set(bx + k, kTop + py, c);
  }
  im.frame(bx - 1, kTop - 1, bx + kBarWidth, kTop + h);
  im.text(bx + kBarWidth + 4, kTop, label(hi));
  const double mid = 0.5 * (lo + hi);  // "0", not round-off, when the range is symmetric
  im.text(bx + kBarWidth + 4, kTop + h / 2 - 3, label(std::abs(mid) < 1e-9 * (hi - lo) ? 0.0 : mid));
  im.text(bx + kBarWidth + 4, kTop + h - 7, label(lo));

  data::write_atomically(png, "pde plot", [&](const std::string& tmp) {
    SPIRE_CHECK(write_png(tmp.c_str(), im), IOError, "pde plot: cannot write the PNG file ", png);
  });
}

void plot_series(const std::vector<double>& x, const std::string& x_name, const std::vector<Series>& series,
                 const std::string& png, const PlotOptions& options) {
  SPIRE_CHECK(!series.empty(), ValueError, "plot_series: no series to draw");
  SPIRE_CHECK(x.size() >= 2, ValueError, "plot_series: ", x.size(), " points; a line needs at least 2");
  for (const Series& s : series)
    SPIRE_CHECK(s.values.size() == x.size(), ValueError, "plot_series: series ", s.name, " has ", s.values.size(),
                " values for ", x.size(), " points of ", x_name);
  constexpr int left = 64, right = 12, top = 14, gap = 16, bottom = 28;  // names in the space above each panel
  const int w = options.width > 0 ? options.width : 512, h = options.height > 0 ? options.height : 96;
  const int panels = int(series.size());
  Image im(left + w + right, top + panels * h + (panels - 1) * gap + bottom);
  const auto [x0, x1] = finite_range(x);
  for (int p = 0; p < panels; ++p) {
    const Series& s = series[size_t(p)];
    const int y_top = top + p * (h + gap);
    const auto [lo, hi] = finite_range(s.values);
    const Rgb colour = viridis(panels > 1 ? 0.6 * p / (panels - 1) : 0.3);
    // Points inset by 3 pixels from the frame; a point that is not finite ends the line there.
    auto px = [&, x0 = x0, x1 = x1](double v) { return left + int(std::lround((v - x0) / (x1 - x0) * (w - 1))); };
    auto py = [&, lo = lo, hi = hi](double v) { return y_top + 3 + int(std::lround((hi - v) / (hi - lo) * (h - 8))); };
    bool have = false;
    int last_x = 0, last_y = 0;
    for (size_t k = 0; k < x.size(); ++k) {
      if (!std::isfinite(x[k]) || !std::isfinite(s.values[k])) {
        have = false;
        continue;
      }
      const int cx = px(x[k]), cy = py(s.values[k]);
      if (have) draw_line(im, last_x, last_y, cx, cy, colour);
      else im.set(cx, cy, colour), im.set(cx, cy + 1, colour);
      have = true, last_x = cx, last_y = cy;
    }
    im.frame(left - 1, y_top - 1, left + w, y_top + h);
    im.text(left, y_top - 11, s.name);
    im.text(left - 6 - text_width(label(hi)), y_top + 1, label(hi));
    im.text(left - 6 - text_width(label(lo)), y_top + h - 8, label(lo));
  }
  const int below = top + panels * h + (panels - 1) * gap + 6;
  im.text(left, below, label(x0));
  im.text(left + w - text_width(label(x1)), below, label(x1));
  im.text(left + w / 2 - text_width(x_name) / 2, below + 10, x_name);
  data::write_atomically(png, "plot_series", [&](const std::string& tmp) {
    SPIRE_CHECK(write_png(tmp.c_str(), im), IOError, "plot_series: cannot write the PNG file ", png);
  });
}

void plot_file(const std::string& h5, const std::string& png, const std::string& field, long sample,
               const PlotOptions& options) {
  SolutionSet set = read_solutions(h5);
  int index = 0;
  if (!field.empty()) {
    auto it = std::find(set.fields.begin(), set.fields.end(), field);
    SPIRE_CHECK(it != set.fields.end(), ValueError, "pde plot: ", h5, " has no field ", field, "; it has ",
                detail::join(set.fields));
    index = int(it - set.fields.begin());
  }
  SPIRE_CHECK(sample >= 0 && size_t(sample) < set.solutions.size(), ValueError, "pde plot: sample ", sample,
              " out of range; ", h5, " holds ", set.solutions.size(), " sample", set.solutions.size() == 1 ? "" : "s",
              " (0 to ", long(set.solutions.size()) - 1, ")");
  plot_solution(set.solutions[size_t(sample)], index, png, options);
}

}  // namespace spire::flow
