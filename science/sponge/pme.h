// Smooth particle-mesh Ewald (Essmann et al., J. Chem. Phys. 103, 8577 (1995)) for the Coulomb
// energy in a periodic cell, orthorhombic or triclinic. The direct-space sum, self term, excluded
// and 1-4 pairs and the neutralising background are Ewald's (coulomb.h); the reciprocal sum
//
//   E_recip = k / (2 pi V) sum_{m != 0} exp(-pi^2 m^2 / alpha^2) / m^2 B(m) |F(Q)(m)|^2
//
// runs on a K1 x K2 x K3 mesh: charges spread with cardinal B-splines of order n (in fractional
// coordinates), one real-to-complex FFT, the influence function, one complex-to-real FFT, and
// forces interpolated back with the splines' derivatives. The virial is Essmann's eq. (2.11)
// for the mesh energy: W_ab = sum_m E_m (delta_ab - 2 (1 + pi^2 m^2 / alpha^2) m_a m_b / m^2).
//
// Parameters as OpenMM's NonbondedForce::PME: order 5, alpha = sqrt(-ln(2 tol)) / rc, and mesh
// sizes ceil(2 alpha L / (3 tol^(1/5))) (at least 6, L = ax, by, cz) raised to the next size whose
// prime factors are 2, 3, 5, 7 and at most one 11 (FFTW's fast sizes), as OpenMM 8.6's CPU
// platform. B-spline moduli that vanish (odd orders at the Nyquist frequency) are replaced by the
// mean of their neighbours, as OpenMM and GROMACS do.
// The mesh is fixed at the first evaluation; a barostat then changes the box, not the mesh.
//
// Threads: splines per particle, charge spreading by slabs of mesh planes (each plane has one
// writer and receives its particles' contributions in a fixed order), FFTs as independent 2D plane
// transforms and batches of 1D column transforms, forces per particle. The result has the same
// bits on any number of threads. FFTW plans (FFTW_ESTIMATE, so the same algorithm in every run)
// are made once per mesh, under a mutex: FFTW's planner is not thread-safe.
#pragma once
#include <array>
#include <memory>

#include "science/sponge/coulomb.h"

namespace spire::sponge {

struct PmeOptions {
  double cutoff = 1.0;         // direct-space cutoff
  double tolerance = 5e-4;     // OpenMM's ewaldErrorTolerance
  double alpha = 0;            // splitting parameter; 0: from cutoff and tolerance
  std::array<int, 3> grid{};   // mesh points per axis; 0: from alpha and the tolerance
  int order = 5;               // B-spline order (points per axis per charge), 3 to 12
};

// The smallest size >= n made of the factors 2, 3, 5, 7 and at most one 11 (OpenMM's CPU platform's
// findFFTDimension).
int pme_fft_size(int n);
// OpenMM's mesh for `box`, made FFT-friendly.
std::array<int, 3> pme_grid(const Box& box, double alpha, double tolerance);

class PmeCoulomb : public EwaldSplitCoulomb {
 public:
  explicit PmeCoulomb(const PmeOptions& options = {});
  ~PmeCoulomb() override;

  void check(const System& system, const State& state) const override;

  int order() const { return options_.order; }
  const PmeOptions& options() const { return options_; }
  // The mesh in use: the option, or what the first evaluation chose (zeros before it).
  const std::array<int, 3>& grid() const { return grid_; }
  double add_reciprocal(const System& system, const State& state, ForceResult& out) override;

 private:
  struct Mesh;
  PmeOptions options_;
  std::array<int, 3> grid_;
  std::unique_ptr<Mesh> mesh_;
};

}  // namespace spire::sponge
