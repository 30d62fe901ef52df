// Random PDE families for `spire pde generate`: each sample is a job with drawn coefficients and
// initial fields, seeded by (seed, sample) alone, so any sample can be regenerated anywhere.
//
//   pdeformer   PDEformer-1's pretraining family (Ye et al. 2024), as its data generator draws it
//               (family_pdeformer.cpp): u_t + f0(u) + s(x) + (f1(u) - kappa(x) u_x)_x = 0, f0 and
//               f1 cubic polynomials with random (often zero) coefficients, s and kappa zero,
//               constant or random fields, periodic (the job's domain) or Dirichlet/Neumann/Robin
//               boundaries drawn at each end. Keys: coef_magnitude (3), kappa_min (1e-3),
//               kappa_max (1), u_bound (10; the solver's bound for these samples). Its data: x in
//               [-1, 1], t in [0, 1], n = 256, dt = 4e-4 (sbdf2), dealias 2, 101 snapshots.
//   advection   PDEBench: u_t + beta u_x = 0 (key beta, 1)
//   burgers     PDEBench: u_t + (u^2/2)_x = nu/pi u_xx (key nu, 0.01)
//   diffusion_reaction  PDEBench: u_t = nu u_xx + rho u (1 - u) (keys nu 0.5, rho 1; initial
//               fields scaled to [0, 1] as PDEBench does)
//   navier_stokes_2d    vorticity form, w_t + u.grad w = nu lap w, lap psi = -w (u = (psi_y,
//                       -psi_x)), initial vorticity a zero-mean Gaussian random field after FNO's
//                       (keys nu 1e-3, alpha 2.5, tau 7, k_max 8), no forcing
//
// The PDEBench families take PDEBench's initial-condition generator (initial.h, the job's
// [random] table) and need a periodic 1D domain; the pdeformer and navier_stokes_2d families draw
// their initial fields themselves and write them into the job as expressions.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "science/flow/job.h"

namespace spire::flow {

struct FamilySample {
  PdeJob job;                                        // the concrete job of this sample
  std::map<std::string, std::vector<double>> coef;   // PDEformer's coef/<name> datasets
};

class Family {
 public:
  virtual ~Family() = default;
  virtual std::string name() const = 0;
  // The job of sample `sample`: base's domain, time and discretization settings with this
  // family's equation, coefficients, boundary conditions and initial fields filled in.
  virtual FamilySample sample(const PdeJob& base, uint64_t sample) const = 0;
};

// ConfigError naming the family and listing the names of family_names().
std::unique_ptr<Family> make_family(const std::string& name, const std::map<std::string, double>& keys);
const std::vector<std::string>& family_names();

// The [family] keys a family takes, with their defaults (the job parser reads exactly these);
// ConfigError listing family_names() for an unknown family. make_family rejects other keys.
const std::map<std::string, double>& family_defaults(const std::string& name);

}  // namespace spire::flow
