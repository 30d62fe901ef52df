// The reciprocal-space PME kernel bodies (pme.cpp's steps, one thread per item):
//
//   spline       per particle: mesh index floor(K s) and the order-n B-spline weights and their
//                derivatives along each axis (Essmann's recursion, as the CPU runs it)
//   spread       per particle: q theta_x theta_y theta_z onto the n^3 mesh points from its index,
//                added in fixed point (kMeshFixedScale), so the mesh has the same bits whatever the
//                order particles are spread in
//   to_real      per mesh point: the fixed-point charge as a double (the FFT's input)
//   (D2Z FFT)    cuFFT on the device, FFTW in host tests: K1 x K2 x (K3/2 + 1), FFTW's r2c layout
//   convolve     per half-spectrum point: the influence function of the current box (B-spline
//                moduli from the host), energy and virial with the Hermitian weights exactly as
//                pme.cpp sums them, the point scaled by the influence function
//   (Z2D FFT)    back to the potential on the mesh
//   interpolate  per particle: F = -2 q grad sum phi theta theta theta, added in fixed point
//
// Mesh index conventions are OpenMM's (pme.cpp): a particle at u = K s with i = floor(u) spreads
// onto points i .. i + n - 1 (mod K) with weights theta_j.
#pragma once
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>

#include "engine/core/host_device.h"
#include "science/sponge/cuda/fixed_point.cuh"
#include "science/sponge/cuda/tally.cuh"

namespace spire::sponge::cuda {

inline constexpr int kPmeMaxOrder = 12;

// Cardinal B-spline weights of order n at offset w in [0, 1) and their derivatives in u: pme.cpp's
// bspline_block for one particle, the same recursion in the same order.
SPIRE_HD inline void pme_bspline(int n, double w, double* theta, double* dtheta) {
  for (int j = 0; j < n; ++j) theta[j] = 0;
  theta[0] = 1 - w;
  theta[1] = w;
  // One step of the recursion, in place: the order k - 1 weights become those of order k.
  auto raise_order = [&](int k) {
    const double div = 1.0 / (k - 1);
    theta[k - 1] = div * w * theta[k - 2];
    for (int l = 1; l < k - 1; ++l) theta[k - l - 1] = div * ((w + l) * theta[k - l - 2] + (k - l - w) * theta[k - l - 1]);
    theta[0] = div * (1 - w) * theta[0];
  };
  for (int k = 3; k < n; ++k) raise_order(k);
  dtheta[0] = -theta[0];
  for (int k = 1; k < n; ++k) dtheta[k] = theta[k - 1] - theta[k];
  raise_order(n);
}

// Signed frequency of mesh index i on an axis of K points (K/2 counts as -K/2, as OpenMM).
SPIRE_HD inline int pme_frequency(int i, int k) { return i < (k + 1) / 2 ? i : i - k; }

// What depends on the mesh and the box (computed on the host per call; the box may change).
struct PmeConstants {
  int order = 5;
  int k[3] = {0, 0, 0};
  double rec[3][3] = {};      // reciprocal vectors a*, b*, c* (rows; no 2 pi)
  double coef = 0;            // units.coulomb / (2 pi V)
  double pi2_over_a2 = 0;     // pi^2 / alpha^2
  SPIRE_HD int64_t points() const { return int64_t(k[0]) * k[1] * k[2]; }
  SPIRE_HD int64_t half() const { return k[2] / 2 + 1; }
  SPIRE_HD int64_t spectrum_points() const { return int64_t(k[0]) * k[1] * half(); }
};

struct PmeArgs {
  const double* x = nullptr;
  const double* charge = nullptr;
  PmeConstants c;
  int* index = nullptr;          // 3 per particle: floor(u) mod K along each axis
  double* theta = nullptr;       // (3 p + d) * order + j
  double* dtheta = nullptr;
  long long* mesh_fixed = nullptr;  // K1 K2 K3, kMeshFixedScale
  double* mesh = nullptr;           // K1 K2 K3: charges, then (after the inverse FFT) the potential
  double* spectrum = nullptr;       // K1 K2 (K3/2 + 1) complex values as (re, im) pairs
  const double* moduli = nullptr;   // K1 + K2 + K3: the B-spline moduli of each axis, in turn
  long long* force = nullptr;       // 3n fixed point
  TallySlots slots;                 // energy[0] Coulomb
};

// Particle p's mesh indices and weights.
SPIRE_HD inline void pme_spline(const PmeArgs& a, int64_t p) {
  const int n = a.c.order;
  for (int d = 0; d < 3; ++d) {
    const double* r = a.c.rec[d];
    double s = r[0] * a.x[3 * p] + r[1] * a.x[3 * p + 1] + r[2] * a.x[3 * p + 2];
    s -= floor(s);
    const double u = s * a.c.k[d];
    int i = int(u);
    const double w = u - i;
    if (i >= a.c.k[d]) i -= a.c.k[d];  // s a hair below 1 can round u up to K
    a.index[3 * p + d] = i;
    pme_bspline(n, w, a.theta + (3 * p + d) * n, a.dtheta + (3 * p + d) * n);
  }
}

// Particle p's charge onto the mesh.
SPIRE_HD inline void pme_spread(const PmeArgs& a, int64_t p) {
  const double q = a.charge[p];
  if (q == 0) return;
  const int n = a.c.order, k0 = a.c.k[0], k1 = a.c.k[1], k2 = a.c.k[2];
  const double* tx = a.theta + 3 * p * n;
  const double* ty = tx + n;
  const double* tz = ty + n;
  const int ix = a.index[3 * p], iy = a.index[3 * p + 1], iz = a.index[3 * p + 2];
  for (int i = 0; i < n; ++i) {
    const double wa = q * tx[i];
    long long* plane = a.mesh_fixed + int64_t((ix + i) % k0) * k1 * k2;
    for (int j = 0; j < n; ++j) {
      const double wab = wa * ty[j];
      long long* row = plane + int64_t((iy + j) % k1) * k2;
      for (int l = 0; l < n; ++l) accumulate(row + (iz + l) % k2, wab * tz[l], kMeshFixedScale);
    }
  }
}

// Mesh point m: the spread charge as a double.
SPIRE_HD inline void pme_to_real(const PmeArgs& a, int64_t m) { a.mesh[m] = from_fixed(a.mesh_fixed[m], kMeshFixedScale); }

// The wave vector m = f0 a* + f1 b* + f2 c* of spectrum point (i0, i1, i2), as pme.cpp's wave().
SPIRE_HD inline void pme_wave(const PmeConstants& c, int i0, int i1, int i2, double* mv) {
  const double f0 = pme_frequency(i0, c.k[0]), f1 = pme_frequency(i1, c.k[1]), f2 = pme_frequency(i2, c.k[2]);
  for (int d = 0; d < 3; ++d) mv[d] = f0 * c.rec[0][d] + f1 * c.rec[1][d] + f2 * c.rec[2][d];
}

// Half-spectrum point m: its energy and virial, then the point times the influence function.
SPIRE_HD inline void pme_convolve(const PmeArgs& a, int64_t m, Tally& tally) {
  const PmeConstants& c = a.c;
  const int64_t half = c.half();
  const int i2 = int(m % half), i1 = int(m / half % c.k[1]), i0 = int(m / half / c.k[1]);
  double* z = a.spectrum + 2 * m;
  if (i0 == 0 && i1 == 0 && i2 == 0) {
    z[0] = z[1] = 0;
    return;
  }
  double mv[3];
  pme_wave(c, i0, i1, i2, mv);
  const double m2 = mv[0] * mv[0] + mv[1] * mv[1] + mv[2] * mv[2];
  const double bm = a.moduli[i0] * a.moduli[c.k[0] + i1] * a.moduli[c.k[0] + c.k[1] + i2];
  const double influence = c.coef * exp(-c.pi2_over_a2 * m2) / (m2 * bm);
  if (influence == 0) {
    z[0] = z[1] = 0;
    return;
  }
  // Points with 0 < i2 < K3/2 stand for their conjugate partners too.
  const double weight = (i2 == 0 || 2 * i2 == c.k[2]) ? 1.0 : 2.0;
  const double em = weight * influence * (z[0] * z[0] + z[1] * z[1]);
  const double b = 2 * (1 / m2 + c.pi2_over_a2);
  tally.energy[0] += em;
  tally.virial[kWxx] += em * (1 - b * mv[0] * mv[0]);
  tally.virial[kWyy] += em * (1 - b * mv[1] * mv[1]);
  tally.virial[kWzz] += em * (1 - b * mv[2] * mv[2]);
  tally.virial[kWxy] -= em * b * mv[0] * mv[1];
  tally.virial[kWxz] -= em * b * mv[0] * mv[2];
  tally.virial[kWyz] -= em * b * mv[1] * mv[2];
  z[0] *= influence;
  z[1] *= influence;
}

// Particle p's force from the potential on the mesh.
SPIRE_HD inline void pme_interpolate(const PmeArgs& a, int64_t p) {
  const double q = a.charge[p];
  if (q == 0) return;
  const int n = a.c.order, k0 = a.c.k[0], k1 = a.c.k[1], k2 = a.c.k[2];
  const double* tx = a.theta + 3 * p * n;
  const double* ty = tx + n;
  const double* tz = ty + n;
  const double* dx = a.dtheta + 3 * p * n;
  const double* dy = dx + n;
  const double* dz = dy + n;
  const int ix = a.index[3 * p], iy = a.index[3 * p + 1], iz = a.index[3 * p + 2];
  double g0 = 0, g1 = 0, g2 = 0;
  for (int i = 0; i < n; ++i) {
    const double* plane = a.mesh + int64_t((ix + i) % k0) * k1 * k2;
    for (int j = 0; j < n; ++j) {
      const double* row = plane + int64_t((iy + j) % k1) * k2;
      double s = 0, sd = 0;
      for (int l = 0; l < n; ++l) {
        const double phi = row[(iz + l) % k2];
        s += tz[l] * phi;
        sd += dz[l] * phi;
      }
      g0 += dx[i] * ty[j] * s;
      g1 += tx[i] * dy[j] * s;
      g2 += tx[i] * ty[j] * sd;
    }
  }
  const double f0 = -2 * q * g0 * k0, f1 = -2 * q * g1 * k1, f2 = -2 * q * g2 * k2;
  for (int d = 0; d < 3; ++d)
    accumulate(a.force + 3 * p + d, f0 * a.c.rec[0][d] + f1 * a.c.rec[1][d] + f2 * a.c.rec[2][d]);
}

// Launchers (pme_kernels.cu): one thread per particle / mesh point on `stream`.
void launch_pme_spline(const PmeArgs& a, int64_t particles, cudaStream_t stream);
void launch_pme_spread(const PmeArgs& a, int64_t particles, cudaStream_t stream);
void launch_pme_to_real(const PmeArgs& a, cudaStream_t stream);
void launch_pme_convolve(const PmeArgs& a, cudaStream_t stream);
void launch_pme_interpolate(const PmeArgs& a, int64_t particles, cudaStream_t stream);

}  // namespace spire::sponge::cuda
