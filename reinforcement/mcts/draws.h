// Draws that search needs beyond Generator's uniform and normal ones: Gamma (Marsaglia and Tsang's
// method), Dirichlet (normalised Gammas, AlphaZero's root noise) and Gumbel (Gumbel MuZero's
// root perturbation). Written out here rather than taken from <random>, whose distributions are
// implementation-defined: the same seed gives the same draws with any standard library.
#pragma once
#include <cmath>
#include <span>

#include "reinforcement/envs/np_random.h"

namespace spire::rl {

// Gamma(shape, 1), shape > 0. Marsaglia and Tsang (2000) for shape >= 1; below 1 the boost
// Gamma(shape) = Gamma(shape + 1) * U^(1 / shape).
inline double gamma_draw(Generator& rng, double shape) {
  if (shape < 1.0) {
    const double u = 1.0 - rng.random();  // (0, 1]: the power stays finite
    return gamma_draw(rng, shape + 1.0) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = rng.normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = 1.0 - rng.random();
    if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

// A symmetric Dirichlet(alpha, ..., alpha) draw into out (out.size() components, alpha > 0).
inline void dirichlet_draw(Generator& rng, double alpha, std::span<double> out) {
  double sum = 0;
  for (double& x : out) sum += (x = gamma_draw(rng, alpha));
  if (sum > 0) {
    for (double& x : out) x /= sum;
  } else {  // every Gamma underflowed (tiny alpha): all the mass on one component, as the limit
    for (double& x : out) x = 0;
    if (!out.empty()) out[static_cast<size_t>(rng.below(static_cast<int64_t>(out.size())))] = 1;
  }
}

// A standard Gumbel draw: -log(-log(U)), U in (0, 1).
inline double gumbel_draw(Generator& rng) {
  double u;
  do u = rng.random();
  while (u <= 0.0);
  return -std::log(-std::log(u));
}

}  // namespace spire::rl
