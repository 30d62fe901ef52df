// Verlet lists from cell lists (neighbor_list.h).
//
// Build. Particles are binned into cells half the list's range R = cutoff + skin thick, in
// fractional coordinates for periodic boxes (so triclinic cells are sheared copies of the box)
// and over the particles' bounding box without one. A counting sort puts them in cell order,
// stable, so each cell holds ascending indices, with their coordinates copied alongside. A pair
// within R differs by at most ceil(R / thickness) cells along each axis, thickness being the
// cell's perpendicular width: the fractional coordinate along an axis changes by exactly the
// distance along that face's normal over the box's width, and no more than the distance itself.
//
// Search. Particle i scans the cells within R of its own, runs of cells along x at a time
// (contiguous in cell order, so their coordinates load as vectors), skipping runs whose indices
// are all below its own, and keeps the j > i within R. The test runs in single precision, eight or
// sixteen candidates at a time (AVX2 or AVX-512), with the few pairs within rounding of R decided
// again in double precision (neighbor_search.h): the list is exactly the double-precision one.
//
// Rows in ascending order without sorting them: a row's partners set bits in a bitmap of the
// particles (its excluded partners' bits then cleared), read out word by word from i to its
// highest partner, which leaves the words zero for the next row. Sorting each row instead (its
// partners arrive in runs, one per cell) cost most of the build.
//
// Images. While the reach is less than half of every periodic axis, each cell searched is one
// image, known from how its index wrapped around the box, and the displacement is exact without
// rounding. A box only a few cells wide is searched whole along such an axis instead, each cell
// once, with minimum image by rounding: with R at most half the smallest width a pair has a
// single image within R.
//
// Cells are never more numerous than about twice the particles, so the grid, like the rows (sized
// by what was found), is O(N) memory whatever the box or the particles' spread.
//
// Threads: rows are searched by blocks of particles in cell order, each row by one thread, and
// stay in their block's storage (pair_list() points at them). The list is the same whatever the
// thread count: its rows are ascending, so there is only one.
#include "science/sponge/neighbor_list.h"

#include <algorithm>
#include <cmath>
#include <bit>
#include <cstring>
#include <limits>

#include "engine/core/error.h"
#include "science/sponge/neighbor_search.h"

namespace spire::sponge {
namespace {

constexpr int64_t kBlockRows = 512;  // particles per search task
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

NeighborList::NeighborList(const NeighborList& other) { *this = other; }

NeighborList& NeighborList::operator=(const NeighborList& other) {
  if (this == &other) return *this;
  cutoff_ = other.cutoff_, skin_ = other.skin_, builds_ = other.builds_, pairs_ = other.pairs_;
  row_size_ = other.row_size_;
  laid_out_ = other.laid_out_, offsets_ = other.offsets_, neighbors_ = other.neighbors_;
  reference_ = other.reference_, reference_box_ = other.reference_box_;
  reference_exclusions_ = other.reference_exclusions_;
  blocks_ = other.blocks_, row_at_ = other.row_at_, row_block_ = other.row_block_;
  point_rows();
  return *this;  // the build's scratch (cells, sorted coordinates, exclusions) is rebuilt by the next build
}

void NeighborList::point_rows() {
  row_.resize(row_size_.size());
  for (size_t i = 0; i < row_.size(); ++i) row_[i] = blocks_[size_t(row_block_[i])].data() + row_at_[i];
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

  // Exclusions as rows: for each i its excluded partners j > i.
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
  sorted_.assign(size_t(n + 16), 0);
  sx_.assign(size_t(n + 16), 0), sy_.assign(size_t(n + 16), 0), sz_.assign(size_t(n + 16), 0);
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
  // Single-precision copies relative to the first particle's position, for the first test.
  const Vec3 origin = n > 0 ? wrapped_[0] : Vec3{};
  fx_.assign(size_t(n + 16), 0.0f), fy_.assign(size_t(n + 16), 0.0f), fz_.assign(size_t(n + 16), 0.0f);
  double extent = 0;  // the largest |coordinate - origin|
  for (int64_t p = 0; p < n; ++p) {
    const double x = sx_[size_t(p)] - origin.x, y = sy_[size_t(p)] - origin.y, z = sz_[size_t(p)] - origin.z;
    fx_[size_t(p)] = float(x), fy_[size_t(p)] = float(y), fz_[size_t(p)] = float(z);
    extent = std::max({extent, std::fabs(x), std::fabs(y), std::fabs(z)});
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
  using Candidates = neighbor_search::Run;  // last: the highest index among them, rows i >= last skip it
  // Returns how many candidates the runs hold.
  auto cell_runs = [&](int32_t cell, std::vector<Candidates>& runs) -> int64_t {
    runs.clear();
    int64_t total = 0;
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
            if (cell_start_[size_t(c + 1)] > cell_start_[size_t(c)])
              last = std::max(last, sorted_[size_t(cell_start_[size_t(c + 1)] - 1)]);
          runs.push_back({p0, p1, last, double(xs[r].wrap) * va + double(ys[b].wrap) * vb + double(zs[a].wrap) * vc});
          total += p1 - p0;
        }
      }
    return total;
  };

  // The first test in single precision, eight candidates at a time: a pair whose single-precision
  // r^2 is below r2_sure is within range, one at or above r2_beyond is not, and the few between
  // are decided in double precision, exactly as the double-precision search would. The band covers
  // the rounding of the coordinates (at most u (2 extent + shifts + R) each, u = 2^-24) and of
  // r^2 itself, with a margin.
  double shifts = 0;
  for (int k = 0; k < 3; ++k) shifts += std::fabs(va[k]) + std::fabs(vb[k]) + std::fabs(vc[k]);
  const double u = std::ldexp(1.0, -24);
  const double e = 1.01 * u * (2 * extent + shifts + range);
  const double band =
      1.1 * (2 * std::sqrt(3.0) * 1.01 * range * e + 3 * e * e + 4 * u * 1.02 * range2) + 1e-14 * range2;
  float r2_sure = float(range2 - band), r2_beyond = float(range2 + band);
  if (double(r2_sure) > range2 - band) r2_sure = std::nextafter(r2_sure, 0.0f);
  if (double(r2_beyond) < range2 + band) r2_beyond = std::nextafter(r2_beyond, std::numeric_limits<float>::infinity());
  const bool single = search == Search::shifted && r2_sure > 0;
  neighbor_search::Coordinates coordinates;
  coordinates.x = fx_.data(), coordinates.y = fy_.data(), coordinates.z = fz_.data();
  coordinates.sx = sx_.data(), coordinates.sy = sy_.data(), coordinates.sz = sz_.data();
  coordinates.index = sorted_.data();
  coordinates.origin = origin;
  coordinates.sure = r2_sure, coordinates.beyond = r2_beyond, coordinates.range2 = range2;
  const bool wide = neighbor_search::processor_has_avx512();

  const neighbor_search::Wrap wrap = search == Search::orthorhombic ? neighbor_search::Wrap::orthorhombic
                                     : search == Search::triclinic     ? neighbor_search::Wrap::triclinic
                                                                       : neighbor_search::Wrap::shifts;
  const neighbor_search::BoxVectors vectors{va, vb, vc};

  // Rows are searched in cell order, a block of sorted positions per task, so that the runs of a
  // cell are worked out once for all its particles. Each row is put in ascending order through a
  // bitmap of the particles: its partners' bits set, its excluded partners' bits cleared, then
  // the words from i to its highest partner read out in order (and left zero for the next row).
  const int64_t nblocks = (n + kBlockRows - 1) / kBlockRows;
  blocks_.resize(size_t(nblocks));
  row_at_.resize(size_t(n));
  row_block_.resize(size_t(n));
  row_size_.resize(size_t(n));
  auto fill = [&]<Search M, bool kSingle>() {
#pragma omp parallel if (nblocks > 1)
    {
      std::vector<Candidates> runs;
      std::vector<int32_t> found;
      std::vector<uint64_t> bitmap(size_t(n / 64 + 1), 0);
#pragma omp for schedule(dynamic, 1)
      for (int64_t blk = 0; blk < nblocks; ++blk) {
        std::vector<int32_t>& data = blocks_[size_t(blk)];
        int64_t used = 0;
        const int64_t s0 = blk * kBlockRows, s1 = std::min(n, s0 + kBlockRows);
        int32_t cell = -1;
        for (int64_t p = s0; p < s1; ++p) {
          const int32_t i = sorted_[size_t(p)];
          if (cell_of_[size_t(i)] != cell) {
            const int64_t total = cell_runs(cell = cell_of_[size_t(i)], runs);
            if (int64_t(found.size()) < total + 16) found.resize(size_t(total + 16));
          }
          int64_t m;
          if constexpr (kSingle)
            m = wide ? neighbor_search::search_avx512(coordinates, i, wrapped_[size_t(i)], runs.data(), runs.size(),
                                                      found.data())
                     : neighbor_search::search_avx2(coordinates, i, wrapped_[size_t(i)], runs.data(), runs.size(),
                                                    found.data());
          else
            m = neighbor_search::search_double(coordinates, wrap, vectors, i, wrapped_[size_t(i)], runs.data(),
                                               runs.size(), found.data());
          uint64_t* bits = bitmap.data();
          int32_t top = i;
          for (int64_t k = 0; k < m; ++k) {
            const int32_t j = found[size_t(k)];
            bits[j >> 6] |= uint64_t(1) << (j & 63);
            top = std::max(top, j);
          }
          for (int64_t e = excluded_offsets_[size_t(i)]; e < excluded_offsets_[size_t(i + 1)]; ++e)
            bits[excluded_[size_t(e)] >> 6] &= ~(uint64_t(1) << (excluded_[size_t(e)] & 63));
          if (int64_t(data.size()) < used + m + 16) data.resize(size_t(2 * (used + m + 16)));
          const int64_t first = (int64_t(i) + 1) >> 6, last = top >> 6;
          const int64_t count = wide ? neighbor_search::read_bits_avx512(bits, first, last, data.data() + used)
                                     : neighbor_search::read_bits_avx2(bits, first, last, data.data() + used);
          row_at_[size_t(i)] = used;
          row_block_[size_t(i)] = int32_t(blk);
          row_size_[size_t(i)] = int32_t(count);
          used += count;
        }
      }
    }
  };
  switch (search) {
    case Search::shifted:
      single ? fill.template operator()<Search::shifted, true>() : fill.template operator()<Search::shifted, false>();
      break;
    case Search::orthorhombic: fill.template operator()<Search::orthorhombic, false>(); break;
    case Search::triclinic: fill.template operator()<Search::triclinic, false>(); break;
  }
  // The rows stay where they were written (the blocks are done growing).
  point_rows();
  pairs_ = 0;
  for (int64_t i = 0; i < n; ++i) pairs_ += row_size_[size_t(i)];
  laid_out_ = false;

  reference_ = state.positions;
  reference_box_ = box;
  reference_exclusions_ = int64_t(exclusions.size());
  ++builds_;
}

const std::vector<int64_t>& NeighborList::offsets() const {
  if (!laid_out_) lay_out();
  return offsets_;
}

const std::vector<int32_t>& NeighborList::neighbors() const {
  if (!laid_out_) lay_out();
  return neighbors_;
}

void NeighborList::lay_out() const {
  const int64_t n = size();
  offsets_.assign(size_t(n + 1), 0);
  for (int64_t i = 0; i < n; ++i) offsets_[size_t(i + 1)] = offsets_[size_t(i)] + row_size_[size_t(i)];
  neighbors_.resize(size_t(pairs_));
  for (int64_t i = 0; i < n; ++i)
    std::copy(row_[size_t(i)], row_[size_t(i)] + row_size_[size_t(i)], neighbors_.begin() + offsets_[size_t(i)]);
  laid_out_ = true;
}

}  // namespace spire::sponge
