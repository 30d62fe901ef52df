// Step: the spectrum of a sampled signal, with peaks where the analysis says they are.
#include <cmath>
#include <numbers>

#include "cli/demo/demo.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/fft.h"

namespace spire::cli::demo {
namespace {

SPIRE_DEMO_STEP(40, "fft", "Fourier transform of a sampled signal", [](Context& c) {
  if (!c.needs_ops({"rfftn", "irfftn", "real", "imag"})) return;
  // x(t) = sin(2 pi 5 t) + 0.5 cos(2 pi 12 t) on N = 64 points of [0, 1): the unscaled DFT has
  // |X_5| = N/2 = 32, |X_12| = N/4 = 16 and zero elsewhere.
  const int64_t n = 64;
  std::vector<double> xv(n);
  for (int64_t i = 0; i < n; ++i) {
    double t = double(i) / double(n);
    xv[i] = std::sin(2 * std::numbers::pi * 5 * t) + 0.5 * std::cos(2 * std::numbers::pi * 12 * t);
  }
  Tensor x = from_vector<double>(xv, {n});
  Tensor spectrum = rfft(x);
  std::vector<double> re = real(spectrum).to_vector(), im = imag(spectrum).to_vector();
  std::vector<double> mag(re.size());
  for (size_t k = 0; k < re.size(); ++k) mag[k] = std::hypot(re[k], im[k]);
  c.out << "  rfft of 64 samples: " << mag.size() << " bins\n";
  c.check("|X_5|", mag[5], 32.0, 1e-10);
  c.check("|X_12|", mag[12], 16.0, 1e-10);
  double leak = 0;
  for (size_t k = 0; k < mag.size(); ++k)
    if (k != 5 && k != 12) leak = std::max(leak, mag[k]);
  c.check("largest other |X_k|", leak, 0.0, 1e-10);
  std::vector<double> back = irfft(spectrum, n).to_vector();
  double err = 0;
  for (int64_t i = 0; i < n; ++i) err = std::max(err, std::abs(back[i] - xv[i]));
  c.check("max |irfft(rfft(x)) - x|", err, 0.0, 1e-13);
});

}  // namespace
}  // namespace spire::cli::demo
