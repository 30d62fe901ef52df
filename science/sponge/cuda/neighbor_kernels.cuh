// The device neighbour list's kernel bodies: the CPU list's (neighbor_list.cpp) cells and rule,
// in passes a GPU runs one thread per item.
//
//   moved       per particle: displacement since the build (minimum image) beyond skin/2 sets a flag
//   bin         per particle: unit coordinates (fractional, wrapped; or within the bounding box of a
//               box-less system), the position searched from, its cell
//   (sort)      (cell, particle) pairs by cell, stable: cub::DeviceRadixSort on the device,
//               std::stable_sort in host tests; each cell then holds ascending particle indices
//   cell_start  per cell: where its particles start among the sorted ones (a binary search)
//   gather      per sorted position: the searched-from coordinates in cell order
//   row<false>  per sorted position p (particle i): how many j > i, not excluded, lie closer than
//               cutoff + skin, over the cells within reach of i's cell
//   (scan)      exclusive sum of the counts: row offsets (CSR), cub::DeviceScan / std::exclusive_scan
//   row<true>   the same walk again, writing the partners into row i
//
// Cells are the CPU list's: half the range thick, in fractional coordinates (sheared copies of a
// triclinic box), at most max(64, 2N) of them, searched ceil(range / thickness) cells each side
// (the whole axis when that reaches around it), with the same narrower x reach for orthogonal
// cells. Displacements are minimum-imaged (DeviceBox): with the range at most half the box's
// smallest width a pair has one image within range, so the pairs are the CPU list's. Count and
// fill walk the same cells in the same order, so a row's partners fit its count exactly; the order
// within a row is the walk's, which force sums in fixed point do not depend on.
#pragma once
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/core/host_device.h"
#include "science/sponge/box.h"
#include "science/sponge/cuda/device_box.cuh"
#include "science/sponge/cuda/device_vec.cuh"

namespace spire::sponge::cuda {

inline constexpr int kCellsPerRange = 2;
inline constexpr double kReachMargin = 1e-10;
inline constexpr int kMaxAxisCells = 2 * kCellsPerRange + 3;

struct NeighborGrid {
  int n[3] = {1, 1, 1};
  int reach[3] = {0, 0, 0};
  int whole[3] = {1, 1, 1};
  double thickness[3] = {0, 0, 0};
  int periodic = 0;
  double lo[3] = {0, 0, 0}, width[3] = {0, 0, 0};  // without a box: unit = (r - lo) / width
  double range2 = 0;
  // The x reach for cells |dy| and |dz| cells away (0 along a whole axis); -1: none left.
  int x_reach[kMaxAxisCells][kMaxAxisCells] = {};
  SPIRE_HD int64_t cells() const { return int64_t(n[0]) * n[1] * n[2]; }
};

// The CPU list's grid (neighbor_list.cpp, make_grid and its x reach) for extents `width` along the
// three axes (a periodic box's widths, or a bounding box's), lower corner `lo` (no box only).
inline NeighborGrid make_neighbor_grid(const Vec3& width, const Vec3& lo, double range, bool periodic, bool orthogonal,
                                       int64_t particles) {
  const double cap = std::max<double>(64, 2.0 * double(particles));
  double bin = range / kCellsPerRange;
  NeighborGrid g;
  for (;;) {
    double cells = 1;
    for (int k = 0; k < 3; ++k) {
      const double count = std::floor(width[k] / bin);
      g.n[k] = int(std::clamp(count, 1.0, 1e6));
      cells *= g.n[k];
    }
    if (cells <= cap) break;
    bin *= std::cbrt(cells / cap) * 1.01;
  }
  for (int k = 0; k < 3; ++k) {
    g.thickness[k] = width[k] / g.n[k];
    const double reach = g.thickness[k] > 0 ? std::ceil(range / g.thickness[k] * (1 + kReachMargin)) : 0;
    g.reach[k] = int(std::min<double>(reach, g.n[k]));
    g.whole[k] = periodic ? 2 * g.reach[k] + 1 >= g.n[k] : g.reach[k] >= g.n[k] - 1;
    g.lo[k] = lo[k];
    g.width[k] = width[k];
  }
  g.periodic = periodic;
  g.range2 = range * range;
  for (int ay = 0; ay < kMaxAxisCells; ++ay)
    for (int az = 0; az < kMaxAxisCells; ++az) {
      int reach = g.reach[0];
      if (orthogonal) {
        const double gy = std::max(0, ay - 1) * g.thickness[1], gz = std::max(0, az - 1) * g.thickness[2];
        const double left = g.range2 - gy * gy - gz * gz;
        if (left <= 0 && (ay > 1 || az > 1)) {
          reach = -1;
        } else if (g.thickness[0] > 0) {
          reach = std::min(reach, int(std::ceil(std::sqrt(std::max(left, 0.0)) / g.thickness[0] * (1 + kReachMargin))));
        }
      }
      g.x_reach[ay][az] = reach;
    }
  return g;
}

SPIRE_HD inline bool finite(double v) {
#if defined(__CUDA_ARCH__)
  return isfinite(v);
#else
  return std::isfinite(v);
#endif
}

// The smallest of the values stored (an atomic min on the device).
SPIRE_HD inline void store_min(int* slot, int v) {
#if defined(__CUDA_ARCH__)
  atomicMin(slot, v);
#else
  if (v < *slot) *slot = v;
#endif
}

struct MovedArgs {
  const double* x = nullptr;          // 3n: now
  const double* reference = nullptr;  // 3n: at the build
  DeviceBox box;
  double limit = 0;  // (skin / 2)^2
  int* moved = nullptr;
};

// Sets *moved when particle i is further than skin/2 from where it was at the build (a NaN counts
// as moved, so the build that follows reports it): NeighborList::update's rule.
SPIRE_HD inline void neighbor_moved(const MovedArgs& a, int64_t i) {
  const V3 d = min_image(a.box, load3(a.x, i) - load3(a.reference, i));
  if (!(norm2(d) <= a.limit)) *a.moved = 1;
}

// A box-less system's extent, merged particle by particle (min and max are exact: any order).
struct Bounds {
  double lo[3], hi[3];
};
SPIRE_HD inline void merge_bounds(Bounds& b, const double* x, int64_t i) {
  for (int k = 0; k < 3; ++k) {
    const double v = x[3 * i + k];
    b.lo[k] = v < b.lo[k] ? v : b.lo[k];
    b.hi[k] = v > b.hi[k] ? v : b.hi[k];
  }
}

struct NeighborArgs {
  const double* x = nullptr;  // 3n positions
  int64_t n = 0;
  DeviceBox box;
  NeighborGrid grid;
  double* wrapped = nullptr;  // 3n: the coordinates searched from, by particle
  int* cell = nullptr;        // n: each particle's cell (sort keys)
  int* index = nullptr;       // n: 0 .. n-1 (sort values)
  const int* sorted_cell = nullptr, * sorted_index = nullptr;  // after the sort
  int* cell_start = nullptr;  // cells + 1
  double* sorted_x = nullptr; // 3n: wrapped, in cell order
  const int64_t* excl_offsets = nullptr;  // n + 1: per particle i its excluded j > i,
  const int32_t* excl_partners = nullptr; //   sorted
  int64_t* counts = nullptr;  // n + 1 (the last stays 0, so the scan's last entry is the total)
  const int64_t* offsets = nullptr;
  int32_t* neighbors = nullptr;
  int* bad = nullptr;  // the smallest particle index with a non-finite position (n when none)
};

// Particle i: unit coordinates, wrapped position, cell (NeighborList::build's binning).
SPIRE_HD inline void neighbor_bin(const NeighborArgs& a, int64_t i) {
  const NeighborGrid& g = a.grid;
  const double x = a.x[3 * i], y = a.x[3 * i + 1], z = a.x[3 * i + 2];
  a.index[i] = int(i);
  if (!(finite(x) && finite(y) && finite(z))) {
    store_min(a.bad, int(i));
    a.cell[i] = 0;
    a.wrapped[3 * i] = a.wrapped[3 * i + 1] = a.wrapped[3 * i + 2] = 0;
    return;
  }
  double s[3];
  if (g.periodic) {
    a.box.to_fractional(x, y, z, s[0], s[1], s[2]);
    for (int k = 0; k < 3; ++k) {
      s[k] -= floor(s[k]);
      if (s[k] >= 1) s[k] = 0;  // a hair below an integer: floor left 1 - tiny, which rounded to 1
    }
    a.box.from_fractional(s[0], s[1], s[2], a.wrapped[3 * i], a.wrapped[3 * i + 1], a.wrapped[3 * i + 2]);
  } else {
    const double r[3] = {x, y, z};
    for (int k = 0; k < 3; ++k) s[k] = g.width[k] > 0 ? (r[k] - g.lo[k]) / g.width[k] : 0;
    a.wrapped[3 * i] = x, a.wrapped[3 * i + 1] = y, a.wrapped[3 * i + 2] = z;
  }
  int c[3];
  for (int k = 0; k < 3; ++k) {
    const int ck = int(s[k] * g.n[k]);
    c[k] = ck < g.n[k] - 1 ? ck : g.n[k] - 1;
  }
  a.cell[i] = int((int64_t(c[2]) * g.n[1] + c[1]) * g.n[0] + c[0]);
}

// Cell c (0 .. cells, the last the end): the first sorted position whose cell is >= c.
SPIRE_HD inline void neighbor_cell_start(const NeighborArgs& a, int64_t c) {
  int64_t lo = 0, hi = a.n;
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if (a.sorted_cell[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  a.cell_start[c] = int(lo);
}

// Sorted position p: its particle's coordinates, so that a cell's candidates lie together.
SPIRE_HD inline void neighbor_gather(const NeighborArgs& a, int64_t p) {
  const int i = a.sorted_index[p];
  for (int k = 0; k < 3; ++k) a.sorted_x[3 * p + k] = a.wrapped[3 * int64_t(i) + k];
}

// The cells searched along one axis from cell c, with their distance in cells (0 along a whole
// axis): neighbor_list.cpp's axis_cells. Distinct cells, so each candidate is met once.
SPIRE_HD inline int neighbor_axis_cells(const NeighborGrid& g, int axis, int c, int* cells, int* steps) {
  const int n = g.n[axis];
  int count = 0;
  if (g.whole[axis]) {
    for (int k = 0; k < n; ++k) cells[count] = k, steps[count] = 0, ++count;
    return count;
  }
  for (int d = -g.reach[axis]; d <= g.reach[axis]; ++d) {
    int k = c + d;
    if (g.periodic) {
      k += k < 0 ? n : k >= n ? -n : 0;  // the reach is less than half the axis: one wrap at most
    } else if (k < 0 || k >= n) {
      continue;
    }
    cells[count] = k, steps[count] = d < 0 ? -d : d, ++count;
  }
  return count;
}

// Whether j is among i's excluded partners [e0, e1) (sorted).
SPIRE_HD inline bool neighbor_excluded(const int32_t* partners, int64_t e0, int64_t e1, int32_t j) {
  int64_t lo = e0, hi = e1;
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if (partners[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  return lo < e1 && partners[lo] == j;
}

// Row of the particle at sorted position p: counted (kFill false: counts[i]) or written
// (neighbors[offsets[i] ..)). Both walk the same cells in the same order.
template <bool kFill>
SPIRE_HD inline void neighbor_row(const NeighborArgs& a, int64_t p) {
  const NeighborGrid& g = a.grid;
  const int i = a.sorted_index[p];
  const int cell = a.sorted_cell[p];
  const int cx = cell % g.n[0], cy = cell / g.n[0] % g.n[1], cz = cell / g.n[0] / g.n[1];
  const double xi = a.sorted_x[3 * p], yi = a.sorted_x[3 * p + 1], zi = a.sorted_x[3 * p + 2];
  const int64_t e0 = a.excl_offsets[i], e1 = a.excl_offsets[i + 1];
  int32_t* out = kFill ? a.neighbors + a.offsets[i] : nullptr;
  int64_t count = 0;
  int zs[kMaxAxisCells], zstep[kMaxAxisCells], ys[kMaxAxisCells], ystep[kMaxAxisCells];
  const int nz = neighbor_axis_cells(g, 2, cz, zs, zstep);
  const int ny = neighbor_axis_cells(g, 1, cy, ys, ystep);
  const int nx = g.n[0];
  for (int za = 0; za < nz; ++za)
    for (int yb = 0; yb < ny; ++yb) {
      const int reach = g.x_reach[ystep[yb]][zstep[za]];
      if (reach < 0) continue;
      // The x cells: one or two contiguous runs (a periodic wrap splits it).
      int runs[2][2], nruns = 1;
      const int lo = cx - reach, hi = cx + reach;
      if (!g.periodic) {
        runs[0][0] = lo > 0 ? lo : 0, runs[0][1] = hi < nx - 1 ? hi : nx - 1;
      } else if (2 * reach + 1 >= nx) {
        runs[0][0] = 0, runs[0][1] = nx - 1;
      } else if (lo < 0) {
        runs[0][0] = lo + nx, runs[0][1] = nx - 1, runs[1][0] = 0, runs[1][1] = hi, nruns = 2;
      } else if (hi >= nx) {
        runs[0][0] = lo, runs[0][1] = nx - 1, runs[1][0] = 0, runs[1][1] = hi - nx, nruns = 2;
      } else {
        runs[0][0] = lo, runs[0][1] = hi;
      }
      const int64_t base = (int64_t(zs[za]) * g.n[1] + ys[yb]) * nx;
      for (int r = 0; r < nruns; ++r) {
        const int q0 = a.cell_start[base + runs[r][0]], q1 = a.cell_start[base + runs[r][1] + 1];
        for (int q = q0; q < q1; ++q) {
          const int j = a.sorted_index[q];
          if (j <= i) continue;
          double dx = a.sorted_x[3 * int64_t(q)] - xi, dy = a.sorted_x[3 * int64_t(q) + 1] - yi,
                 dz = a.sorted_x[3 * int64_t(q) + 2] - zi;
          a.box.min_image(dx, dy, dz);
          if (!(dx * dx + dy * dy + dz * dz < g.range2)) continue;
          if (e1 > e0 && neighbor_excluded(a.excl_partners, e0, e1, j)) continue;
          if (kFill) out[count] = j;
          ++count;
        }
      }
    }
  if (!kFill) a.counts[i] = count;
}

// Launchers (neighbor_kernels.cu): one thread per item, on `stream`; nothing for zero items.
void launch_neighbor_moved(const MovedArgs& a, int64_t n, cudaStream_t stream);
void launch_neighbor_bounds(const double* x, int64_t n, Bounds* out, cudaStream_t stream);  // one block
void launch_neighbor_bin(const NeighborArgs& a, cudaStream_t stream);
void launch_neighbor_cell_start(const NeighborArgs& a, cudaStream_t stream);
void launch_neighbor_gather(const NeighborArgs& a, cudaStream_t stream);
void launch_neighbor_rows(const NeighborArgs& a, bool fill, cudaStream_t stream);

}  // namespace spire::sponge::cuda
