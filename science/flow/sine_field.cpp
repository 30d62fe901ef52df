#include "science/flow/sine_field.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace spire::flow {

std::string exact_number(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  if (v >= 0) return buffer;
  std::string s = "(";  // (built by appending: GCC 12 warns falsely on "(" + string + ")")
  s += buffer;
  s += ')';
  return s;
}

namespace {

double raw(const SineField& f, double x) {
  double g = 0;
  for (size_t j = 0; j < f.k.size(); ++j) g += f.amplitude[j] * std::sin(f.k[j] * x + f.phase[j]);
  if (f.absolute) g = std::abs(g);
  g *= f.sign;
  if (f.window) g *= 0.5 * (std::tanh((x - f.x_left) / f.width) - std::tanh((x - f.x_right) / f.width));
  return g;
}

}  // namespace

double SineField::operator()(double x) const {
  double g = raw(*this, x);
  if (normalize) g = (g - low) / (high - low);
  return scale * g;
}

void SineField::normalize_on(const std::vector<double>& points) {
  low = INFINITY, high = -INFINITY;
  for (double x : points) {
    double g = raw(*this, x);
    low = std::min(low, g), high = std::max(high, g);
  }
  normalize = true;
}

std::string SineField::expression() const {
  std::string sum;
  for (size_t j = 0; j < k.size(); ++j) {
    if (j) sum += " + ";
    sum += exact_number(amplitude[j]) + "*sin(" + exact_number(k[j]) + "*x + " + exact_number(phase[j]) + ")";
  }
  if (sum.empty()) sum = "0";
  std::string g = absolute ? "abs(" + sum + ")" : "(" + sum + ")";
  if (sign < 0) g = "(-1)*" + g;
  if (window)
    g += "*0.5*(tanh((x - " + exact_number(x_left) + ")/" + exact_number(width) + ") - tanh((x - " +
         exact_number(x_right) + ")/" + exact_number(width) + "))";
  if (normalize) g = "(" + g + " - " + exact_number(low) + ")/" + exact_number(high - low);
  if (scale != 1) g = exact_number(scale) + "*(" + g + ")";
  return g;
}

SineField draw_sine_field(Draws& draws, double x0, double x1, const SineFieldDraw& how) {
  const double length = x1 - x0, two_pi = 2 * M_PI;
  SineField f;
  f.k.assign(how.k_max, 0.0);
  if (how.integer_wavenumbers) {
    // PDEBench: `waves` choices among 1..k_max with replacement, summed as one-hot vectors, so a
    // wavenumber chosen twice appears at twice its value, and the k_max - (distinct choices) modes
    // not chosen have k = 0 and add the constant a_j sin(phi_j). Kept, as that is the data the
    // published datasets hold. (PDEBench divides by the span of its cell centres, not the period,
    // which leaves its fields slightly non-periodic; here the period is the domain's length.)
    std::vector<int> count(how.k_max, 0);
    for (int w = 0; w < how.waves; ++w) ++count[draws.integer(how.k_max)];
    for (int j = 0; j < how.k_max; ++j) f.k[j] = two_pi * (j + 1) * count[j] / length;
  } else {
    // PDEformer-1's non-periodic fields: `waves` wavenumbers uniform in [0, 2 pi k_max / L), the
    // other k_max - waves zero (constants again).
    for (int w = 0; w < how.waves; ++w) {
      double k = draws.uniform(0, two_pi * how.k_max / length);
      if (w < how.k_max) f.k[w] = k;
    }
  }
  f.amplitude.resize(how.k_max);
  f.phase.resize(how.k_max);
  for (auto& a : f.amplitude) a = draws.uniform();
  for (auto& p : f.phase) p = two_pi * draws.uniform();
  bool absolute = draws.chance(how.p_abs);
  double sign = draws.chance(0.5) ? -1.0 : 1.0;
  bool window = draws.chance(how.p_window);
  // Window ends as fractions of the domain: PDEBench's [0.1, 0.45] and [0.55, 0.9] on its unit
  // domain, and its transition width 0.01 likewise scaled.
  double left = draws.uniform(0.1, 0.45), right = draws.uniform(0.55, 0.9);
  if (!how.smooth) {
    f.absolute = absolute;
    f.sign = sign;
    f.window = window;
    f.x_left = x0 + left * length;
    f.x_right = x0 + right * length;
    f.width = 0.01 * length;
  }
  return f;
}

}  // namespace spire::flow
