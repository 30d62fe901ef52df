// Initial velocities and the kinetic observables they are set by.
//
// maxwell_boltzmann is LAMMPS's `velocity all create T seed` (with `mom yes`, the default) done
// with Spire's counter-based generator: each particle's three normal draws come from Philox keyed
// by the seed and counted by the particle's index, so the result does not depend on the thread
// count or the order particles are visited, and the same seed gives the same bits. (LAMMPS's own
// stream, even with `loop geom`, comes from its Park-Miller generator and is not reproduced.)
// Steps, in order:
//   1. v_i = sqrt(k_B T / m_i) z_i, z_i three standard normals; particles of mass 0 get v = 0.
//   2. (zero_momentum) the centre-of-mass velocity is subtracted from every moving particle.
//   3. Constrained velocities are made consistent with the constraints: each rigid water moves
//      as a rigid body (the mass-weighted projection, which keeps its momentum), and Constraint
//      pairs lose their relative velocity along the bond (RATTLE's velocity step, iterated to
//      round-off).
//   4. Velocities are scaled so that 2 K / (N_dof k_B) is exactly T, N_dof from
//      System::degrees_of_freedom(zero_momentum).
#pragma once
#include <cstdint>
#include <vector>

#include "science/sponge/state.h"
#include "science/sponge/system.h"

namespace spire::sponge {

// Philox's stream for initial velocities ("VELOCITY" in ASCII): other users of the seed (Langevin
// and Bussi noise, Monte Carlo moves) count in their own streams, so none repeats these draws.
inline constexpr uint64_t kVelocityStream = 0x56454C4F43495459ull;

// Sets state.velocities (sized to the system) as described above. Positions are read for the
// constraint directions (minimum image in state.box). ValueError for T < 0, or T > 0 with no
// degrees of freedom.
void maxwell_boltzmann(const System& system, State& state, double temperature, uint64_t seed,
                       bool zero_momentum = true);

// sum_i m_i v_i / sum_i m_i over moving particles (zero when none).
Vec3 center_of_mass_velocity(const System& system, const std::vector<Vec3>& velocities);
// Subtracts the centre-of-mass velocity from every moving particle.
void remove_center_of_mass_motion(const System& system, std::vector<Vec3>& velocities);
// Makes velocities consistent with the System's rigid waters and constraints (step 3 above).
void project_constraint_velocities(const System& system, const State& state, std::vector<Vec3>& velocities);

// K = 1/2 sum_i m_i |v_i|^2, summed in particle order.
double kinetic_energy(const System& system, const std::vector<Vec3>& velocities);
// 2 K / (N_dof k_B) in the system's units, N_dof = degrees_of_freedom(com_removed); 0 without
// degrees of freedom.
double kinetic_temperature(const System& system, const std::vector<Vec3>& velocities, bool com_removed);

}  // namespace spire::sponge
