// Harmonic inversion (Meep's Harminv): the complex frequencies and amplitudes of a signal that is a
// sum of exponentially decaying sinusoids,
//   x(t_n) = sum_k a_k exp(-i 2 pi f_k (t_n - t_0)),   f_k = frequency + i decay,
// sampled at t_n = t_0 + n dt, within a band [f_min, f_max]. Conventions are Meep's: frequencies in
// c/a, decay = Im f_k (negative for a decaying mode), Q = frequency / (-2 decay), the amplitude a_k of
// the exp(-i ...) term at the first sample's time (a real signal A cos(2 pi f t + phi) has modes at
// +f and -f, the one at +f with a = (A/2) e^{-i phi}).
//
// Method: the SVD-truncated matrix pencil (Hua & Sarkar, IEEE Trans. ASSP 38, 814 (1990)). The
// signal's Hankel matrix Y (rows x_i..x_{i+L}, L = N/3 as they recommend for noise, at most
// target_samples/3) has the rank M of
// the number of modes; its right singular vectors of the M largest singular values span the
// Vandermonde vectors (1, z_k, ..., z_k^L), z_k = exp(-i 2 pi f_k dt), and shifting them by one row
// is multiplication by z_k: the z_k are the eigenvalues of the M x M least-squares shift operator.
// Amplitudes follow from a least-squares fit of the Vandermonde model to all samples. Exact for
// noiseless signals (to rounding), and unbiased in white noise to first order.
//
// Long signals: the cost grows as N L^2, so a signal much longer than needed for its band is first
// mixed down by the band's centre, low-pass filtered (Kaiser-windowed sinc FIR, 160 dB stopband) and
// decimated so that about target_samples remain at a sampling rate of at least 4 band widths. A
// linear filter maps a sum of exponentials to a sum of exponentials with the same poles (after its
// transient), multiplying each amplitude by the filter's response at the pole, so the poles stay
// exact and the amplitudes are divided back by that response: decimation costs no accuracy beyond
// the filter's transient (its first K samples are not used). What it cannot remove: a strong mode
// far outside the band leaks through the stopband at 1e-8 of its amplitude and, folded by the
// decimation, may show up as a weak in-band mode at an aliased frequency; min_relative_amplitude
// screens such modes out when that matters.
//
// Error estimate (a figure of merit, as Harminv's): the relative change |f - f'| / |f| of each mode's
// complex frequency between pencils with L and with 3L/4 rows; tiny for real modes of a clean signal,
// large for noise modes, which also tend to have low Q and small amplitudes. Modes outside the band,
// below min_q, above max_error or below the amplitude thresholds are dropped (Meep's defaults).
#pragma once
#include <complex>
#include <span>
#include <vector>

namespace spire::elec {

struct HarmonicMode {
  double frequency = 0;               // Re f (c/a)
  double decay = 0;                   // Im f: negative for a decaying mode (Meep's "decay")
  double q = 0;                       // frequency / (-2 decay): infinite for an undamped mode
  std::complex<double> amplitude;     // of exp(-i 2 pi f (t - t_0)), t_0 the first sample's time
  double error = 0;                   // relative change of f between two pencils (see above)
};

struct HarmonicInversionOptions {
  double min_q = 50;                   // Meep's Q_thresh: drop modes with |Q| below
  double max_error = 0.01;             // Meep's err_thresh: drop modes with error above
  double min_amplitude = -1;           // drop modes with |a| below (off when < 0)
  double min_relative_amplitude = -1;  // drop modes with |a| below this times the largest |a| (off when < 0)
  int max_modes = 100;                 // Meep's mxbands: at most this many (the largest amplitudes)
  double rank_tolerance = 1e-10;       // singular values below this times the largest are noise
  int target_samples = 600;            // decimate longer signals to about this many samples
};

// The modes of `signal` (at least 16 samples; ValueError otherwise) sampled every dt, in
// [f_min, f_max] (f_min < f_max, both within the Nyquist band |f| <= 1/(2 dt)), sorted by frequency.
std::vector<HarmonicMode> harmonic_inversion(std::span<const double> signal, double dt, double f_min, double f_max,
                                             const HarmonicInversionOptions& options = {});
std::vector<HarmonicMode> harmonic_inversion(std::span<const std::complex<double>> signal, double dt, double f_min,
                                             double f_max, const HarmonicInversionOptions& options = {});

// A step monitor in the manner of Meep's Harminv(c, pt, fcen, df): collects one value per step
// (evenly spaced times; ValueError otherwise) and analyses them on request.
class HarmonicInversion {
 public:
  // The band fcen +- df/2 as Meep's (fcen, df).
  HarmonicInversion(double fcen, double df, HarmonicInversionOptions options = {});
  void add(double t, std::complex<double> value);
  size_t samples() const { return data_.size(); }
  std::vector<HarmonicMode> modes() const;

 private:
  double f_min_, f_max_;
  HarmonicInversionOptions options_;
  std::vector<std::complex<double>> data_;
  double t0_ = 0, dt_ = 0;
};

}  // namespace spire::elec
