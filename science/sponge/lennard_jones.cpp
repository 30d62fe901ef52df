// Lennard-Jones over a half neighbour list (lennard_jones.h).
#include "science/sponge/lennard_jones.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "engine/core/error.h"

namespace spire::sponge {
namespace {

// The pair kernel reads the table as c12, c6, shift, 0 per type pair.
static_assert(sizeof(LennardJones::PairCoefficients) == 4 * sizeof(double));

// Force-switch coefficients of r^-alpha (lennard_jones.h): A, B and the constant C.
void force_switch(double alpha, double rs, double rc, double& a, double& b, double& c) {
  const double d = rc - rs, rp = std::pow(rc, alpha + 2);
  a = -alpha * ((alpha + 4) * rc - (alpha + 1) * rs) / (rp * d * d);
  b = alpha * ((alpha + 3) * rc - (alpha + 1) * rs) / (rp * d * d * d);
  c = std::pow(rc, -alpha) - a / 3 * d * d * d - b / 4 * d * d * d * d;
}

// Five-point Gauss-Legendre on [lo, hi]: exact for the polynomials (degree <= 9) of the
// force-switch tail integrals.
template <class F>
double gauss5(double lo, double hi, F f) {
  static constexpr double x[5] = {0, -0.5384693101056831, 0.5384693101056831, -0.9061798459386640,
                                  0.9061798459386640};
  static constexpr double w[5] = {0.5688888888888889, 0.4786286704993665, 0.4786286704993665,
                                  0.2369268850561891, 0.2369268850561891};
  const double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
  double s = 0;
  for (int k = 0; k < 5; ++k) s += w[k] * f(mid + half * x[k]);
  return half * s;
}

}  // namespace

LJCutoffMode lj_cutoff_mode(const std::string& name) {
  if (name == "cut") return LJCutoffMode::cut;
  if (name == "shifted") return LJCutoffMode::shifted;
  if (name == "force_switch") return LJCutoffMode::force_switch;
  throw ConfigError(detail::cat("Lennard-Jones cutoff mode '", name, "' is unknown: allowed are cut, shifted, force_switch"));
}

std::string to_string(LJCutoffMode mode) {
  switch (mode) {
    case LJCutoffMode::cut: return "cut";
    case LJCutoffMode::shifted: return "shifted";
    case LJCutoffMode::force_switch: return "force_switch";
  }
  return "?";
}

LJMixing lj_mixing(const std::string& name) {
  if (name == "lorentz_berthelot" || name == "arithmetic") return LJMixing::lorentz_berthelot;
  if (name == "geometric") return LJMixing::geometric;
  throw ConfigError(detail::cat("Lennard-Jones mixing rule '", name,
                                "' is unknown: allowed are lorentz_berthelot (or arithmetic), geometric"));
}

std::string to_string(LJMixing mixing) {
  return mixing == LJMixing::geometric ? "geometric" : "lorentz_berthelot";
}

LennardJones::LennardJones(double cutoff, LJCutoffMode mode, double switch_distance)
    : cutoff_(cutoff), mode_(mode), switch_(switch_distance) {
  SPIRE_CHECK(std::isfinite(cutoff) && cutoff > 0, ValueError, "LennardJones: cutoff must be finite and > 0, got ",
              cutoff);
  if (mode == LJCutoffMode::force_switch) {
    SPIRE_CHECK(switch_distance > 0 && switch_distance < cutoff, ValueError,
                "LennardJones: force_switch needs 0 < switch distance < cutoff = ", cutoff, ", got ", switch_distance);
    force_switch(12, switch_, cutoff_, a12_, b12_, k12_);
    force_switch(6, switch_, cutoff_, a6_, b6_, k6_);
  } else {
    SPIRE_CHECK(switch_distance == 0, ValueError, "LennardJones: a switch distance (", switch_distance,
                ") applies only to the force_switch mode, not ", to_string(mode));
  }
}

void LennardJones::set_type(const std::string& type, double epsilon, double sigma) {
  SPIRE_CHECK(std::isfinite(epsilon) && epsilon >= 0, ValueError, "LennardJones: type '", type,
              "': epsilon must be finite and >= 0, got ", epsilon);
  SPIRE_CHECK(std::isfinite(sigma) && (sigma > 0 || (sigma == 0 && epsilon == 0)), ValueError, "LennardJones: type '",
              type, "': sigma must be finite and > 0 (or 0 with epsilon 0), got ", sigma);
  types_[type] = {epsilon, sigma};
  resolved_ = false;
}

void LennardJones::set_pair(const std::string& type_a, const std::string& type_b, double epsilon, double sigma) {
  SPIRE_CHECK(std::isfinite(epsilon) && epsilon >= 0, ValueError, "LennardJones: pair (", type_a, ", ", type_b,
              "): epsilon must be finite and >= 0, got ", epsilon);
  SPIRE_CHECK(std::isfinite(sigma) && (sigma > 0 || (sigma == 0 && epsilon == 0)), ValueError, "LennardJones: pair (",
              type_a, ", ", type_b, "): sigma must be finite and > 0 (or 0 with epsilon 0), got ", sigma);
  pairs_[std::minmax(type_a, type_b)] = {epsilon, sigma};
  resolved_ = false;
}

LJParameters LennardJones::parameters(const std::string& type_a, const std::string& type_b) const {
  if (auto it = pairs_.find(std::minmax(type_a, type_b)); it != pairs_.end()) return it->second;
  for (const std::string* t : {&type_a, &type_b})
    if (!types_.count(*t)) {
      std::vector<std::string> known;
      for (const auto& [name, p] : types_) known.push_back(name);
      throw ConfigError(detail::cat("LennardJones: type '", *t, "' has no parameters (set_type) and the pair (", type_a,
                                    ", ", type_b, ") none of its own (set_pair); types with parameters: ",
                                    known.empty() ? std::string("none") : detail::join(known)));
    }
  const LJParameters a = types_.at(type_a), b = types_.at(type_b);
  if (mixing_ == LJMixing::geometric) return {std::sqrt(a.epsilon * b.epsilon), std::sqrt(a.sigma * b.sigma)};
  return {std::sqrt(a.epsilon * b.epsilon), 0.5 * (a.sigma + b.sigma)};
}

double LennardJones::pair_energy(const LJParameters& p, double r) const {
  if (!(r < cutoff_)) return 0;
  const double s6 = std::pow(p.sigma, 6), c12 = 4 * p.epsilon * s6 * s6, c6 = 4 * p.epsilon * s6;
  const double r6 = std::pow(r, -6);
  double u = r6 * (c12 * r6 - c6);
  switch (mode_) {
    case LJCutoffMode::cut: break;
    case LJCutoffMode::shifted: u -= c12 * std::pow(cutoff_, -12) - c6 * std::pow(cutoff_, -6); break;
    case LJCutoffMode::force_switch: {
      const double t = std::max(r - switch_, 0.0), t3 = t * t * t;
      u -= c12 * (a12_ / 3 * t3 + b12_ / 4 * t3 * t + k12_) - c6 * (a6_ / 3 * t3 + b6_ / 4 * t3 * t + k6_);
      break;
    }
  }
  return u;
}

double LennardJones::pair_force(const LJParameters& p, double r) const {
  if (!(r < cutoff_)) return 0;
  const double s6 = std::pow(p.sigma, 6), c12 = 4 * p.epsilon * s6 * s6, c6 = 4 * p.epsilon * s6;
  double f = 12 * c12 * std::pow(r, -13) - 6 * c6 * std::pow(r, -7);
  if (mode_ == LJCutoffMode::force_switch) {
    const double t = std::max(r - switch_, 0.0);
    f += c12 * (a12_ * t * t + b12_ * t * t * t) - c6 * (a6_ * t * t + b6_ * t * t * t);
  }
  return f;
}

void LennardJones::check(const System& system, const State& state) const {
  std::vector<char> used(system.type_names.size(), 0);
  for (int t : system.type) {
    SPIRE_CHECK(t >= 0 && size_t(t) < used.size(), ValueError, "LennardJones: particle type index ", t,
                " is outside the system's ", used.size(), " types");
    used[size_t(t)] = 1;
  }
  for (size_t a = 0; a < used.size(); ++a)
    for (size_t b = a; b < used.size(); ++b)
      if (used[a] && used[b]) parameters(system.type_names[a], system.type_names[b]);  // throws naming what is missing
  if (state.box.periodic())
    SPIRE_CHECK(cutoff_ <= state.box.max_cutoff(), ValueError, "LennardJones: cutoff ", cutoff_,
                " exceeds half the box's smallest width (", state.box.max_cutoff(), ")");
  SPIRE_CHECK(!tail_ || state.box.periodic(), ValueError,
              "LennardJones: tail corrections need a periodic box (a density); this one has none");
  for (size_t k = 0; k < system.topology.pairs14.size(); ++k) {
    const Pair14& p = system.topology.pairs14[k];
    SPIRE_CHECK(system.topology.excluded(p.i, p.j), ValueError, "LennardJones: 1-4 pair ", k, " (", p.i, ", ", p.j,
                ") is not in the exclusions, so it would be counted twice: exclude it (Topology::exclude_bonded "
                "does both)");
  }
}

void LennardJones::resolve(const System& system) {
  if (resolved_ && resolved_names_ == system.type_names) return;
  const size_t nt = system.type_names.size();
  table_.assign(nt * nt, {});
  missing_.assign(nt, 0);
  for (size_t a = 0; a < nt; ++a) {
    if (!types_.count(system.type_names[a])) missing_[a] = 1;
    for (size_t b = 0; b < nt; ++b) {
      LJParameters p;
      try {
        p = parameters(system.type_names[a], system.type_names[b]);
      } catch (const ConfigError&) {
        continue;  // a type no particle has needs nothing; add() checks the ones in use
      }
      const double s6 = std::pow(p.sigma, 6);
      PairCoefficients& c = table_[a * nt + b];
      c.c12 = 4 * p.epsilon * s6 * s6;
      c.c6 = 4 * p.epsilon * s6;
      if (mode_ == LJCutoffMode::shifted) c.shift = c.c12 * std::pow(cutoff_, -12) - c.c6 * std::pow(cutoff_, -6);
      if (mode_ == LJCutoffMode::force_switch) c.shift = c.c12 * k12_ - c.c6 * k6_;
    }
  }
  active_.assign(nt, 0);
  for (size_t a = 0; a < nt; ++a)
    for (size_t b = 0; b < nt; ++b) active_[a] |= table_[a * nt + b].c12 != 0 || table_[a * nt + b].c6 != 0;
  resolved_names_ = system.type_names;
  resolved_ = true;
}

double LennardJones::tail_integral_energy(double c12, double c6) const {
  double s = c12 / (9 * std::pow(cutoff_, 9)) - c6 / (3 * std::pow(cutoff_, 3));
  if (mode_ == LJCutoffMode::force_switch)
    s += gauss5(switch_, cutoff_, [&](double r) {
      const double t = r - switch_, t3 = t * t * t;
      return r * r * (c12 * (a12_ / 3 * t3 + b12_ / 4 * t3 * t + k12_) - c6 * (a6_ / 3 * t3 + b6_ / 4 * t3 * t + k6_));
    });
  return s;
}

double LennardJones::tail_integral_pressure(double c12, double c6) const {
  double s = 4 * c12 / (3 * std::pow(cutoff_, 9)) - 2 * c6 / std::pow(cutoff_, 3);
  if (mode_ == LJCutoffMode::force_switch)
    s += gauss5(switch_, cutoff_, [&](double r) {
      const double t = r - switch_, t2 = t * t, t3 = t2 * t;
      return r * r * r * (-c12 * (a12_ * t2 + b12_ * t3) + c6 * (a6_ * t2 + b6_ * t3));
    });
  return s;
}

void LennardJones::check_types_in_use(const System& system) {
  resolve(system);
  const int nt = int(system.type_names.size());
  if (std::find(missing_.begin(), missing_.end(), 1) != missing_.end())
    for (int t : system.type) {
      SPIRE_CHECK(t >= 0 && t < nt, ValueError, "LennardJones: particle type index ", t, " is outside the system's ",
                  nt, " types");
      if (missing_[size_t(t)])
        for (int u = 0; u < nt; ++u) parameters(system.type_names[size_t(t)], system.type_names[size_t(u)]);
    }
}

void LennardJones::tail_sums(const System& system, double& energy, double& pressure) const {
  const int nt = int(system.type_names.size());
  std::vector<double> count(size_t(nt), 0);
  for (int t : system.type) count[size_t(t)] += 1;
  energy = pressure = 0;
  for (int a = 0; a < nt; ++a)
    for (int b = 0; b < nt; ++b) {
      if (count[size_t(a)] == 0 || count[size_t(b)] == 0) continue;
      const PairCoefficients& c = table_[size_t(a * nt + b)];
      energy += count[size_t(a)] * count[size_t(b)] * tail_integral_energy(c.c12, c.c6);
      pressure += count[size_t(a)] * count[size_t(b)] * tail_integral_pressure(c.c12, c.c6);
    }
}

LennardJones::KernelParameters LennardJones::kernel_parameters(const System& system) {
  check_types_in_use(system);
  KernelParameters k;
  k.table = table_;
  k.ntypes = int(system.type_names.size());
  k.cutoff = cutoff_;
  k.switched = mode_ == LJCutoffMode::force_switch;
  k.switch_distance = switch_;
  k.a12 = a12_, k.b12 = b12_, k.a6 = a6_, k.b6 = b6_;
  if (tail_) tail_sums(system, k.tail_energy, k.tail_pressure);
  return k;
}

LJPairTerm LennardJones::pair_term(const System& system) {
  check_types_in_use(system);
  LJPairTerm t;
  t.table = reinterpret_cast<const double*>(table_.data());
  t.ntypes = int(system.type_names.size());
  t.type = system.type.data();
  t.active = active_.data();
  t.cutoff = cutoff_;
  t.switched = mode_ == LJCutoffMode::force_switch;
  t.switch_distance = switch_;
  t.a12 = a12_, t.b12 = b12_, t.a6 = a6_, t.b6 = b6_;
  return t;
}

void LennardJones::add(const System& system, const State& state, const NeighborList* neighbors, ForceResult& out) {
  const int64_t n = int64_t(state.positions.size());
  SPIRE_CHECK(neighbors, ValueError, "LennardJones: needs a neighbour list of cutoff >= ", cutoff_, ", got none");
  SPIRE_CHECK(neighbors->cutoff() >= cutoff_, ValueError, "LennardJones: the neighbour list's cutoff ",
              neighbors->cutoff(), " is shorter than the force's ", cutoff_);
  SPIRE_CHECK(neighbors->size() == n, ValueError, "LennardJones: the neighbour list has ", neighbors->size(),
              " rows for ", n, " particles: update it for this state");
  SPIRE_CHECK(int64_t(system.type.size()) == n && int64_t(out.forces.size()) == n, ValueError,
              "LennardJones: ", n, " positions but ", system.type.size(), " particle types and ", out.forces.size(),
              " forces");
  const LJPairTerm term = pair_term(system);
  const double pair_energy = kernel_.add(neighbors->pair_list(), state, &term, nullptr, out).lj;
  out.add_energy(name(), add_rest(system, state, pair_energy, out));
}

double LennardJones::add_rest(const System& system, const State& state, double pair_energy, ForceResult& out) {
  check_types_in_use(system);
  const int nt = int(system.type_names.size());
  const Box& box = state.box;
  double energy = pair_energy;
  // 1-4 pairs: the full Lennard-Jones, epsilon scaled.
  double w[6] = {0, 0, 0, 0, 0, 0};
  for (const Pair14& p : system.topology.pairs14) {
    const PairCoefficients& c = table_[size_t(system.type[size_t(p.i)] * nt + system.type[size_t(p.j)])];
    const Vec3 d = box.min_image(state.positions[size_t(p.i)] - state.positions[size_t(p.j)]);
    const double r2inv = 1 / norm2(d), r6inv = r2inv * r2inv * r2inv;
    const double fr = p.lj_scale * r6inv * (12 * c.c12 * r6inv - 6 * c.c6) * r2inv;
    energy += p.lj_scale * r6inv * (c.c12 * r6inv - c.c6);
    out.forces[size_t(p.i)] += fr * d;
    out.forces[size_t(p.j)] -= fr * d;
    w[0] += fr * d.x * d.x, w[1] += fr * d.x * d.y, w[2] += fr * d.x * d.z;
    w[3] += fr * d.y * d.y, w[4] += fr * d.y * d.z, w[5] += fr * d.z * d.z;
  }
  Mat3 virial;
  virial(0, 0) = w[0], virial(0, 1) = virial(1, 0) = w[1], virial(0, 2) = virial(2, 0) = w[2];
  virial(1, 1) = w[3], virial(1, 2) = virial(2, 1) = w[4], virial(2, 2) = w[5];

  if (tail_) {
    SPIRE_CHECK(box.periodic(), ValueError, "LennardJones: tail corrections need a periodic box (a density)");
    double ie = 0, ip = 0;
    tail_sums(system, ie, ip);
    const double v = box.volume();
    energy += 2 * std::numbers::pi / v * ie;
    const double p_tail = 2 * std::numbers::pi / (3 * v * v) * ip;
    for (int d = 0; d < 3; ++d) virial(d, d) += v * p_tail;
  }
  out.virial += virial;
  return energy;
}

}  // namespace spire::sponge
