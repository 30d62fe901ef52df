// Instantaneous thermodynamic observables of a state: kinetic energy and its tensor, temperature,
// pressure tensor and scalar, volume. One definition shared by the thermo log, the H5MD writer and
// the barostats' logs, so they never disagree.
//
// Conventions (LAMMPS's compute temp and compute pressure, OpenMM's reporters):
//   kinetic tensor   K2_ab = sum_i m_i v_i,a v_i,b          (twice the kinetic-energy tensor)
//   kinetic energy   K = tr(K2) / 2
//   temperature      T = 2 K / (N_dof k_B), N_dof = System::degrees_of_freedom(remove_com_motion)
//   pressure tensor  P = (K2 + W) / V, W the virial of force.h, shown in units.pressure_unit (bar in md)
//   pressure         p = tr(P) / 3 = (2 K + tr W) / (3 V)
// W includes the constraint forces' virial when there are constraints (the integrator's
// MdIntegrator::constraint_virial(), which rigid water needs), passed as extra_virial.
// The pressure uses the kinetic energy itself (not N_dof k_B T), so it does not depend on how many
// degrees of freedom the temperature subtracts. Without a periodic box there is no volume: pressure
// and volume are NaN and the logs leave those columns out.
#pragma once
#include <cstdint>
#include <vector>

#include "science/sponge/force.h"

namespace spire::sponge {

struct Observables {
  Mat3 kinetic_tensor;       // sum m v v^T, energy units
  double kinetic_energy = 0;
  double potential_energy = 0;
  double temperature = 0;    // system's temperature unit
  int64_t degrees_of_freedom = 0;
  double volume = 0;         // NaN without a periodic box
  Mat3 pressure_tensor;      // display units (units.pressure_unit); NaN without a periodic box
  double pressure = 0;       // display units; NaN without a periodic box
  // The integrator's conserved quantity (md_integrator.h; GROMACS's "Conserved En."), NaN when the
  // integrator defines none.
  double conserved_energy = 0;
  double total_energy() const { return kinetic_energy + potential_energy; }
};

// sum_i m_i v_i v_i^T; particles of mass 0 (fixed) contribute nothing. Summed in particle order.
Mat3 kinetic_tensor(const System& system, const std::vector<Vec3>& velocities);

// 2 K / (dof k_B); 0 when dof is 0.
double temperature(const System& system, double kinetic_energy, int64_t degrees_of_freedom);

// Everything above at `state` with the forces' energies and virial (plus extra_virial), the
// conserved energy NaN. ValueError when the sizes of state and system disagree.
Observables compute_observables(const System& system, const State& state, const ForceResult& forces,
                                bool remove_com_motion, const Mat3& extra_virial = Mat3{});

}  // namespace spire::sponge
