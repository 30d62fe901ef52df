// ForceResult (force.h): per-term energies in the order the terms first report, so logs list
// them as the force field does; the total is summed in that fixed order.
#include "science/sponge/force.h"

namespace spire::sponge {

void ForceResult::reset(int64_t n) {
  forces.assign(size_t(n), Vec3{});
  energies.clear();
  virial = Mat3{};
}

void ForceResult::add_energy(const std::string& term, double e) {
  for (auto& [name, value] : energies)
    if (name == term) {
      value += e;
      return;
    }
  energies.emplace_back(term, e);
}

double ForceResult::energy() const {
  double total = 0;
  for (const auto& [name, value] : energies) total += value;
  return total;
}

double ForceResult::energy_of(const std::string& term) const {
  for (const auto& [name, value] : energies)
    if (name == term) return value;
  return 0;
}

}  // namespace spire::sponge
