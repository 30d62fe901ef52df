// The memory traffic an FDTD step cannot avoid (the roofline's numerator): the bytes a step must
// move between memory and the chip if every array is streamed once per half step and neighbours
// come from cache.
//   an updated component:   read and written (2 arrays), plus its decay and scale arrays where it
//                           has per-sample ones (make_update_coefficients), plus read and written
//                           psi for each curl term inside a CPML slab (cpml.h's slab arrays);
//   a curl's source:        read once in the other half step (each component the other half
//                           differentiates, however many terms use it).
// Sources, walls and the CPML tables (one value per row or sample along one axis) are left out:
// they are a vanishing fraction of a large problem. The bytes per cell-update are this over the
// lattice's samples; x cell-updates per second it is the bandwidth a run achieves.
#pragma once
#include <cstdint>

#include "science/elec/simulation.h"

namespace spire::elec::cuda {

struct StepTraffic {
  double bytes_per_step = 0;
  double bytes_per_cell_update = 0;
};

StepTraffic step_traffic(const YeeLattice& lattice, const ResolvedBoundaries& boundaries,
                         const MaterialArrays& materials, double dt, Precision precision);
inline StepTraffic step_traffic(const Simulation& sim) {
  return step_traffic(sim.lattice(), sim.boundaries(), sim.materials(), sim.dt(), sim.precision());
}

}  // namespace spire::elec::cuda
