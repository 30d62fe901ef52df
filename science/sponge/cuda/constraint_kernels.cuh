// Constraints on the cuda platform: SHAKE and RATTLE for the topology's Constraint clusters, one
// thread per cluster sweeping its bonds in order until a sweep corrects none, and SETTLE for rigid
// waters, one thread per molecule: constraints.cpp's algorithms with its operations in its order,
// so a body run on the host gives Constraints' numbers (to the few ulp a fused multiply-add can
// move), and a device run the same constrained dynamics.
//
// Clusters are the connected components of the constraint graph in order of their first
// constraint, bonds grouped by cluster in topology order (Constraints' own layout, rebuilt here
// from the System because Constraints keeps it private; constraint_topology()). Clusters and
// waters share no particle, so their threads never touch the same particle.
//
// Virial: each cluster or water adds its constraint forces' virial (Constraints' formulas, all
// nine components: SETTLE's is not symmetric) to nine fixed-point totals, so the sum has the same
// bits whatever the order of the threads.
//
// Failures: a cluster that does not converge or breaks reports its bond's index (a water that
// cannot be solved, its index) to a slot by atomic minimum, so the first failure in Constraints'
// order is the one named, as on the cpu; the host reads the slots after a chunk of steps.
#pragma once
#include <cuda_runtime_api.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "engine/core/host_device.h"
#include "science/sponge/cuda/device_box.cuh"
#include "science/sponge/cuda/device_vec.cuh"
#include "science/sponge/cuda/fixed_point.cuh"
#include "science/sponge/system.h"

namespace spire::sponge::cuda {

struct ConstrainedBond {
  int i, j;
  double length;
};

struct SettleWater {
  int o, h1, h2;
  double d_oh, d_hh, m_o, m_h;
};

// The constraints as Constraints lays them out (host vectors; the device holds copies).
struct ConstraintTopology {
  std::vector<ConstrainedBond> bonds;   // grouped by cluster, topology order within each
  std::vector<int64_t> bond_source;     // index in topology.constraints, for messages
  std::vector<int64_t> cluster_begin;   // cluster c is bonds [cluster_begin[c], cluster_begin[c + 1])
  std::vector<SettleWater> waters;
  std::vector<double> inverse_mass;     // 0 for fixed particles
  int64_t clusters() const { return int64_t(cluster_begin.size()) - 1; }
};

// Constraints(system)'s clusters, waters and inverse masses, in its order. The system is taken as
// Constraints has checked it (the caller constructs a Constraints first for its errors).
inline ConstraintTopology constraint_topology(const System& system) {
  ConstraintTopology t;
  const Topology& top = system.topology;
  const int64_t n = system.size();
  t.inverse_mass.resize(size_t(n));
  for (int64_t i = 0; i < n; ++i) {
    const double m = system.mass[size_t(i)];
    t.inverse_mass[size_t(i)] = m > 0 ? 1 / m : 0;
  }
  for (const RigidWater& w : top.waters)
    t.waters.push_back({w.o, w.h1, w.h2, w.d_oh, w.d_hh, system.mass[size_t(w.o)], system.mass[size_t(w.h1)]});
  // Union-find over the constraint graph, then clusters in order of their first constraint.
  std::vector<int> parent(static_cast<size_t>(n));
  std::iota(parent.begin(), parent.end(), 0);
  auto root = [&](int a) {
    while (parent[size_t(a)] != a) a = parent[size_t(a)] = parent[size_t(parent[size_t(a)])];
    return a;
  };
  for (const Constraint& c : top.constraints) parent[size_t(root(c.i))] = root(c.j);
  std::vector<int64_t> cluster_of_root(size_t(n), -1);
  std::vector<std::vector<int64_t>> members;
  for (size_t k = 0; k < top.constraints.size(); ++k) {
    const int r = root(top.constraints[k].i);
    if (cluster_of_root[size_t(r)] < 0) {
      cluster_of_root[size_t(r)] = int64_t(members.size());
      members.emplace_back();
    }
    members[size_t(cluster_of_root[size_t(r)])].push_back(int64_t(k));
  }
  t.cluster_begin.push_back(0);
  for (const auto& m : members) {
    for (int64_t k : m) {
      const Constraint& c = top.constraints[size_t(k)];
      t.bonds.push_back({c.i, c.j, c.length});
      t.bond_source.push_back(k);
    }
    t.cluster_begin.push_back(int64_t(t.bonds.size()));
  }
  return t;
}

// What the bodies read: the layout above in (device or host) arrays, and per-bond scratch (each
// cluster's thread uses its own bonds' entries).
struct ConstraintArrays {
  const ConstrainedBond* bonds = nullptr;
  const int64_t* cluster_begin = nullptr;
  const SettleWater* waters = nullptr;
  const double* inverse_mass = nullptr;
  double* bond_vectors = nullptr;  // 3 per bond
  double* multipliers = nullptr;   // 1 per bond: the summed Lagrange multipliers
  double tolerance = 1e-10;
  int max_iterations = 1000;
};

// The constraint forces' virial of one cluster or water, all nine components, row-major.
struct Virial9 {
  double w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  // Mat3::add_outer.
  SPIRE_HD void add_outer(const V3& a, const V3& b) {
    const double ar[3] = {a.x, a.y, a.z}, bc[3] = {b.x, b.y, b.z};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) w[3 * r + c] += ar[r] * bc[c];
  }
};

SPIRE_HD inline void store3(double* x, int64_t i, const V3& v) {
  x[3 * i] = v.x, x[3 * i + 1] = v.y, x[3 * i + 2] = v.z;
}
SPIRE_HD inline V3 over(const V3& v, double s) { return {v.x / s, v.y / s, v.z / s}; }

// SHAKE on cluster c (Constraints::shake_cluster): `positions` moved onto the constraints along the
// bonds of `reference`; each velocity (when given) gets its correction / dt; the virial of the
// forces m Delta r / position_factor into `virial`. Returns -1, or the global index of the bond that
// broke (begin + k) or of the cluster's first bond when max_iterations sweeps did not converge.
SPIRE_HD inline int64_t shake_cluster(const ConstraintArrays& a, int64_t c, const DeviceBox& box,
                                      const double* reference, double* positions, double* velocities, double dt,
                                      double position_factor, Virial9& virial) {
  const int64_t begin = a.cluster_begin[c], end = a.cluster_begin[c + 1];
  for (int64_t k = begin; k < end; ++k) {
    const ConstrainedBond b = a.bonds[k];
    store3(a.bond_vectors, k, min_image(box, load3(reference, b.j) - load3(reference, b.i)));
    a.multipliers[k] = 0;
  }
  const double tol2 = 2 * a.tolerance;
  bool converged = false;
  for (int iter = 0; iter < a.max_iterations && !converged; ++iter) {
    converged = true;
    for (int64_t k = begin; k < end; ++k) {
      const ConstrainedBond b = a.bonds[k];
      const double d2 = b.length * b.length;
      const V3 r = min_image(box, load3(positions, b.j) - load3(positions, b.i));
      const double diff = d2 - norm2(r);
      if (std::fabs(diff) <= tol2 * d2) continue;
      const double wi = a.inverse_mass[b.i], wj = a.inverse_mass[b.j];
      const V3 s = load3(a.bond_vectors, k);
      const double sr = dot(s, r);
      // The correction acts along the old bond: nearly perpendicular to the new one, no
      // correction along it restores the length (the step was far too long).
      if (!(sr > 1e-6 * d2)) return k;
      const double g = diff / (2 * sr * (wi + wj));
      store3(positions, b.i, load3(positions, b.i) - s * (g * wi));
      store3(positions, b.j, load3(positions, b.j) + s * (g * wj));
      converged = false;
      a.multipliers[k] += g;
    }
  }
  if (!converged) return begin;
  for (int64_t k = begin; k < end; ++k) {
    const ConstrainedBond b = a.bonds[k];
    const double g = a.multipliers[k];
    const V3 s = load3(a.bond_vectors, k);
    if (velocities) {
      store3(velocities, b.i, load3(velocities, b.i) - s * (g * a.inverse_mass[b.i] / dt));
      store3(velocities, b.j, load3(velocities, b.j) + s * (g * a.inverse_mass[b.j] / dt));
    }
    virial.add_outer(s, s * (g / position_factor));
  }
  return -1;
}

// RATTLE on cluster c (Constraints::rattle_cluster): the relative velocity along every bond of
// `positions` removed; the virial of the forces m Delta v / velocity_factor. Returns as shake_cluster.
SPIRE_HD inline int64_t rattle_cluster(const ConstraintArrays& a, int64_t c, const DeviceBox& box,
                                       const double* positions, double* velocities, double velocity_factor,
                                       Virial9& virial) {
  const int64_t begin = a.cluster_begin[c], end = a.cluster_begin[c + 1];
  for (int64_t k = begin; k < end; ++k) {
    const ConstrainedBond b = a.bonds[k];
    store3(a.bond_vectors, k, min_image(box, load3(positions, b.j) - load3(positions, b.i)));
    a.multipliers[k] = 0;
  }
  const double tol = a.tolerance;
  bool converged = false;
  for (int iter = 0; iter < a.max_iterations && !converged; ++iter) {
    converged = true;
    for (int64_t k = begin; k < end; ++k) {
      const ConstrainedBond b = a.bonds[k];
      const V3 rk = load3(a.bond_vectors, k);
      const V3 v = load3(velocities, b.j) - load3(velocities, b.i);
      const double rv = dot(rk, v), r2 = norm2(rk);
      if (std::fabs(rv) <= tol * std::sqrt(r2 * norm2(v))) continue;
      const double wi = a.inverse_mass[b.i], wj = a.inverse_mass[b.j];
      const double g = -rv / (r2 * (wi + wj));
      store3(velocities, b.i, load3(velocities, b.i) - rk * (g * wi));
      store3(velocities, b.j, load3(velocities, b.j) + rk * (g * wj));
      converged = false;
      a.multipliers[k] += g;
    }
  }
  if (!converged) return begin;
  for (int64_t k = begin; k < end; ++k) {
    const V3 rk = load3(a.bond_vectors, k);
    virial.add_outer(rk, rk * (a.multipliers[k] / velocity_factor));
  }
  return -1;
}

// SETTLE's position part for water w (Constraints::settle_positions, Miyamoto and Kollman's
// analytic solution in its canonical frame). False when the result is not finite (a step far too
// long): nothing is moved then.
SPIRE_HD inline bool settle_positions(const SettleWater& w, const DeviceBox& box, const double* reference,
                                      double* positions, double* velocities, double dt, double position_factor,
                                      Virial9& virial) {
  // Everything relative to the reference oxygen; each atom's own displacement keeps its image.
  const V3 ro = load3(reference, w.o);
  const V3 b0 = min_image(box, load3(reference, w.h1) - ro);
  const V3 c0 = min_image(box, load3(reference, w.h2) - ro);
  const V3 a_new = load3(positions, w.o) - ro;
  const V3 b_new = b0 + (load3(positions, w.h1) - load3(reference, w.h1));
  const V3 c_new = c0 + (load3(positions, w.h2) - load3(reference, w.h2));
  const double total = w.m_o + 2 * w.m_h;
  const V3 com = over(a_new * w.m_o + (b_new + c_new) * w.m_h, total);
  const V3 a1 = a_new - com, b1 = b_new - com, c1 = c_new - com;

  // A frame with z normal to the reference plane and x perpendicular to the new oxygen's offset.
  V3 ez = cross(b0, c0);
  V3 ex = cross(a1, ez);
  V3 ey = cross(ez, ex);
  ex = over(ex, norm(ex));
  ey = over(ey, norm(ey));
  ez = over(ez, norm(ez));
  auto in_frame = [&](const V3& v) { return V3{dot(v, ex), dot(v, ey), dot(v, ez)}; };
  const V3 b0d = in_frame(b0), c0d = in_frame(c0);
  const V3 a1d = in_frame(a1), b1d = in_frame(b1), c1d = in_frame(c1);

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

  const V3 a3{-ya2 * sintheta, ya2 * costheta, a1d.z};
  const V3 b3{xb2 * costheta - yb2 * sintheta, xb2 * sintheta + yb2 * costheta, b1d.z};
  const V3 c3{-xb2 * costheta - yc2 * sintheta, -xb2 * sintheta + yc2 * costheta, c1d.z};
  auto out_of_frame = [&](const V3& v) { return ex * v.x + ey * v.y + ez * v.z; };
  const V3 da = com + out_of_frame(a3) - a_new;
  const V3 db = com + out_of_frame(b3) - b_new;
  const V3 dc = com + out_of_frame(c3) - c_new;
  if (!(std::isfinite(da.x + da.y + da.z) && std::isfinite(db.x + db.y + db.z) && std::isfinite(dc.x + dc.y + dc.z)))
    return false;
  store3(positions, w.o, load3(positions, w.o) + da);
  store3(positions, w.h1, load3(positions, w.h1) + db);
  store3(positions, w.h2, load3(positions, w.h2) + dc);
  if (velocities) {
    store3(velocities, w.o, load3(velocities, w.o) + over(da, dt));
    store3(velocities, w.h1, load3(velocities, w.h1) + over(db, dt));
    store3(velocities, w.h2, load3(velocities, w.h2) + over(dc, dt));
  }
  // sum_a r_a (x) f_a over the reference positions (the forces sum to zero, so any origin).
  virial.add_outer(b0, db * (w.m_h / position_factor));
  virial.add_outer(c0, dc * (w.m_h / position_factor));
  return true;
}

// SETTLE's velocity part for water w (Constraints::settle_velocities): three impulses along the
// bonds that leave no relative velocity along any of them, a 3x3 system solved by Cramer's rule.
SPIRE_HD inline void settle_velocities(const SettleWater& w, const DeviceBox& box, const double* positions,
                                       double* velocities, double velocity_factor, Virial9& virial) {
  const int atom[3] = {w.o, w.h1, w.h2};
  const double inv[3] = {1 / w.m_o, 1 / w.m_h, 1 / w.m_h};
  const int pair[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  V3 r[3];
  double b[3];
  for (int k = 0; k < 3; ++k) {
    const int i = atom[pair[k][0]], j = atom[pair[k][1]];
    r[k] = min_image(box, load3(positions, j) - load3(positions, i));
    b[k] = -dot(r[k], load3(velocities, j) - load3(velocities, i));
  }
  // sign of impulse l on local atom a: +1 at its second atom, -1 at its first.
  auto sign = [&](int l, int a) { return a == pair[l][1] ? 1.0 : (a == pair[l][0] ? -1.0 : 0.0); };
  double m[3][3];
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l) {
      const int i = pair[k][0], j = pair[k][1];
      m[k][l] = dot(r[k], r[l]) * (sign(l, j) * inv[j] - sign(l, i) * inv[i]);
    }
  auto det3 = [](const double (&x)[3][3]) {
    return x[0][0] * (x[1][1] * x[2][2] - x[1][2] * x[2][1]) - x[0][1] * (x[1][0] * x[2][2] - x[1][2] * x[2][0]) +
           x[0][2] * (x[1][0] * x[2][1] - x[1][1] * x[2][0]);
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
    store3(velocities, atom[i], load3(velocities, atom[i]) - r[l] * (g[l] * inv[i]));
    store3(velocities, atom[j], load3(velocities, atom[j]) + r[l] * (g[l] * inv[j]));
    virial.add_outer(r[l], r[l] * (g[l] / velocity_factor));
  }
}

// ---- launches (constraint_kernels.cu), asynchronous on `stream` ----

// Where a stage's results go: nine fixed-point virial totals (null: no virial) and the failure slot
// (atomic minimum of the failing bond's or water's index; LLONG_MAX when none failed).
struct ConstraintOutputs {
  long long* virial = nullptr;
  long long* failed = nullptr;
};

// SHAKE on every cluster, then SETTLE on every water (Constraints::constrain_positions). Fails into
// outputs.failed[0] (bond index) and outputs.failed[2] (water index).
void launch_constrain_positions(const ConstraintArrays& a, int64_t clusters, int64_t waters, const DeviceBox& box,
                                const double* reference, double* positions, double* velocities, double dt,
                                double position_factor, const ConstraintOutputs& outputs, cudaStream_t stream);
// RATTLE on every cluster, then SETTLE's velocity part on every water (constrain_velocities).
// Fails into outputs.failed[1] (bond index).
void launch_constrain_velocities(const ConstraintArrays& a, int64_t clusters, int64_t waters, const DeviceBox& box,
                                 const double* positions, double* velocities, double velocity_factor,
                                 const ConstraintOutputs& outputs, cudaStream_t stream);

}  // namespace spire::sponge::cuda
