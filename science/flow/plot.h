// Pictures of PDE solutions for `spire pde plot` and `make demo`: a colour image of one field
// (viridis), x across and t upwards for 1D solutions, x across and y upwards at the last snapshot
// reached for 2D ones, with a thin colour bar on the right and the axis ranges written at the ends.
// Values that are not finite (a blow-up) are grey. PNG through libpng, written atomically. The
// drawing (colour maps, font, the colour plot with its bar, PNG files) is image.h's, shared with
// the other packages' pictures.
//
// The image is (width + 144) x (height + 40) pixels: the plot area plus margins for the labels
// and the bar. Default areas: 512 x 320 for 1D; 400 wide for 2D, with the height that keeps the
// domain's aspect ratio (between 100 and 800).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "science/flow/solver.h"

namespace spire::flow {

struct PlotOptions {
  int width = 0, height = 0;  // the plot area in pixels; 0: the defaults above
};

// The image's size (width, height) in pixels for a solution of `dims` axes with these coordinates.
std::pair<int, int> plot_size(const Solution& solution, const PlotOptions& options = {});

// Field `field` (an index into solution.fields) as a PNG at `png`. ValueError for a field out of
// range or a solution without snapshots.
void plot_solution(const Solution& solution, int field, const std::string& png, const PlotOptions& options = {});

// One field of one sample of a file written by write_solutions: `field` by name ("" for the
// first), `sample` by index. ValueError naming the fields or the sample count when they do not exist.
void plot_file(const std::string& h5, const std::string& png, const std::string& field = "", long sample = 0,
               const PlotOptions& options = {});

// Line plots of quantities against one x (the thermo log of `make demo`'s MD step): one panel per
// series, stacked top to bottom over the shared x axis, each with its name above it and its
// vertical range written at its ends; the x range is written under the last panel. Same font and
// PNG writing as the pictures above; points that are not finite break the line. options.width and
// height are one panel's plot area (default 512 x 96). ValueError when there is no series, a series'
// length differs from x's, or x has fewer than two points.
struct Series {
  std::string name;
  std::vector<double> values;  // one per x
};
void plot_series(const std::vector<double>& x, const std::string& x_name, const std::vector<Series>& series,
                 const std::string& png, const PlotOptions& options = {});

}  // namespace spire::flow
