// Lumped ports and S-parameters (openEMS's LumpedPort; Taflove & Hagness, 3rd ed., sec. 15.9 on
// lumped elements). A port is a gap of E samples along one axis (`component`), spanning `size`:
// a resistive voltage source, V_s(t) in series with R, across the gap.
//
// The gap on the lattice (port_layout): along the component's axis, the samples of that component
// whose positions lie in [center - size/2, center + size/2] (ends included; a gap whose ends sit on
// grid nodes, where the terminals' tangential E vanishes, takes exactly size/dx samples); across
// it, along an axis where size > 0 the samples inside likewise, along one where size = 0 the
// nearest sample. The gap's length L and area A are counted in samples (cells * dx, columns * dx
// per across axis), and an axis the problem does not have counts 1 (the unit thickness of a 2D
// problem: a 2D port is a resistor of unit length along z, its current per that unit).
//
// The resistor: J_R = sigma E with sigma = L / (R A), put into the material arrays as the solver's
// D-conductivity sigma_e = sigma * inv_eps (material_arrays.h; semi-implicit in time, so the update
// is the resistor's time-centred law, J_R^{n+1/2} = sigma (E^n + E^{n+1}) / 2). The source: the current
// density J = V_s / (R A) over the same samples (source.h's J, dD/dt = curl H - J). Together, per
// column, eps dE/dt + sigma E + V_s / (R A) = curl H: the gap is a Norton source V_s / R in
// parallel with R and with the gap's own capacitance C = eps A / L, i.e. a Thevenin source V_s
// in series with R. A passive port (no profile) is the resistor alone: the reference load.
// (In a dispersive medium the solver's conductivity acts on D, so the resistor would carry
// sigma inv_eps D rather than sigma E = sigma inv_eps (D - P): keep gaps out of dispersive media.)
//
// Port voltage and current, at the terminals of the structure outside the gap:
//   V = -integral of E along the gap (the mean over its columns), the + terminal at the high end;
//   I = the Ampere loop integral of H around the gap's cross-section at its middle sample plane:
//       the total current that flows through the gap from the - to the + terminal, i.e. into the
//       structure at the + terminal (conduction and the gap's displacement current).
// The discrete scheme relates them exactly. For a gap of one cell (or a field uniform along the
// gap) and uniform eps, every step n obeys
//   I^{n+1/2} = (V_s^{n+1/2} - (V^n + V^{n+1}) / 2) / R - C (V^{n+1} - V^n) / dt,
// and in the frequency domain (our DFTs, exp(-i omega t) phasors)
//   I = (V_s - cos(omega dt / 2) V) / R + i omega~ C V,   omega~ = 2 sin(omega dt / 2) / dt.
// So I is not (V_s - V) / R: the difference is the gap's displacement current (C = eps A / L, the
// capacitance of the gap's own cells) and the time-centred resistor (cos(omega dt/2) = 1 - O(dt^2)).
// As in openEMS, the gap belongs to the port: the S-parameters describe the structure outside the
// gaps, and a passive port terminates it with R / cos(omega dt/2) in parallel with C (which is why
// s_parameters.h corrects for the passive ports' reflections when every port is excited). Two ports
// may not share gap samples (a load in the same gap would be inside the loop, invisible to I).
//
// Power waves with reference impedance Z0 = R (Kurokawa):
//   a = (V + Z0 I) / (2 sqrt(Re Z0)),   b = (V - Z0 I) / (2 sqrt(Re Z0)).
// Impedances are in ohms (SI; the normalised vacuum impedance 1 is units.h's si::kVacuumImpedance
// ohms); voltages and currents are in normalised units, their ratios in ohms after that scale.
#pragma once
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "science/elec/material_arrays.h"
#include "science/elec/simulation.h"
#include "science/elec/time_profile.h"

namespace spire::elec {

struct LumpedPort {
  Component component = Component::Ez;  // Ex, Ey or Ez: the direction of the gap
  Vec3 center;
  Vec3 size;                    // gap length along the component's axis (> 0; ignored along an axis
                                // the problem does not have); width across it (0: one sample line)
  double resistance = 50;       // ohms, > 0
  std::shared_ptr<const TimeProfile> profile;  // excitation V_s(t); null for a passive port
  std::complex<double> amplitude = 1.0;
};

// The gap on the lattice (header comment).
struct PortLayout {
  Component component = Component::Ez;
  // The gap's samples, column by column (columns in storage order), each column `cells` samples
  // along the component's axis from low to high.
  std::vector<int64_t> samples;
  int64_t columns = 0, cells = 0;
  double length = 0;  // L: cells * dx (1 along an axis the problem does not have)
  double area = 0;    // A: columns * dx per across axis the problem has
  // The Ampere loop at the middle plane (cell (cells - 1) / 2 of each column): I = sum of
  // weight * H_component[index], the loop's H samples with their path lengths and signs.
  struct LoopTerm {
    Component component;
    int64_t index;
    double weight;
  };
  std::vector<LoopTerm> loop;
};

// ValueError naming the port (`which`, its index) and what is wrong: a magnetic component, a
// component the problem does not carry, a non-positive or non-finite resistance, a negative size, a
// zero gap length, a gap leaving the cell, no sample inside the gap.
PortLayout port_layout(const LumpedPort& port, const YeeLattice& lattice, size_t which = 0);

// Adds every port's conductivity to the material arrays (before the Simulation is made).
// ValueError naming the port (by index) and what is wrong: port_layout's checks, a gap sample inside
// a perfect electric conductor (inv_eps = 0), two ports sharing a sample.
void load_ports(MaterialArrays& materials, const YeeLattice& lattice, const std::vector<LumpedPort>& ports);
// Adds the sources of the excited ports (those with a profile) to the built Simulation. ValueError
// also for a gap sample on a pec wall (where the wall holds that component at zero).
void add_port_sources(Simulation& sim, const std::vector<LumpedPort>& ports);

// Running DFTs of one port's V and I (attach after build, before the first step). It registers a
// step callback on the Simulation and removes it when destroyed: it must not outlive the Simulation,
// and the Simulation must not be moved while it exists.
class PortMonitor {
 public:
  PortMonitor(Simulation& sim, const LumpedPort& port, std::vector<double> frequencies);
  ~PortMonitor();
  PortMonitor(const PortMonitor&) = delete;
  PortMonitor& operator=(const PortMonitor&) = delete;
  const std::vector<double>& frequencies() const { return frequencies_; }
  const PortLayout& layout() const;
  double resistance() const;  // ohms
  // V(f), I(f) (the DFTs: sum of v(t_n) exp(i omega t_n) dt with V's time t and I's t - dt/2),
  // Z(f) = V / I in ohms, and the power waves for reference impedance z0 (ohms; the port's
  // resistance when z0 <= 0).
  std::vector<std::complex<double>> voltage() const;
  std::vector<std::complex<double>> current() const;
  std::vector<std::complex<double>> impedance() const;
  std::vector<std::complex<double>> incident_wave(double z0 = 0) const;
  std::vector<std::complex<double>> reflected_wave(double z0 = 0) const;
  // V at the Simulation's time() and I at time() - dt/2, as of the last step (0 before it).
  std::complex<double> instant_voltage() const;
  std::complex<double> instant_current() const;
  // The accumulated DFTs, for checkpoints: arrays "port/V" and "port/I" (re, im interleaved per
  // frequency). A caller holding several monitors prefixes the names itself.
  SimulationState save_state() const;
  void load_state(const SimulationState& state);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<double> frequencies_;
};

}  // namespace spire::elec
