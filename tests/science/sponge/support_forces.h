// Checks every force term's tests share: one evaluation from scratch, and forces and virials
// against central finite differences of the energy (forces: -dU/dx; virial: -dU/d(strain), with
// the box and every position carried by the strain).
#pragma once
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "science/sponge/force.h"
#include "science/sponge/state.h"
#include "science/sponge/system.h"

namespace spire::sponge::testing {

// check() and add() into a fresh result, without a neighbour list.
inline ForceResult evaluate(Force& force, const System& system, const State& state) {
  ForceResult out;
  out.reset(system.size());
  force.check(system, state);
  force.add(system, state, nullptr, out);
  return out;
}

inline double energy_at(Force& force, const System& system, const State& state) {
  ForceResult out;
  out.reset(system.size());
  force.add(system, state, nullptr, out);
  return out.energy();
}

// -(U(x_ia + h) - U(x_ia - h)) / 2h, U = energy(state).
template <class Energy>
double fd_force(const State& state, int i, int a, double h, Energy energy) {
  State s = state;
  s.positions[size_t(i)][a] += h;
  const double ep = energy(s);
  s.positions[size_t(i)][a] -= 2 * h;
  const double em = energy(s);
  return -(ep - em) / (2 * h);
}

inline double fd_force(Force& force, const System& system, const State& state, int i, int a, double h) {
  return fd_force(state, i, a, h, [&](const State& s) { return energy_at(force, system, s); });
}

// Over particles 0, stride, 2 stride, ... and every axis: the largest |F - F_fd| and the largest
// |F_fd| (the scale to judge it by).
struct ForceErrors {
  double worst = 0, scale = 0;
};
inline ForceErrors fd_force_errors(Force& force, const System& system, const State& state, int stride, double h) {
  const ForceResult out = evaluate(force, system, state);
  ForceErrors e;
  for (int i = 0; i < int(system.size()); i += stride)
    for (int a = 0; a < 3; ++a) {
      const double fd = fd_force(force, system, state, i, a, h);
      e.worst = std::max(e.worst, std::fabs(fd - out.forces[size_t(i)][a]));
      e.scale = std::max(e.scale, std::fabs(fd));
    }
  return e;
}

// The strain 1 + eps e_a e_b^T. Upper-triangular ones (a <= b) keep a box in reduced form.
inline Mat3 strain(int a, int b, double eps) {
  Mat3 mu = Mat3::identity();
  mu(a, b) += eps;
  return mu;
}

inline Vec3 strained(const Mat3& mu, const Vec3& x) {
  Vec3 y;
  for (int k = 0; k < 3; ++k) y[k] = mu(k, 0) * x.x + mu(k, 1) * x.y + mu(k, 2) * x.z;
  return y;
}

// The box and every position taken through mu.
inline State strained(const State& state, const Mat3& mu) {
  State s = state;
  s.box = state.box.scaled(mu);
  for (Vec3& p : s.positions) p = strained(mu, p);
  return s;
}

// W_ba = -dU/d(eps_ab) by central differences, U = energy(strained state, mu): the virial
// component a force must report (mu is passed for terms with references that move with the box).
template <class Energy>
double fd_virial(const State& state, int a, int b, double h, Energy energy) {
  const Mat3 plus = strain(a, b, h), minus = strain(a, b, -h);
  return -(energy(strained(state, plus), plus) - energy(strained(state, minus), minus)) / (2 * h);
}

inline double fd_virial(Force& force, const System& system, const State& state, int a, int b, double h) {
  return fd_virial(state, a, b, h, [&](const State& s, const Mat3&) { return energy_at(force, system, s); });
}

// Every upper-triangular virial component against fd_virial, to rel |tr W| + abs.
inline void expect_virial_is_box_derivative(Force& force, const System& system, const State& state, double h,
                                            double rel, double abs = 1e-6) {
  const ForceResult out = evaluate(force, system, state);
  for (int a = 0; a < 3; ++a)
    for (int b = a; b < 3; ++b)
      EXPECT_NEAR(out.virial(b, a), fd_virial(force, system, state, a, b, h),
                  rel * std::fabs(out.virial.trace()) + abs)
          << "component " << a << b;
}

// Energy, forces and virial with one OpenMP thread and with `threads`: the same bits.
inline void expect_same_bits_on_threads(Force& force, const System& system, const State& state, int threads) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  const ForceResult one = evaluate(force, system, state);
  omp_set_num_threads(threads);
  const ForceResult many = evaluate(force, system, state);
  omp_set_num_threads(before);
  EXPECT_EQ(one.energy(), many.energy());
  for (size_t i = 0; i < one.forces.size(); ++i) EXPECT_EQ(one.forces[i], many.forces[i]) << "particle " << i;
  EXPECT_EQ(one.virial.m, many.virial.m);
}

}  // namespace spire::sponge::testing
