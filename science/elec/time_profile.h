// Time profiles of sources, after Meep's SourceTime classes: a source's current density is
// J(r, t) = amplitude(r) * current(t). As in Meep, GaussianSource and ContinuousSource are defined
// by a complex "dipole" d(t) (the integral of the current); the current a step injects is
// (d(t_b) - d(t_a)) / dt over the step's interval [t_a, t_b], so the total charge a pulse moves is
// exact whatever dt. Real-field runs use the real part of amplitude * current; complex-field runs
// (Bloch boundaries) use the complex value. The time convention is exp(-i 2 pi f t).
//
// When the solver calls current(t_mid, dt): electric currents drive the D/E step from t_n to
// t_{n+1} (t_mid = t_n + dt/2), magnetic currents the H step from t_{n-1/2} to t_{n+1/2}
// (t_mid = t_n): every source is centred in its update, which keeps the scheme second order.
#pragma once
#include <complex>
#include <functional>
#include <limits>

namespace spire::elec {

class TimeProfile {
 public:
  virtual ~TimeProfile();
  // The current over one update interval of width dt centred on t_mid.
  virtual std::complex<double> current(double t_mid, double dt) const = 0;
  // Times outside [start_time(), end_time()] carry no current (infinite for an unbounded profile):
  // a run can tell when every source is off.
  virtual double start_time() const = 0;
  virtual double end_time() const = 0;
  // The centre frequency in c/a (0 when the profile has none), for monitors and normalisation.
  virtual double frequency() const = 0;
};

// Meep's GaussianSource: a pulse centred on `frequency` (c/a) with spectral width `fwidth` (its
// Gaussian envelope in time has width w = 1/fwidth), peaking at start_time + cutoff * w and zero
// more than cutoff * w from the peak. The dipole is
//   d(t) = exp(-(t - t0)^2 / (2 w^2)) exp(-i 2 pi f (t - t0)) / (-i 2 pi f),
// whose derivative (the current) is ~ exp(-i 2 pi f (t - t0)) near the peak: a derivative of a
// Gaussian, with no DC component, so a pulse leaves no static charge behind.
class GaussianSource : public TimeProfile {
 public:
  // frequency > 0, fwidth > 0, cutoff > 0 (ValueError naming the value otherwise).
  GaussianSource(double frequency, double fwidth, double start_time = 0, double cutoff = 5);

  std::complex<double> dipole(double t) const;
  std::complex<double> current(double t_mid, double dt) const override;
  double start_time() const override { return peak_time_ - cutoff_; }
  double end_time() const override { return peak_time_ + cutoff_; }
  double frequency() const override { return frequency_; }
  double fwidth() const { return 1 / width_; }
  double width() const { return width_; }
  double peak_time() const { return peak_time_; }
  // (1/sqrt(2 pi)) * integral of exp(i 2 pi f t) times the current envelope: Meep's normalisation
  // of the pulse spectrum, w exp(i 2 pi f t0) exp(-((2 pi (f - f0) w)^2) / 2).
  std::complex<double> fourier_transform(double f) const;

 private:
  double frequency_, width_, peak_time_, cutoff_;
};

// Meep's ContinuousSource: current exp(-i 2 pi f t) from start_time to end_time. With width > 0 it
// turns on and off smoothly, as (1 + tanh((t - start)/width - slowness)) (1 + tanh((end - t)/width
// - slowness)) / 4, which avoids the broadband transient of an abrupt start.
class ContinuousSource : public TimeProfile {
 public:
  ContinuousSource(double frequency, double start_time = 0,
                   double end_time = std::numeric_limits<double>::infinity(), double width = 0,
                   double slowness = 3);

  std::complex<double> dipole(double t) const;
  std::complex<double> current(double t_mid, double dt) const override;
  double start_time() const override { return start_; }
  double end_time() const override { return end_; }
  double frequency() const override { return frequency_; }

 private:
  double frequency_, start_, end_, width_, slowness_;
};

// A user function of time giving the current directly (Meep's CustomSource with is_integrated
// false), evaluated at the centre of each update interval; zero outside [start_time, end_time].
class CustomSource : public TimeProfile {
 public:
  using Function = std::function<std::complex<double>(double)>;
  CustomSource(Function current, double start_time = -std::numeric_limits<double>::infinity(),
               double end_time = std::numeric_limits<double>::infinity(), double frequency = 0);

  std::complex<double> current(double t_mid, double dt) const override;
  double start_time() const override { return start_; }
  double end_time() const override { return end_; }
  double frequency() const override { return frequency_; }

 private:
  Function function_;
  double start_, end_, frequency_;
};

}  // namespace spire::elec
