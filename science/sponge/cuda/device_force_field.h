// The force terms of a ForceField on one GPU: the cuda platform's counterpart of
// ForceField::compute. Built once from the CPU terms (their parameters are read through their
// public accessors, so both platforms compute the same model), then evaluated every step on
// positions that live on the device.
//
// Terms with a CUDA kernel: lj (every cutoff mode, tail corrections, 1-4 pairs), coulomb by pme
// (direct sum with the same erf spline as the CPU, reciprocal sum with cuFFT, self, excluded
// pairs, background, 1-4 pairs) and by reaction field, bonds, angles, torsions, impropers,
// restraints, external_field. Anything else: ConfigError at construction naming the term and
// these.
//
// Neighbour list on the device: particles binned into cells (a stable sort by cell, so the list
// is a function of the positions alone), a half list in compressed rows sized by a counting pass
// (O(N + pairs) memory that grows and cannot overflow), rebuilt when a particle has moved more than
// half the skin since the last build or the box changed: the CPU list's rule, so never a missed
// pair.
//
// Determinism: every force, energy and virial contribution is added in 64-bit fixed point
// (fixed_point.cuh), so the result has the same bits run after run, whatever the order threads
// finish in. Values differ from the CPU platform's in the last digits (fixed-point rounding of each
// contribution, about 2e-10 absolute), which tests bound.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "science/sponge/force_field.h"

namespace spire::sponge::cuda {

class DeviceForceField {
 public:
  // Uploads the parameters of every term of `forces` for `system` on the current device; work
  // goes to `stream`. The neighbour list's cutoff and skin are the CPU ForceField's. ConfigError
  // naming the first term with no CUDA kernel, and the terms there are.
  DeviceForceField(const System& system, const ForceField& forces, cudaStream_t stream);
  ~DeviceForceField();
  DeviceForceField(const DeviceForceField&) = delete;
  DeviceForceField& operator=(const DeviceForceField&) = delete;

  // The forces at `positions` (device, 3n doubles x0 y0 z0 x1 ...) in `box` into `forces`
  // (device, 3n doubles, overwritten), energies per term and the virial kept on the device for
  // download(). Brings the neighbour list up to date first. Asynchronous on the stream except for
  // the one flag the rebuild decision reads back.
  void compute(const double* positions, const Box& box, double* forces);

  // The energies per term (the CPU terms' names, in their order) and the virial of the latest
  // compute(), into `out` (energies replaced, virial set; its forces are left alone). Waits for
  // the stream.
  void download(ForceResult& out) const;

  int64_t list_builds() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace spire::sponge::cuda
