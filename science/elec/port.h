// Lumped ports and S-parameters (openEMS's LumpedPort; Taflove & Hagness, 3rd ed., sec. 15.9 on
// lumped elements). A port is a gap of E samples along one axis (`component`), spanning `size`:
// a resistive voltage source, V_s(t) in series with R, across the gap. Its resistance is a local
// conductivity over the gap's cells, sigma = length / (R * area) (length along the component axis,
// area across it), put into the material arrays before the run is built (semi-implicit in time, as
// the solver's conductivity); its source is the current density J = V_s / (R * area) over the same
// cells. A passive port (no profile) is the resistor alone: the reference load of the others.
//
// Port voltage and current: V = -integral of E along the gap (the mean over the gap's width),
// I = the current through the port, from the loop integral of H around the gap's cross-section
// at its middle (Ampere), both DFT'd at the chosen frequencies with the times of their fields
// (dft.h: E at t, H at t - dt/2). Power waves with reference impedance Z0 = R (Kurokawa):
//   a = (V + Z0 I) / (2 sqrt(Re Z0)),   b = (V - Z0 I) / (2 sqrt(Re Z0)),
// S_ij = b_i / a_j with port j excited and the others passive. Impedances are in ohms (SI; the
// normalised vacuum impedance 1 is units.h's si::kVacuumImpedance ohms); voltages and currents are
// in normalised units, their ratios in ohms after that scale.
#pragma once
#include <complex>
#include <memory>
#include <vector>

#include "science/elec/material_arrays.h"
#include "science/elec/simulation.h"
#include "science/elec/time_profile.h"

namespace spire::elec {

struct LumpedPort {
  Component component = Component::Ez;  // Ex, Ey or Ez: the direction of the gap
  Vec3 center;
  Vec3 size;                    // gap length along the component's axis (> 0); width across it
                                // (0: one sample line)
  double resistance = 50;       // ohms, > 0
  std::shared_ptr<const TimeProfile> profile;  // excitation V_s(t); null for a passive port
  std::complex<double> amplitude = 1.0;
};

// Adds every port's conductivity to the material arrays (before the Simulation is made).
// ValueError naming the port (by index) and what is wrong: a magnetic component, a gap outside the
// cell, no E sample inside it, a resistance that is not positive.
void load_ports(MaterialArrays& materials, const YeeLattice& lattice, const std::vector<LumpedPort>& ports);
// Adds the sources of the excited ports (those with a profile) to the built Simulation.
void add_port_sources(Simulation& sim, const std::vector<LumpedPort>& ports);

// Running DFTs of one port's V and I (attach after build, before the first step).
class PortMonitor {
 public:
  PortMonitor(Simulation& sim, const LumpedPort& port, std::vector<double> frequencies);
  ~PortMonitor();
  PortMonitor(const PortMonitor&) = delete;
  PortMonitor& operator=(const PortMonitor&) = delete;
  const std::vector<double>& frequencies() const { return frequencies_; }
  // V(f), I(f) (the DFTs), Z(f) = V / I in ohms, and the power waves for reference impedance z0
  // (ohms; the port's resistance when z0 <= 0).
  std::vector<std::complex<double>> voltage() const;
  std::vector<std::complex<double>> current() const;
  std::vector<std::complex<double>> impedance() const;
  std::vector<std::complex<double>> incident_wave(double z0 = 0) const;
  std::vector<std::complex<double>> reflected_wave(double z0 = 0) const;
  // The accumulated DFTs, for checkpoints.
  SimulationState save_state() const;
  void load_state(const SimulationState& state);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<double> frequencies_;
};

}  // namespace spire::elec
