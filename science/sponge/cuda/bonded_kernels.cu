// The bonded kernels: thin wrappers around the bodies of bonded_kernels.cuh.
#include "science/sponge/cuda/bonded_kernels.cuh"
#include "science/sponge/cuda/launch.cuh"

namespace spire::sponge::cuda {

void launch_bonds(const BondedArgs<Bond>& a, int64_t count, cudaStream_t stream) {
  launch_each_tallied(count, a.slots, stream, "bonds", [=] __device__(int64_t t, Tally& y) { harmonic_bond(a, t, y); });
}

void launch_angles(const BondedArgs<Angle>& a, int64_t count, cudaStream_t stream) {
  launch_each_tallied(count, a.slots, stream, "angles", [=] __device__(int64_t t, Tally& y) { harmonic_angle(a, t, y); });
}

void launch_torsions(const BondedArgs<Torsion>& a, int64_t count, cudaStream_t stream) {
  launch_each_tallied(count, a.slots, stream, "torsions",
                      [=] __device__(int64_t t, Tally& y) { periodic_torsion(a, t, y); });
}

void launch_impropers(const BondedArgs<Improper>& a, int64_t count, cudaStream_t stream) {
  launch_each_tallied(count, a.slots, stream, "impropers",
                      [=] __device__(int64_t t, Tally& y) { harmonic_improper(a, t, y); });
}

void launch_restraints(const BondedArgs<RestraintTerm>& a, int64_t count, cudaStream_t stream) {
  launch_each_tallied(count, a.slots, stream, "restraints",
                      [=] __device__(int64_t t, Tally& y) { position_restraint(a, t, y); });
}

void launch_external_field(const FieldArgs& a, int64_t particles, cudaStream_t stream) {
  launch_each_tallied(particles, a.slots, stream, "external field",
                      [=] __device__(int64_t i, Tally& y) { external_field(a, i, y); });
}

void launch_forces_from_fixed(const long long* fixed, double* forces, int64_t components, cudaStream_t stream) {
  launch_each(components, stream, "forces from fixed point",
              [=] __device__(int64_t k) { forces_from_fixed(fixed, forces, k); });
}

}  // namespace spire::sponge::cuda
