// Verlet neighbour lists built with cell lists (LAMMPS's `neighbor skin bin`, GROMACS's Verlet
// buffer): every pair closer than cutoff + skin at the last build, so until any particle has moved
// more than skin / 2 since then, no pair within the cutoff can be missing. update() checks exactly
// that (the largest displacement since the build, minimum-imaged) and rebuilds only when needed:
// never a missed pair, and no fixed rebuild interval to tune.
//
// Storage is rows sized by what the search found, O(N + pairs) memory that grows as needed and
// cannot overflow (no fixed neighbours-per-atom bound to exceed), left where the build's threads
// wrote them (pair_list()); compressed rows (CSR, offsets() and neighbors()) on request.
// Half list: each pair once, (i, j) with i < j stored in row i, rows in ascending j. Excluded
// pairs (topology) are left out. Works in orthorhombic and triclinic boxes (cells in fractional coordinates, with as many
// cell layers searched as the cutoff + skin needs along each axis) and without a box (one cell
// grid over the particles' extent). Deterministic: rows and the order within them depend only on
// the pairs, not on threads or on the cell traversal.
#pragma once
#include <cstdint>
#include <vector>

#include "science/sponge/nonbonded.h"
#include "science/sponge/state.h"
#include "science/sponge/system.h"

namespace spire::sponge {

class NeighborList {
 public:
  // cutoff > 0, skin >= 0. ValueError otherwise.
  NeighborList(double cutoff, double skin);
  // A copy's rows point into its own storage.
  NeighborList(const NeighborList& other);
  NeighborList& operator=(const NeighborList& other);
  NeighborList(NeighborList&&) noexcept = default;
  NeighborList& operator=(NeighborList&&) noexcept = default;

  // Brings the list up to date for `state`: builds it the first time, and again when the box
  // changed or a particle moved more than skin/2 since the last build. Returns whether it built.
  // ValueError when cutoff + skin exceeds the box's max_cutoff().
  bool update(const System& system, const State& state);
  // Builds now, regardless.
  void build(const System& system, const State& state);

  double cutoff() const { return cutoff_; }
  double skin() const { return skin_; }
  double range() const { return cutoff_ + skin_; }
  int64_t builds() const { return builds_; }
  int64_t size() const { return int64_t(row_.size()); }  // rows
  int64_t pairs() const { return pairs_; }
  // Row i is neighbors()[offsets()[i] .. offsets()[i + 1]). Laid out on first use after a build
  // (the kernels read the rows where the build left them, pair_list()); not to be called from two
  // threads at once.
  const std::vector<int64_t>& offsets() const;
  const std::vector<int32_t>& neighbors() const;
  // The rows where the build left them, valid until the next build.
  PairList pair_list() const { return {row_.data(), row_size_.data(), size(), pairs_}; }

 private:
  double cutoff_, skin_;
  int64_t builds_ = 0;
  int64_t pairs_ = 0;
  std::vector<const int32_t*> row_;  // per particle: its row, in blocks_
  std::vector<int32_t> row_size_;
  // The compressed rows of offsets() and neighbors(), laid out when first asked for.
  mutable bool laid_out_ = false;
  mutable std::vector<int64_t> offsets_;
  mutable std::vector<int32_t> neighbors_;
  void lay_out() const;
  void point_rows();  // row_ from row_block_ and row_at_
  std::vector<Vec3> reference_;  // positions at the last build
  Box reference_box_;

  // The number of exclusions the last build saw: a different count (another System) forces a
  // rebuild too, as does a different particle count.
  int64_t reference_exclusions_ = -1;
  // Build workspace, kept between builds so that a rebuild reallocates only when sizes grow.
  std::vector<int32_t> cell_of_;           // per particle: its cell
  std::vector<int32_t> cell_start_;        // cell c holds sorted_[cell_start_[c] .. cell_start_[c + 1])
  std::vector<int32_t> sorted_;            // particle indices in cell order (ascending within a cell)
  std::vector<double> sx_, sy_, sz_;       // their coordinates (wrapped into the box), in cell order
  std::vector<float> fx_, fy_, fz_;        // the same in single precision, relative to particle 0's
  std::vector<Vec3> wrapped_;              // per particle: the coordinates searched from
  std::vector<int64_t> excluded_offsets_;  // per particle i: the excluded j > i,
  std::vector<int32_t> excluded_;          //   excluded_[excluded_offsets_[i] .. [i + 1])
  std::vector<std::vector<int32_t>> blocks_;  // rows found per block of sorted positions, in parallel
  std::vector<int64_t> row_at_;                // per particle: where its row starts in its block
  std::vector<int32_t> row_block_;             // per particle: the block holding its row
};

}  // namespace spire::sponge
