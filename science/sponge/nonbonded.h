// The pair kernel behind Lennard-Jones and the direct-space Coulomb sums (Ewald and PME's erfc
// screened 1/r, reaction field), alone or both in one pass over the same neighbour list: the row
// packing, the gathers and the 1/r work done once per pair, the two energies kept apart.
//
// Input: a half list (NeighborList::pair_list(): row i holds its partners j > i in ascending
// order). Each pair within the cutoff gets, with d = r_j - r_i minimum-imaged and r = |d|,
//   Lennard-Jones   U = r^-6 (c12 r^-6 - c6) - shift (+ the force-switch polynomial),
//                   c12, c6, shift from a per type pair table (lennard_jones.h)
//   Ewald           k q_i q_j (1/r - g(r)), g = erf(alpha r)/r from a cubic Hermite spline in r^2
//                   through exact values and slopes (the kernel's own, like ErfTable but in r^2:
//                   its lookup needs no square root first), 4096 intervals for alpha rc = 2.63,
//                   relative error below 3e-15 in g and 1e-9 in the screened force
//   reaction field  k q_i q_j (1/r + k_rf r^2 - c_rf)
// and the force s d on j (-s d on i) with s = -dU/dr / r, and s d (x) d into the virial.
//
// Determinism. Forces, energies and virial have the same bits whatever the thread count and
// whenever or however the list was built (its skin, the step it was built at), which is what makes
// a restart from a checkpoint bit for bit:
//  - Each row is packed first: the partners inside the cutoff, in ascending j, with d and r^2. The
//    kernel then takes the packed pairs eight at a time, so a pair's lane is its rank within the
//    row's pairs inside the cutoff, modulo 8: the pairs of the skin never enter a sum, not even as
//    zeros that would shift the lanes.
//  - Rows are grouped in blocks of consecutive rows fixed by the particle count alone. A block's
//    forces on partners j go into the block's own window of force slots (its first row to its
//    highest partner), each slot receiving its contributions in row order; a particle's force is
//    then its windows' slots summed in block order. Energies and virial are summed per lane over a
//    block, the lanes in a fixed order at its end, and the blocks in block order.
// Every sum is thus fixed by the pairs inside the cutoff and the particle count alone. The kernel
// is compiled for AVX2 and for AVX-512 (taken at run time when the processor has it) with the same
// operations lane by lane, so both give the same bits too (nonbonded_simd.h).
//
// Speed (double precision, no -ffast-math): positions and charges interleaved (x, y, z, q) so
// that eight partners load as eight vectors and one transpose; the spline in r^2, whose lookup
// starts as soon as r^2 is known, its four coefficients per interval loaded likewise; square root
// and division exact (IEEE), no estimates; Lennard-Jones skipped on rows whose type has no
// Lennard-Jones partner at all (water's hydrogens) and Coulomb on uncharged rows; forces on
// partners added as (x, y, z, 0) vectors into the window; a row packed while the previous one is
// computed. Measured on 3375 SPC/E waters (1.55 million pairs inside 0.9 nm, 2.1 million listed),
// the packing costs about as much as the arithmetic of the pairs.
#pragma once
#include <cstdint>
#include <vector>

#include "science/sponge/force.h"

namespace spire::sponge {

// A half pair list: row i holds its partners j > i in ascending order, row[i][0 .. size[i]), and
// at least 16 readable entries follow every row (the kernel loads partners a vector at a time).
struct PairList {
  const int32_t* const* row = nullptr;  // rows entries
  const int32_t* size = nullptr;        // rows entries
  int64_t rows = 0;
  int64_t pairs = 0;  // the sum of the sizes
};

// Lennard-Jones as the kernel sees it (LennardJones resolves it for a System).
struct LJPairTerm {
  const double* table = nullptr;  // per type pair ti * ntypes + tj: c12, c6, shift, 0
  int ntypes = 0;
  const int* type = nullptr;     // per particle
  const char* active = nullptr;  // per type: 1 when some type pair of its row has c12 or c6 != 0
  double cutoff = 0;
  bool switched = false;  // force_switch: the polynomial of lennard_jones.h from switch_distance
  double switch_distance = 0, a12 = 0, b12 = 0, a6 = 0, b6 = 0;
};

enum class CoulombPairKind { ewald, reaction_field };

// A direct-space Coulomb sum as the kernel sees it (coulomb.h).
struct CoulombPairTerm {
  CoulombPairKind kind = CoulombPairKind::ewald;
  const double* charge = nullptr;  // per particle
  double prefactor = 0;            // k = 1/(4 pi eps0) in the system's units
  double cutoff = 0;
  double alpha = 0;  // ewald: the splitting parameter
  // reaction field
  double k_rf = 0, c_rf = 0;
};

struct PairEnergies {
  double lj = 0, coulomb = 0;
};

// The kernel with its working memory (blocks, force windows, packed rows), reused between calls.
class PairKernel {
 public:
  // Adds the forces and virial of every listed pair closer than the terms' cutoff (lj, coulomb or
  // both; both need the same cutoff) to `out` and returns each term's energy. ValueError for
  // sizes that do not match, or two terms with different cutoffs.
  PairEnergies add(const PairList& list, const State& state, const LJPairTerm* lj, const CoulombPairTerm* coulomb,
                   ForceResult& out);
  // AVX-512 is used when the processor has it, unless switched off here (for tests: both
  // instruction sets give the same bits).
  void set_avx512(bool allowed) { avx512_ = allowed; }

  // A block of rows and the window of particles its forces land on.
  struct Block {
    int64_t row_begin = 0, row_end = 0, lo = 0, hi = 0, offset = 0;  // window [lo, hi] at windows_[4 offset]
    double lj = 0, coulomb = 0;
    double virial[6] = {0, 0, 0, 0, 0, 0};  // xx xy xz yy yz zz
  };

 private:
  void partition(const PairList& list);
  // The spline of erf(alpha r)/r in u = r^2 for this alpha and cutoff, built on first use.
  void prepare_spline(double alpha, double cutoff);

  bool avx512_ = true;
  std::vector<Block> blocks_;
  std::vector<double> windows_;  // 4 doubles per slot (x, y, z, unused), plus room to align
  std::vector<double> xyzq_;     // per particle x, y, z, q, plus room to align
  std::vector<int32_t> type4_;   // per particle 4 * type
  double spline_alpha_ = 0, spline_cutoff_ = 0, spline_inverse_spacing_ = 0;
  std::vector<double> spline_;  // interval k at [4k, 4k + 4): c0..c3 in t = u / h - k
};

}  // namespace spire::sponge
