// What every barostat shares (barostat.h): the groups that scale together, the scaling of
// positions about their centres, the instantaneous pressure.
#include "science/sponge/barostat.h"

#include <numeric>

#include "engine/core/error.h"
#include "science/sponge/md_integrator.h"
#include "science/sponge/observables.h"
#include "science/sponge/saved_state.h"

namespace spire::sponge {

namespace {
int find_root(std::vector<int>& parent, int a) {
  while (parent[size_t(a)] != a) a = parent[size_t(a)] = parent[size_t(parent[size_t(a)])];
  return a;
}
}  // namespace

Barostat::Barostat(const char* who, int64_t frequency, BarostatScaling scaling)
    : frequency_(frequency), scaling_(scaling) {
  SPIRE_CHECK(frequency >= 1, ValueError, who, ": frequency ", frequency, " must be >= 1 (steps between moves)");
}

void Barostat::setup(const System& system, const State& state) {
  SPIRE_CHECK(state.box.periodic(), ValueError, name(),
              ": a barostat changes the volume, so the system needs a periodic box");
  const int64_t n = system.size();
  const Topology& top = system.topology;
  top.check(n);
  std::vector<int> parent(static_cast<size_t>(n));
  std::iota(parent.begin(), parent.end(), 0);
  auto join = [&](int a, int b) { parent[size_t(find_root(parent, a))] = find_root(parent, b); };
  if (scaling_ == BarostatScaling::molecule) {
    // OpenMM's molecules: particles connected by any bonded term, constraint or rigid water.
    for (const Bond& b : top.bonds) join(b.i, b.j);
    for (const Angle& a : top.angles) join(a.i, a.j), join(a.j, a.k);
    for (const Torsion& t : top.torsions) join(t.i, t.j), join(t.j, t.k), join(t.k, t.l);
    for (const Improper& t : top.impropers) join(t.i, t.j), join(t.j, t.k), join(t.k, t.l);
    for (const Pair14& p : top.pairs14) join(p.i, p.j);
  }
  for (const Constraint& c : top.constraints) join(c.i, c.j);
  for (const RigidWater& w : top.waters) join(w.o, w.h1), join(w.o, w.h2);

  // Groups in order of their first particle; members in particle order.
  std::vector<int64_t> group_of_root(size_t(n), -1), count;
  for (int i = 0; i < int(n); ++i) {
    const int r = find_root(parent, i);
    if (group_of_root[size_t(r)] < 0) {
      group_of_root[size_t(r)] = int64_t(count.size());
      count.push_back(0);
    }
    ++count[size_t(group_of_root[size_t(r)])];
  }
  group_offsets_.assign(count.size() + 1, 0);
  for (size_t g = 0; g < count.size(); ++g) group_offsets_[g + 1] = group_offsets_[g] + count[g];
  group_members_.assign(size_t(n), 0);
  std::vector<int64_t> fill(group_offsets_.begin(), group_offsets_.end() - 1);
  for (int i = 0; i < int(n); ++i) group_members_[size_t(fill[size_t(group_of_root[size_t(find_root(parent, i))])]++)] = i;
}

void Barostat::scale_positions(const Box& box, const Mat3& mu, std::vector<Vec3>& positions) const {
  auto apply_mu = [&mu](const Vec3& r) {
    return Vec3{mu(0, 0) * r.x + mu(0, 1) * r.y + mu(0, 2) * r.z, mu(1, 0) * r.x + mu(1, 1) * r.y + mu(1, 2) * r.z,
                mu(2, 0) * r.x + mu(2, 1) * r.y + mu(2, 2) * r.z};
  };
  const int64_t groups = group_count();
#pragma omp parallel for schedule(static) if (groups > 4096)
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t begin = group_offsets_[size_t(g)], end = group_offsets_[size_t(g) + 1];
    const Vec3 first = positions[size_t(group_members_[size_t(begin)])];
    Vec3 offset;
    for (int64_t k = begin + 1; k < end; ++k)
      offset += box.min_image(positions[size_t(group_members_[size_t(k)])] - first);
    const Vec3 centre = first + offset / double(end - begin);
    const Vec3 shift = apply_mu(centre) - centre;
    for (int64_t k = begin; k < end; ++k) positions[size_t(group_members_[size_t(k)])] += shift;
  }
}

Mat3 Barostat::pressure_tensor(const System& system, const State& state, const ForceField& forces,
                               const MdIntegrator& integrator) const {
  Mat3 p = kinetic_tensor(system, state.velocities) + forces.result().virial + integrator.constraint_virial();
  return p * (1 / state.box.volume());
}

void Barostat::save_state(IntegratorState& out) const { out["barostat.work"] = {work_}; }

void Barostat::load_state(const IntegratorState& in) { work_ = saved_value(in, "barostat.work"); }

}  // namespace spire::sponge
