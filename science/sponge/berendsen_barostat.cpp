// Berendsen's barostat (berendsen_barostat.h).
#include "science/sponge/berendsen_barostat.h"

#include <cmath>

#include "engine/core/error.h"
#include "science/sponge/md_integrator.h"

namespace spire::sponge {

BerendsenBarostat::BerendsenBarostat(double pressure, BerendsenBarostatOptions options)
    : BerendsenBarostat(Vec3{pressure, pressure, pressure}, options) {
  options_.anisotropic = options.anisotropic;
}

BerendsenBarostat::BerendsenBarostat(const Vec3& pressure, BerendsenBarostatOptions options)
    : Barostat("berendsen_barostat", options.frequency, options.scaling), pressure_(pressure), options_(options) {
  options_.anisotropic = true;
  for (int a = 0; a < 3; ++a)
    SPIRE_CHECK(std::isfinite(pressure[a]), ValueError, "berendsen_barostat: pressure ", pressure[a], " must be finite");
  SPIRE_CHECK(std::isfinite(options.compressibility) && options.compressibility > 0, ValueError,
              "berendsen_barostat: compressibility ", options.compressibility,
              " must be > 0 (1 / pressure unit: 4.5e-5 / bar for water)");
  SPIRE_CHECK(std::isfinite(options.time_constant) && options.time_constant > 0, ValueError,
              "berendsen_barostat: time_constant ", options.time_constant, " must be > 0");
}

void BerendsenBarostat::setup(const System& system, const State& state) {
  Barostat::setup(system, state);
  pressure_unit_ = system.units.pressure_unit;
}

void BerendsenBarostat::apply(const System& system, State& state, ForceField& forces,
                              const MdIntegrator& integrator) {
  // In display units on both sides, so beta needs no conversion.
  const Mat3 p = pressure_tensor(system, state, forces, integrator) * (1 / pressure_unit_);
  const double rate = options_.compressibility * double(frequency_) * integrator.dt() / (3 * options_.time_constant);
  Mat3 mu = Mat3::identity();
  for (int a = 0; a < 3; ++a) {
    const double pa = options_.anisotropic ? p(a, a) : p.trace() / 3;
    mu(a, a) = 1 - rate * (pressure_[a] - pa);
    SPIRE_CHECK(mu(a, a) > 0, ValueError, "berendsen_barostat: scaling factor ", mu(a, a), " along axis ", a,
                " (pressure ", pa, " against ", pressure_[a], "); the coupling is far too strong: raise time_constant "
                "or lower compressibility");
  }
  const double energy = forces.result().energy();
  const Box box = state.box;
  scale_positions(box, mu, state.positions);
  state.box = box.scaled(mu);
  work_ += forces.compute(system, state).energy() - energy;
  last_mu_ = mu;
}

}  // namespace spire::sponge
