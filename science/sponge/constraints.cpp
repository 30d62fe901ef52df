// SHAKE, RATTLE and SETTLE (constraints.h).
#include "science/sponge/constraints.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/core/error.h"

namespace spire::sponge {

namespace {

// Units (clusters or waters) per chunk of the parallel loops; virials are summed per chunk.
constexpr int64_t kChunk = 64;

// Runs unit(u, virial_or_null) for u in [0, n), chunked; returns the first unit (in order) whose
// call returned a failure code >= 0, with that code, or -1.
// One bond's turn in a SHAKE or RATTLE sweep: already within tolerance, corrected with Lagrange
// multiplier g, or beyond what a correction along the bond can repair.
struct BondStep {
  enum Kind { within, corrected, broken } kind;
  double g = 0;
};

// The iteration SHAKE and RATTLE share: sweeps over a cluster's `count` bonds, in order, calling
// step(k) for bond k, until a sweep corrects none. g_total[k] sums bond k's multipliers (its
// constraint force). Returns -1 when converged, begin + k when bond k broke, begin when
// max_iterations sweeps did not converge.
template <class Step>
int64_t sweep_bonds(int64_t begin, int64_t count, int max_iterations, std::vector<double>& g_total, Step step) {
  g_total.assign(size_t(count), 0.0);
  bool converged = false;
  for (int iter = 0; iter < max_iterations && !converged; ++iter) {
    converged = true;
    for (int64_t k = 0; k < count; ++k) {
      const BondStep b = step(k);
      if (b.kind == BondStep::within) continue;
      if (b.kind == BondStep::broken) return begin + k;
      converged = false;
      g_total[size_t(k)] += b.g;
    }
  }
  return converged ? -1 : begin;
}

template <class F>
int64_t for_each_unit(int64_t n, Mat3* virial, int64_t& code, F unit) {
  const int64_t n_chunks = (n + kChunk - 1) / kChunk;
  std::vector<Mat3> partial(virial ? size_t(n_chunks) : 0);
  std::vector<int64_t> failed_unit(size_t(n_chunks), -1), failed_code(size_t(n_chunks), -1);
#pragma omp parallel for schedule(static) if (n_chunks > 1)
  for (int64_t c = 0; c < n_chunks; ++c) {
    Mat3* w = virial ? &partial[size_t(c)] : nullptr;
    for (int64_t u = c * kChunk; u < std::min(n, (c + 1) * kChunk); ++u) {
      const int64_t f = unit(u, w);
      if (f >= 0) {
        failed_unit[size_t(c)] = u;
        failed_code[size_t(c)] = f;
        break;
      }
    }
  }
  for (int64_t c = 0; c < n_chunks; ++c)
    if (failed_unit[size_t(c)] >= 0) {
      code = failed_code[size_t(c)];
      return failed_unit[size_t(c)];
    }
  if (virial)
    for (const Mat3& p : partial) *virial += p;
  return -1;
}

int find_root(std::vector<int>& parent, int a) {
  while (parent[size_t(a)] != a) a = parent[size_t(a)] = parent[size_t(parent[size_t(a)])];
  return a;
}

}  // namespace

Constraints::Constraints(const System& system, ConstraintOptions options) : options_(options) {
  SPIRE_CHECK(std::isfinite(options.tolerance) && options.tolerance > 0, ValueError, "constraints: tolerance ",
              options.tolerance, " must be > 0");
  SPIRE_CHECK(options.max_iterations >= 1, ValueError, "constraints: max_iterations ", options.max_iterations,
              " must be >= 1");
  const Topology& top = system.topology;
  const int64_t n = system.size();
  top.check(n);
  inverse_mass_.resize(size_t(n));
  for (int64_t i = 0; i < n; ++i) inverse_mass_[size_t(i)] = system.mass[size_t(i)] > 0 ? 1 / system.mass[size_t(i)] : 0;

  // 1: in a Constraint, 2: in a water. A particle SETTLE moves must not be moved by anything else.
  std::vector<int8_t> owner(size_t(n), 0);
  for (size_t k = 0; k < top.constraints.size(); ++k) {
    const Constraint& c = top.constraints[k];
    SPIRE_CHECK(std::isfinite(c.length) && c.length > 0, ValueError, "constraints: constraint ", k, " (", c.i, "-",
                c.j, ") has length ", c.length, "; lengths must be > 0");
    SPIRE_CHECK(inverse_mass_[size_t(c.i)] > 0 || inverse_mass_[size_t(c.j)] > 0, ValueError,
                "constraints: constraint ", k, " joins two fixed (mass 0) particles ", c.i, " and ", c.j);
    owner[size_t(c.i)] = owner[size_t(c.j)] = 1;
  }
  for (size_t k = 0; k < top.waters.size(); ++k) {
    const RigidWater& w = top.waters[k];
    for (int a : {w.o, w.h1, w.h2}) {
      SPIRE_CHECK(owner[size_t(a)] == 0, ValueError, "constraints: particle ", a, " of rigid water ", k,
                  owner[size_t(a)] == 1 ? " is also in a Constraint" : " is also in another rigid water",
                  "; SETTLE needs each water's atoms to itself");
      SPIRE_CHECK(system.mass[size_t(a)] > 0, ValueError, "constraints: particle ", a, " of rigid water ", k,
                  " is fixed (mass 0); SETTLE moves all three atoms");
      owner[size_t(a)] = 2;
    }
    SPIRE_CHECK(system.mass[size_t(w.h1)] == system.mass[size_t(w.h2)], ValueError, "constraints: rigid water ", k,
                " has hydrogens of masses ", system.mass[size_t(w.h1)], " and ", system.mass[size_t(w.h2)],
                "; SETTLE needs them equal");
    SPIRE_CHECK(std::isfinite(w.d_oh) && std::isfinite(w.d_hh) && w.d_oh > 0 && w.d_hh > 0 && w.d_hh < 2 * w.d_oh,
                ValueError, "constraints: rigid water ", k, " has d_oh = ", w.d_oh, ", d_hh = ", w.d_hh,
                "; both must be > 0 with d_hh < 2 d_oh (a triangle)");
    waters_.push_back({w.o, w.h1, w.h2, w.d_oh, w.d_hh, system.mass[size_t(w.o)], system.mass[size_t(w.h1)]});
  }

  // Clusters: connected components of the constraint graph, in order of their first constraint.
  std::vector<int> parent(static_cast<size_t>(n));
  std::iota(parent.begin(), parent.end(), 0);
  for (const Constraint& c : top.constraints) parent[size_t(find_root(parent, c.i))] = find_root(parent, c.j);
  std::vector<int64_t> cluster_of_root(size_t(n), -1);
  std::vector<std::vector<int64_t>> members;
  for (size_t k = 0; k < top.constraints.size(); ++k) {
    const int root = find_root(parent, top.constraints[k].i);
    if (cluster_of_root[size_t(root)] < 0) {
      cluster_of_root[size_t(root)] = int64_t(members.size());
      members.emplace_back();
    }
    members[size_t(cluster_of_root[size_t(root)])].push_back(int64_t(k));
  }
  for (const auto& m : members) {
    const int64_t begin = int64_t(bonds_.size());
    for (int64_t k : m) {
      const Constraint& c = top.constraints[size_t(k)];
      bonds_.push_back({c.i, c.j, c.length});
      bond_source_.push_back(k);
    }
    clusters_.push_back({begin, int64_t(bonds_.size())});
  }
}

double Constraints::max_deviation(const Box& box, const std::vector<Vec3>& positions) const {
  double worst = 0;
  auto check = [&](int i, int j, double d) {
    worst = std::max(worst, std::abs(norm(box.min_image(positions[size_t(j)] - positions[size_t(i)])) - d) / d);
  };
  for (const Bond& b : bonds_) check(b.i, b.j, b.length);
  for (const Water& w : waters_) {
    check(w.o, w.h1, w.d_oh);
    check(w.o, w.h2, w.d_oh);
    check(w.h1, w.h2, w.d_hh);
  }
  return worst;
}

double Constraints::max_velocity_deviation(const Box& box, const std::vector<Vec3>& positions,
                                           const std::vector<Vec3>& velocities) const {
  double worst = 0;
  auto check = [&](int i, int j) {
    const Vec3 r = box.min_image(positions[size_t(j)] - positions[size_t(i)]);
    const Vec3 v = velocities[size_t(j)] - velocities[size_t(i)];
    const double vv = norm(v);
    if (vv > 0) worst = std::max(worst, std::abs(dot(r, v)) / (norm(r) * vv));
  };
  for (const Bond& b : bonds_) check(b.i, b.j);
  for (const Water& w : waters_) {
    check(w.o, w.h1);
    check(w.o, w.h2);
    check(w.h1, w.h2);
  }
  return worst;
}

void Constraints::bond_vectors(const Cluster& c, const Box& box, const std::vector<Vec3>& x,
                               std::vector<Vec3>& out) const {
  out.resize(size_t(c.end - c.begin));
  for (int64_t k = 0; k < c.end - c.begin; ++k) {
    const Bond& b = bonds_[size_t(c.begin + k)];
    out[size_t(k)] = box.min_image(x[size_t(b.j)] - x[size_t(b.i)]);
  }
}

bool Constraints::shake_cluster(const Cluster& c, const Box& box, const std::vector<Vec3>& reference,
                                std::vector<Vec3>& positions, std::vector<Vec3>* velocities, double dt, Mat3* virial,
                                double position_factor, int64_t& failed) const {
  const int64_t nb = c.end - c.begin;
  thread_local std::vector<Vec3> s;
  thread_local std::vector<double> g_total;
  bond_vectors(c, box, reference, s);
  const double tol2 = 2 * options_.tolerance;
  failed = sweep_bonds(c.begin, nb, options_.max_iterations, g_total, [&](int64_t k) {
    const Bond& b = bonds_[size_t(c.begin + k)];
    const double d2 = b.length * b.length;
    const Vec3 r = box.min_image(positions[size_t(b.j)] - positions[size_t(b.i)]);
    const double diff = d2 - norm2(r);
    if (std::abs(diff) <= tol2 * d2) return BondStep{BondStep::within};
    const double wi = inverse_mass_[size_t(b.i)], wj = inverse_mass_[size_t(b.j)];
    const double sr = dot(s[size_t(k)], r);
    // The correction acts along the old bond; once the new one is nearly perpendicular to it the
    // step was far too long and no correction along it can restore the length.
    if (!(sr > 1e-6 * d2)) return BondStep{BondStep::broken};
    const double g = diff / (2 * sr * (wi + wj));
    positions[size_t(b.i)] -= (g * wi) * s[size_t(k)];
    positions[size_t(b.j)] += (g * wj) * s[size_t(k)];
    return BondStep{BondStep::corrected, g};
  });
  if (failed >= 0) return false;
  for (int64_t k = 0; k < nb; ++k) {
    const Bond& b = bonds_[size_t(c.begin + k)];
    const double g = g_total[size_t(k)];
    if (velocities) {
      (*velocities)[size_t(b.i)] -= (g * inverse_mass_[size_t(b.i)] / dt) * s[size_t(k)];
      (*velocities)[size_t(b.j)] += (g * inverse_mass_[size_t(b.j)] / dt) * s[size_t(k)];
    }
    // Force on j: g s / position_factor; r_ij = -s and f_ij = -g s / position_factor.
    if (virial) virial->add_outer(s[size_t(k)], s[size_t(k)] * (g / position_factor));
  }
  return true;
}

bool Constraints::rattle_cluster(const Cluster& c, const Box& box, const std::vector<Vec3>& positions,
                                 std::vector<Vec3>& velocities, Mat3* virial, double velocity_factor,
                                 int64_t& failed) const {
  const int64_t nb = c.end - c.begin;
  thread_local std::vector<Vec3> r;
  thread_local std::vector<double> g_total;
  bond_vectors(c, box, positions, r);
  const double tol = options_.tolerance;
  failed = sweep_bonds(c.begin, nb, options_.max_iterations, g_total, [&](int64_t k) {
    const Bond& b = bonds_[size_t(c.begin + k)];
    const Vec3& rk = r[size_t(k)];
    const Vec3 v = velocities[size_t(b.j)] - velocities[size_t(b.i)];
    const double rv = dot(rk, v), r2 = norm2(rk);
    if (std::abs(rv) <= tol * std::sqrt(r2 * norm2(v))) return BondStep{BondStep::within};
    const double wi = inverse_mass_[size_t(b.i)], wj = inverse_mass_[size_t(b.j)];
    const double g = -rv / (r2 * (wi + wj));
    velocities[size_t(b.i)] -= (g * wi) * rk;
    velocities[size_t(b.j)] += (g * wj) * rk;
    return BondStep{BondStep::corrected, g};
  });
  if (failed >= 0) return false;
  if (virial)
    for (int64_t k = 0; k < nb; ++k) virial->add_outer(r[size_t(k)], r[size_t(k)] * (g_total[size_t(k)] / velocity_factor));
  return true;
}

bool Constraints::settle_positions(const Water& w, const Box& box, const std::vector<Vec3>& reference,
                                   std::vector<Vec3>& positions, std::vector<Vec3>* velocities, double dt,
                                   Mat3* virial, double position_factor) const {
  // Everything relative to the reference oxygen; each atom's own displacement keeps its image.
  const Vec3 b0 = box.min_image(reference[size_t(w.h1)] - reference[size_t(w.o)]);
  const Vec3 c0 = box.min_image(reference[size_t(w.h2)] - reference[size_t(w.o)]);
  const Vec3 a_new = positions[size_t(w.o)] - reference[size_t(w.o)];
  const Vec3 b_new = b0 + (positions[size_t(w.h1)] - reference[size_t(w.h1)]);
  const Vec3 c_new = c0 + (positions[size_t(w.h2)] - reference[size_t(w.h2)]);
  const double total = w.m_o + 2 * w.m_h;
  const Vec3 com = (w.m_o * a_new + w.m_h * (b_new + c_new)) / total;
  const Vec3 a1 = a_new - com, b1 = b_new - com, c1 = c_new - com;

  // A frame with z normal to the reference plane and x perpendicular to the new oxygen's offset.
  Vec3 ez = cross(b0, c0);
  Vec3 ex = cross(a1, ez);
  Vec3 ey = cross(ez, ex);
  ex = ex / norm(ex);
  ey = ey / norm(ey);
  ez = ez / norm(ez);
  auto in_frame = [&](const Vec3& v) { return Vec3{dot(v, ex), dot(v, ey), dot(v, ez)}; };
  const Vec3 b0d = in_frame(b0), c0d = in_frame(c0);
  const Vec3 a1d = in_frame(a1), b1d = in_frame(b1), c1d = in_frame(c1);

  // The canonical triangle about its centre of mass: oxygen ra above, hydrogens rb below, +-rc.
  const double rc = 0.5 * w.d_hh;
  const double height = std::sqrt(w.d_oh * w.d_oh - rc * rc);
  const double ra = height * 2 * w.m_h / total, rb = height - ra;
  // Rotations about x (phi), y (psi) and z (theta) that put it where the new positions say.
  const double sinphi = a1d.z / ra, cosphi = std::sqrt(1 - sinphi * sinphi);
  const double sinpsi = (b1d.z - c1d.z) / (2 * rc * cosphi), cospsi = std::sqrt(1 - sinpsi * sinpsi);
  const double ya2 = ra * cosphi;
  double xb2 = -rc * cospsi;
  const double yb2 = -rb * cosphi - rc * sinpsi * sinphi;
  const double yc2 = -rb * cosphi + rc * sinpsi * sinphi;
  // Round-off repair of the hydrogens' separation (zero in exact arithmetic), as OpenMM does.
  const double hh2 = 4 * xb2 * xb2 + (yb2 - yc2) * (yb2 - yc2) + (b1d.z - c1d.z) * (b1d.z - c1d.z);
  xb2 -= 0.5 * (2 * xb2 + std::sqrt(4 * xb2 * xb2 - hh2 + w.d_hh * w.d_hh));
  // theta from the condition that the constraint forces exert no torque about z.
  const double alpha = xb2 * (b0d.x - c0d.x) + b0d.y * yb2 + c0d.y * yc2;
  const double beta = xb2 * (c0d.y - b0d.y) + b0d.x * yb2 + c0d.x * yc2;
  const double gamma = b0d.x * b1d.y - b1d.x * b0d.y + c0d.x * c1d.y - c1d.x * c0d.y;
  const double al2be2 = alpha * alpha + beta * beta;
  const double sintheta = (alpha * gamma - beta * std::sqrt(al2be2 - gamma * gamma)) / al2be2;
  const double costheta = std::sqrt(1 - sintheta * sintheta);

  const Vec3 a3{-ya2 * sintheta, ya2 * costheta, a1d.z};
  const Vec3 b3{xb2 * costheta - yb2 * sintheta, xb2 * sintheta + yb2 * costheta, b1d.z};
  const Vec3 c3{-xb2 * costheta - yc2 * sintheta, -xb2 * sintheta + yc2 * costheta, c1d.z};
  auto out_of_frame = [&](const Vec3& v) { return v.x * ex + v.y * ey + v.z * ez; };
  const Vec3 da = com + out_of_frame(a3) - a_new;
  const Vec3 db = com + out_of_frame(b3) - b_new;
  const Vec3 dc = com + out_of_frame(c3) - c_new;
  if (!(std::isfinite(da.x + da.y + da.z) && std::isfinite(db.x + db.y + db.z) && std::isfinite(dc.x + dc.y + dc.z)))
    return false;
  positions[size_t(w.o)] += da;
  positions[size_t(w.h1)] += db;
  positions[size_t(w.h2)] += dc;
  if (velocities) {
    (*velocities)[size_t(w.o)] += da / dt;
    (*velocities)[size_t(w.h1)] += db / dt;
    (*velocities)[size_t(w.h2)] += dc / dt;
  }
  if (virial) {
    // sum_a r_a (x) f_a over the reference positions (the forces sum to zero, so any origin).
    virial->add_outer(b0, db * (w.m_h / position_factor));
    virial->add_outer(c0, dc * (w.m_h / position_factor));
  }
  return true;
}

void Constraints::settle_velocities(const Water& w, const Box& box, const std::vector<Vec3>& positions,
                                    std::vector<Vec3>& velocities, Mat3* virial, double velocity_factor) const {
  // Three impulses g_k along the bonds r_k (k: O-H1, O-H2, H1-H2) with zero relative velocity along
  // every bond afterwards: a 3x3 linear system, solved by Cramer's rule.
  const int atom[3] = {w.o, w.h1, w.h2};
  const double inv[3] = {1 / w.m_o, 1 / w.m_h, 1 / w.m_h};
  const int pair[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  Vec3 r[3];
  double b[3];
  for (int k = 0; k < 3; ++k) {
    const int i = atom[pair[k][0]], j = atom[pair[k][1]];
    r[k] = box.min_image(positions[size_t(j)] - positions[size_t(i)]);
    b[k] = -dot(r[k], velocities[size_t(j)] - velocities[size_t(i)]);
  }
  // sign of impulse l on local atom a: +1 at its second atom, -1 at its first.
  auto sign = [&](int l, int a) { return a == pair[l][1] ? 1.0 : (a == pair[l][0] ? -1.0 : 0.0); };
  double m[3][3];
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l) {
      const int i = pair[k][0], j = pair[k][1];
      m[k][l] = dot(r[k], r[l]) * (sign(l, j) * inv[j] - sign(l, i) * inv[i]);
    }
  auto det3 = [](const double (&a)[3][3]) {
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  };
  const double det = det3(m);
  double g[3];
  for (int col = 0; col < 3; ++col) {
    double mc[3][3];
    for (int k = 0; k < 3; ++k)
      for (int l = 0; l < 3; ++l) mc[k][l] = l == col ? b[k] : m[k][l];
    g[col] = det3(mc) / det;
  }
  for (int l = 0; l < 3; ++l) {
    const int i = pair[l][0], j = pair[l][1];
    velocities[size_t(atom[i])] -= (g[l] * inv[i]) * r[l];
    velocities[size_t(atom[j])] += (g[l] * inv[j]) * r[l];
    if (virial) virial->add_outer(r[l], r[l] * (g[l] / velocity_factor));
  }
}

void Constraints::constrain_positions(const Box& box, const std::vector<Vec3>& reference,
                                      std::vector<Vec3>& positions, std::vector<Vec3>* velocities, double dt,
                                      Mat3* virial, double position_factor) const {
  if (empty()) return;
  int64_t code = -1;
  const int64_t bad_cluster = for_each_unit(int64_t(clusters_.size()), virial, code, [&](int64_t u, Mat3* w) {
    int64_t failed = -1;
    return shake_cluster(clusters_[size_t(u)], box, reference, positions, velocities, dt, w, position_factor, failed)
               ? int64_t(-1)
               : failed;
  });
  if (bad_cluster >= 0) {
    const Bond& b = bonds_[size_t(code)];
    throw ValueError(detail::cat("SHAKE: constraint ", bond_source_[size_t(code)], " (particles ", b.i, "-", b.j,
                                 ", length ", b.length, ") did not converge to tolerance ", options_.tolerance,
                                 " in ", options_.max_iterations,
                                 " iterations; the time step is likely too long or the forces too large"));
  }
  const int64_t bad_water = for_each_unit(int64_t(waters_.size()), virial, code, [&](int64_t u, Mat3* w) {
    return settle_positions(waters_[size_t(u)], box, reference, positions, velocities, dt, w, position_factor)
               ? int64_t(-1)
               : int64_t(0);
  });
  if (bad_water >= 0)
    throw ValueError(detail::cat("SETTLE: rigid water ", bad_water, " (oxygen ", waters_[size_t(bad_water)].o,
                                 ") moved too far from its geometry in one step to be solved; the time step is "
                                 "likely too long or the forces too large"));
}

void Constraints::constrain_velocities(const Box& box, const std::vector<Vec3>& positions,
                                       std::vector<Vec3>& velocities, Mat3* virial, double velocity_factor) const {
  if (empty()) return;
  int64_t code = -1;
  const int64_t bad_cluster = for_each_unit(int64_t(clusters_.size()), virial, code, [&](int64_t u, Mat3* w) {
    int64_t failed = -1;
    return rattle_cluster(clusters_[size_t(u)], box, positions, velocities, w, velocity_factor, failed) ? int64_t(-1)
                                                                                                        : failed;
  });
  if (bad_cluster >= 0) {
    const Bond& b = bonds_[size_t(code)];
    throw ValueError(detail::cat("RATTLE: the velocities of constraint ", bond_source_[size_t(code)], " (particles ",
                                 b.i, "-", b.j, ") did not converge to tolerance ", options_.tolerance, " in ",
                                 options_.max_iterations, " iterations"));
  }
  for_each_unit(int64_t(waters_.size()), virial, code, [&](int64_t u, Mat3* w) {
    settle_velocities(waters_[size_t(u)], box, positions, velocities, w, velocity_factor);
    return int64_t(-1);
  });
}

}  // namespace spire::sponge
