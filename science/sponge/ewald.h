// Ewald summation of the Coulomb energy in a periodic cell (orthorhombic or triclinic): the
// direct-space sum of erfc-screened pairs within the cutoff, the reciprocal-space sum over wave
// vectors k = 2 pi (n1 a* + n2 b* + n3 c*) with |n_d| < kmax_d, the self term, the excluded-pair
// correction, the neutralising background of a charged cell, and 1-4 pairs (coulomb.h):
//
//   E_recip = k (2 pi / V) sum_{k != 0} exp(-k^2 / (4 alpha^2)) / k^2 |S(k)|^2,
//   S(k) = sum_j q_j exp(i k . r_j)
//
// with virial W_ab = sum_k E_k (delta_ab - 2 k_a k_b (1/k^2 + 1/(4 alpha^2))) (the box's volume and
// the wave vectors change with it). O(N kmax^3): a reference for PME and for small cells.
//
// Parameters as OpenMM's NonbondedForce::Ewald: alpha = sqrt(-ln(2 tol)) / rc, and per axis the
// smallest kmax past the peak of OpenMM's error estimate 0.05 sqrt(w alpha) kmax exp(-(pi kmax /
// (w alpha))^2) < tol, made odd (w the width of the cell along that axis). Like OpenMM and GROMACS,
// kmax is fixed at the first evaluation (a barostat then changes the box, not the sum's extent), so
// the energy stays a smooth function of the box.
#pragma once
#include <array>
#include <complex>
#include <vector>

#include "science/sponge/coulomb.h"

namespace spire::sponge {

struct EwaldOptions {
  double cutoff = 1.0;         // direct-space cutoff
  double tolerance = 5e-4;     // OpenMM's ewaldErrorTolerance
  double alpha = 0;            // splitting parameter; 0: from cutoff and tolerance
  std::array<int, 3> kmax{};   // wave vectors per reciprocal axis, |n_d| < kmax_d; 0: from the tolerance
};

// OpenMM's kmax for each reciprocal axis of `box`.
std::array<int, 3> ewald_kmax(const Box& box, double alpha, double tolerance);

class EwaldCoulomb : public EwaldSplitCoulomb {
 public:
  explicit EwaldCoulomb(const EwaldOptions& options = {});

  void check(const System& system, const State& state) const override;

  // The extent in use: the option, or what the first evaluation chose (zeros before it).
  const std::array<int, 3>& kmax() const { return kmax_; }
  double add_reciprocal(const System& system, const State& state, ForceResult& out) override;

 private:
  EwaldOptions options_;
  std::array<int, 3> kmax_;
  // Scratch reused between evaluations.
  std::vector<std::complex<double>> eik_[3];  // exp(2 pi i n s_d) for n < kmax_d, [n * N + particle]
  std::vector<std::array<int, 3>> waves_;     // the half space of n vectors
  std::vector<double> structure_;             // Re S, Im S per wave
};

}  // namespace spire::sponge
