// A differentiable FDTD run as an engine op, so that objectives written with engine ops (abs, sum,
// the Poynting flux below) get their gradient with respect to the design permittivities from
// spire::grad / backward(), and engine optimisers can drive an inverse design.
//
// The op "elec.fdtd_run" maps the design values eps (a float64 tensor of the design grid's shape,
// design_region.h) to one complex128 tensor per DftOutput of the DifferentiableRun (adjoint.h),
// shaped {nfreq, npoints}. Its reverse rule is the op "elec.fdtd_run_vjp", whose kernel is the
// adjoint run (DifferentiableRun::gradient): reverse-time, recomputing from checkpoints. The run
// itself is not an attribute value: an FdtdOp registers it under an integer handle that the call
// carries, for as long as the FdtdOp lives. The run keeps the checkpoints of its latest forward
// pass; the reverse rule runs the forward pass again first when it is asked about other values of
// eps (a graph recorded before another call of the same op).
//
// Forward-mode (jvp) and second derivatives are not provided: a forward rule would be a tangent
// FDTD run and a second-order rule an adjoint of the adjoint; both raise AutodiffError naming the op.
#pragma once
#include <memory>
#include <vector>

#include "engine/core/tensor.h"
#include "science/elec/adjoint.h"

namespace spire::elec {

class FdtdOp {
 public:
  explicit FdtdOp(DifferentiableRun run);
  ~FdtdOp();
  FdtdOp(const FdtdOp&) = delete;
  FdtdOp& operator=(const FdtdOp&) = delete;

  // The outputs for design values eps (any real dtype; cast to float64, which autodiff sees).
  // ShapeError when eps does not have design_size() values.
  std::vector<Tensor> operator()(const Tensor& eps) const;
  const DifferentiableRun& run() const;

  struct Entry;  // the registered run (fdtd_op.cpp)

 private:
  std::shared_ptr<Entry> entry_;
  int64_t handle_;
};

// The Poynting flux through the points of a FluxRegion (flux.h's convention), per frequency, from
// the outputs of the tangential fields at those points (adjoint.h's flux_points), each {nfreq,
// npoints}: with (a, b) the tangential axes in cyclic order after the normal,
//   flux(f) = scale * sum_p Re(conj(E_a) H_b - conj(E_b) H_a),
// scale = the region's weight times the area each point stands for (SurfaceDft::point_measure). An
// undefined tensor stands for a component the problem does not carry (zero). Returns {nfreq}.
Tensor poynting_flux(const Tensor& e_a, const Tensor& h_b, const Tensor& e_b, const Tensor& h_a, double scale);

}  // namespace spire::elec
