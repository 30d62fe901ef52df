// Ewald summation (ewald.h).
#include "science/sponge/ewald.h"

#include <cmath>

#include "engine/core/error.h"

namespace spire::sponge {

namespace {

// OpenMM's estimate of the reciprocal-space error with kmax waves along a width w.
double kmax_error_margin(int kmax, double width, double alpha, double tolerance) {
  const double t = kmax * M_PI / (width * alpha);
  return tolerance - 0.05 * std::sqrt(width * alpha) * kmax * std::exp(-t * t);
}

// OpenMM's search from 10: the first kmax past the estimate's peak whose margin is >= 0.
int find_kmax(double width, double alpha, double tolerance) {
  int k = 10;
  double margin = kmax_error_margin(k, width, alpha, tolerance);
  if (margin > 0) {
    while (margin > 0 && k > 0) margin = kmax_error_margin(--k, width, alpha, tolerance);
    return k + 1;
  }
  while (margin < 0) margin = kmax_error_margin(++k, width, alpha, tolerance);
  return k;
}

}  // namespace

std::array<int, 3> ewald_kmax(const Box& box, double alpha, double tolerance) {
  SPIRE_CHECK(box.periodic(), ValueError, "ewald: needs a periodic box");
  const Vec3 w = box.width();
  std::array<int, 3> k{};
  for (int d = 0; d < 3; ++d) {
    k[d] = find_kmax(w[d], alpha, tolerance);
    if (k[d] % 2 == 0) ++k[d];  // as OpenMM
  }
  return k;
}

EwaldCoulomb::EwaldCoulomb(const EwaldOptions& options)
    : EwaldSplitCoulomb(options.cutoff, options.tolerance, options.alpha, "ewald"), options_(options),
      kmax_(options.kmax) {
  const bool all_zero = kmax_[0] == 0 && kmax_[1] == 0 && kmax_[2] == 0;
  for (int d = 0; d < 3; ++d)
    SPIRE_CHECK(all_zero || kmax_[d] >= 1, ValueError, "ewald: kmax must be >= 1 on every axis (or all 0 to "
                "pick them from the tolerance), got ", kmax_[0], " ", kmax_[1], " ", kmax_[2]);
}

void EwaldCoulomb::check(const System& system, const State& state) const {
  SPIRE_CHECK(state.box.periodic(), ValueError, "ewald: needs a periodic box (use reaction field or no cutoff "
              "methods without one)");
  CoulombForce::check(system, state);
}

double EwaldCoulomb::add_reciprocal(const System& system, const State& state, ForceResult& out) {
  SPIRE_CHECK(state.box.periodic(), ValueError, "ewald: needs a periodic box");
  if (kmax_[0] == 0) kmax_ = ewald_kmax(state.box, alpha_, options_.tolerance);
  const int64_t n = system.size();
  const auto rec = reciprocal_vectors(state.box);
  const double* q = system.charge.data();

  // exp(2 pi i n s_d) by repeated multiplication, per particle and axis.
  for (int d = 0; d < 3; ++d) eik_[d].resize(size_t(kmax_[d] * n));
  // Small sums run on one thread: waking a team costs more than the work saves.
  const bool parallel = n * int64_t(kmax_[0]) * kmax_[1] * kmax_[2] >= 200000;
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t j = 0; j < n; ++j) {
    const Vec3& r = state.positions[size_t(j)];
    for (int d = 0; d < 3; ++d) {
      const double phase = 2 * M_PI * dot(rec[d], r);
      const std::complex<double> e1(std::cos(phase), std::sin(phase));
      std::complex<double> e(1, 0);
      for (int m = 0; m < kmax_[d]; ++m) {
        eik_[d][size_t(m * n + j)] = e;
        e *= e1;
      }
    }
  }
  auto phase_factor = [&](const std::array<int, 3>& w, int64_t j) {
    std::complex<double> e = eik_[0][size_t(w[0] * n + j)];
    const std::complex<double> e1 = eik_[1][size_t(std::abs(w[1]) * n + j)];
    const std::complex<double> e2 = eik_[2][size_t(std::abs(w[2]) * n + j)];
    e *= w[1] >= 0 ? e1 : std::conj(e1);
    e *= w[2] >= 0 ? e2 : std::conj(e2);
    return e;
  };

  // Half of the k space (k and -k contribute alike), in OpenMM's order.
  waves_.clear();
  for (int n0 = 0; n0 < kmax_[0]; ++n0)
    for (int n1 = n0 == 0 ? 0 : 1 - kmax_[1]; n1 < kmax_[1]; ++n1)
      for (int n2 = (n0 == 0 && n1 == 0) ? 1 : 1 - kmax_[2]; n2 < kmax_[2]; ++n2) waves_.push_back({n0, n1, n2});
  const int64_t nw = int64_t(waves_.size());
  structure_.resize(size_t(2 * nw));
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t w = 0; w < nw; ++w) {
    double re = 0, im = 0;
    for (int64_t j = 0; j < n; ++j) {
      if (q[j] == 0) continue;
      const std::complex<double> e = phase_factor(waves_[size_t(w)], j);
      re += q[j] * e.real();
      im += q[j] * e.imag();
    }
    structure_[size_t(2 * w)] = re;
    structure_[size_t(2 * w + 1)] = im;
  }

  const double volume = state.box.volume();
  const double k_e = system.units.coulomb;
  const double factor = -1 / (4 * alpha_ * alpha_);
  auto wave_vector = [&](const std::array<int, 3>& w) {
    return (2 * M_PI) * (double(w[0]) * rec[0] + double(w[1]) * rec[1] + double(w[2]) * rec[2]);
  };
  // Energy and virial, wave by wave in order.
  double energy = 0;
  Mat3 virial;
  const double energy_coef = 4 * M_PI * k_e / volume;  // half space: twice 2 pi k / V
  for (int64_t w = 0; w < nw; ++w) {
    const Vec3 k = wave_vector(waves_[size_t(w)]);
    const double k2 = norm2(k);
    const double ek = energy_coef * std::exp(k2 * factor) / k2 *
                      (structure_[size_t(2 * w)] * structure_[size_t(2 * w)] +
                       structure_[size_t(2 * w + 1)] * structure_[size_t(2 * w + 1)]);
    energy += ek;
    const double b = 2 * (1 / k2 + 1 / (4 * alpha_ * alpha_));
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) virial(r, c) += ek * ((r == c) - b * k[r] * k[c]);
  }
  out.virial += virial;

  // Forces: F_j = (8 pi k / V) q_j sum_k exp(-k^2/4a^2)/k^2 (Re S sin(k.r_j) - Im S cos(k.r_j)) k.
  const double force_coef = 8 * M_PI * k_e / volume;
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t j = 0; j < n; ++j) {
    if (q[j] == 0) continue;
    Vec3 f{};
    for (int64_t w = 0; w < nw; ++w) {
      const Vec3 k = wave_vector(waves_[size_t(w)]);
      const double k2 = norm2(k);
      const std::complex<double> e = phase_factor(waves_[size_t(w)], j);
      const double g = std::exp(k2 * factor) / k2 *
                       (structure_[size_t(2 * w)] * e.imag() - structure_[size_t(2 * w + 1)] * e.real());
      f += g * k;
    }
    out.forces[size_t(j)] += (force_coef * q[j]) * f;
  }
  return energy;
}

}  // namespace spire::sponge
