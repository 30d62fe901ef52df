// Bussi's stochastic velocity rescaling (bussi.h): the exact solution of the kinetic energy's
// stochastic equation over one interval, as in the authors' reference code (resamplekin).
#include "science/sponge/bussi.h"

#include <cmath>

#include "engine/core/error.h"
#include "science/sponge/saved_state.h"

namespace spire::sponge {

namespace {
// Draws 0 (R1) and 1 .. n of a counter are normals from blocks k / 2; the gamma method's attempts
// use blocks from kGammaBase on, so the two never share numbers.
constexpr uint64_t kGammaBase = uint64_t(1) << 40;
// Below this many terms the chi-squared variate is the plain sum (cheaper than the gamma method's
// logarithms, and exact either way).
constexpr int64_t kDirectSumBelow = 64;

double normal_draw(const MdRandom& random, uint64_t counter, uint64_t k) {
  double z0, z1;
  random.normals(RandomTag::bussi, counter, k / 2, z0, z1);
  return (k % 2) ? z1 : z0;
}
}  // namespace

BussiThermostat::BussiThermostat(double temperature, double time_constant, uint64_t seed)
    : Thermostat("bussi", temperature, time_constant), random_(seed) {}

double BussiThermostat::sum_of_squared_normals(int64_t n, uint64_t counter) const {
  if (n <= 0) return 0;
  if (n < kDirectSumBelow) {
    double s = 0;
    for (int64_t k = 1; k <= n; ++k) {
      const double z = normal_draw(random_, counter, uint64_t(k));
      s += z * z;
    }
    return s;
  }
  // chi^2_n = 2 Gamma(n / 2); Marsaglia and Tsang (ACM TOMS 26, 363, 2000) for shape a >= 1, here
  // a >= 32. Each attempt takes one block for its normal and one for its uniform.
  const double a = 0.5 * double(n), d = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (uint64_t attempt = 0;; ++attempt) {
    double x, unused;
    random_.normals(RandomTag::bussi, counter, kGammaBase + 2 * attempt, x, unused);
    double v = 1.0 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    philox::Block b = random_.block(RandomTag::bussi, counter, kGammaBase + 2 * attempt + 1);
    const double u = philox::unit_double_open0(b[0], b[1]);
    if (philox::detail::log_portable(u) < 0.5 * x * x + d - d * v + d * philox::detail::log_portable(v))
      return 2.0 * d * v;
  }
}

double BussiThermostat::scale(double kinetic, double interval, int64_t step, int half) {
  check_setup("bussi");
  // No motion to rescale: the direction of the velocities is undefined until forces create some.
  if (!(kinetic > 0)) return 1;
  const double n = double(dof_);
  const double target = 0.5 * n * kT_;
  const double c = std::exp(-interval / time_constant_);
  const uint64_t counter = 2 * uint64_t(step) + uint64_t(half);
  const double r1 = normal_draw(random_, counter, 0);
  const double sum = sum_of_squared_normals(dof_ - 1, counter);
  const double k_new = c * kinetic + (1 - c) * target * (r1 * r1 + sum) / n +
                       2 * r1 * std::sqrt(c * (1 - c) * kinetic * target / n);
  heat_ += k_new - kinetic;
  return std::sqrt(k_new / kinetic);
}

void BussiThermostat::save_state(IntegratorState& out) const { out["thermostat.bussi.heat"] = {heat_}; }

void BussiThermostat::load_state(const IntegratorState& in) { heat_ = saved_value(in, "thermostat.bussi.heat"); }

}  // namespace spire::sponge
