// Test doubles and helpers for the dynamics tests (integrators, thermostats, barostats,
// constraints, minimisers): small forces written out in full so the tests need no other helper's
// force terms, an LJ fluid builder, and statistics with standard errors from block averages.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "science/sponge/force.h"
#include "science/sponge/force_field.h"
#include "science/sponge/md_integrator.h"
#include "science/sponge/md_random.h"
#include "science/sponge/velocity_verlet.h"
#include "science/sponge/system.h"

namespace spire::sponge::testing {

// E = k/2 (|r_ij| - r0)^2 per listed pair, minimum image.
class Springs : public Force {
 public:
  struct Spring {
    int i, j;
    double r0, k;
  };
  explicit Springs(std::vector<Spring> springs, std::string name = "springs")
      : springs_(std::move(springs)), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  void add(const System& system, const State& state, const NeighborList*, ForceResult& out) override {
    double e = 0;
    for (const Spring& s : springs_) {
      const Vec3 d = state.box.min_image(state.positions[size_t(s.i)] - state.positions[size_t(s.j)]);  // r_ij
      const double r = norm(d), dr = r - s.r0;
      e += 0.5 * s.k * dr * dr;
      const Vec3 f = (-s.k * dr / r) * d;  // on i
      out.forces[size_t(s.i)] += f;
      out.forces[size_t(s.j)] -= f;
      out.virial.add_outer(d, f);
    }
    out.add_energy(name_, e);
  }

 private:
  std::vector<Spring> springs_;
  std::string name_;
};

// E = k/2 |r_i - anchor_i|^2: tethers (no minimum image; for non-periodic tests).
class Tethers : public Force {
 public:
  Tethers(std::vector<Vec3> anchors, double k) : anchors_(std::move(anchors)), k_(k) {}
  std::string name() const override { return "tethers"; }
  void add(const System& system, const State& state, const NeighborList*, ForceResult& out) override {
    double e = 0;
    for (size_t i = 0; i < anchors_.size(); ++i) {
      const Vec3 d = state.positions[i] - anchors_[i];
      e += 0.5 * k_ * norm2(d);
      out.forces[i] -= k_ * d;
      out.virial.add_outer(state.positions[i], -k_ * d);
    }
    out.add_energy("tethers", e);
  }

 private:
  std::vector<Vec3> anchors_;
  double k_;
};

// Lennard-Jones over all pairs with minimum image (brute force, O(N^2)), cut at rc (0: no
// cutoff). shift_force: energy and force both go to zero at rc (smooth enough for energy
// conservation tests).
class BruteForceLJ : public Force {
 public:
  BruteForceLJ(double epsilon, double sigma, double rc, bool shift_force)
      : eps_(epsilon), sigma_(sigma), rc_(rc), shift_(shift_force) {
    if (rc_ > 0) {
      e_rc_ = pair_energy(rc_);
      de_rc_ = pair_derivative(rc_);
    }
  }
  std::string name() const override { return "lj"; }
  double pair_energy(double r) const {
    const double s6 = std::pow(sigma_ / r, 6);
    return 4 * eps_ * (s6 * s6 - s6);
  }
  double pair_derivative(double r) const {  // dE/dr
    const double s6 = std::pow(sigma_ / r, 6);
    return -24 * eps_ * (2 * s6 * s6 - s6) / r;
  }
  void add(const System& system, const State& state, const NeighborList*, ForceResult& out) override {
    const size_t n = state.positions.size();
    const double rc2 = rc_ > 0 ? rc_ * rc_ : std::numeric_limits<double>::infinity(), sigma2 = sigma_ * sigma_;
    const bool periodic = state.box.periodic();
    if (periodic && !state.box.orthorhombic()) return add_general(state, out);
    // Orthorhombic or no box: minimum image per axis (a length of 0 leaves d alone), written so
    // the inner loop vectorises (the tests' hot loop).
    const double lx = periodic ? state.box.a().x : 0, ly = periodic ? state.box.b().y : 0,
                 lz = periodic ? state.box.c().z : 0;
    const double ilx = periodic ? 1 / lx : 0, ily = periodic ? 1 / ly : 0, ilz = periodic ? 1 / lz : 0;
    x_.resize(n), y_.resize(n), z_.resize(n), mol_.resize(n), act_.resize(n);
    fx_.assign(n, 0), fy_.assign(n, 0), fz_.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      x_[i] = state.positions[i].x, y_[i] = state.positions[i].y, z_[i] = state.positions[i].z;
      mol_[i] = molecule_.empty() ? int(i) : molecule_[i];
      act_[i] = active_.empty() ? 1 : active_[i];
    }
    const double e_rc = shift_ ? e_rc_ : 0, de_rc = shift_ ? de_rc_ : 0, rc = shift_ ? rc_ : 0;
    const double *__restrict px = x_.data(), *__restrict py = y_.data(), *__restrict pz = z_.data();
    double *__restrict fxs = fx_.data(), *__restrict fys = fy_.data(), *__restrict fzs = fz_.data();
    const int *__restrict mol = mol_.data(), *__restrict act = act_.data();
    double e = 0, w00 = 0, w01 = 0, w02 = 0, w10 = 0, w11 = 0, w12 = 0, w20 = 0, w21 = 0, w22 = 0;
    for (size_t i = 0; i < n; ++i) {
      const double xi = px[i], yi = py[i], zi = pz[i];
      const int mi = mol[i], ai = act[i];
      double fxi = 0, fyi = 0, fzi = 0;
#pragma omp simd reduction(+ : fxi, fyi, fzi, e, w00, w01, w02, w10, w11, w12, w20, w21, w22)
      for (size_t j = i + 1; j < n; ++j) {
        double dx = xi - px[j], dy = yi - py[j], dz = zi - pz[j];  // r_ij
        dx -= lx * std::nearbyint(dx * ilx);
        dy -= ly * std::nearbyint(dy * ily);
        dz -= lz * std::nearbyint(dz * ilz);
        const double r2 = dx * dx + dy * dy + dz * dz;
        const bool use = (mol[j] != mi) & ((ai & act[j]) != 0) & (r2 < rc2);
        const double r2s = use ? r2 : 1.0;
        const double inv_r = 1 / std::sqrt(r2s), inv_r2 = inv_r * inv_r, r = r2s * inv_r;
        const double s2 = sigma2 * inv_r2, s6 = s2 * s2 * s2;
        // Shifted force: E - E(rc) - (r - rc) E'(rc) and F + E'(rc) (zero terms when not shifted).
        const double eij = 4 * eps_ * (s6 * s6 - s6) - e_rc - (r - rc) * de_rc;
        const double f_over_r = (24 * eps_ * (2 * s6 * s6 - s6) + de_rc * r) * inv_r2;  // -dE/dr / r
        const double g = use ? f_over_r : 0;
        e += use ? eij : 0;
        const double fx = g * dx, fy = g * dy, fz = g * dz;  // on i
        fxi += fx, fyi += fy, fzi += fz;
        fxs[j] -= fx, fys[j] -= fy, fzs[j] -= fz;
        w00 += dx * fx, w01 += dx * fy, w02 += dx * fz;
        w10 += dy * fx, w11 += dy * fy, w12 += dy * fz;
        w20 += dz * fx, w21 += dz * fy, w22 += dz * fz;
      }
      fxs[i] += fxi, fys[i] += fyi, fzs[i] += fzi;
    }
    for (size_t i = 0; i < n; ++i) out.forces[i] += Vec3{fx_[i], fy_[i], fz_[i]};
    const double w[9] = {w00, w01, w02, w10, w11, w12, w20, w21, w22};
    for (int k = 0; k < 9; ++k) out.virial.m[size_t(k)] += w[k];
    out.add_energy("lj", e);
  }

  // Pairs within one molecule (equal ids) are left out.
  void set_molecules(std::vector<int> molecule) { molecule_ = std::move(molecule); }
  // Only pairs of particles flagged 1 interact.
  void set_active(std::vector<int> active) { active_ = std::move(active); }

 private:
  // Any box: Box::min_image per pair.
  void add_general(const State& state, ForceResult& out) const {
    const size_t n = state.positions.size();
    double e = 0;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j) {
        if (!molecule_.empty() && molecule_[i] == molecule_[j]) continue;
        if (!active_.empty() && !(active_[i] && active_[j])) continue;
        const Vec3 d = state.box.min_image(state.positions[i] - state.positions[j]);  // r_ij
        const double r = norm(d);
        if (rc_ > 0 && r >= rc_) continue;
        double de = pair_derivative(r);
        e += pair_energy(r);
        if (rc_ > 0 && shift_) {
          e -= e_rc_ + (r - rc_) * de_rc_;
          de -= de_rc_;
        }
        const Vec3 f = (-de / r) * d;  // on i
        out.forces[i] += f;
        out.forces[j] -= f;
        out.virial.add_outer(d, f);
      }
    out.add_energy("lj", e);
  }

  std::vector<int> molecule_, active_;
  std::vector<double> x_, y_, z_, fx_, fy_, fz_;
  std::vector<int> mol_, act_;
  double eps_, sigma_, rc_;
  bool shift_;
  double e_rc_ = 0, de_rc_ = 0;
};

// A system of n particles of mass m and type "A" in the given units.
inline System particles(int64_t n, double mass, Units units = Units::lj()) {
  System s;
  s.units = units;
  for (int64_t i = 0; i < n; ++i) s.add_particle(mass, 0, "A");
  return s;
}

// n^3 particles on a simple cubic lattice filling a cubic box of side L (lattice spacing L / n),
// velocities from a Gaussian at temperature T (k_B = 1, masses 1), zero total momentum.
inline State cubic_lattice_state(int n, double box_length, double temperature, uint64_t seed) {
  State st;
  st.box = Box::orthorhombic(box_length, box_length, box_length);
  const double a = box_length / n;
  MdRandom random(seed);
  Vec3 p;
  for (int x = 0; x < n; ++x)
    for (int y = 0; y < n; ++y)
      for (int z = 0; z < n; ++z) {
        st.positions.push_back({(x + 0.5) * a, (y + 0.5) * a, (z + 0.5) * a});
        const Vec3 v = std::sqrt(temperature) *
                       random.normal3(RandomTag::langevin, 999, uint64_t(st.velocities.size()));
        st.velocities.push_back(v);
        p += v;
      }
  for (Vec3& v : st.velocities) v -= p / double(st.velocities.size());
  return st;
}

inline DynamicsOptions keep_com_motion() {
  DynamicsOptions o;
  o.remove_com_motion = false;
  return o;
}

inline ForceField force_field_of(std::vector<ForcePtr> terms) {
  ForceField ff(0.3);
  for (auto& t : terms) ff.add(std::move(t));
  return ff;
}

// 64 LJ particles at density 0.70, shifted-force cutoff 2.2 sigma (smooth enough for energy
// conservation), from a simple cubic lattice at T = 1.
struct LjFluid {
  System system = testing::particles(64, 1.0);
  State state = testing::cubic_lattice_state(4, 4.5, 1.0, 11);
  ForceField forces = make_forces();
  LjFluid() = default;
  LjFluid(const LjFluid& o) : system(o.system), state(o.state) {}
  static ForceField make_forces() {
    return testing::force_field_of({std::make_shared<BruteForceLJ>(1.0, 1.0, 2.2, true)});
  }
};

// Mean and variance of a correlated series with standard errors from `blocks` block averages.
struct SeriesStats {
  double mean = 0, variance = 0, mean_error = 0, variance_error = 0;
};
inline SeriesStats series_stats(const std::vector<double>& x, int blocks = 20) {
  SeriesStats s;
  const size_t n = x.size(), len = n / size_t(blocks);
  for (double v : x) s.mean += v;
  s.mean /= double(n);
  std::vector<double> sq(n);
  for (size_t i = 0; i < n; ++i) sq[i] = (x[i] - s.mean) * (x[i] - s.mean);
  for (double v : sq) s.variance += v;
  s.variance /= double(n);
  auto block_error = [&](const std::vector<double>& y, double mean) {
    double acc = 0;
    for (int b = 0; b < blocks; ++b) {
      double m = 0;
      for (size_t i = size_t(b) * len; i < size_t(b + 1) * len; ++i) m += y[i];
      m /= double(len);
      acc += (m - mean) * (m - mean);
    }
    return std::sqrt(acc / double(blocks - 1) / double(blocks));
  };
  s.mean_error = block_error(x, s.mean);
  s.variance_error = block_error(sq, s.variance);
  return s;
}

// The kinetic energy after each of `steps` steps, following `warmup` steps.
inline std::vector<double> kinetic_series(MdIntegrator& integrator, LjFluid& f, int warmup, int steps) {
  integrator.prepare(f.system, f.state, f.forces);
  for (int n = 0; n < warmup; ++n) integrator.step(f.system, f.state, f.forces);
  std::vector<double> k;
  for (int n = 0; n < steps; ++n) {
    integrator.step(f.system, f.state, f.forces);
    double twice = 0;
    for (size_t i = 0; i < f.state.velocities.size(); ++i) twice += f.system.mass[i] * norm2(f.state.velocities[i]);
    k.push_back(0.5 * twice);
  }
  return k;
}

// The canonical kinetic energy of `dof` quadratic degrees of freedom is Gamma(dof / 2, k_B T):
// mean (dof / 2) k_B T and variance (dof / 2) (k_B T)^2. Both within `sigmas` standard errors
// (from block averages of the correlated samples), and the errors small enough that a
// non-canonical variance (Berendsen's) could not pass.
inline SeriesStats expect_canonical(const std::vector<double>& k, int64_t dof, double kT, const char* who,
                                    double sigmas = 4) {
  const SeriesStats s = series_stats(k);
  const double mean = 0.5 * double(dof) * kT, variance = 0.5 * double(dof) * kT * kT;
  std::printf("figure: %s kinetic energy mean %.3f +- %.3f (gamma: %.3f), variance %.2f +- %.2f (gamma: %.2f), "
              "%zu samples\n",
              who, s.mean, s.mean_error, mean, s.variance, s.variance_error, variance, k.size());
  EXPECT_NEAR(s.mean, mean, sigmas * s.mean_error) << who;
  EXPECT_NEAR(s.variance, variance, sigmas * s.variance_error) << who;
  EXPECT_LT(s.variance_error, 0.1 * variance) << who << ": too few samples to tell";
  return s;
}

// Over `steps` more steps the integrator's conserved quantity fluctuates far less than the energy
// K + U it corrects (by a factor 100: what remains is the dt^2 integration error).
inline void expect_conserved(MdIntegrator& integrator, LjFluid& f, int steps, const char* who) {
  std::vector<double> h, e;
  for (int n = 0; n < steps; ++n) {
    integrator.step(f.system, f.state, f.forces);
    h.push_back(integrator.conserved_energy(f.system, f.state, f.forces));
    double twice = 0;
    for (size_t i = 0; i < f.state.velocities.size(); ++i) twice += f.system.mass[i] * norm2(f.state.velocities[i]);
    e.push_back(0.5 * twice + f.forces.result().energy());
  }
  const double sh = std::sqrt(series_stats(h, 10).variance), se = std::sqrt(series_stats(e, 10).variance);
  std::printf("figure: %s conserved quantity std %.2e against energy std %.2e over %d steps\n", who, sh, se, steps);
  EXPECT_LT(sh, 0.01 * se) << who;
}

// What every thermostat test runs: LJ64 at T = 1 under velocity Verlet (dt 0.005) with `thermostat`,
// 189 degrees of freedom; the kinetic energy over 8000 steps after 300 of equilibration is
// returned, and then expect_conserved holds over 1000 more.
inline std::vector<double> thermostatted_kinetic_series(ThermostatPtr thermostat, const char* who) {
  LjFluid f;
  VelocityVerlet vv(0.005, std::move(thermostat));
  const std::vector<double> k = kinetic_series(vv, f, 300, 8000);
  EXPECT_EQ(vv.degrees_of_freedom(), 189) << who;
  expect_conserved(vv, f, 1000, who);
  return k;
}

inline bool same_bits(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Vec3)) == 0;
}

}  // namespace spire::sponge::testing
