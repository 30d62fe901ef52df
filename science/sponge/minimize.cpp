// FIRE 2.0 and L-BFGS energy minimisation (minimize.h).
#include "science/sponge/minimize.h"

#include <algorithm>
#include <cmath>
#include <deque>

#include "engine/core/error.h"

namespace spire::sponge {

namespace {

double default_max_step(const Units& units) { return units.name == "lj" ? 0.1 : 0.01; }

void check_common(const char* who, const System& system, const State& state, double tolerance,
                  int64_t max_iterations) {
  system.check();
  SPIRE_CHECK(int64_t(state.positions.size()) == system.size(), ValueError, who, ": the state has ",
              state.positions.size(), " positions for a system of ", system.size(), " particles");
  SPIRE_CHECK(std::isfinite(tolerance) && tolerance > 0, ValueError, who, ": force_tolerance ", tolerance,
              " must be > 0 (energy / length: kJ/mol/nm in md, epsilon/sigma in lj)");
  SPIRE_CHECK(max_iterations >= 0, ValueError, who, ": max_iterations ", max_iterations, " must be >= 0");
}

double largest(const std::vector<Vec3>& v) {
  double m = 0;
  for (const Vec3& x : v) m = std::max(m, norm2(x));
  return std::sqrt(m);
}

}  // namespace

MinimizeResult minimize_fire(const System& system, State& state, ForceField& forces, const FireOptions& o) {
  check_common("minimize_fire", system, state, o.force_tolerance, o.max_iterations);
  SPIRE_CHECK(o.dt >= 0 && o.dt_max_factor >= 1 && o.dt_min_factor > 0 && o.dt_min_factor <= 1 && o.dt_grow >= 1 &&
                  o.dt_shrink > 0 && o.dt_shrink < 1 && o.alpha_start > 0 && o.alpha_start < 1 &&
                  o.alpha_shrink > 0 && o.alpha_shrink <= 1 && o.delay >= 0 && o.max_uphill >= 1 && o.max_step >= 0,
              ValueError,
              "minimize_fire: options out of range (need dt >= 0, dt_max_factor >= 1, 0 < dt_min_factor <= 1, "
              "dt_grow >= 1, 0 < dt_shrink < 1, 0 < alpha_start < 1, 0 < alpha_shrink <= 1, delay >= 0, "
              "max_uphill >= 1, max_step >= 0)");
  const int64_t n = system.size();
  const Constraints constraints(system, o.constraints);
  const double dt0 = o.dt > 0 ? o.dt : (system.units.name == "lj" ? 0.005 : 0.002);
  const double dt_max = o.dt_max_factor * dt0, dt_min = o.dt_min_factor * dt0;
  const double max_step = o.max_step > 0 ? o.max_step : default_max_step(system.units);
  std::vector<Vec3> reference;
  if (!constraints.empty() && constraints.max_deviation(state.box, state.positions) > o.constraints.tolerance) {
    reference = state.positions;
    constraints.constrain_positions(state.box, reference, state.positions, nullptr, 1, nullptr, 1);
  }

  MinimizeResult result;
  std::vector<Vec3> f(static_cast<size_t>(n)), v(static_cast<size_t>(n), Vec3{});
  // Forces with the constraint forces projected out (the mass-weighted projection RATTLE makes
  // of the accelerations), zero on fixed particles.
  auto evaluate = [&] {
    forces.compute(system, state);
    ++result.evaluations;
    const std::vector<Vec3>& raw = forces.result().forces;
    for (int64_t i = 0; i < n; ++i) {
      const double m = system.mass[size_t(i)];
      f[size_t(i)] = m > 0 ? raw[size_t(i)] / m : Vec3{};
    }
    if (!constraints.empty()) constraints.constrain_velocities(state.box, state.positions, f, nullptr, 1);
    for (int64_t i = 0; i < n; ++i) f[size_t(i)] *= system.mass[size_t(i)];
    result.energy = forces.result().energy();
    result.max_force = largest(f);
    return result.max_force <= o.force_tolerance;
  };

  if (evaluate()) {
    result.converged = true;
    result.stop_reason = "forces already below the tolerance";
    return result;
  }
  double dt = dt0, alpha = o.alpha_start;
  int64_t positive = 0, uphill = 0;
  for (int64_t it = 1; it <= o.max_iterations; ++it) {
    result.iterations = it;
    double power = 0;
    for (int64_t i = 0; i < n; ++i) power += dot(f[size_t(i)], v[size_t(i)]);
    if (power > 0) {
      ++positive;
      uphill = 0;
      if (positive > o.delay) {
        dt = std::min(dt * o.dt_grow, dt_max);
        alpha *= o.alpha_shrink;
      }
    } else {
      positive = 0;
      if (++uphill > o.max_uphill) {
        result.stop_reason = "too many consecutive uphill steps";
        return result;
      }
      if (it > o.delay) {
        dt = std::max(dt * o.dt_shrink, dt_min);
        alpha = o.alpha_start;
      }
      // FIRE 2.0: half a step back from the overshoot, then start again from rest.
      if (!constraints.empty()) reference = state.positions;
      for (int64_t i = 0; i < n; ++i) state.positions[size_t(i)] -= (0.5 * dt) * v[size_t(i)];
      if (!constraints.empty())
        constraints.constrain_positions(state.box, reference, state.positions, nullptr, 1, nullptr, 1);
      std::fill(v.begin(), v.end(), Vec3{});
    }
    // Semi-implicit Euler with FIRE's mixing of the velocity towards the force.
    double v2 = 0, f2 = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double m = system.mass[size_t(i)];
      if (m > 0) v[size_t(i)] += (dt / m) * f[size_t(i)];
      v2 += norm2(v[size_t(i)]);
      f2 += norm2(f[size_t(i)]);
    }
    if (f2 > 0) {
      const double mix = alpha * std::sqrt(v2 / f2);
      for (int64_t i = 0; i < n; ++i) v[size_t(i)] = (1 - alpha) * v[size_t(i)] + mix * f[size_t(i)];
    }
    if (!constraints.empty()) constraints.constrain_velocities(state.box, state.positions, v, nullptr, 1);
    const double v_max = largest(v);
    const double step = v_max * dt > max_step ? max_step / v_max : dt;
    if (!constraints.empty()) reference = state.positions;
    for (int64_t i = 0; i < n; ++i) state.positions[size_t(i)] += step * v[size_t(i)];
    if (!constraints.empty())
      constraints.constrain_positions(state.box, reference, state.positions, nullptr, 1, nullptr, 1);
    if (evaluate()) {
      result.converged = true;
      result.stop_reason = "converged";
      return result;
    }
  }
  result.stop_reason = "max_iterations reached";
  return result;
}

MinimizeResult minimize_lbfgs(const System& system, State& state, ForceField& forces, const LbfgsOptions& o) {
  check_common("minimize_lbfgs", system, state, o.force_tolerance, o.max_iterations);
  SPIRE_CHECK(o.memory >= 1, ValueError, "minimize_lbfgs: memory ", o.memory, " must be >= 1");
  SPIRE_CHECK(o.max_step >= 0, ValueError, "minimize_lbfgs: max_step ", o.max_step, " must be >= 0");
  SPIRE_CHECK(system.topology.constraints.empty() && system.topology.waters.empty(), ValueError,
              "minimize_lbfgs: the system has constraints or rigid waters, which L-BFGS does not keep; use "
              "minimize_fire");
  const int64_t n = system.size();
  const double max_step = o.max_step > 0 ? o.max_step : default_max_step(system.units);
  using Vector = std::vector<Vec3>;
  auto dot_all = [](const Vector& a, const Vector& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += dot(a[i], b[i]);
    return s;
  };

  MinimizeResult result;
  Vector g(static_cast<size_t>(n));  // the gradient -F, zero on fixed particles
  auto evaluate = [&](Vector& gradient) {
    forces.compute(system, state);
    ++result.evaluations;
    const Vector& f = forces.result().forces;
    for (int64_t i = 0; i < n; ++i) gradient[size_t(i)] = system.mass[size_t(i)] > 0 ? -f[size_t(i)] : Vec3{};
    return forces.result().energy();
  };
  double energy = evaluate(g);
  struct Pair {
    Vector s, y;
    double rho;
  };
  std::deque<Pair> history;
  Vector d(static_cast<size_t>(n)), g_new(static_cast<size_t>(n)), x0;
  std::vector<double> a(static_cast<size_t>(o.memory));
  for (int64_t it = 0;; ++it) {
    result.energy = energy;
    result.max_force = largest(g);
    if (result.max_force <= o.force_tolerance) {
      result.converged = true;
      result.stop_reason = it == 0 ? "forces already below the tolerance" : "converged";
      return result;
    }
    if (it == o.max_iterations) {
      result.stop_reason = "max_iterations reached";
      return result;
    }
    result.iterations = it + 1;
    // Two-loop recursion: d = -H g with H0 = (s.y / y.y) I from the newest pair.
    d = g;
    for (size_t k = history.size(); k-- > 0;) {
      a[k] = history[k].rho * dot_all(history[k].s, d);
      for (int64_t i = 0; i < n; ++i) d[size_t(i)] -= a[k] * history[k].y[size_t(i)];
    }
    if (!history.empty()) {
      const Pair& p = history.back();
      const double gamma = dot_all(p.s, p.y) / dot_all(p.y, p.y);
      for (Vec3& x : d) x *= gamma;
    }
    for (size_t k = 0; k < history.size(); ++k) {
      const double b = history[k].rho * dot_all(history[k].y, d);
      for (int64_t i = 0; i < n; ++i) d[size_t(i)] += (a[k] - b) * history[k].s[size_t(i)];
    }
    for (Vec3& x : d) x = -x;
    double slope = dot_all(g, d);
    if (!(slope < 0)) {  // not a descent direction: forget the curvature, go downhill
      history.clear();
      for (int64_t i = 0; i < n; ++i) d[size_t(i)] = -g[size_t(i)];
      slope = dot_all(g, d);
    }
    const double d_max = largest(d);
    if (d_max > max_step) {
      for (Vec3& x : d) x *= max_step / d_max;
      slope *= max_step / d_max;
    }
    // Backtracking to Armijo's sufficient decrease. Close to the minimum the decrease it asks for
    // falls below the energy's round-off (|g|^2 / k against 1e-16 |E|); there a step whose energy
    // change is within round-off is taken when it lowers the largest force, so tight force
    // tolerances remain reachable.
    x0 = state.positions;
    const double round_off = 1e-13 * std::max(std::abs(energy), 1e-300);
    const double force_now = largest(g);
    double step = 1, new_energy = 0;
    bool accepted = false;
    for (int tries = 0; tries < 50; ++tries, step *= 0.5) {
      for (int64_t i = 0; i < n; ++i) state.positions[size_t(i)] = x0[size_t(i)] + step * d[size_t(i)];
      new_energy = evaluate(g_new);
      accepted = new_energy <= energy + 1e-4 * step * slope ||
                 (std::abs(new_energy - energy) <= round_off && largest(g_new) < force_now);
      if (accepted) break;
    }
    if (!accepted) {
      state.positions = x0;
      energy = evaluate(g);
      if (!history.empty()) {  // retry from steepest descent before giving up
        history.clear();
        continue;
      }
      result.energy = energy;
      result.max_force = largest(g);
      result.stop_reason = "line search found no lower energy (the tolerance may be below round-off)";
      return result;
    }
    Pair p{Vector(size_t(n)), Vector(size_t(n)), 0};
    for (int64_t i = 0; i < n; ++i) {
      p.s[size_t(i)] = state.positions[size_t(i)] - x0[size_t(i)];
      p.y[size_t(i)] = g_new[size_t(i)] - g[size_t(i)];
    }
    const double sy = dot_all(p.s, p.y);
    if (sy > 1e-12 * std::sqrt(dot_all(p.s, p.s) * dot_all(p.y, p.y))) {  // keep H positive definite
      p.rho = 1 / sy;
      history.push_back(std::move(p));
      if (int(history.size()) > o.memory) history.pop_front();
    }
    g.swap(g_new);
    energy = new_energy;
  }
}

}  // namespace spire::sponge
