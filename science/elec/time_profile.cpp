// Source time profiles (time_profile.h), following Meep's gaussian_src_time and
// continuous_src_time so that a pulse set up as a Meep user would gives the same current.
#include "science/elec/time_profile.h"

#include <cmath>
#include <numbers>

#include "engine/core/error.h"

namespace spire::elec {

namespace {
constexpr double kTwoPi = 2 * std::numbers::pi;
}

TimeProfile::~TimeProfile() = default;

GaussianSource::GaussianSource(double frequency, double fwidth, double start_time, double cutoff)
    : frequency_(frequency) {
  SPIRE_CHECK(std::isfinite(frequency) && frequency > 0, ValueError,
              "GaussianSource: frequency must be finite and > 0 (c/a), got ", frequency);
  SPIRE_CHECK(std::isfinite(fwidth) && fwidth > 0, ValueError,
              "GaussianSource: fwidth must be finite and > 0 (c/a), got ", fwidth);
  SPIRE_CHECK(std::isfinite(cutoff) && cutoff > 0, ValueError,
              "GaussianSource: cutoff must be finite and > 0 (in widths), got ", cutoff);
  SPIRE_CHECK(std::isfinite(start_time), ValueError, "GaussianSource: start_time must be finite, got ", start_time);
  width_ = 1 / fwidth;
  peak_time_ = start_time + cutoff * width_;
  cutoff_ = cutoff * width_;
  // As Meep: shrink a very long cutoff to where the envelope is negligible, so that the source
  // switches off (and a run "until the sources are off" ends) as early as it can.
  while (std::exp(-cutoff_ * cutoff_ / (2 * width_ * width_)) < 1e-100) cutoff_ *= 0.9;
}

std::complex<double> GaussianSource::dipole(double t) const {
  const double tt = t - peak_time_;
  if (std::abs(tt) > cutoff_) return 0.0;
  const std::complex<double> scale = 1.0 / std::complex<double>(0, -kTwoPi * frequency_);
  return std::exp(-tt * tt / (2 * width_ * width_)) * std::polar(1.0, -kTwoPi * frequency_ * tt) * scale;
}

std::complex<double> GaussianSource::current(double t_mid, double dt) const {
  return (dipole(t_mid + 0.5 * dt) - dipole(t_mid - 0.5 * dt)) / dt;
}

std::complex<double> GaussianSource::fourier_transform(double f) const {
  const double omega = kTwoPi * f;
  const double delta = (omega - kTwoPi * frequency_) * width_;
  return width_ * std::polar(1.0, omega * peak_time_) * std::exp(-0.5 * delta * delta);
}

ContinuousSource::ContinuousSource(double frequency, double start_time, double end_time, double width,
                                   double slowness)
    : frequency_(frequency), start_(start_time), end_(end_time), width_(width), slowness_(slowness) {
  SPIRE_CHECK(std::isfinite(frequency) && frequency > 0, ValueError,
              "ContinuousSource: frequency must be finite and > 0 (c/a), got ", frequency);
  SPIRE_CHECK(!std::isnan(start_time) && !std::isnan(end_time) && end_time > start_time, ValueError,
              "ContinuousSource: end_time must be after start_time, got start ", start_time, " end ", end_time);
  SPIRE_CHECK(std::isfinite(width) && width >= 0, ValueError,
              "ContinuousSource: width (turn-on time) must be finite and >= 0, got ", width);
  SPIRE_CHECK(std::isfinite(slowness) && slowness >= 0, ValueError,
              "ContinuousSource: slowness must be finite and >= 0, got ", slowness);
}

std::complex<double> ContinuousSource::dipole(double t) const {
  if (t < start_ || t > end_) return 0.0;
  const std::complex<double> scale = 1.0 / std::complex<double>(0, -kTwoPi * frequency_);
  const std::complex<double> wave = std::polar(1.0, -kTwoPi * frequency_ * t) * scale;
  if (width_ == 0) return wave;
  const double ts = (t - start_) / width_ - slowness_;
  const double te = (end_ - t) / width_ - slowness_;
  return wave * (1 + std::tanh(ts)) * (1 + std::tanh(te)) * 0.25;
}

std::complex<double> ContinuousSource::current(double t_mid, double dt) const {
  return (dipole(t_mid + 0.5 * dt) - dipole(t_mid - 0.5 * dt)) / dt;
}

CustomSource::CustomSource(Function current, double start_time, double end_time, double frequency)
    : function_(std::move(current)), start_(start_time), end_(end_time), frequency_(frequency) {
  SPIRE_CHECK(bool(function_), ValueError, "CustomSource: the current function is empty");
  SPIRE_CHECK(!std::isnan(start_time) && !std::isnan(end_time) && end_time >= start_time, ValueError,
              "CustomSource: end_time must not be before start_time, got start ", start_time, " end ", end_time);
  SPIRE_CHECK(std::isfinite(frequency) && frequency >= 0, ValueError,
              "CustomSource: frequency must be finite and >= 0, got ", frequency);
}

std::complex<double> CustomSource::current(double t_mid, double dt) const {
  if (t_mid < start_ || t_mid > end_) return 0.0;
  return function_(t_mid);
}

}  // namespace spire::elec
