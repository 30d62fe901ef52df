// Particles and topology (system.h): the bond-graph exclusions, degrees of freedom and the checks
// that every force relies on (indices in range, sizes agreeing).
#include "science/sponge/system.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/core/error.h"

namespace spire::sponge {

namespace {

// "bond 3 (2, 7)": how an error names an entry.
template <class... I>
std::string entry(const char* kind, size_t index, I... atoms) {
  std::string s = detail::cat(kind, " ", index, " (");
  const char* sep = "";
  ((s += detail::cat(sep, atoms), sep = ", "), ...);
  return s + ")";
}

template <class... I>
void check_indices(int64_t n, const char* kind, size_t index, I... atoms) {
  const int64_t list[] = {int64_t(atoms)...};
  constexpr size_t m = sizeof...(I);
  for (size_t p = 0; p < m; ++p) {
    SPIRE_CHECK(list[p] >= 0 && list[p] < n, ValueError, "Topology: ", entry(kind, index, atoms...),
                ": particle index ", list[p], " is outside [0, ", n, ")");
    for (size_t q = 0; q < p; ++q)
      SPIRE_CHECK(list[p] != list[q], ValueError, "Topology: ", entry(kind, index, atoms...), ": particle ",
                  list[p], " appears twice");
  }
}

void check_parameter(bool ok, const char* kind, size_t index, const std::string& what) {
  SPIRE_CHECK(ok, ValueError, "Topology: ", kind, " ", index, ": ", what);
}

}  // namespace

void Topology::normalize_exclusions() {
  for (auto& [i, j] : exclusions)
    if (i > j) std::swap(i, j);
  std::sort(exclusions.begin(), exclusions.end());
  exclusions.erase(std::unique(exclusions.begin(), exclusions.end()), exclusions.end());
}

bool Topology::excluded(int i, int j) const {
  if (i > j) std::swap(i, j);
  return std::binary_search(exclusions.begin(), exclusions.end(), std::make_pair(i, j));
}

void Topology::exclude_bonded(double coulomb14, double lj14) {
  // The bond graph: bonds, constraints (a constrained bond is still a bond), and each rigid
  // water's two O-H bonds (H-H then comes out as a 1-3 pair).
  int n = 0;
  auto grow = [&n](int a, int b) { n = std::max(n, std::max(a, b) + 1); };
  for (const Bond& b : bonds) grow(b.i, b.j);
  for (const Constraint& c : constraints) grow(c.i, c.j);
  for (const RigidWater& w : waters) grow(w.o, std::max(w.h1, w.h2));
  std::vector<std::vector<int>> neighbours(n);
  auto link = [&](int a, int b) {
    SPIRE_CHECK(a >= 0 && b >= 0 && a != b, ValueError, "Topology::exclude_bonded: bad bond (", a, ", ", b,
                "): indices must be >= 0 and distinct");
    neighbours[a].push_back(b);
    neighbours[b].push_back(a);
  };
  for (const Bond& b : bonds) link(b.i, b.j);
  for (const Constraint& c : constraints) link(c.i, c.j);
  for (const RigidWater& w : waters) {
    link(w.o, w.h1);
    link(w.o, w.h2);
  }
  for (auto& list : neighbours) {  // a bond listed twice (a bond and a constraint) is one edge
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }

  // Breadth-first search to depth 3 from every atom: the depth is the shortest path, so a pair
  // that is 1-2 or 1-3 along any path is never taken for a 1-4 pair (rings of 3 to 6 atoms).
  std::set<std::pair<int, int>> known14;
  for (const Pair14& p : pairs14) known14.insert(std::minmax(p.i, p.j));
  std::vector<int> depth(n, -1), frontier, next, seen;
  for (int root = 0; root < n; ++root) {
    if (neighbours[root].empty()) continue;
    depth[root] = 0;
    seen.assign(1, root);
    frontier.assign(1, root);
    for (int d = 1; d <= 3; ++d) {
      next.clear();
      for (int u : frontier)
        for (int v : neighbours[u])
          if (depth[v] < 0) {
            depth[v] = d;
            next.push_back(v);
            seen.push_back(v);
          }
      frontier.swap(next);
    }
    // Pairs are recorded from their lower index only, in increasing partner order, so the
    // result does not depend on the order of the input lists.
    std::vector<int> partners;
    for (int v : seen)
      if (v > root) partners.push_back(v);
    std::sort(partners.begin(), partners.end());
    for (int v : partners) {
      exclusions.emplace_back(root, v);
      if (depth[v] == 3 && known14.insert({root, v}).second) pairs14.push_back({root, v, coulomb14, lj14});
    }
    for (int v : seen) depth[v] = -1;
  }
  normalize_exclusions();
}

void Topology::check(int64_t n) const {
  for (size_t k = 0; k < bonds.size(); ++k) {
    const Bond& b = bonds[k];
    check_indices(n, "bond", k, b.i, b.j);
    check_parameter(std::isfinite(b.length) && b.length >= 0 && std::isfinite(b.k), "bond", k,
                    detail::cat("length must be finite and >= 0 and k finite, got length ", b.length, ", k ", b.k));
  }
  for (size_t k = 0; k < angles.size(); ++k) {
    const Angle& a = angles[k];
    check_indices(n, "angle", k, a.i, a.j, a.k);
    check_parameter(std::isfinite(a.theta0) && std::isfinite(a.k_theta), "angle", k,
                    detail::cat("theta0 and k must be finite, got ", a.theta0, ", ", a.k_theta));
  }
  for (size_t k = 0; k < torsions.size(); ++k) {
    const Torsion& t = torsions[k];
    check_indices(n, "torsion", k, t.i, t.j, t.k, t.l);
    check_parameter(t.n >= 1, "torsion", k, detail::cat("periodicity n must be >= 1, got ", t.n));
    check_parameter(std::isfinite(t.phase) && std::isfinite(t.k_phi), "torsion", k,
                    detail::cat("phase and k must be finite, got ", t.phase, ", ", t.k_phi));
  }
  for (size_t k = 0; k < impropers.size(); ++k) {
    const Improper& t = impropers[k];
    check_indices(n, "improper", k, t.i, t.j, t.k, t.l);
    check_parameter(std::isfinite(t.xi0) && std::isfinite(t.k_xi), "improper", k,
                    detail::cat("xi0 and k must be finite, got ", t.xi0, ", ", t.k_xi));
  }
  for (size_t k = 0; k < pairs14.size(); ++k) {
    const Pair14& p = pairs14[k];
    check_indices(n, "1-4 pair", k, p.i, p.j);
    check_parameter(std::isfinite(p.coulomb_scale) && std::isfinite(p.lj_scale), "1-4 pair", k,
                    detail::cat("scales must be finite, got ", p.coulomb_scale, ", ", p.lj_scale));
  }
  for (size_t k = 0; k < constraints.size(); ++k) {
    const Constraint& c = constraints[k];
    check_indices(n, "constraint", k, c.i, c.j);
    check_parameter(std::isfinite(c.length) && c.length > 0, "constraint", k,
                    detail::cat("length must be finite and > 0, got ", c.length));
  }
  for (size_t k = 0; k < waters.size(); ++k) {
    const RigidWater& w = waters[k];
    check_indices(n, "rigid water", k, w.o, w.h1, w.h2);
    // The triangle O-H-H must exist: 0 < d_hh < 2 d_oh.
    check_parameter(std::isfinite(w.d_oh) && std::isfinite(w.d_hh) && w.d_oh > 0 && w.d_hh > 0 && w.d_hh < 2 * w.d_oh,
                    "rigid water", k,
                    detail::cat("needs 0 < d_hh < 2 d_oh, got d_oh ", w.d_oh, ", d_hh ", w.d_hh));
  }
  for (size_t k = 0; k < exclusions.size(); ++k) {
    const auto& [i, j] = exclusions[k];
    check_indices(n, "exclusion", k, i, j);
  }
}

int System::add_particle(double m, double q, const std::string& type_name) {
  auto it = std::find(type_names.begin(), type_names.end(), type_name);
  int t = int(it - type_names.begin());
  if (it == type_names.end()) type_names.push_back(type_name);
  mass.push_back(m);
  charge.push_back(q);
  type.push_back(t);
  return int(mass.size()) - 1;
}

int64_t System::degrees_of_freedom(bool remove_com_motion) const {
  auto mobile = [this](int i) { return i >= 0 && i < size() && mass[i] > 0; };
  int64_t n_mobile = 0;
  for (double m : mass) n_mobile += m > 0;
  int64_t dof = 3 * n_mobile;
  // A constraint to a fixed particle still takes one degree from the other end; one between two
  // fixed particles takes none. SETTLE's rigid water keeps 6 of its 9.
  for (const Constraint& c : topology.constraints) dof -= mobile(c.i) || mobile(c.j);
  for (const RigidWater& w : topology.waters) dof -= (mobile(w.o) || mobile(w.h1) || mobile(w.h2)) ? 3 : 0;
  if (remove_com_motion && n_mobile > 0) dof -= 3;
  return std::max<int64_t>(dof, 0);
}

void System::check() const {
  const int64_t n = size();
  SPIRE_CHECK(int64_t(charge.size()) == n, ValueError, "System: ", charge.size(), " charges for ", n,
              " particles (one per particle)");
  SPIRE_CHECK(int64_t(type.size()) == n, ValueError, "System: ", type.size(), " types for ", n,
              " particles (one per particle)");
  for (int64_t i = 0; i < n; ++i) {
    SPIRE_CHECK(std::isfinite(mass[i]) && mass[i] >= 0, ValueError, "System: particle ", i, " has mass ", mass[i],
                "; masses must be finite and >= 0 (0 holds a particle fixed)");
    SPIRE_CHECK(std::isfinite(charge[i]), ValueError, "System: particle ", i, " has charge ", charge[i],
                "; charges must be finite");
    SPIRE_CHECK(type[i] >= 0 && size_t(type[i]) < type_names.size(), ValueError, "System: particle ", i,
                " has type ", type[i], " outside [0, ", type_names.size(), ") (the type_names)");
  }
  auto optional = [n](size_t got, const char* what) {
    SPIRE_CHECK(got == 0 || int64_t(got) == n, ValueError, "System: ", got, " ", what, " for ", n,
                " particles (either none or one per particle)");
  };
  optional(atom_name.size(), "atom names");
  optional(residue_name.size(), "residue names");
  optional(residue_id.size(), "residue ids");
  topology.check(n);
  // SETTLE moves all three atoms: a fixed atom inside a rigid water would be moved.
  for (size_t k = 0; k < topology.waters.size(); ++k) {
    const RigidWater& w = topology.waters[k];
    SPIRE_CHECK(mass[w.o] > 0 && mass[w.h1] > 0 && mass[w.h2] > 0, ValueError, "System: rigid water ", k, " (",
                w.o, ", ", w.h1, ", ", w.h2, ") has a particle of mass 0; SETTLE needs three moving atoms");
  }
}

}  // namespace spire::sponge
