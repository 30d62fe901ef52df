// Verlet lists from cell lists (neighbor_list.h).
//
// Build. Particles are binned into cells half the list's range R = cutoff + skin thick, in
// fractional coordinates for periodic boxes (so triclinic cells are sheared copies of the box)
// and over the particles' bounding box without one. A counting sort puts them in cell order,
// stable, so each cell holds ascending indices, with their coordinates copied alongside. Row i
// then scans the cells within R of its own, runs of cells along x at a time (contiguous in cell
// order, so four candidates load as one vector), keeping every j > i closer than R. A pair
// within R differs by at most ceil(R / thickness) cells along each axis, thickness being the
// cell's perpendicular width: the fractional coordinate along an axis changes by exactly the
// distance along that face's normal over the box's width, and no more than the distance itself.
//
// Images. While the reach is less than half of every periodic axis, each cell searched is one
// image, known from how its index wrapped around the box, and the displacement is exact without
// rounding. A box only a few cells wide is searched whole along such an axis instead, each cell
// once, with minimum image by rounding: with R at most half the smallest width a pair has a
// single image within R.
//
// Cells are never more numerous than about twice the particles, so the grid, like the rows (CSR
// sized by what was found), is O(N) memory whatever the box or the particles' spread.
//
// Rows are filled in parallel, one block of rows per task, each row by one thread: the list is
// the same whatever the thread count.
#include "science/sponge/neighbor_list.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/core/error.h"

namespace spire::sponge {
namespace {

constexpr int64_t kBlockRows = 512;  // rows per parallel task
// Below this many particles the per-particle loops run on one thread: waking threads would cost
// more than it saves (and much more on a machine whose cores are busy with other work).
constexpr int64_t kParallelParticles = 16384;
// Cells half the range thick (LAMMPS's default bin): a search covers 25 runs of cells, 3.6 times
// the volume of the range's sphere. Measured on in.lj, thinner cells (a third: 49 runs, 2.6
// times) or thicker (the range: 9 runs, 6.2 times) build slower.
constexpr int kCellsPerRange = 2;
// The search reach is rounded up from R / thickness; this margin keeps a pair exactly R apart
// (up to rounding in the fractional coordinates) inside the reach.
constexpr double kReachMargin = 1e-10;
// Cells are at least R / kCellsPerRange thick unless one cell spans a whole axis, so a search
// reaches at most kCellsPerRange + 1 cells each side, or covers an axis of at most
// 2 kCellsPerRange + 3 cells.
constexpr int kMaxAxisCells = 2 * kCellsPerRange + 3;

// Four doubles: one AVX2 register (two SSE registers elsewhere). The candidates of a run of cells
// are contiguous in cell order, so their coordinates load as vectors.
typedef double v4d __attribute__((vector_size(32)));
typedef int64_t v4i __attribute__((vector_size(32)));
typedef int32_t v4s __attribute__((vector_size(16)));
constexpr int kLanes = 4;

inline v4d splat(double a) { return v4d{a, a, a, a}; }
inline v4d load(const double* p) {
  v4d v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
// Round to nearest (ties to even, as nearbyint) by the 1.5 * 2^52 trick: exact for |v| < 2^51.
inline v4d round_nearest(v4d v) {
  const v4d magic = splat(6755399441055744.0);
  return (v + magic) - magic;
}
// Bit l set when lane l of the mask is set.
inline int lane_bits(v4i mask) {
#if defined(__AVX__)
  return __builtin_ia32_movmskpd256(reinterpret_cast<v4d>(mask));
#else
  return int((mask[0] & 1) | (mask[1] & 2) | (mask[2] & 4) | (mask[3] & 8));
#endif
}

// How a search finds the image of a candidate. shifted: each searched cell's image is known from
// how its index wrapped around the box (no box: no images), so d = x_j + shift - x_i exactly.
// orthorhombic, triclinic: the search covers some periodic axis whole (a box only a few cells
// wide), each cell once, and minimum image by rounding finds the image.
enum class Search { shifted, orthorhombic, triclinic };

// The cell grid: cells per axis, the reach of a search in cells each side, whether that reach
// covers the whole axis, and each cell's thickness.
struct Grid {
  int n[3] = {1, 1, 1};
  int reach[3] = {0, 0, 0};
  bool whole[3] = {true, true, true};
  double thickness[3] = {0, 0, 0};
  int64_t cells() const { return int64_t(n[0]) * n[1] * n[2]; }
};

// Cells at least `range` / kCellsPerRange thick across `width` (per axis; 0 for a flat extent),
// at most about max(2N, 64) of them: with fewer particles than cells the bins grow instead.
Grid make_grid(const Vec3& width, double range, bool periodic, int64_t particles) {
  const double cap = std::max<double>(64, 2.0 * double(particles));
  double bin = range / kCellsPerRange;
  Grid g;
  for (;;) {
    double cells = 1;
    for (int k = 0; k < 3; ++k) {
      double count = std::floor(width[k] / bin);
      g.n[k] = int(std::clamp(count, 1.0, 1e6));
      cells *= g.n[k];
    }
    if (cells <= cap) break;
    bin *= std::cbrt(cells / cap) * 1.01;
  }
  for (int k = 0; k < 3; ++k) {
    g.thickness[k] = width[k] / g.n[k];
    double reach = g.thickness[k] > 0 ? std::ceil(range / g.thickness[k] * (1 + kReachMargin)) : 0;
    g.reach[k] = int(std::min<double>(reach, g.n[k]));
    g.whole[k] = periodic ? 2 * g.reach[k] + 1 >= g.n[k] : g.reach[k] >= g.n[k] - 1;
  }
  return g;
}

// A searched cell along one axis: its index, how many times the search wrapped around the box to
// reach it (-1, 0, 1), and how many cells away it is.
struct AxisCell {
  int cell, wrap, step;  // step: |offset| in cells (0 along a whole axis)
};

int axis_cells(const Grid& g, int axis, int c, bool periodic, AxisCell* out) {
  const int n = g.n[axis];
  int count = 0;
  if (g.whole[axis]) {
    for (int k = 0; k < n; ++k) out[count++] = {k, 0, 0};
    return count;
  }
  for (int d = -g.reach[axis]; d <= g.reach[axis]; ++d) {
    int k = c + d, wrap = 0;
    if (periodic) {
      wrap = k < 0 ? -1 : k >= n ? 1 : 0;  // the reach is less than half the axis: one wrap at most
      k -= wrap * n;
    } else if (k < 0 || k >= n) {
      continue;
    }
    out[count++] = {k, wrap, std::abs(d)};
  }
  return count;
}

// A contiguous run of cells along x, [x0, x1], and its wrap.
struct Run {
  int x0, x1, wrap;
};

// The runs of x cells within `reach` of cx (one or two: a periodic wrap splits it).
int x_runs(const Grid& g, int cx, int reach, bool periodic, Run runs[2]) {
  const int nx = g.n[0];
  const int lo = cx - reach, hi = cx + reach;
  if (!periodic) {
    runs[0] = {std::max(0, lo), std::min(nx - 1, hi), 0};
    return 1;
  }
  if (2 * reach + 1 >= nx) {
    runs[0] = {0, nx - 1, 0};
    return 1;
  }
  if (lo < 0) {
    runs[0] = {lo + nx, nx - 1, -1};
    runs[1] = {0, hi, 0};
    return 2;
  }
  if (hi >= nx) {
    runs[0] = {lo, nx - 1, 0};
    runs[1] = {0, hi - nx, 1};
    return 2;
  }
  runs[0] = {lo, hi, 0};
  return 1;
}

}  // namespace

NeighborList::NeighborList(double cutoff, double skin) : cutoff_(cutoff), skin_(skin) {
  SPIRE_CHECK(std::isfinite(cutoff) && cutoff > 0, ValueError, "NeighborList: cutoff must be finite and > 0, got ",
              cutoff);
  SPIRE_CHECK(std::isfinite(skin) && skin >= 0, ValueError, "NeighborList: skin must be finite and >= 0, got ", skin);
}

bool NeighborList::update(const System& system, const State& state) {
  const int64_t n = int64_t(state.positions.size());
  bool stale = builds_ == 0 || int64_t(reference_.size()) != n || !(state.box == reference_box_) ||
               reference_exclusions_ != int64_t(system.topology.exclusions.size());
  if (!stale) {
    // Rebuild once any particle has moved more than skin/2: until then two particles have closed
    // in by at most the skin, so every pair now within the cutoff was within cutoff + skin.
    // A non-finite position counts as moved, so the build reports it.
    const double limit = 0.25 * skin_ * skin_;
    const Box& box = state.box;
    const Vec3* r = state.positions.data();
    const Vec3* r0 = reference_.data();
    bool moved = false;
#pragma omp parallel for reduction(|| : moved) schedule(static) if (n > kParallelParticles)
    for (int64_t i = 0; i < n; ++i) moved = moved || !(norm2(box.min_image(r[i] - r0[i])) <= limit);
    stale = moved;
  }
  if (stale) build(system, state);
  return stale;
}

void NeighborList::build(const System& system, const State& state) {
  const int64_t n = int64_t(state.positions.size());
  const Box& box = state.box;
  const double range = cutoff_ + skin_;
  const bool periodic = box.periodic();
  SPIRE_CHECK(system.size() == n, ValueError, "NeighborList: the state has ", n, " positions but the system has ",
              system.size(), " particles");
  SPIRE_CHECK(n < int64_t(std::numeric_limits<int32_t>::max()), ValueError, "NeighborList: ", n,
              " particles exceed the 32-bit indices of the list (at most ", std::numeric_limits<int32_t>::max() - 1, ")");
  SPIRE_CHECK(!periodic || range <= box.max_cutoff(), ValueError, "NeighborList: cutoff + skin = ", range,
              " exceeds half the box's smallest width (", box.max_cutoff(),
              "), beyond which minimum image is ambiguous: shorten the cutoff or skin, or enlarge the box");
  for (int64_t i = 0; i < n; ++i) {
    const Vec3& r = state.positions[size_t(i)];
    SPIRE_CHECK(std::isfinite(r.x) && std::isfinite(r.y) && std::isfinite(r.z), ValueError,
                "NeighborList: particle ", i, " has a non-finite position (", r.x, ", ", r.y, ", ", r.z,
                "): the simulation has blown up or was never initialised");
  }

  // Exclusions as rows of j > i, sorted.
  const auto& exclusions = system.topology.exclusions;
  excluded_offsets_.assign(size_t(n + 1), 0);
  for (const auto& [a, b] : exclusions) {
    SPIRE_CHECK(a >= 0 && b >= 0 && a < n && b < n && a != b, ValueError, "NeighborList: exclusion (", a, ", ", b,
                ") is not a pair of distinct particles in [0, ", n, ")");
    ++excluded_offsets_[size_t(std::min(a, b)) + 1];
  }
  for (int64_t i = 0; i < n; ++i) excluded_offsets_[size_t(i + 1)] += excluded_offsets_[size_t(i)];
  excluded_.resize(exclusions.size());
  {
    std::vector<int64_t> fill(excluded_offsets_.begin(), excluded_offsets_.end() - 1);
    for (const auto& [a, b] : exclusions) excluded_[size_t(fill[size_t(std::min(a, b))]++)] = std::max(a, b);
  }
  for (int64_t i = 0; i < n; ++i)
    std::sort(excluded_.begin() + excluded_offsets_[size_t(i)], excluded_.begin() + excluded_offsets_[size_t(i + 1)]);

  // Unit coordinates in [0, 1] per axis: fractional for a periodic box (wrapped), the position
  // within the bounding box otherwise.
  wrapped_.resize(size_t(n));
  cell_of_.resize(size_t(n));
  std::vector<Vec3> unit(static_cast<size_t>(n));
  Vec3 width;
  if (periodic) {
    width = box.width();
#pragma omp parallel for schedule(static) if (n > kParallelParticles)
    for (int64_t i = 0; i < n; ++i) {
      Vec3 s = box.to_fractional(state.positions[size_t(i)]);
      for (int k = 0; k < 3; ++k) {
        s[k] -= std::floor(s[k]);
        if (s[k] >= 1) s[k] = 0;  // a hair below an integer: floor left 1 - tiny, which rounded to 1
      }
      unit[size_t(i)] = s;
      wrapped_[size_t(i)] = box.from_fractional(s);
    }
  } else {
    Vec3 lo{0, 0, 0}, hi{0, 0, 0};
    if (n > 0) lo = hi = state.positions[0];
    for (const Vec3& r : state.positions)
      for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], r[k]), hi[k] = std::max(hi[k], r[k]);
    width = hi - lo;
    for (int64_t i = 0; i < n; ++i) {
      const Vec3& r = state.positions[size_t(i)];
      for (int k = 0; k < 3; ++k) unit[size_t(i)][k] = width[k] > 0 ? (r[k] - lo[k]) / width[k] : 0;
      wrapped_[size_t(i)] = r;
    }
  }
  const Grid g = make_grid(width, range, periodic, n);

  // Counting sort by cell, stable: ascending particle indices within each cell.
  const int64_t ncells = g.cells();
  cell_start_.assign(size_t(ncells + 1), 0);
  for (int64_t i = 0; i < n; ++i) {
    int c[3];
    for (int k = 0; k < 3; ++k) c[k] = std::min(int(unit[size_t(i)][k] * g.n[k]), g.n[k] - 1);
    int32_t cell = int32_t((int64_t(c[2]) * g.n[1] + c[1]) * g.n[0] + c[0]);
    cell_of_[size_t(i)] = cell;
    ++cell_start_[size_t(cell) + 1];
  }
  for (int64_t c = 0; c < ncells; ++c) cell_start_[size_t(c + 1)] += cell_start_[size_t(c)];
  // Padded by a vector's width: the search loads whole vectors and masks the lanes past a run.
  sorted_.assign(size_t(n + kLanes), 0);
  sx_.assign(size_t(n + kLanes), 0), sy_.assign(size_t(n + kLanes), 0), sz_.assign(size_t(n + kLanes), 0);
  {
    std::vector<int32_t> fill(cell_start_.begin(), cell_start_.end() - 1);
    for (int64_t i = 0; i < n; ++i) {
      int32_t p = fill[size_t(cell_of_[size_t(i)])]++;
      sorted_[size_t(p)] = int32_t(i);
      sx_[size_t(p)] = wrapped_[size_t(i)].x;
      sy_[size_t(p)] = wrapped_[size_t(i)].y;
      sz_[size_t(p)] = wrapped_[size_t(i)].z;
    }
  }

  bool whole = false;
  for (int k = 0; k < 3; ++k) whole = whole || (periodic && g.whole[k]);
  const Search search = !whole ? Search::shifted : box.orthorhombic() ? Search::orthorhombic : Search::triclinic;
  const Vec3 va = periodic ? box.a() : Vec3{}, vb = periodic ? box.b() : Vec3{}, vc = periodic ? box.c() : Vec3{};
  const double range2 = range * range;

  // The x reach for cells |dy| and |dz| cells away (0 along a whole axis): with orthogonal axes
  // the gaps across y and z leave less of the range for x; -1 when nothing is left.
  int x_reach[kMaxAxisCells][kMaxAxisCells];
  const bool orthogonal = !periodic || box.orthorhombic();
  for (int ay = 0; ay < kMaxAxisCells; ++ay)
    for (int az = 0; az < kMaxAxisCells; ++az) {
      int reach = g.reach[0];
      if (orthogonal) {
        const double gy = std::max(0, ay - 1) * g.thickness[1], gz = std::max(0, az - 1) * g.thickness[2];
        const double left = range2 - gy * gy - gz * gz;
        if (left <= 0 && (ay > 1 || az > 1)) {
          reach = -1;
        } else if (g.thickness[0] > 0) {
          reach = std::min(reach, int(std::ceil(std::sqrt(std::max(left, 0.0)) / g.thickness[0] * (1 + kReachMargin))));
        }
      }
      x_reach[ay][az] = reach;
    }

  // The runs of candidates for particles in cell (cx, cy, cz): sorted positions [p0, p1) and the
  // image shift their wrap implies.
  struct Candidates {
    int32_t p0, p1;
    int32_t last;  // the highest particle index among them: rows i >= last skip the run
    Vec3 shift;
  };
  auto cell_runs = [&](int32_t cell, std::vector<Candidates>& runs) {
    runs.clear();
    const int cx = int(cell % g.n[0]), cy = int(cell / g.n[0] % g.n[1]), cz = int(cell / g.n[0] / g.n[1]);
    AxisCell zs[kMaxAxisCells], ys[kMaxAxisCells];
    const int nz = axis_cells(g, 2, cz, periodic, zs);
    const int ny = axis_cells(g, 1, cy, periodic, ys);
    for (int a = 0; a < nz; ++a)
      for (int b = 0; b < ny; ++b) {
        const int reach = x_reach[ys[b].step][zs[a].step];
        if (reach < 0) continue;
        Run xs[2];
        const int nx = x_runs(g, cx, reach, periodic, xs);
        const int64_t base = (int64_t(zs[a].cell) * g.n[1] + ys[b].cell) * g.n[0];
        for (int r = 0; r < nx; ++r) {
          const int32_t p0 = cell_start_[size_t(base + xs[r].x0)], p1 = cell_start_[size_t(base + xs[r].x1 + 1)];
          if (p1 == p0) continue;
          // Indices ascend within a cell: each cell's last is its highest.
          int32_t last = -1;
          for (int64_t c = base + xs[r].x0; c <= base + xs[r].x1; ++c)
            if (cell_start_[size_t(c + 1)] > cell_start_[size_t(c)]) last = std::max(last, sorted_[size_t(cell_start_[size_t(c + 1)] - 1)]);
          runs.push_back({p0, p1, last, double(xs[r].wrap) * va + double(ys[b].wrap) * vb + double(zs[a].wrap) * vc});
        }
      }
  };

  // Row i: the j > i within range, in the order of the runs, appended to data[used ..);
  // returns the new used length (data grows as needed; its size is a capacity).
  auto row = [&]<Search M>(int32_t i, const std::vector<Candidates>& runs, std::vector<int32_t>& data,
                           int64_t used) -> int64_t {
    const Vec3 ri = wrapped_[size_t(i)];
    const v4i self = {i, i, i, i};
    const v4i lane = {0, 1, 2, 3};
    const v4d r2max = splat(range2);
    const v4d ax = splat(va.x), bx = splat(vb.x), by = splat(vb.y), cx = splat(vc.x), cy = splat(vc.y), cz = splat(vc.z);
    const v4d iax = splat(periodic ? 1 / va.x : 0), iby = splat(periodic ? 1 / vb.y : 0),
              icz = splat(periodic ? 1 / vc.z : 0);
    int64_t count = used;
    for (const Candidates& run : runs) {
      if (run.last <= i) continue;  // only j > i are kept
      if (int64_t(data.size()) < count + (run.p1 - run.p0) + kLanes)
        data.resize(size_t(2 * (count + (run.p1 - run.p0) + kLanes)));
      int32_t* dst = data.data();
      // d = x_j + shift - x_i = x_j - o.
      const Vec3 o = M == Search::shifted ? ri - run.shift : ri;
      const v4d ox = splat(o.x), oy = splat(o.y), oz = splat(o.z);
      for (int32_t p = run.p0; p < run.p1; p += kLanes) {
        v4d dx = load(sx_.data() + p) - ox, dy = load(sy_.data() + p) - oy, dz = load(sz_.data() + p) - oz;
        if constexpr (M == Search::orthorhombic) {
          dx -= ax * round_nearest(dx * iax);
          dy -= by * round_nearest(dy * iby);
          dz -= cz * round_nearest(dz * icz);
        } else if constexpr (M == Search::triclinic) {
          const v4d n3 = round_nearest(dz * icz);
          dx -= n3 * cx, dy -= n3 * cy, dz -= n3 * cz;
          const v4d n2 = round_nearest(dy * iby);
          dx -= n2 * bx, dy -= n2 * by;
          dx -= ax * round_nearest(dx * iax);
        }
        v4s j32;
        __builtin_memcpy(&j32, sorted_.data() + p, sizeof j32);
        const v4i j = __builtin_convertvector(j32, v4i);
        const int bits = lane_bits((dx * dx + dy * dy + dz * dz < r2max) & (j > self) & (lane < int64_t(run.p1 - p)));
        // Kept by advancing past them: no branch to mispredict.
        dst[count] = j32[0], count += bits & 1;
        dst[count] = j32[1], count += (bits >> 1) & 1;
        dst[count] = j32[2], count += (bits >> 2) & 1;
        dst[count] = j32[3], count += (bits >> 3) & 1;
      }
    }
    // Excluded pairs out (a handful per row at most, sorted: binary search).
    const int64_t e0 = excluded_offsets_[size_t(i)], e1 = excluded_offsets_[size_t(i + 1)];
    if (e1 > e0) {
      const int32_t* ex = excluded_.data();
      int64_t kept = used;
      for (int64_t k = used; k < count; ++k)
        if (!std::binary_search(ex + e0, ex + e1, data[size_t(k)])) data[size_t(kept++)] = data[size_t(k)];
      count = kept;
    }
    return count;
  };

  // Rows are searched in cell order, a block of sorted positions per task, so that the runs of a
  // cell are worked out once for all its particles; each row is then copied to its place.
  const int64_t nblocks = (n + kBlockRows - 1) / kBlockRows;
  blocks_.resize(size_t(nblocks));
  row_at_.resize(size_t(n));
  offsets_.assign(size_t(n + 1), 0);
  auto fill = [&]<Search M>() {
#pragma omp parallel if (nblocks > 1)
    {
      std::vector<Candidates> runs;
#pragma omp for schedule(dynamic, 1)
      for (int64_t blk = 0; blk < nblocks; ++blk) {
        std::vector<int32_t>& data = blocks_[size_t(blk)];
        int64_t used = 0;
        const int64_t s0 = blk * kBlockRows, s1 = std::min(n, s0 + kBlockRows);
        int32_t cell = -1;
        for (int64_t p = s0; p < s1; ++p) {
          const int32_t i = sorted_[size_t(p)];
          if (cell_of_[size_t(i)] != cell) cell_runs(cell = cell_of_[size_t(i)], runs);
          row_at_[size_t(p)] = used;
          const int64_t end = row.template operator()<M>(i, runs, data, used);
          offsets_[size_t(i) + 1] = end - used;
          used = end;
        }
      }
    }
  };
  switch (search) {
    case Search::shifted: fill.template operator()<Search::shifted>(); break;
    case Search::orthorhombic: fill.template operator()<Search::orthorhombic>(); break;
    case Search::triclinic: fill.template operator()<Search::triclinic>(); break;
  }
  for (int64_t i = 0; i < n; ++i) offsets_[size_t(i + 1)] += offsets_[size_t(i)];
  neighbors_.resize(size_t(offsets_[size_t(n)]));
#pragma omp parallel for schedule(static) if (nblocks > 1)
  for (int64_t blk = 0; blk < nblocks; ++blk) {
    const int32_t* data = blocks_[size_t(blk)].data();
    for (int64_t p = blk * kBlockRows, s1 = std::min(n, p + kBlockRows); p < s1; ++p) {
      const int32_t i = sorted_[size_t(p)];
      const int64_t begin = offsets_[size_t(i)], count = offsets_[size_t(i) + 1] - begin;
      if (count > 0) std::memcpy(neighbors_.data() + begin, data + row_at_[size_t(p)], size_t(count) * sizeof(int32_t));
      // Ascending j: a row's order depends on the pairs alone, not on the cell traversal of this
      // build, so force sums that skip the pairs beyond the cutoff give the same bits whenever the
      // list was built.
      // Insertion sort: rows are short and come out of the cell traversal in runs of ascending
      // indices (one per cell); in.lj measured 0.1 s per 100 steps faster than std::sort.
      for (int64_t a = begin + 1; a < begin + count; ++a) {
        const int32_t v = neighbors_[size_t(a)];
        int64_t b = a;
        for (; b > begin && neighbors_[size_t(b - 1)] > v; --b) neighbors_[size_t(b)] = neighbors_[size_t(b - 1)];
        neighbors_[size_t(b)] = v;
      }
    }
  }

  reference_ = state.positions;
  reference_box_ = box;
  reference_exclusions_ = int64_t(exclusions.size());
  ++builds_;
}

}  // namespace spire::sponge
