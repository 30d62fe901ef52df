// Closed-form references the electromagnetics validation compares the solver with: the exact
// dispersion relation of the Yee scheme, Fresnel coefficients, a transfer-matrix solver for layered
// media, and the exact fields and radiated power of a Hertzian dipole (3D) and a line current (2D).
//
// Units and conventions (as Meep, and yee.h / material_arrays.h): normalised units with
// eps0 = mu0 = c = 1 (Gaussian-like: the vacuum impedance is 1), lengths in a, angular frequency
// omega in 2 pi c / a (omega = 2 pi f). Complex amplitudes are phasors of the time dependence
// exp(-i omega t): a physical field is Re[F exp(-i omega t)]. An absorbing medium then has
// Im eps > 0 and Im n > 0, and a wave exp(i k z) travelling to +z decays when Im k > 0.
//
// Powers: "time-averaged" powers here are those of the phasor fields, 1/2 Re(E x H*) per area.
// (Meep's flux, and Spire's Flux / Near2Far which follow it, integrate Re(E* x H) of DFT fields
// without the 1/2: for phasor inputs that is twice the time-averaged power.)
//
// Hertzian dipole (derivation in analytic.cpp): a current element of moment I l (current times
// length, the amplitude of J = I l delta(x) e) has the dipole moment p = I l / (-i omega) = i I l /
// omega, since J = dP/dt -> -i omega p with exp(-i omega t). (The form p = I l / (i omega) belongs to
// the exp(+i omega t) convention; the sign is a phase only and the power is the same.) It radiates
//   P = omega^4 |p|^2 / (12 pi) = omega^2 |I l|^2 / (12 pi)                     (vacuum)
// A line current I (2D, invariant along z) radiates per unit length
//   P = omega |I|^2 / 8   (current along z: TM, fields Ez, Hx, Hy)
//   P = omega |I|^2 / 16  (current in the plane: TE, fields Hz, Ex, Ey).
#pragma once
#include <array>
#include <complex>
#include <vector>

#include "science/elec/yee.h"

namespace spire::elec {

using ComplexVec3 = std::array<std::complex<double>, 3>;

// ---- The Yee scheme's exact (discrete) dispersion relation -----------------------------------
// For a plane wave exp(i (k.x - omega t)) on a lattice of spacing dx and time step dt in a medium of
// refractive index n (Taflove & Hagness, eq. 4.12):
//   (n / dt)^2 sin^2(omega dt / 2) = sum_a sin^2(k_a dx / 2) / dx^2
// Also the eigenfrequencies of a PEC cavity: k_a = m_a pi / L_a.
//
// omega (angular) for the wave vector k (components along axes a problem lacks are 0). ValueError
// when the right side exceeds (n/dt)^2, where no real omega exists (dt above the stability limit).
double yee_omega(Vec3 k, double dx, double dt, double index = 1);
// The wavenumber k along one axis for angular frequency omega. ValueError above the lattice's
// cutoff omega_max = (2/dt) asin(dt / (n dx)), where the discrete wave is evanescent.
double yee_wavenumber(double omega, double dx, double dt, double index = 1);

// ---- Fresnel coefficients of one interface ---------------------------------------------------
// Incidence from a lossless medium of index n1 > 0 at angle theta (radians, 0 <= theta < pi/2)
// onto a medium of complex index n2 (Im n2 >= 0 absorbs). r and t are ratios of field amplitudes:
// s: the E amplitudes (E normal to the plane of incidence); p: the E amplitudes with the convention
// that r_p = r_s at normal incidence (so r_p is also the ratio of the tangential E components),
//   r_s = (n1 c1 - n2 c2) / (n1 c1 + n2 c2),  t_s = 2 n1 c1 / (n1 c1 + n2 c2)
//   r_p = (n1 c2 - n2 c1) / (n1 c2 + n2 c1),  t_p = 2 n1 c1 / (n1 c2 + n2 c1)
// with c1 = cos theta, c2 = cos theta_2 from Snell's law, chosen with Im(n2 c2) >= 0 (beyond the
// critical angle the transmitted wave decays away from the interface). R = |r|^2 and T is the
// transmitted power through the interface: T_s = Re(n2 c2) |t_s|^2 / (n1 c1),
// T_p = Re(n2 conj(c2)) |t_p|^2 / (n1 c1); R + T = 1 for lossless n2.
struct Fresnel {
  std::complex<double> r_s, r_p, t_s, t_p;
  double R_s = 0, R_p = 0, T_s = 0, T_p = 0;
};
Fresnel fresnel(double n1, std::complex<double> n2, double theta);
// The angle of incidence (radians) at which R_p = 0: atan(n2 / n1). ValueError for n <= 0.
double brewster_angle(double n1, double n2);

// ---- Transfer matrix of a layered medium -----------------------------------------------------
enum class Polarization { s, p };  // s: E normal to the plane of incidence (TE); p: E in it (TM)

struct Layer {
  std::complex<double> epsilon{1, 0};
  std::complex<double> mu{1, 0};
  double thickness = 0;  // in a
};
// An incident half-space (lossless: real epsilon, mu > 0), layers in the order the wave meets
// them, and a substrate half-space (any complex epsilon, mu).
struct LayeredMedium {
  Layer incident;
  std::vector<Layer> layers;
  Layer substrate;
};
struct StackResponse {
  std::complex<double> r, t;  // tangential-E amplitude ratios (reflected / incident, transmitted / incident)
  double R = 0, T = 0;        // reflected and transmitted power fractions
  double A = 0;               // absorbed in the layers: 1 - R - T
};
// The plane-wave response at angular frequency omega > 0 and angle of incidence theta (radians,
// in the incident medium, 0 <= theta < pi/2). Characteristic-matrix method (Born & Wolf 1.6;
// Macleod ch. 2) written for exp(-i omega t): each layer's matrix relates the tangential (E, H) at
// its two faces with the tilted admittances eta_s = q / mu, eta_p = epsilon / q, q = n cos theta =
// sqrt(eps mu - n_inc^2 sin^2 theta) (Im q >= 0). ValueError naming the layer for bad values.
StackResponse transfer_matrix(const LayeredMedium& medium, double omega, double theta, Polarization pol);

// ---- Radiating point and line sources --------------------------------------------------------
struct PhasorFields {
  ComplexVec3 E{}, H{};
};
// The exact fields (near, intermediate and far zone) of a point electric dipole of complex moment p
// at the origin, in vacuum, at angular frequency omega, at the point r != 0 (Jackson 9.18):
//   H = k^2/(4 pi) (n x p) e^{ikr}/r (1 - 1/(ikr))
//   E = 1/(4 pi) { k^2 (n x p) x n e^{ikr}/r + [3 n (n.p) - p] (1/r^3 - ik/r^2) e^{ikr} }
// with k = omega, n = r/|r|.
PhasorFields dipole_fields(const ComplexVec3& p, double omega, Vec3 r);
// The far field of the same dipole: the 1/r terms only.
PhasorFields dipole_far_fields(const ComplexVec3& p, double omega, Vec3 r);
// The dipole moment of a current element I l: p = i I l / omega (see the header comment).
ComplexVec3 dipole_moment_of_current(const ComplexVec3& current_moment, double omega);
// Time-averaged radiated power omega^4 |p|^2 / (12 pi) and its angular density
// dP/dOmega = omega^4 |p x n|^2 / (32 pi^2) in direction n.
double dipole_power(const ComplexVec3& p, double omega);
double dipole_power_per_solid_angle(const ComplexVec3& p, double omega, Vec3 direction);

// The exact fields of an infinite line current I (per unit length along z, complex vector: Iz
// radiates TM, Ix and Iy TE) through the origin in vacuum, at the point r (x, y; z ignored, r != 0).
// In polar components at r (I_rho, I_phi of the in-plane current), with H0, H1 the Hankel functions
// of the first kind of argument k rho (from std::cyl_bessel_j and std::cyl_neumann), k = omega:
//   TM: Ez = -(omega/4) H0 Iz,            H_phi = (i k/4) H1 Iz
//   TE: Hz = -(i k/4) H1 I_phi,           E_rho = -H1 I_rho / (4 rho),
//       E_phi = -(omega/4) (H0 - H1/(k rho)) I_phi
// (the vector potential of g = (i/4) H0(k rho), the 2D Green's function; E from curl H = -i omega E).
PhasorFields line_current_fields(const ComplexVec3& current, double omega, Vec3 r);
// Time-averaged power per unit length: omega |Iz|^2 / 8 + omega (|Ix|^2 + |Iy|^2) / 16.
double line_current_power(const ComplexVec3& current, double omega);

}  // namespace spire::elec
