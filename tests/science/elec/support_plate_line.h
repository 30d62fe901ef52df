// The parallel-plate transmission line of the lumped-port tests (test_port.cpp, test_s_parameters.cpp):
// plates kG = 2 apart (the z walls, pec), kW = 4 wide (periodic along y), at dx = 1, so that its
// characteristic impedance is eta0 kG / kW = eta0 / 2 and, on the lattice, each cell is a ladder
// section of series inductance kG / kW and shunt capacitance kW / kG (normalised). A port spans the
// whole gap and width at one x.
#pragma once
#include <cmath>
#include <complex>
#include <memory>
#include <numbers>

#include "science/elec/port.h"
#include "science/elec/time_profile.h"
#include "science/elec/units.h"

namespace spire::elec::testing {

using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;
constexpr double kEta0 = si::kVacuumImpedance;  // ohm
constexpr double kW = 4, kG = 2;
constexpr double kZline = kEta0 * kG / kW;            // ohm
constexpr double kLcell = kG / kW, kCnode = kW / kG;  // one ladder section, normalised (dx = 1)

// The lattice's angular frequency at f: the leapfrog's time derivative of exp(-i 2 pi f t) is
// -i omega_tilde, omega_tilde = 2 sin(pi f dt) / dt.
inline double omega_tilde(double f, double dt) { return 2 * std::sin(kPi * f * dt) / dt; }

// An Ez port across the line at x, of `ohms` (passive without a profile).
inline LumpedPort line_port(double x, double ohms, std::shared_ptr<const TimeProfile> profile = nullptr) {
  LumpedPort p;
  p.component = Component::Ez;
  p.center = {x, 0, 0};
  p.size = {0, kW, kG};
  p.resistance = ohms;
  p.profile = std::move(profile);
  return p;
}

// A Gaussian pulse that starts smoothly (cutoff 8 widths: exp(-32) at its start). Meep's cutoff of
// 5 starts it at exp(-12.5) ~ 4e-6 of its peak; that step excites the lattice's band edge, where
// waves barely move, and leaves fields of ~1e-7 that fade as a power of t: the DFTs would then not
// reach rounding level.
inline std::shared_ptr<GaussianSource> pulse(double f, double fwidth) {
  return std::make_shared<GaussianSource>(f, fwidth, 0, 8);
}

}  // namespace spire::elec::testing
