// Berendsen's weak-coupling barostat (J. Chem. Phys. 81, 3684, 1984; GROMACS's Berendsen
// pcoupl, LAMMPS's fix press/berendsen): every `frequency` steps the box and positions are scaled by
//   mu = 1 - (beta interval / (3 tau)) (P0 - P)            isotropic, P = tr(P_tensor) / 3
//   mu_aa = 1 - (beta interval / (3 tau)) (P0_a - P_aa)    anisotropic, per axis
// (interval = frequency dt), so the pressure relaxes to P0 with time constant tau: for an ideal gas
// dV/dt = -(beta / tau) (P0 V - N k_B T) exactly to first order in the interval. P is the
// instantaneous pressure with the constraint virial (md_integrator.h). Like the Berendsen
// thermostat it does not sample the isobaric ensemble (volume fluctuations are too small): use it to
// equilibrate, the Monte Carlo barostat to sample.
#pragma once
#include "science/sponge/barostat.h"

namespace spire::sponge {

struct BerendsenBarostatOptions {
  // beta in 1 / display pressure unit (4.5e-5 / bar for water; GROMACS's compressibility).
  double compressibility = 4.5e-5;
  double time_constant = 1;  // tau_p, in the system's time unit (ps in md)
  int64_t frequency = 1;
  bool anisotropic = false;  // scale each axis by its own diagonal pressure (GROMACS's anisotropic)
  BarostatScaling scaling = BarostatScaling::molecule;
};

class BerendsenBarostat : public Barostat {
 public:
  // pressure P0 in display units; compressibility and time_constant > 0: ValueError otherwise.
  BerendsenBarostat(double pressure, BerendsenBarostatOptions options = {});
  // A reference pressure per axis (GROMACS's ref-p for anisotropic coupling): anisotropic.
  BerendsenBarostat(const Vec3& pressure, BerendsenBarostatOptions options = {});
  std::string name() const override { return "berendsen_barostat"; }
  void setup(const System& system, const State& state) override;
  void apply(const System& system, State& state, ForceField& forces, const MdIntegrator& integrator) override;
  const BerendsenBarostatOptions& options() const { return options_; }
  // The scaling of the latest move (identity before the first).
  const Mat3& last_scaling() const { return last_mu_; }

 private:
  Vec3 pressure_;  // display units, per axis
  BerendsenBarostatOptions options_;
  double pressure_unit_ = 1;
  Mat3 last_mu_ = Mat3::identity();
};

}  // namespace spire::sponge
