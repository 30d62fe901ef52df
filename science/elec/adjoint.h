// A differentiable FDTD run: design permittivities in (design_region.h), DFT outputs out, and the
// gradient of an objective of those outputs with respect to the design values by the adjoint
// (reverse-time) run, with field checkpointing so that memory grows as sqrt(steps).
//
// The run: the problem's lattice, boundaries, geometry (sampled with subpixel averaging, as
// build() does) and sources, with the design region's samples set to 1/eps (no averaging there),
// stepped from zero fields while time() < until (Simulation::run). After each step n = 1..N the
// outputs accumulate as DftFields does (dft.h): out[f, p] = sum_n dt e^{i omega_f t_n} G_p(u^n),
// G_p the interpolation of the output's component at point p and t_n that component's time (H half
// a step behind E).
//
// The gradient: with the step u^{n+1} = A(inv_eps) u^n + s^n (adjoint_step.h) and cotangents g
// (g = dL/dRe(out) + i dL/dIm(out), the engine's conjugate convention, engine/core/op.h),
//   lambda^N = dL/du^N,   lambda^n = A^T lambda^{n+1} + dL/du^n,
//   dL/du^n = sum_{f,p} dt Re(conj(g[f,p]) e^{i omega_f t_n}) G_p^T,
//   dL/d inv_eps_i = sum_{n=1..N} (P_E lambda^n)_i (dt/dx) / (1 + sigma_i dt/2) curl_i(u^n),
// where curl_i(u^n) is the curl of H^{n-1/2} (CPML terms included) that step n applied at sample i
// (the E update's scale is (dt/dx) inv_eps / (1 + sigma dt/2) times it), and DesignRegion::chain
// turns that into dL/d eps. The adjoint run needs the forward states backwards in time: forward()
// keeps the state every K = checkpoint_every steps; gradient() walks the segments from the last,
// recomputes each from its checkpoint (Simulation::load_state), keeping only the curls at the
// design samples, then runs the adjoint back through it. Stored states: ceil(N/K) checkpoints plus
// one segment of K steps (counted as K states, though it holds only the design samples' curls),
// about 2 sqrt(N) for the default K = round(sqrt(N)). The recomputed states are the original ones
// bit for bit, so the gradient does not depend on K.
//
// Cost: gradient() takes, per step, one recomputed forward step and one adjoint step (about two
// forward steps, adjoint_step.h), plus the curls at the design samples: about 3 forward() runs
// (measured on one thread: 2D TM, 51200 cells, 2400 steps, 900 design values: 0.22 s forward,
// 0.68 s gradient). Where the design region reaches into a CPML slab the curls need the E-update
// psi, which the Simulation only gives through save_state(): each recomputed step then copies the
// state once more. The forward and recomputed steps run on the problem's platform (a device engine
// hands its fields to the host every recomputed step); the adjoint runs on the CPU.
//
// What it covers: real, float64, non-dispersive problems (pec, pmc, pml and periodic walls,
// conductivity, pec objects, sources of any component outside the design region). ConfigError
// otherwise, naming what is not supported: bloch boundaries (complex fields), float32,
// susceptibilities, an electric current on a design sample (a source's, a plane wave's surface
// current or a port's: its injected current is scaled by inv_eps). Plane waves and lumped ports
// elsewhere are part of the run: it is build()'s (problem.h) with the design values edited in.
#pragma once
#include <array>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "science/elec/design_region.h"
#include "science/elec/flux.h"
#include "science/elec/problem.h"

namespace spire::elec {

// One output: a DFT (dft.h) of one component at a rectilinear set of points (positions per axis,
// as DftFields' constructor takes), at these frequencies.
struct DftOutput {
  Component component = Component::Ez;
  std::array<std::vector<double>, 3> positions;
  std::vector<double> frequencies;
};

// The points of a FluxRegion (flux.h's common points) as DftOutput positions, so that a flux
// objective can be assembled from the tangential E and H outputs at the same points. ValueError as
// Flux for a region that is not a plane, line or point of the lattice.
std::array<std::vector<double>, 3> flux_points(const YeeLattice& lattice, const FluxRegion& region);

struct AdjointOptions {
  int64_t checkpoint_every = 0;  // steps between stored states; 0: about sqrt(steps)
};

class DifferentiableRun {
 public:
  // ConfigError for what is not supported (header comment); ValueError for a bad problem (as
  // build()), a design region that does not fit the lattice, an output on a component the problem
  // lacks or with points outside the cell or no frequencies, a non-finite until, a negative
  // checkpoint_every.
  DifferentiableRun(Problem problem, DesignRegion region, std::vector<DftOutput> outputs, double until,
                    AdjointOptions options = {});
  ~DifferentiableRun();
  DifferentiableRun(DifferentiableRun&&) noexcept;
  DifferentiableRun& operator=(DifferentiableRun&&) noexcept;

  int64_t design_size() const;  // number of design values
  size_t outputs() const;
  // Output k's values: frequency-major (frequency index f, then the points in DftFields' order),
  // complex, as DftFields accumulates them (sum_n f(t_n) e^{i omega t_n} dt, H at t - dt/2).
  std::vector<int64_t> output_shape(size_t k) const;  // {nfreq, npoints}
  // Runs the problem with these design values (ValueError from DesignRegion::check_values).
  std::vector<std::vector<std::complex<double>>> forward(const std::vector<double>& eps);
  // d objective / d eps for cotangents g_k = dL/dRe(out_k) + i dL/dIm(out_k), at the eps of the
  // last forward() (ValueError if forward() was not called, or for cotangents of the wrong count or
  // lengths). Runs the adjoint backwards in time from the last step, recomputing each segment of
  // checkpoint_every steps from its stored state.
  std::vector<double> gradient(const std::vector<std::vector<std::complex<double>>>& cotangents);
  // Peak number of stored field states during the last gradient() (header comment).
  int64_t peak_stored_states() const;

  // The steps a run takes and the checkpoint interval in use.
  int64_t steps() const;
  int64_t checkpoint_every() const;
  double dt() const;
  const YeeLattice& lattice() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace spire::elec
