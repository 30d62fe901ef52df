// The host side of the cuda platform's forces: a ForceField's terms read through their public
// accessors into plain arrays and kernel constants (what DeviceForceField uploads, and what host
// tests feed the kernel bodies), and the parts that depend on the box alone and are computed on
// the host per evaluation (LJ tail corrections, Ewald self energy and neutralising background),
// the PME mesh choice and B-spline moduli, and the neighbour grid. No CUDA calls, and header-only:
// host tests run all of it without the platform's library.
//
// Energy slots: term t of the ForceField (in its order) adds its energy to totals[t]; the virial's
// six components (xx xy xz yy yz zz) follow at totals[virial_slot ..].
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "science/sponge/bonded.h"
#include "science/sponge/coulomb.h"
#include "science/sponge/cuda/bonded_kernels.cuh"
#include "science/sponge/cuda/neighbor_kernels.cuh"
#include "science/sponge/cuda/nonbonded_kernels.cuh"
#include "science/sponge/cuda/pme_kernels.cuh"
#include "science/sponge/force_field.h"
#include "science/sponge/lennard_jones.h"
#include "science/sponge/pme.h"
#include "science/sponge/reaction_field.h"

namespace spire::sponge::cuda {

struct ForceParameters {
  int64_t particles = 0;
  std::vector<std::string> names;  // per term, the CPU terms' names in their order
  int virial_slot = 0;             // = names.size()
  int slots() const { return virial_slot + 6; }

  std::vector<double> charge, mass;
  std::vector<int> type;

  // The neighbour list: the ForceField's longest cutoff (0: no term needs a list) and its skin;
  // exclusions as rows of j > i, sorted.
  double list_cutoff = 0, skin = 0;
  std::vector<int64_t> excl_offsets;
  std::vector<int32_t> excl_partners;

  int lj_slot = -1;
  LjConstants lj;
  std::vector<double> lj_table;  // c12, c6, shift, 0 per type pair
  bool lj_tail = false;
  double lj_tail_energy = 0, lj_tail_pressure = 0;  // LennardJones::KernelParameters's sums

  int coulomb_slot = -1;
  CoulombConstants coulomb;
  std::vector<double> erf_table[4];  // Ewald: the ErfTable's coefficient arrays
  bool pme = false;
  int pme_order = 0;
  std::array<int, 3> pme_grid{};  // the CPU term's mesh when known (option or first evaluation); else zeros
  double pme_tolerance = 0;
  double self_energy = 0, total_charge = 0;
  std::vector<IndexPair> exclusions;  // PME: the pairs whose erf part the reciprocal sum counted

  std::vector<Pair14> pairs14;  // added by the LJ and Coulomb terms present

  int bonds_slot = -1, angles_slot = -1, torsions_slot = -1, impropers_slot = -1, restraints_slot = -1;
  std::vector<Bond> bonds;
  std::vector<Angle> angles;
  std::vector<Torsion> torsions;
  std::vector<Improper> impropers;
  std::vector<RestraintTerm> restraints;
  int field_slot = -1;
  double field[3] = {0, 0, 0}, acceleration[3] = {0, 0, 0};
};

// The terms with a CUDA kernel, for error messages.
inline constexpr const char* kCudaForceTerms =
    "lj (LennardJones), coulomb (PmeCoulomb or ReactionFieldCoulomb), bonds, angles, torsions, impropers, "
    "restraints, external_field";

namespace term_readers {

// Claims a kind's slot for term t (each kind once: the CPU terms' names are fixed and unique).
inline void claim(int& slot, int t, const std::string& name) {
  SPIRE_CHECK(slot < 0, ConfigError, "cuda: the force field has a second '", name,
              "' term; the cuda platform runs one of each of ", kCudaForceTerms);
  slot = t;
}

inline void read_lennard_jones(LennardJones& lj, const System& system, ForceParameters& p) {
  const LennardJones::KernelParameters k = lj.kernel_parameters(system);
  p.lj.enabled = 1;
  p.lj.ntypes = k.ntypes;
  p.lj.rc2 = k.cutoff * k.cutoff;
  p.lj.switched = k.switched;
  p.lj.rs = k.switch_distance;
  p.lj.a12 = k.a12, p.lj.b12 = k.b12, p.lj.a6 = k.a6, p.lj.b6 = k.b6;
  p.lj_table.clear();
  for (const LennardJones::PairCoefficients& c : k.table) p.lj_table.insert(p.lj_table.end(), {c.c12, c.c6, c.shift, 0.0});
  p.lj_tail = lj.tail_correction();
  p.lj_tail_energy = k.tail_energy, p.lj_tail_pressure = k.tail_pressure;
}

inline void read_pme(const PmeCoulomb& pme, const System& system, ForceParameters& p) {
  const ErfTable& table = pme.table();
  p.coulomb.kind = kEwaldCoulomb;
  p.coulomb.prefactor = system.units.coulomb;
  p.coulomb.rc2 = pme.cutoff() * pme.cutoff();
  p.coulomb.alpha = pme.alpha();
  p.coulomb.inv_h = table.inverse_spacing();
  p.coulomb.last = int(table.intervals() - 1);
  for (int k = 0; k < 4; ++k) p.erf_table[k].assign(table.coefficients(k), table.coefficients(k) + table.intervals());
  p.pme = true;
  p.pme_order = pme.order();
  p.pme_grid = pme.grid();
  p.pme_tolerance = pme.options().tolerance;
  p.self_energy = ewald_self_energy(system, pme.alpha());
  p.total_charge = 0;
  for (double q : system.charge) p.total_charge += q;  // add_ewald_background's order
  p.exclusions.clear();
  for (const auto& [i, j] : system.topology.exclusions) p.exclusions.push_back({i, j});
}

inline void read_reaction_field(const ReactionFieldCoulomb& rf, const System& system, ForceParameters& p) {
  p.coulomb.kind = kReactionFieldCoulomb;
  p.coulomb.prefactor = system.units.coulomb;
  p.coulomb.rc2 = rf.cutoff() * rf.cutoff();
  p.coulomb.k_rf = rf.k_rf();
  p.coulomb.c_rf = rf.c_rf();
}

}  // namespace term_readers

// Reads every term of `forces` for `system`. ConfigError naming the first term with no CUDA kernel
// and the terms there are; ValueError (System::check) for an inconsistent system.
inline ForceParameters force_parameters(const System& system, const ForceField& forces) {
  system.check();
  ForceParameters p;
  p.particles = system.size();
  p.charge = system.charge;
  p.mass = system.mass;
  p.type = system.type;
  p.skin = forces.skin();
  const Topology& top = system.topology;
  for (size_t t = 0; t < forces.terms().size(); ++t) {
    Force& force = *forces.terms()[t];
    const std::string name = force.name();
    const int slot = int(t);
    p.names.push_back(name);
    p.list_cutoff = std::max(p.list_cutoff, force.cutoff());
    if (auto* lj = dynamic_cast<LennardJones*>(&force)) {
      term_readers::claim(p.lj_slot, slot, name);
      term_readers::read_lennard_jones(*lj, system, p);
    } else if (auto* pme = dynamic_cast<PmeCoulomb*>(&force)) {
      term_readers::claim(p.coulomb_slot, slot, name);
      term_readers::read_pme(*pme, system, p);
    } else if (auto* rf = dynamic_cast<ReactionFieldCoulomb*>(&force)) {
      term_readers::claim(p.coulomb_slot, slot, name);
      term_readers::read_reaction_field(*rf, system, p);
    } else if (dynamic_cast<HarmonicBonds*>(&force)) {
      term_readers::claim(p.bonds_slot, slot, name);
      p.bonds = top.bonds;
    } else if (dynamic_cast<HarmonicAngles*>(&force)) {
      term_readers::claim(p.angles_slot, slot, name);
      p.angles = top.angles;
    } else if (dynamic_cast<PeriodicTorsions*>(&force)) {
      term_readers::claim(p.torsions_slot, slot, name);
      p.torsions = top.torsions;
    } else if (dynamic_cast<HarmonicImpropers*>(&force)) {
      term_readers::claim(p.impropers_slot, slot, name);
      p.impropers = top.impropers;
    } else if (auto* r = dynamic_cast<PositionRestraints*>(&force)) {
      term_readers::claim(p.restraints_slot, slot, name);
      for (const PositionRestraint& x : r->restraints()) {
        SPIRE_CHECK(x.particle >= 0 && x.particle < p.particles, ValueError, "restraints: a restraint names particle ",
                    x.particle, ", outside [0, ", p.particles, ")");
        p.restraints.push_back({x.particle, x.reference.x, x.reference.y, x.reference.z, x.k});
      }
    } else if (auto* f = dynamic_cast<ExternalField*>(&force)) {
      term_readers::claim(p.field_slot, slot, name);
      for (int a = 0; a < 3; ++a) p.field[a] = f->electric_field()[a], p.acceleration[a] = f->acceleration()[a];
    } else {
      throw ConfigError(::spire::detail::cat("cuda: the force term '", name, "' has no CUDA kernel; the cuda platform runs ",
                                    kCudaForceTerms, " (run this force field on the cpu platform)"));
    }
  }
  p.virial_slot = int(p.names.size());
  if (p.lj_slot >= 0 || p.coulomb_slot >= 0) p.pairs14 = top.pairs14;

  // Exclusions as rows of partners j > i, sorted (NeighborList::build's).
  const int64_t n = p.particles;
  p.excl_offsets.assign(size_t(n + 1), 0);
  for (const auto& [a, b] : top.exclusions) ++p.excl_offsets[size_t(std::min(a, b)) + 1];
  for (int64_t i = 0; i < n; ++i) p.excl_offsets[size_t(i + 1)] += p.excl_offsets[size_t(i)];
  p.excl_partners.assign(top.exclusions.size(), 0);
  std::vector<int64_t> fill(p.excl_offsets.begin(), p.excl_offsets.end() - 1);
  for (const auto& [a, b] : top.exclusions) p.excl_partners[size_t(fill[size_t(std::min(a, b))]++)] = std::max(a, b);
  for (int64_t i = 0; i < n; ++i)
    std::sort(p.excl_partners.begin() + p.excl_offsets[size_t(i)], p.excl_partners.begin() + p.excl_offsets[size_t(i + 1)]);
  return p;
}

// The PME mesh for a first evaluation in `box`: the CPU term's (p.pme_grid) when known, else what
// PmeCoulomb would choose (pme_grid, at least the FFT size of the order).
inline std::array<int, 3> pme_mesh(const ForceParameters& p, const Box& box) {
  if (p.pme_grid[0] > 0) return p.pme_grid;
  std::array<int, 3> grid = pme_grid(box, p.coulomb.alpha, p.pme_tolerance);
  for (int& k : grid) k = std::max(k, pme_fft_size(p.pme_order));
  return grid;
}

// |b(m)|^-2 per axis (pme.cpp's bspline_moduli: zeros take their neighbours' mean), concatenated:
// K1 values, then K2, then K3.
inline std::vector<double> pme_moduli(int order, const std::array<int, 3>& mesh) {
  std::vector<double> all;
  double theta[kPmeMaxOrder], dtheta[kPmeMaxOrder];
  pme_bspline(order, 0.0, theta, dtheta);
  for (int k : mesh) {
    std::vector<double> data(size_t(k), 0.0);
    for (int j = 0; j < order && j + 1 < k; ++j) data[size_t(j + 1)] = theta[j];
    std::vector<double> moduli(static_cast<size_t>(k));
    for (int m = 0; m < k; ++m) {
      double sc = 0, ss = 0;
      for (int j = 0; j < k; ++j) {
        const double arg = 2 * std::numbers::pi * double(int64_t(m) * j % k) / k;
        sc += data[size_t(j)] * std::cos(arg);
        ss += data[size_t(j)] * std::sin(arg);
      }
      moduli[size_t(m)] = sc * sc + ss * ss;
    }
    for (int m = 0; m < k; ++m)
      if (moduli[size_t(m)] < 1e-7) moduli[size_t(m)] = 0.5 * (moduli[size_t((m + k - 1) % k)] + moduli[size_t((m + 1) % k)]);
    all.insert(all.end(), moduli.begin(), moduli.end());
  }
  return all;
}

// The mesh- and box-dependent constants of the PME bodies. ValueError for a non-periodic box.
inline PmeConstants pme_constants(const ForceParameters& p, const std::array<int, 3>& mesh, const Box& box) {
  SPIRE_CHECK(box.periodic(), ValueError, "pme: needs a periodic box");
  PmeConstants c;
  c.order = p.pme_order;
  const std::array<Vec3, 3> rec = reciprocal_vectors(box);
  for (int d = 0; d < 3; ++d) {
    c.k[d] = mesh[size_t(d)];
    for (int e = 0; e < 3; ++e) c.rec[d][e] = rec[size_t(d)][e];
  }
  c.coef = p.coulomb.prefactor / (2 * std::numbers::pi * box.volume());
  c.pi2_over_a2 = std::numbers::pi * std::numbers::pi / (p.coulomb.alpha * p.coulomb.alpha);
  return c;
}

// The neighbour grid for `box` (periodic), or without one for the particles' `bounds`. ValueError
// when cutoff + skin exceeds half the box's smallest width (as NeighborList::build).
inline NeighborGrid neighbor_grid(const ForceParameters& p, const Box& box, const Bounds* bounds) {
  const double range = p.list_cutoff + p.skin;
  if (box.periodic()) {
    SPIRE_CHECK(range <= box.max_cutoff(), ValueError, "NeighborList: cutoff + skin = ", range,
                " exceeds half the box's smallest width (", box.max_cutoff(),
                "), beyond which minimum image is ambiguous: shorten the cutoff or skin, or enlarge the box");
    return make_neighbor_grid(box.width(), Vec3{}, range, true, box.orthorhombic(), p.particles);
  }
  Vec3 lo, width;
  if (bounds && p.particles > 0)
    for (int k = 0; k < 3; ++k) lo[k] = bounds->lo[k], width[k] = bounds->hi[k] - bounds->lo[k];
  return make_neighbor_grid(width, lo, range, false, true, p.particles);
}

// The energies (per term slot) and virial that depend on the box alone.
struct BoxTerms {
  std::vector<double> energy;
  Mat3 virial;
};
inline BoxTerms box_terms(const ForceParameters& p, const Box& box) {
  BoxTerms b;
  b.energy.assign(p.names.size(), 0.0);
  if (p.lj_slot >= 0 && p.lj_tail) {
    SPIRE_CHECK(box.periodic(), ValueError, "LennardJones: tail corrections need a periodic box (a density)");
    const double v = box.volume();
    b.energy[size_t(p.lj_slot)] += 2 * std::numbers::pi / v * p.lj_tail_energy;
    const double p_tail = 2 * std::numbers::pi / (3 * v * v) * p.lj_tail_pressure;
    for (int d = 0; d < 3; ++d) b.virial(d, d) += v * p_tail;
  }
  if (p.pme) {
    SPIRE_CHECK(box.periodic(), ValueError, "pme: needs a periodic box");
    const double alpha = p.coulomb.alpha;
    const double background =
        -p.coulomb.prefactor * std::numbers::pi * p.total_charge * p.total_charge / (2 * box.volume() * alpha * alpha);
    b.energy[size_t(p.coulomb_slot)] += p.self_energy + background;
    for (int d = 0; d < 3; ++d) b.virial(d, d) += background;
  }
  return b;
}

// The energies per term (replacing out.energies) and the virial (replacing out.virial) from the
// fixed-point totals of an evaluation in `box`, with box_terms added. out.forces is left alone.
inline void collect(const ForceParameters& p, const long long* totals, const Box& box, ForceResult& out) {
  const BoxTerms b = box_terms(p, box);
  out.energies.clear();
  for (size_t t = 0; t < p.names.size(); ++t) out.energies.emplace_back(p.names[t], from_fixed(totals[t]) + b.energy[t]);
  const long long* w = totals + p.virial_slot;
  Mat3 v;
  v(0, 0) = from_fixed(w[kWxx]), v(1, 1) = from_fixed(w[kWyy]), v(2, 2) = from_fixed(w[kWzz]);
  v(0, 1) = v(1, 0) = from_fixed(w[kWxy]);
  v(0, 2) = v(2, 0) = from_fixed(w[kWxz]);
  v(1, 2) = v(2, 1) = from_fixed(w[kWyz]);
  out.virial = v + b.virial;
}

}  // namespace spire::sponge::cuda
