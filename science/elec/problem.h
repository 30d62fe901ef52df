// The declarative description of an FDTD problem, as an electromagnetics user writes it (the
// arguments of Meep's Python Simulation): the cell, its dimensions and resolution, the boundaries
// (PML per axis and side, periodic, Bloch, metallic), the geometry over a default medium, the
// sources, the Courant number, the precision and whether interfaces are subpixel-averaged.
//
// Name: Meep calls this object "Simulation", but here that is the core time-stepper
// (simulation.h). What the user writes is the boundary-value *problem* (domain, boundary conditions,
// material coefficients, forcing); build() turns it into the Simulation that solves it. Keeping the
// two apart lets a problem be checked, printed or built twice (the two-run normalisation of flux.h
// builds the same problem with and without the scatterer).
//
// What build() does:
//   1. the Yee lattice of the cell (yee.h: extents rounded to whole cells);
//   2. the material arrays by subpixel averaging (subpixel.h), with objects repeated across periodic
//      and Bloch axes as Meep's ensure_periodicity;
//   3. the core Simulation with the boundaries, Courant number and precision;
//   4. when any medium has susceptibilities: the polarisation hook (DispersiveHook below) over
//      dispersion.h's Polarizations, after check_dispersive_stability (ValueError naming the sample,
//      the medium that sits there and the bound, rather than a run that blows up);
//   5. the sources, plane waves and port excitations (the ports' resistances went into the
//      material arrays of step 2).
// Monitors are attached to the built Simulation afterwards (monitors.h).
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "science/elec/dispersion.h"
#include "science/elec/geometry.h"
#include "science/elec/plane_wave.h"
#include "science/elec/port.h"
#include "science/elec/simulation.h"
#include "science/elec/source.h"
#include "science/elec/subpixel.h"

namespace spire::elec {

struct Problem {
  Dimensions dimensions = Dimensions::three;
  Vec3 cell_size;            // extent along x, y, z in a (only the axes the problem has are read)
  double resolution = 10;    // cells per a
  Boundaries boundaries;     // metallic walls by default, as Meep
  Geometry geometry;         // objects over a default medium (vacuum by default)
  std::vector<Source> sources;
  std::vector<PlaneWave> plane_waves;  // total-field/scattered-field (plane_wave.h)
  std::vector<LumpedPort> ports;       // lumped ports (port.h): resistances and excitations
  double courant = 0.5;      // Meep's default; at most 1/sqrt(axes)
  Precision precision = Precision::float64;
  std::string platform = "cpu";  // simulation.h
  SubpixelOptions subpixel;  // subpixel.subpixel = false is Meep's eps_averaging=False; its
                             // `periodic` flags are set by build() from the boundaries
};

// Whether any medium of the geometry (default medium included) has susceptibilities.
bool is_dispersive(const Geometry& geometry);

// Builds the Simulation (header comment). ValueError or ConfigError naming what is wrong: the cell,
// resolution, boundaries and Courant number (from the parts that check them), a source outside the
// cell or on a component the dimensions lack, an unstable dispersive medium.
Simulation build(const Problem& problem);
// The same with the material arrays edited after sampling (ports' resistances included) and before
// the Simulation is made: how the differentiable run (adjoint.h) sets its design permittivities.
Simulation build(const Problem& problem, const std::function<void(MaterialArrays&)>& edit_materials);

// The polarisation hook of a dispersive problem: one Polarizations per precision and field part
// (real, imaginary: the imaginary part of Bloch-periodic fields evolves by the same real recursion
// independently). The core zero-fills p_total; each call advances every term acting on c by one step.
class DispersiveHook : public PolarizationHook {
 public:
  DispersiveHook(const YeeLattice& lattice, const std::vector<SusceptibilityArrays>& terms, double dt,
                 Precision precision, bool complex_fields);
  void step(Component c, FieldPart part, const double* e_now, double* p_total, int64_t n) override;
  void step(Component c, FieldPart part, const float* e_now, float* p_total, int64_t n) override;
  void save_state(SimulationState& out) const override;
  void load_state(const SimulationState& in) override;

 private:
  std::array<Polarizations<double>, 2> double_;
  std::array<Polarizations<float>, 2> float_;
};

}  // namespace spire::elec
