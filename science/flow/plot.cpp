// Colour images of solutions and line plots of series (plot.h), drawn with image.h.
#include "science/flow/plot.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

#include "engine/core/error.h"
#include "science/flow/image.h"
#include "science/flow/output.h"

namespace spire::flow {
namespace {

using image::Image;
using image::Rgb;

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

// The colour plot of a solution's field: x across and t upwards (1D), or x across and y upwards
// at the last snapshot (2D).
image::ColourPlot colour_plot_of(const Solution& s, int field, const PlotOptions& options, std::vector<double>& last) {
  SPIRE_CHECK(field >= 0 && size_t(field) < s.fields.size(), ValueError, "pde plot: field ", field,
              " out of range; the solution has ", s.fields.size());
  SPIRE_CHECK(!s.t.empty() && (s.coords.size() == 1 || s.coords.size() == 2), ValueError,
              "pde plot: the solution has no snapshots or is not 1D or 2D");
  const std::vector<double>& u = s.fields[size_t(field)];
  image::ColourPlot p;
  p.across = s.coords[0];
  if (s.coords.size() == 1) {
    p.values = u.data();
    p.up = s.t;
    p.up_name = std::string(1, 't');  // (not = "t": GCC 12's false -Wrestrict on short assignments)
  } else {  // the last snapshot, stored x-major: row = x, so transpose into rows of y
    const size_t nx = s.coords[0].size(), ny = s.coords[1].size();
    last.resize(nx * ny);
    const double* snap = u.data() + (s.t.size() - 1) * nx * ny;
    for (size_t i = 0; i < nx; ++i)
      for (size_t j = 0; j < ny; ++j) last[j * nx + i] = snap[i * ny + j];
    p.values = last.data();
    p.up = s.coords[1];
  }
  std::tie(p.width, p.height) = area(s, options);
  return p;
}

}  // namespace

std::pair<int, int> plot_size(const Solution& solution, const PlotOptions& options) {
  image::ColourPlot p;
  std::tie(p.width, p.height) = area(solution, options);
  return image::colour_plot_size(p);
}

void plot_solution(const Solution& s, int field, const std::string& png, const PlotOptions& options) {
  std::vector<double> last;
  const image::ColourPlot p = colour_plot_of(s, field, options, last);
  image::write_png(png, image::colour_plot(p), "pde plot");
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
  const auto [x0, x1] = image::finite_range(x.data(), x.size());
  for (int p = 0; p < panels; ++p) {
    const Series& s = series[size_t(p)];
    const int y_top = top + p * (h + gap);
    const auto [lo, hi] = image::finite_range(s.values.data(), s.values.size());
    const Rgb colour = image::viridis(panels > 1 ? 0.6 * p / (panels - 1) : 0.3);
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
      if (have) im.line(last_x, last_y, cx, cy, colour);
      else im.set(cx, cy, colour), im.set(cx, cy + 1, colour);
      have = true, last_x = cx, last_y = cy;
    }
    im.frame(left - 1, y_top - 1, left + w, y_top + h);
    im.text(left, y_top - 11, s.name);
    im.text(left - 6 - image::text_width(image::label(hi)), y_top + 1, image::label(hi));
    im.text(left - 6 - image::text_width(image::label(lo)), y_top + h - 8, image::label(lo));
  }
  const int below = top + panels * h + (panels - 1) * gap + 6;
  im.text(left, below, image::label(x0));
  im.text(left + w - image::text_width(image::label(x1)), below, image::label(x1));
  im.text(left + w / 2 - image::text_width(x_name) / 2, below + 10, x_name);
  image::write_png(png, im, "plot_series");
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
