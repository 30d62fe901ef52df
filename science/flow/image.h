// Colour pictures of numbers, shared by the packages' plots (flow's `spire pde plot` and thermo
// plots, the electromagnetics demo's field picture): an RGB raster with a small built-in font, two
// colour maps, the generic "2D array of values over x/y ranges -> colour image with a colour bar and
// labelled axes" picture, and PNG files through libpng, written atomically (engine/data/atomic_file.h).
// It lives in spire_flow because that library links libpng; nothing in it is specific to PDEs.
//
// Conventions: pixel (0, 0) is the top-left corner, x grows to the right and y downwards. The
// colour picture puts the first row of values at the bottom (y or t upwards) and maps the value
// range [lo, hi] onto the colour map's [0, 1]; values that are not finite are grey (128, 128, 128).
//
// Colour maps: viridis (matplotlib's, 256 entries: perceptually uniform, for magnitudes and
// positive quantities) and red_white_blue (matplotlib's RdBu_r, the 11 ColorBrewer RdBu colours
// interpolated linearly: blue for negative, near-white for zero, red for positive; for signed fields,
// with a range symmetric about zero so that white is zero).
//
// Layout of colour_plot's image: the plot area (width x height) with margins of kLeft = 56 pixels
// (the vertical axis' range and name), kRight = 88 (the colour bar and its labels), kTop = 12 (plus 12
// when there is a title) and kBottom = 28 (the horizontal axis' range and name).
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace spire::image {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

inline constexpr Rgb kInk{40, 40, 40};        // text and frames
inline constexpr Rgb kNotFinite{128, 128, 128};

enum class ColourMap { viridis, red_white_blue };
// s in [0, 1] (clamped; NaN gives the low end).
Rgb viridis(double s);
Rgb red_white_blue(double s);
Rgb colour(ColourMap map, double s);

// A 5 x 7 font in 6-pixel cells: digits, a-z, A-Z and  . - + = _ | ( ) [ ] / , : * % ^ ~ ;
// other characters (space included) are left blank.
inline constexpr int kCharWidth = 6;
int text_width(const std::string& s);  // in pixels, without the trailing space
// A number as labels show it: printf's %.3g.
std::string label(double v);

class Image {
 public:
  Image(int width, int height, Rgb background = {255, 255, 255});
  int width() const { return w_; }
  int height() const { return h_; }
  // Pixels outside the image are ignored by set() and read as the background by at().
  void set(int x, int y, Rgb c) {
    if (x >= 0 && y >= 0 && x < w_ && y < h_) px_[size_t(y) * size_t(w_) + size_t(x)] = c;
  }
  Rgb at(int x, int y) const;
  const Rgb* row(int y) const { return px_.data() + size_t(y) * size_t(w_); }
  // Text with its top-left corner at (x, y).
  void text(int x, int y, const std::string& s, Rgb c = kInk);
  // A rectangle's outline, corners inclusive.
  void frame(int x0, int y0, int x1, int y1, Rgb c = kInk);
  // A line from (x0, y0) to (x1, y1) (Bresenham), two pixels thick (the pixel below each point too).
  void line(int x0, int y0, int x1, int y1, Rgb c);

 private:
  int w_, h_;
  Rgb background_;
  std::vector<Rgb> px_;
};

// The finite range [lo, hi] of n values; a band around a constant (half its magnitude, at least
// 1e-12 either side), [0, 1] when none is finite.
std::pair<double, double> finite_range(const double* values, size_t n);

// The image as an 8-bit RGB PNG at `path`, written whole or not at all. IOError starting with `who`
// and naming the path when it cannot be written.
void write_png(const std::string& path, const Image& image, const std::string& who = "image");
// A PNG file read back as RGB (8-bit grey, grey-alpha, RGB and RGBA are converted; alpha is
// dropped). IOError naming the path when it is not a readable PNG.
Image read_png(const std::string& path);

// One 2D array of values over x/y ranges, drawn as colours.
struct ColourPlot {
  const double* values = nullptr;  // values[row * across.size() + column]
  std::vector<double> across;      // coordinates of the columns, increasing (the horizontal axis)
  std::vector<double> up;          // coordinates of the rows, increasing (the vertical axis, upwards)
  std::string across_name = "x", up_name = "y";
  ColourMap map = ColourMap::viridis;
  // The values mapped to the ends of the colour map. When either is NaN: viridis takes the finite
  // range of the values (finite_range), red_white_blue the symmetric range +-max |value|.
  double lo = NAN, hi = NAN;
  int width = 400, height = 300;  // the plot area in pixels (> 0)
  std::string title;              // written above the plot area when not empty
};

// Where the plot area lies in the image and which coordinates its edges stand for: pixel centre
// (left + i, top + j) shows the point across0 + (across1 - across0) (i + 1/2) / width, up1 - (up1 -
// up0) (j + 1/2) / height (across0/1 and up0/1 the first and last coordinates).
struct PlotArea {
  int left = 0, top = 0, width = 0, height = 0;
  double across0 = 0, across1 = 1, up0 = 0, up1 = 1;
  double lo = 0, hi = 1;  // the colour range used
  // The (fractional) pixel of a point given in plot coordinates.
  std::pair<double, double> pixel(double a, double u) const {
    return {left + (a - across0) / (across1 - across0) * width - 0.5, top + (up1 - u) / (up1 - up0) * height - 0.5};
  }
};

// The image's size (width, height) for a plot.
std::pair<int, int> colour_plot_size(const ColourPlot& plot);

// The picture (header comment): the values sampled bilinearly (in index space, so non-uniform
// coordinates are honoured) at every pixel centre, a frame, the axes' ranges at their ends and names
// at their middles, and the colour bar with its top, middle and bottom values. `area` (when given)
// receives where the plot area is, for overlays (draw_polyline). ValueError for a missing array,
// fewer than one coordinate along an axis, coordinates that do not increase, or a plot area that
// is not positive.
Image colour_plot(const ColourPlot& plot, PlotArea* area = nullptr);

// A one-pixel line through the points (plot coordinates), drawn only inside the plot area (e.g.
// the outline of an object over a field).
void draw_polyline(Image& image, const PlotArea& area, const std::vector<double>& across,
                   const std::vector<double>& up, Rgb c = kInk);

}  // namespace spire::image
