// Position restraints and uniform external fields (bonded.h).
#include <cmath>
#include <utility>

#include "engine/core/error.h"
#include "science/sponge/bonded.h"

namespace spire::sponge {

PositionRestraints::PositionRestraints(std::vector<PositionRestraint> restraints)
    : restraints_(std::move(restraints)) {
  for (size_t r = 0; r < restraints_.size(); ++r) {
    const PositionRestraint& p = restraints_[r];
    SPIRE_CHECK(std::isfinite(p.k) && p.k >= 0, ValueError, "restraints: restraint ", r, " on particle ",
                p.particle, " has k = ", p.k, "; k must be finite and >= 0");
    SPIRE_CHECK(std::isfinite(p.reference.x) && std::isfinite(p.reference.y) && std::isfinite(p.reference.z),
                ValueError, "restraints: restraint ", r, " on particle ", p.particle, " has a non-finite reference");
  }
}

void PositionRestraints::check(const System& system, const State& state) const {
  SPIRE_CHECK(int64_t(state.positions.size()) == system.size(), ValueError, "restraints: ",
              state.positions.size(), " positions for ", system.size(), " particles");
  for (size_t r = 0; r < restraints_.size(); ++r)
    SPIRE_CHECK(restraints_[r].particle >= 0 && restraints_[r].particle < system.size(), ValueError,
                "restraints: restraint ", r, " names particle ", restraints_[r].particle, ", outside [0, ",
                system.size(), ")");
}

void PositionRestraints::add(const System& system, const State& state, const NeighborList*, ForceResult& out) {
  double energy = 0;
  for (const PositionRestraint& p : restraints_) {
    const Vec3 d = state.box.min_image(state.positions[size_t(p.particle)] - p.reference);
    energy += 0.5 * p.k * norm2(d);
    const Vec3 f = d * -p.k;
    out.forces[size_t(p.particle)] += f;
    out.virial.add_outer(d, f);
  }
  out.add_energy(name(), energy);
}

ExternalField::ExternalField(const Vec3& electric_field, const Vec3& acceleration)
    : field_(electric_field), acceleration_(acceleration) {
  for (int a = 0; a < 3; ++a)
    SPIRE_CHECK(std::isfinite(field_[a]) && std::isfinite(acceleration_[a]), ValueError,
                "external_field: the field and the acceleration must be finite");
}

void ExternalField::check(const System& system, const State& state) const {
  SPIRE_CHECK(int64_t(state.positions.size()) == system.size() && int64_t(system.charge.size()) == system.size() &&
                  int64_t(system.mass.size()) == system.size(),
              ValueError, "external_field: positions, charges and masses must number ", system.size());
}

void ExternalField::add(const System& system, const State& state, const NeighborList*, ForceResult& out) {
  double energy = 0;
  for (int64_t i = 0; i < system.size(); ++i) {
    const Vec3 f = system.charge[size_t(i)] * field_ + system.mass[size_t(i)] * acceleration_;
    out.forces[size_t(i)] += f;
    energy -= dot(f, state.positions[size_t(i)]);
  }
  out.add_energy(name(), energy);
}

}  // namespace spire::sponge
