// Harmonic inversion by the SVD-truncated matrix pencil, with mixing and decimation for long
// signals (harmonic_inversion.h).
#include "science/elec/harmonic_inversion.h"

#include <Eigen/Dense>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <numbers>

#include "engine/core/error.h"

namespace spire::elec {

namespace {

using cd = std::complex<double>;
using CMat = Eigen::MatrixXcd;
using CVec = Eigen::VectorXcd;
constexpr double kPi = std::numbers::pi;
constexpr int kMinSamples = 16;

// Zeroth-order modified Bessel function (Kaiser window), by its power series.
double bessel_i0(double x) {
  double sum = 1, term = 1;
  for (int k = 1; k < 200; ++k) {
    term *= (x / (2 * k)) * (x / (2 * k));
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return sum;
}

// A linear-phase low-pass FIR: cutoff in cycles per sample, Kaiser window for `attenuation` dB over
// the transition width `transition` (cycles per sample). Kaiser's formulas (Oppenheim & Schafer 7.6).
std::vector<double> lowpass(double cutoff, double transition, double attenuation) {
  const double beta = 0.1102 * (attenuation - 8.7);
  const int taps = int(std::ceil((attenuation - 7.95) / (2.285 * 2 * kPi * transition))) + 1;
  std::vector<double> h(static_cast<size_t>(taps));
  const double mid = (taps - 1) / 2.0, norm = bessel_i0(beta);
  for (int j = 0; j < taps; ++j) {
    const double x = j - mid;
    const double sinc = x == 0 ? 2 * cutoff : std::sin(2 * kPi * cutoff * x) / (kPi * x);
    const double r = taps > 1 ? (j - mid) / mid : 0;
    h[size_t(j)] = sinc * bessel_i0(beta * std::sqrt(std::max(0.0, 1 - r * r))) / norm;
  }
  return h;
}

struct Pencil {
  std::vector<cd> poles;
};

// The signal poles of v by the matrix pencil with L rows of shift and rank at most max_rank.
Pencil matrix_pencil(const std::vector<cd>& v, int L, int rank_cap, double tolerance, int& rank) {
  const int n = int(v.size());
  CMat Y(n - L, L + 1);
  for (int i = 0; i < n - L; ++i)
    for (int j = 0; j <= L; ++j) Y(i, j) = v[size_t(i + j)];
  Eigen::BDCSVD<CMat> svd(Y, Eigen::ComputeThinV);
  const auto& sv = svd.singularValues();
  if (rank <= 0) {
    rank = 0;
    while (rank < sv.size() && rank < rank_cap && sv(rank) > tolerance * sv(0)) ++rank;
  }
  Pencil out;
  if (rank == 0) return out;
  const CMat W = svd.matrixV().leftCols(rank).conjugate();
  const CMat shift = W.topRows(L).colPivHouseholderQr().solve(W.bottomRows(L));
  Eigen::ComplexEigenSolver<CMat> eig(shift, false);
  for (int k = 0; k < rank; ++k) out.poles.push_back(eig.eigenvalues()(k));
  return out;
}

std::vector<HarmonicMode> invert_serial(std::vector<cd> x, double dt, double f_min, double f_max,
                                        const HarmonicInversionOptions& o) {
  const char* who = "harmonic_inversion";
  SPIRE_CHECK(int(x.size()) >= kMinSamples, ValueError, who, ": the signal has ", x.size(), " samples; at least ",
              kMinSamples, " are needed (and many more to resolve close or long-lived modes)");
  SPIRE_CHECK(std::isfinite(dt) && dt > 0, ValueError, who, ": dt must be finite and > 0, got ", dt);
  const double nyquist = 1 / (2 * dt);
  SPIRE_CHECK(std::isfinite(f_min) && std::isfinite(f_max) && f_min < f_max, ValueError, who,
              ": the band needs f_min < f_max, got [", f_min, ", ", f_max, "]");
  SPIRE_CHECK(f_min >= -nyquist && f_max <= nyquist, ValueError, who, ": the band [", f_min, ", ", f_max,
              "] exceeds the Nyquist band [", -nyquist, ", ", nyquist, "] of dt = ", dt);
  SPIRE_CHECK(o.max_modes >= 1 && o.target_samples >= 4 * kMinSamples && o.rank_tolerance > 0 &&
                  o.rank_tolerance < 1,
              ValueError, who, ": options need max_modes >= 1, target_samples >= ", 4 * kMinSamples,
              ", 0 < rank_tolerance < 1");
  for (const cd& v : x)
    SPIRE_CHECK(std::isfinite(v.real()) && std::isfinite(v.imag()), ValueError, who, ": the signal has a non-finite value");
  const int n = int(x.size());

  // Decimation: factor D with a rate 1/(D dt) of at least 4 band widths, chosen to leave about
  // target_samples after the filter's transient; D = 1 (the raw signal) when that cannot help.
  const double band = f_max - f_min, fc = (f_min + f_max) / 2;
  int D = 1;
  std::vector<double> h;
  const int d_max = int(std::floor(1 / (4 * band * dt)));
  for (int d = std::min(d_max, int(std::ceil(double(n) / o.target_samples))); d >= 2; --d) {
    // Passband edge (the band's half width with a margin) and stopband edge: what lies beyond
    // fs - fp aliases outside the passband; what lies between them is attenuated by 160 dB.
    const double fs = 1 / (d * dt), fp = 0.55 * band, stop = fs - fp;
    std::vector<double> taps = lowpass((fp + stop) / 2 * dt, (stop - fp) * dt, 160);
    if ((n - int(taps.size())) / d + 1 >= o.target_samples / 2) {
      D = d;
      h = std::move(taps);
      break;
    }
  }
  std::vector<cd> v;
  int n0 = 0;  // the original index of decimated sample 0
  double shift = 0;
  if (D == 1) {
    v = std::move(x);
  } else {
    shift = fc;
    const int K = int(h.size());
    n0 = K - 1;
    for (int m = 0; m < n; ++m) x[size_t(m)] *= std::polar(1.0, 2 * kPi * fc * m * dt);  // mix down
    for (int i = n0; i < n; i += D) {
      cd acc = 0;
      for (int j = 0; j < K; ++j) acc += h[size_t(j)] * x[size_t(i - j)];
      v.push_back(acc);
    }
  }
  const int nv = int(v.size());
  const double dtv = D * dt;
  // Hua & Sarkar's L = N/3, capped so that the cost stays linear in N beyond target_samples.
  const int L = std::max(2, std::min(nv / 3, o.target_samples / 3));
  int rank = 0;
  const Pencil main = matrix_pencil(v, L, std::max(1, L / 2), o.rank_tolerance, rank);
  if (rank == 0) return {};
  int rank2 = std::min(rank, std::max(1, 3 * L / 4 - 1));
  const Pencil check = matrix_pencil(v, std::max(rank2 + 1, 3 * L / 4), rank2, o.rank_tolerance, rank2);

  auto complex_frequency = [&](cd mu) {
    // mu = exp(-i 2 pi (f - shift) dtv): f - shift = i log(mu) / (2 pi dtv).
    return shift + cd(0, 1) * std::log(mu) / (2 * kPi * dtv);
  };
  // Amplitudes: least squares over all samples of the decimated signal, with every pole (noise
  // poles included: leaving them out would bias the rest). Poles that would overflow are dropped.
  std::vector<cd> poles;
  for (const cd& mu : main.poles)
    if (std::abs(mu) > 0 && nv * std::log(std::abs(mu)) < 300) poles.push_back(mu);
  if (poles.empty()) return {};
  CMat A(nv, int(poles.size()));
  for (int k = 0; k < int(poles.size()); ++k) {
    cd p = 1;
    for (int i = 0; i < nv; ++i) {
      A(i, k) = p;
      p *= poles[size_t(k)];
    }
  }
  CVec rhs(nv);
  for (int i = 0; i < nv; ++i) rhs(i) = v[size_t(i)];
  const CVec c = A.colPivHouseholderQr().solve(rhs);

  std::vector<HarmonicMode> modes;
  for (int k = 0; k < int(poles.size()); ++k) {
    const cd f = complex_frequency(poles[size_t(k)]);
    cd amp = c(k);
    if (D > 1) {
      // Undo the filter's response H(w) = sum_j h_j w^-j and the offset w^n0, w the mixed pole.
      const cd w = std::exp(cd(0, -2 * kPi) * (f - shift) * dt);
      cd response = 0, wj = 1;
      for (double hj : h) {
        response += hj * wj;
        wj /= w;
      }
      amp /= response * std::pow(w, n0);
    }
    HarmonicMode m;
    m.frequency = f.real();
    m.decay = f.imag();
    m.q = m.decay == 0 ? std::numeric_limits<double>::infinity() : m.frequency / (-2 * m.decay);
    m.amplitude = amp;
    double err = std::numeric_limits<double>::infinity();
    for (const cd& mu2 : check.poles) err = std::min(err, std::abs(complex_frequency(mu2) - f));
    m.error = err / std::max(std::abs(f), 1e-300);
    modes.push_back(m);
  }
  // Meep's screening.
  double largest = 0;
  for (const HarmonicMode& m : modes)
    if (m.frequency >= f_min && m.frequency <= f_max) largest = std::max(largest, std::abs(m.amplitude));
  std::vector<HarmonicMode> kept;
  for (const HarmonicMode& m : modes) {
    if (m.frequency < f_min || m.frequency > f_max) continue;
    if (std::abs(m.q) < o.min_q || m.error > o.max_error) continue;
    if (o.min_amplitude >= 0 && std::abs(m.amplitude) < o.min_amplitude) continue;
    if (o.min_relative_amplitude >= 0 && std::abs(m.amplitude) < o.min_relative_amplitude * largest) continue;
    kept.push_back(m);
  }
  if (int(kept.size()) > o.max_modes) {
    std::stable_sort(kept.begin(), kept.end(), [](const HarmonicMode& a, const HarmonicMode& b) {
      return std::abs(a.amplitude) > std::abs(b.amplitude);
    });
    kept.resize(size_t(o.max_modes));
  }
  std::stable_sort(kept.begin(), kept.end(),
                   [](const HarmonicMode& a, const HarmonicMode& b) { return a.frequency < b.frequency; });
  return kept;
}

// The matrices here are a few hundred wide: Eigen's OpenMP-parallel products gain little on them and
// lose badly when the machine's cores are already busy (spinning threads), so the work runs in a
// one-thread region whose own thread-count setting (an OpenMP per-task setting, not the process's)
// keeps Eigen serial. Exceptions cannot cross the region's boundary and are carried out of it.
std::vector<HarmonicMode> invert(std::vector<cd> x, double dt, double f_min, double f_max,
                                 const HarmonicInversionOptions& o) {
  std::vector<HarmonicMode> result;
  std::exception_ptr error;
#pragma omp parallel num_threads(1)
  {
    omp_set_num_threads(1);
    try {
      result = invert_serial(std::move(x), dt, f_min, f_max, o);
    } catch (...) {
      error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  return result;
}

}  // namespace

std::vector<HarmonicMode> harmonic_inversion(std::span<const double> signal, double dt, double f_min, double f_max,
                                             const HarmonicInversionOptions& options) {
  return invert(std::vector<cd>(signal.begin(), signal.end()), dt, f_min, f_max, options);
}

std::vector<HarmonicMode> harmonic_inversion(std::span<const cd> signal, double dt, double f_min, double f_max,
                                             const HarmonicInversionOptions& options) {
  return invert(std::vector<cd>(signal.begin(), signal.end()), dt, f_min, f_max, options);
}

HarmonicInversion::HarmonicInversion(double fcen, double df, HarmonicInversionOptions options)
    : f_min_(fcen - df / 2), f_max_(fcen + df / 2), options_(options) {
  SPIRE_CHECK(std::isfinite(fcen) && std::isfinite(df) && df > 0, ValueError,
              "HarmonicInversion: fcen must be finite and df finite and > 0, got fcen = ", fcen, ", df = ", df);
}

void HarmonicInversion::add(double t, cd value) {
  SPIRE_CHECK(std::isfinite(t), ValueError, "HarmonicInversion::add: the time must be finite, got ", t);
  if (data_.empty()) {
    t0_ = t;
  } else if (data_.size() == 1) {
    dt_ = t - t0_;
    SPIRE_CHECK(dt_ > 0, ValueError, "HarmonicInversion::add: times must increase; got ", t, " after ", t0_);
  } else {
    const double expected = t0_ + double(data_.size()) * dt_;
    SPIRE_CHECK(std::abs(t - expected) <= 1e-6 * dt_, ValueError, "HarmonicInversion::add: samples must be evenly ",
                "spaced (dt = ", dt_, "); got t = ", t, " where ", expected, " was expected");
  }
  data_.push_back(value);
}

std::vector<HarmonicMode> HarmonicInversion::modes() const {
  SPIRE_CHECK(data_.size() >= size_t(kMinSamples), ValueError, "HarmonicInversion::modes: ", data_.size(),
              " samples collected; at least ", kMinSamples, " are needed");
  return harmonic_inversion(std::span<const cd>(data_), dt_, f_min_, f_max_, options_);
}

}  // namespace spire::elec
