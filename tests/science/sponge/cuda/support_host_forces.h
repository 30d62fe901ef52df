// The cuda platform's force pipeline run on the host: DeviceForceField's sequence of kernels
// (device_force_field.cu) with each kernel's body called in a plain loop, std::stable_sort and
// std::exclusive_scan for cub's sort and scan, FFTW for cuFFT, and fixed-point accumulation
// without atomics. What the device computes, less the GPU: tests compare it with the CPU platform.
// Loops can run their items in a shuffled order, to show that fixed-point sums do not care.
#pragma once
#include <fftw3.h>

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "science/sponge/cuda/force_parameters.h"

namespace spire::sponge::cuda::testing {

class HostForceField {
 public:
  HostForceField(const System& system, const ForceField& forces) : p(force_parameters(system, forces)) {}

  ForceParameters p;
  uint64_t shuffle_seed = 0;  // nonzero: every loop visits its items in a shuffled order

  // The latest list (rows by particle, partners in walk order) and the fixed-point results.
  std::vector<int64_t> offsets;
  std::vector<int32_t> neighbors;
  std::vector<long long> force_fixed, totals, mesh_fixed;
  std::array<int, 3> mesh{};

  // Whether the list built at `built` is stale at `now` (neighbor_moved over every particle).
  bool moved(const State& built, const State& now) const {
    MovedArgs m;
    m.x = flat(now), m.reference = flat(built), m.box = DeviceBox::of(now.box);
    m.limit = 0.25 * p.skin * p.skin;
    int flag = 0;
    m.moved = &flag;
    each(p.particles, [&](int64_t i) { neighbor_moved(m, i); });
    return flag != 0;
  }

  void build_list(const State& state) {
    const int64_t n = p.particles;
    const double* x = flat(state);
    Bounds extent;
    for (int k = 0; k < 3; ++k) extent.lo[k] = DBL_MAX, extent.hi[k] = -DBL_MAX;
    each(n, [&](int64_t i) { merge_bounds(extent, x, i); });
    NeighborArgs a;
    a.x = x, a.n = n, a.box = DeviceBox::of(state.box);
    a.grid = neighbor_grid(p, state.box, state.box.periodic() ? nullptr : &extent);
    std::vector<double> wrapped(size_t(3 * n)), sorted_x(size_t(3 * n));
    const size_t count = static_cast<size_t>(n);
    std::vector<int> cell(count), index(count), sorted_cell(count), sorted_index(count);
    std::vector<int> cell_start(size_t(a.grid.cells() + 1));
    std::vector<int64_t> counts(size_t(n + 1), 0);
    int bad = int(n);
    a.wrapped = wrapped.data(), a.cell = cell.data(), a.index = index.data();
    a.sorted_cell = sorted_cell.data(), a.sorted_index = sorted_index.data();
    a.cell_start = cell_start.data(), a.sorted_x = sorted_x.data();
    a.excl_offsets = p.excl_offsets.data(), a.excl_partners = p.excl_partners.data();
    a.counts = counts.data(), a.bad = &bad;
    each(n, [&](int64_t i) { neighbor_bin(a, i); });
    // cub::DeviceRadixSort::SortPairs: stable by cell.
    std::vector<std::pair<int, int>> keyed(count);
    for (int64_t i = 0; i < n; ++i) keyed[size_t(i)] = {cell[size_t(i)], index[size_t(i)]};
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& u, const auto& v) { return u.first < v.first; });
    for (int64_t i = 0; i < n; ++i) sorted_cell[size_t(i)] = keyed[size_t(i)].first, sorted_index[size_t(i)] = keyed[size_t(i)].second;
    each(a.grid.cells() + 1, [&](int64_t c) { neighbor_cell_start(a, c); });
    each(n, [&](int64_t q) { neighbor_gather(a, q); });
    each(n, [&](int64_t q) { neighbor_row<false>(a, q); });
    offsets.assign(size_t(n + 1), 0);
    std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), int64_t(0));
    SPIRE_CHECK(bad >= n, ValueError, "NeighborList: particle ", bad,
                " has a non-finite position: the simulation has blown up or was never initialised");
    neighbors.assign(size_t(offsets[size_t(n)]), -1);
    a.offsets = offsets.data(), a.neighbors = neighbors.data();
    each(n, [&](int64_t q) { neighbor_row<true>(a, q); });
  }

  // Every force term at `state` (the list built afresh), as DeviceForceField::compute and download.
  ForceResult compute(const State& state) {
    const int64_t n = p.particles;
    const double* x = flat(state);
    if (p.list_cutoff > 0) build_list(state);
    force_fixed.assign(size_t(3 * n), 0);
    totals.assign(size_t(p.slots()), 0);
    const DeviceBox db = DeviceBox::of(state.box);
    auto slots = [&](int e0, int e1) {
      TallySlots s;
      s.totals = totals.data(), s.energy[0] = e0, s.energy[1] = e1, s.virial = p.virial_slot;
      return s;
    };
    if (p.lj_slot >= 0 || p.coulomb_slot >= 0) {
      NonbondedArgs a;
      a.x = x, a.box = db, a.offsets = offsets.data(), a.neighbors = neighbors.data();
      a.lj = p.lj, a.type = p.type.data(), a.lj_table = p.lj_table.data();
      a.coulomb = p.coulomb, a.charge = p.charge.data();
      for (int k = 0; k < 4; ++k) a.erf_c[k] = p.erf_table[k].data();
      a.force = force_fixed.data(), a.slots = slots(p.lj_slot, p.coulomb_slot);
      each_tallied(n, a.slots, [&](int64_t i, Tally& t) { nonbonded_row(a, i, t); });
      Pair14Args q;
      q.x = x, q.box = db, q.pairs = p.pairs14.data(), q.lj = p.lj, q.type = p.type.data(), q.lj_table = p.lj_table.data();
      q.coulomb = p.coulomb_slot >= 0, q.prefactor = p.coulomb.prefactor, q.charge = p.charge.data();
      q.force = force_fixed.data(), q.slots = slots(p.lj_slot, p.coulomb_slot);
      each_tallied(int64_t(p.pairs14.size()), q.slots, [&](int64_t k, Tally& t) { pair14(q, k, t); });
    }
    if (p.pme) {
      ExclusionArgs e;
      e.x = x, e.box = db, e.pairs = p.exclusions.data(), e.charge = p.charge.data();
      e.prefactor = p.coulomb.prefactor, e.alpha = p.coulomb.alpha;
      e.force = force_fixed.data(), e.slots = slots(p.coulomb_slot, -1);
      each_tallied(int64_t(p.exclusions.size()), e.slots, [&](int64_t k, Tally& t) { ewald_exclusion(e, k, t); });
      reciprocal(x, state.box, slots(p.coulomb_slot, -1));
    }
    bonded(x, db, p.bonds, p.bonds_slot, harmonic_bond);
    bonded(x, db, p.angles, p.angles_slot, harmonic_angle);
    bonded(x, db, p.torsions, p.torsions_slot, periodic_torsion);
    bonded(x, db, p.impropers, p.impropers_slot, harmonic_improper);
    bonded(x, db, p.restraints, p.restraints_slot, position_restraint);
    if (p.field_slot >= 0) {
      FieldArgs f;
      f.x = x, f.charge = p.charge.data(), f.mass = p.mass.data();
      for (int k = 0; k < 3; ++k) f.field[k] = p.field[k], f.acceleration[k] = p.acceleration[k];
      f.force = force_fixed.data(), f.slots = slots(p.field_slot, -1), f.slots.virial = -1;
      each_tallied(n, f.slots, [&](int64_t i, Tally& t) { external_field(f, i, t); });
    }
    ForceResult out;
    out.forces.assign(size_t(n), Vec3{});
    each(3 * n, [&](int64_t k) { forces_from_fixed(force_fixed.data(), &out.forces[0].x, k); });
    collect(p, totals.data(), state.box, out);
    return out;
  }

 private:
  static const double* flat(const State& state) { return state.positions.empty() ? nullptr : &state.positions[0].x; }

  // The items 0 .. n-1 in order, or shuffled.
  std::vector<int64_t> order(int64_t n) const {
    std::vector<int64_t> items(size_t(std::max<int64_t>(n, 0)));
    std::iota(items.begin(), items.end(), int64_t(0));
    if (shuffle_seed) std::shuffle(items.begin(), items.end(), std::mt19937_64(shuffle_seed + uint64_t(n)));
    return items;
  }
  template <class Body>
  void each(int64_t n, Body body) const {
    for (int64_t t : order(n)) body(t);
  }
  template <class Body>
  void each_tallied(int64_t n, const TallySlots& slots, Body body) const {
    for (int64_t t : order(n)) {
      Tally tally;
      body(t, tally);
      commit(slots, tally);
    }
  }

  template <class Term, class Body>
  void bonded(const double* x, const DeviceBox& db, const std::vector<Term>& terms, int slot, Body body) {
    if (slot < 0) return;
    BondedArgs<Term> a;
    a.x = x, a.box = db, a.terms = terms.data(), a.force = force_fixed.data();
    a.slots.totals = totals.data(), a.slots.energy[0] = slot, a.slots.virial = p.virial_slot;
    each_tallied(int64_t(terms.size()), a.slots, [&](int64_t t, Tally& y) { body(a, t, y); });
  }

  void reciprocal(const double* x, const Box& box, const TallySlots& slots) {
    if (mesh[0] == 0) mesh = pme_mesh(p, box);
    const std::vector<double> moduli = pme_moduli(p.pme_order, mesh);
    PmeArgs a;
    a.x = x, a.charge = p.charge.data();
    a.c = pme_constants(p, mesh, box);
    const int64_t n = p.particles, points = a.c.points();
    std::vector<int> index(size_t(3 * n));
    std::vector<double> theta(size_t(3 * n * p.pme_order)), dtheta(theta.size());
    std::vector<double> real(static_cast<size_t>(points));
    std::vector<double> spectrum(size_t(2 * a.c.spectrum_points()));
    mesh_fixed.assign(size_t(points), 0);
    a.index = index.data(), a.theta = theta.data(), a.dtheta = dtheta.data();
    a.mesh_fixed = mesh_fixed.data(), a.mesh = real.data(), a.spectrum = spectrum.data();
    a.moduli = moduli.data(), a.force = force_fixed.data(), a.slots = slots;
    each(n, [&](int64_t q) { pme_spline(a, q); });
    each(n, [&](int64_t q) { pme_spread(a, q); });
    each(points, [&](int64_t m) { pme_to_real(a, m); });
    auto* z = reinterpret_cast<fftw_complex*>(spectrum.data());
    fftw_plan forward = fftw_plan_dft_r2c_3d(mesh[0], mesh[1], mesh[2], real.data(), z, FFTW_ESTIMATE);
    fftw_execute(forward);
    fftw_destroy_plan(forward);
    each_tallied(a.c.spectrum_points(), slots, [&](int64_t m, Tally& t) { pme_convolve(a, m, t); });
    fftw_plan backward = fftw_plan_dft_c2r_3d(mesh[0], mesh[1], mesh[2], z, real.data(), FFTW_ESTIMATE);
    fftw_execute(backward);
    fftw_destroy_plan(backward);
    each(n, [&](int64_t q) { pme_interpolate(a, q); });
  }
};

}  // namespace spire::sponge::cuda::testing
