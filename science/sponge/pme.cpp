// Smooth particle-mesh Ewald (pme.h).
//
// Mesh layout: the real mesh is K1 planes (along a*) of K2 x K3 points, the spectrum K1 planes of
// K2 x (K3/2 + 1) complex points; plane strides are padded to 64 bytes so that every plane has the
// alignment its FFTW plan was made for. A forward transform is a 2D r2c per plane, then 1D
// transforms along the first axis over fixed chunks of columns; the inverse runs the other way.
// Charge weights follow OpenMM's forward convention: a particle at u = K s with i = floor(u)
// spreads onto mesh points i, i+1, ..., i+n-1 (mod K) with weights theta_j = M_n(u - i + n - 1 - j).
#include "science/sponge/pme.h"

#include <fftw3.h>
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <mutex>
#include <vector>

#include "engine/core/error.h"

namespace spire::sponge {

namespace {

constexpr int kMaxOrder = 12;
constexpr int64_t kColumnChunk = 8;   // 1D transforms per FFTW call along the first axis (128 bytes)
constexpr int64_t kSplineBlock = 64;  // particles per vectorized spline block
constexpr int64_t kPointFactors = 7;  // per spectrum point: the influence and six virial factors
// Below these sizes a step runs on one thread: waking a team costs more than the work saves.
constexpr int64_t kParallelParticles = 4096;
constexpr int64_t kParallelMesh = 32768;

std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

int64_t round_up(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

// Cardinal B-spline weights of order n at offset w in [0, 1) (the recursion of Essmann's eq. 4.1)
// and their derivatives in u, for a block of particles: theta[j][p], dtheta[j][p] for p < count.
void bspline_block(int n, const double* w, int64_t count, double (*theta)[kSplineBlock],
                   double (*dtheta)[kSplineBlock]) {
  for (int j = 0; j < n; ++j)
    for (int64_t p = 0; p < kSplineBlock; ++p) theta[j][p] = 0;
#pragma omp simd
  for (int64_t p = 0; p < count; ++p) {
    theta[0][p] = 1 - w[p];
    theta[1][p] = w[p];
  }
  // One step of the recursion, in place: the order k - 1 weights become those of order k.
  auto raise_order = [&](int k) {
    const double div = 1.0 / (k - 1);
#pragma omp simd
    for (int64_t p = 0; p < count; ++p) theta[k - 1][p] = div * w[p] * theta[k - 2][p];
    for (int l = 1; l < k - 1; ++l) {
#pragma omp simd
      for (int64_t p = 0; p < count; ++p)
        theta[k - l - 1][p] = div * ((w[p] + l) * theta[k - l - 2][p] + (k - l - w[p]) * theta[k - l - 1][p]);
    }
#pragma omp simd
    for (int64_t p = 0; p < count; ++p) theta[0][p] = div * (1 - w[p]) * theta[0][p];
  };
  for (int k = 3; k < n; ++k) raise_order(k);
  // The derivative of M_n is M_{n-1}(x) - M_{n-1}(x - 1): differences of the order n-1 weights.
#pragma omp simd
  for (int64_t p = 0; p < count; ++p) dtheta[0][p] = -theta[0][p];
  for (int k = 1; k < n; ++k) {
#pragma omp simd
    for (int64_t p = 0; p < count; ++p) dtheta[k][p] = theta[k - 1][p] - theta[k][p];
  }
  raise_order(n);
}

// |sum_j M_n(j) exp(2 pi i m j / K)|^2 for m < K: the B-spline moduli 1/|b(m)|^2 of Essmann's eq.
// 4.4. Zeros (odd orders at the Nyquist frequency) take the mean of their neighbours, as OpenMM's
// and GROMACS's do, so the influence function stays finite.
std::vector<double> bspline_moduli(int n, int k) {
  double theta[kMaxOrder][kSplineBlock], dtheta[kMaxOrder][kSplineBlock];
  const double w = 0;
  bspline_block(n, &w, 1, theta, dtheta);
  std::vector<double> data(static_cast<size_t>(k), 0.0);
  for (int j = 0; j < n && j + 1 < k; ++j) data[size_t(j + 1)] = theta[j][0];
  std::vector<double> moduli(static_cast<size_t>(k));
  for (int m = 0; m < k; ++m) {
    double sc = 0, ss = 0;
    for (int j = 0; j < k; ++j) {
      const double arg = 2 * M_PI * double(int64_t(m) * j % k) / k;
      sc += data[size_t(j)] * std::cos(arg);
      ss += data[size_t(j)] * std::sin(arg);
    }
    moduli[size_t(m)] = sc * sc + ss * ss;
  }
  for (int m = 0; m < k; ++m)
    if (moduli[size_t(m)] < 1e-7)
      moduli[size_t(m)] = 0.5 * (moduli[size_t((m + k - 1) % k)] + moduli[size_t((m + 1) % k)]);
  return moduli;
}

// Signed frequency of mesh index i on an axis of K points (K/2 counts as -K/2, as OpenMM).
inline int frequency(int i, int k) { return i < (k + 1) / 2 ? i : i - k; }

}  // namespace

int pme_fft_size(int n) {
  SPIRE_CHECK(n >= 1, ValueError, "pme: mesh size must be >= 1, got ", n);
  for (int m = n;; ++m) {
    int r = m;
    for (int p : {2, 3, 5, 7})
      while (r % p == 0) r /= p;
    if (r == 1 || r == 11) return m;
  }
}

std::array<int, 3> pme_grid(const Box& box, double alpha, double tolerance) {
  SPIRE_CHECK(box.periodic(), ValueError, "pme: needs a periodic box");
  SPIRE_CHECK(tolerance > 0 && tolerance < 0.5, ValueError, "pme: error tolerance must be in (0, 0.5), got ",
              tolerance);
  const double lengths[3] = {box.a().x, box.b().y, box.c().z};
  std::array<int, 3> grid{};
  for (int d = 0; d < 3; ++d) {
    const int n = int(std::ceil(2 * alpha * lengths[d] / (3 * std::pow(tolerance, 0.2))));
    grid[size_t(d)] = pme_fft_size(std::max(n, 6));
  }
  return grid;
}

// The mesh, its FFT plans, the B-spline moduli, the influence function of the latest box, and
// per-particle spline data.
struct PmeCoulomb::Mesh {
  int k[3];
  int order;
  int64_t half;              // K3 / 2 + 1
  int64_t real_stride;       // doubles per real plane (padded)
  int64_t spectrum_stride;   // complex values per spectrum plane (padded)
  int64_t columns;           // K2 * half
  double* real = nullptr;
  fftw_complex* spectrum = nullptr;
  fftw_plan plane_r2c = nullptr, plane_c2r = nullptr;
  fftw_plan columns_forward = nullptr, columns_backward = nullptr;  // kColumnChunk columns
  fftw_plan tail_forward = nullptr, tail_backward = nullptr;        // the last, shorter chunk
  std::vector<double> moduli[3];

  Box influence_box;
  // Per spectrum point: k exp(-pi^2 m^2/alpha^2) / (2 pi V m^2 B(m)), then the six virial factors.
  std::vector<double> influence;

  std::vector<int> index[3];           // floor(u) mod K per particle
  std::vector<double> theta[3], dtheta[3];  // [particle * order + j]
  std::vector<int64_t> bucket_start;   // particles by index[0], in particle order within a bucket
  std::vector<int32_t> bucket;
  std::vector<double> plane_energy;
  std::vector<std::array<double, 6>> plane_virial;

  Mesh(const std::array<int, 3>& grid, int order_) : order(order_) {
    for (int d = 0; d < 3; ++d) k[d] = grid[size_t(d)];
    half = k[2] / 2 + 1;
    real_stride = round_up(int64_t(k[1]) * k[2], 8);
    spectrum_stride = round_up(int64_t(k[1]) * half, 4);
    columns = int64_t(k[1]) * half;
    for (int d = 0; d < 3; ++d) moduli[d] = bspline_moduli(order, k[d]);
    std::lock_guard<std::mutex> lock(planner_mutex());
    real = fftw_alloc_real(size_t(k[0] * real_stride));
    spectrum = fftw_alloc_complex(size_t(k[0] * spectrum_stride));
    if (!real || !spectrum) {
      release();
      throw ValueError(detail::cat("pme: could not allocate a ", k[0], " x ", k[1], " x ", k[2], " mesh"));
    }
    plane_r2c = fftw_plan_dft_r2c_2d(k[1], k[2], real, spectrum, FFTW_ESTIMATE);
    plane_c2r = fftw_plan_dft_c2r_2d(k[1], k[2], spectrum, real, FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
    const int n0 = k[0];
    auto column_plan = [&](int64_t count, int sign) {
      return fftw_plan_many_dft(1, &n0, int(count), spectrum, nullptr, int(spectrum_stride), 1, spectrum, nullptr,
                                int(spectrum_stride), 1, sign, FFTW_ESTIMATE);
    };
    columns_forward = column_plan(std::min(kColumnChunk, columns), FFTW_FORWARD);
    columns_backward = column_plan(std::min(kColumnChunk, columns), FFTW_BACKWARD);
    if (columns > kColumnChunk && columns % kColumnChunk != 0) {
      tail_forward = column_plan(columns % kColumnChunk, FFTW_FORWARD);
      tail_backward = column_plan(columns % kColumnChunk, FFTW_BACKWARD);
    }
    if (!plane_r2c || !plane_c2r || !columns_forward || !columns_backward) {
      release();
      throw ValueError(detail::cat("pme: FFTW could not plan the ", k[0], " x ", k[1], " x ", k[2],
                                   " mesh transforms"));
    }
  }
  ~Mesh() {
    std::lock_guard<std::mutex> lock(planner_mutex());
    release();
  }
  // Frees plans and buffers; the caller holds the planner mutex.
  void release() {
    for (fftw_plan p : {plane_r2c, plane_c2r, columns_forward, columns_backward, tail_forward, tail_backward})
      if (p) fftw_destroy_plan(p);
    fftw_free(real);
    fftw_free(spectrum);
    plane_r2c = plane_c2r = columns_forward = columns_backward = tail_forward = tail_backward = nullptr;
    real = nullptr;
    spectrum = nullptr;
  }
  Mesh(const Mesh&) = delete;
  Mesh& operator=(const Mesh&) = delete;

  int64_t chunks() const { return (columns + kColumnChunk - 1) / kColumnChunk; }
  fftw_plan chunk_plan(int64_t c, bool forward) const {
    const bool tail = (c + 1) * kColumnChunk > columns && columns > kColumnChunk;
    if (tail) return forward ? tail_forward : tail_backward;
    return forward ? columns_forward : columns_backward;
  }
};

PmeCoulomb::PmeCoulomb(const PmeOptions& options)
    : EwaldSplitCoulomb(options.cutoff, options.tolerance, options.alpha, "pme"), options_(options),
      grid_(options.grid) {
  SPIRE_CHECK(options.order >= 3 && options.order <= kMaxOrder, ValueError, "pme: B-spline order must be in [3, ",
              kMaxOrder, "], got ", options.order, " (OpenMM uses 5, GROMACS's pme-order 4)");
  const bool all_zero = grid_[0] == 0 && grid_[1] == 0 && grid_[2] == 0;
  for (int d = 0; d < 3; ++d)
    SPIRE_CHECK(all_zero || grid_[size_t(d)] >= options.order, ValueError,
                "pme: every mesh size must be at least the B-spline order ", options.order,
                " (or all 0 to pick them from the tolerance), got ", grid_[0], " ", grid_[1], " ", grid_[2]);
  if (!all_zero) mesh_ = std::make_unique<Mesh>(grid_, options.order);
}

PmeCoulomb::~PmeCoulomb() = default;

void PmeCoulomb::check(const System& system, const State& state) const {
  SPIRE_CHECK(state.box.periodic(), ValueError, "pme: needs a periodic box (use reaction field without one)");
  CoulombForce::check(system, state);
}

double PmeCoulomb::add_reciprocal(const System& system, const State& state, ForceResult& out) {
  SPIRE_CHECK(state.box.periodic(), ValueError, "pme: needs a periodic box");
  if (!mesh_) {
    grid_ = pme_grid(state.box, alpha_, options_.tolerance);
    for (int d = 0; d < 3; ++d) grid_[size_t(d)] = std::max(grid_[size_t(d)], pme_fft_size(options_.order));
    mesh_ = std::make_unique<Mesh>(grid_, options_.order);
  }
  Mesh& m = *mesh_;
  const int n = m.order;
  const int k0 = m.k[0], k1 = m.k[1], k2 = m.k[2];
  const int64_t atoms = system.size();
  const auto rec = reciprocal_vectors(state.box);
  const Vec3* pos = state.positions.data();
  const double* q = system.charge.data();

  // 1. Mesh coordinates and spline weights, a block of particles at a time.
  for (int d = 0; d < 3; ++d) {
    m.index[d].resize(size_t(atoms));
    m.theta[d].resize(size_t(atoms * n));
    m.dtheta[d].resize(size_t(atoms * n));
  }
  const int64_t blocks = (atoms + kSplineBlock - 1) / kSplineBlock;
  const bool many_particles = atoms >= kParallelParticles;
  const bool big_mesh = int64_t(k0) * k1 * k2 >= kParallelMesh;
#pragma omp parallel for schedule(static) if (many_particles)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t first = b * kSplineBlock, count = std::min(kSplineBlock, atoms - first);
    double w[kSplineBlock];
    double theta[kMaxOrder][kSplineBlock], dtheta[kMaxOrder][kSplineBlock];
    for (int d = 0; d < 3; ++d) {
      const double kd = m.k[d];
      const Vec3 r = rec[d];
      int* index = m.index[d].data() + first;
      for (int64_t p = 0; p < count; ++p) {
        const Vec3& x = pos[first + p];
        double s = r.x * x.x + r.y * x.y + r.z * x.z;
        s -= std::floor(s);
        const double u = s * kd;
        int i = int(u);
        w[p] = u - i;
        if (i >= m.k[d]) i -= m.k[d];  // s a hair below 1 can round u up to K
        index[p] = i;
      }
      bspline_block(n, w, count, theta, dtheta);
      double* t = m.theta[d].data() + first * n;
      double* dt = m.dtheta[d].data() + first * n;
      for (int64_t p = 0; p < count; ++p)
        for (int j = 0; j < n; ++j) {
          t[p * n + j] = theta[j][p];
          dt[p * n + j] = dtheta[j][p];
        }
    }
  }

  // 2. Particles by first mesh index (counting sort: particle order within each bucket).
  m.bucket_start.assign(size_t(k0 + 1), 0);
  for (int64_t p = 0; p < atoms; ++p) ++m.bucket_start[size_t(m.index[0][size_t(p)] + 1)];
  for (int i = 0; i < k0; ++i) m.bucket_start[size_t(i + 1)] += m.bucket_start[size_t(i)];
  m.bucket.resize(size_t(atoms));
  {
    std::vector<int64_t> fill(m.bucket_start.begin(), m.bucket_start.end() - 1);
    for (int64_t p = 0; p < atoms; ++p) m.bucket[size_t(fill[size_t(m.index[0][size_t(p)])]++)] = int32_t(p);
  }

  // 3. Spreading. A thread owns planes [p0, p1) and visits the buckets that reach them in the
  // order s = p0 - n + 1, ..., p1 - 1, so every mesh point sums its contributions in the order
  // (s, particle), whatever the slabs: the same bits on any number of threads.
  double* real = m.real;
#pragma omp parallel if (big_mesh)
  {
    const int threads = omp_get_num_threads(), t = omp_get_thread_num();
    const int p0 = int(int64_t(k0) * t / threads), p1 = int(int64_t(k0) * (t + 1) / threads);
    for (int p = p0; p < p1; ++p) std::fill(real + p * m.real_stride, real + (p + 1) * m.real_stride, 0.0);
    int zi[kMaxOrder], yi[kMaxOrder];
    for (int s = p0 - n + 1; s < p1; ++s) {
      const int bucket = ((s % k0) + k0) % k0;
      for (int64_t e = m.bucket_start[size_t(bucket)]; e < m.bucket_start[size_t(bucket + 1)]; ++e) {
        const int64_t p = m.bucket[size_t(e)];
        if (q[p] == 0) continue;
        const double* tx = &m.theta[0][size_t(p * n)];
        const double* ty = &m.theta[1][size_t(p * n)];
        const double* tz = &m.theta[2][size_t(p * n)];
        // Mesh indices wrapped once here (a conditional subtraction: i < K), not per point.
        const int iy = m.index[1][size_t(p)], iz = m.index[2][size_t(p)];
        for (int c = 0; c < n; ++c) zi[c] = iz + c < k2 ? iz + c : iz + c - k2;
        for (int b = 0; b < n; ++b) yi[b] = iy + b < k1 ? iy + b : iy + b - k1;
        // Most particles' points along z do not wrap: then they are contiguous and the loop over
        // them vectorizes; either way each point gets one fused multiply-add, the same bits.
        const bool straight = iz + n <= k2;
        for (int a = 0; a < n; ++a) {
          const int plane = s + a;
          if (plane < p0 || plane >= p1) continue;
          const double wa = q[p] * tx[a];
          double* grid = real + plane * m.real_stride;
          for (int b = 0; b < n; ++b) {
            const double wab = wa * ty[b];
            double* row = grid + int64_t(yi[b]) * k2;
            if (straight) {
              double* __restrict r = row + iz;
              for (int c = 0; c < n; ++c) r[c] = std::fma(wab, tz[c], r[c]);
            } else {
              for (int c = 0; c < n; ++c) row[zi[c]] = std::fma(wab, tz[c], row[zi[c]]);
            }
          }
        }
      }
    }
  }

  // 4. Forward transform: 2D r2c per plane, then the first axis over chunks of columns.
  fftw_complex* spectrum = m.spectrum;
#pragma omp parallel for schedule(static) if (big_mesh)
  for (int p = 0; p < k0; ++p)
    fftw_execute_dft_r2c(m.plane_r2c, real + p * m.real_stride, spectrum + p * m.spectrum_stride);
#pragma omp parallel for schedule(static) if (big_mesh)
  for (int64_t c = 0; c < m.chunks(); ++c)
    fftw_execute_dft(m.chunk_plan(c, true), spectrum + c * kColumnChunk, spectrum + c * kColumnChunk);

  // 5. The influence function of this box (kept while the box stays the same).
  const double volume = state.box.volume();
  const double pi2_over_a2 = M_PI * M_PI / (alpha_ * alpha_);
  auto wave = [&](int i0, int i1, int i2) {
    return double(frequency(i0, k0)) * rec[0] + double(frequency(i1, k1)) * rec[1] + double(frequency(i2, k2)) * rec[2];
  };
  if (m.influence.empty() || !(m.influence_box == state.box)) {
    // Per spectrum point: the influence C(m) and the virial's factors delta_ab - b m_a m_b
    // (b = 2 (1/m^2 + pi^2/alpha^2)), for the six components xx yy zz xy xz yz.
    m.influence.resize(size_t(int64_t(k0) * m.columns * kPointFactors));
    const double coef = system.units.coulomb / (2 * M_PI * volume);
#pragma omp parallel for schedule(static) if (big_mesh)
    for (int i0 = 0; i0 < k0; ++i0)
      for (int i1 = 0; i1 < k1; ++i1)
        for (int i2 = 0; i2 < m.half; ++i2) {
          const Vec3 mv = wave(i0, i1, i2);
          const double m2 = norm2(mv);
          const double bm = m.moduli[0][size_t(i0)] * m.moduli[1][size_t(i1)] * m.moduli[2][size_t(i2)];
          double* f = &m.influence[size_t(((int64_t(i0) * k1 + i1) * m.half + i2) * kPointFactors)];
          const bool origin = i0 == 0 && i1 == 0 && i2 == 0;
          f[0] = origin ? 0.0 : coef * std::exp(-pi2_over_a2 * m2) / (m2 * bm);
          const double b = origin ? 0.0 : 2 * (1 / m2 + pi2_over_a2);
          f[1] = 1 - b * mv.x * mv.x, f[2] = 1 - b * mv.y * mv.y, f[3] = 1 - b * mv.z * mv.z;
          f[4] = -b * mv.x * mv.y, f[5] = -b * mv.x * mv.z, f[6] = -b * mv.y * mv.z;
        }
    m.influence_box = state.box;
  }

  // 6. Energy and virial per plane (summed in plane order), then the convolution.
  m.plane_energy.assign(size_t(k0), 0.0);
  m.plane_virial.assign(size_t(k0), {});
#pragma omp parallel for schedule(static) if (big_mesh)
  for (int i0 = 0; i0 < k0; ++i0) {
    double energy = 0, vxx = 0, vyy = 0, vzz = 0, vxy = 0, vxz = 0, vyz = 0;
    for (int i1 = 0; i1 < k1; ++i1) {
      const double* f = &m.influence[size_t((int64_t(i0) * k1 + i1) * m.half * kPointFactors)];
      double* z = spectrum[i0 * m.spectrum_stride + int64_t(i1) * m.half];
      for (int i2 = 0; i2 < m.half; ++i2, f += kPointFactors, z += 2) {
        // Points with 0 < i2 < K3/2 stand for their conjugate partners too.
        const double weight = (i2 == 0 || 2 * i2 == k2) ? 1.0 : 2.0;
        const double em = weight * f[0] * (z[0] * z[0] + z[1] * z[1]);
        energy += em;
        vxx += em * f[1], vyy += em * f[2], vzz += em * f[3];
        vxy += em * f[4], vxz += em * f[5], vyz += em * f[6];
        z[0] *= f[0];
        z[1] *= f[0];
      }
    }
    m.plane_energy[size_t(i0)] = energy;
    m.plane_virial[size_t(i0)] = {vxx, vyy, vzz, vxy, vxz, vyz};
  }
  double energy = 0;
  double v[6] = {0, 0, 0, 0, 0, 0};
  for (int i0 = 0; i0 < k0; ++i0) {
    energy += m.plane_energy[size_t(i0)];
    for (int c = 0; c < 6; ++c) v[c] += m.plane_virial[size_t(i0)][size_t(c)];
  }
  Mat3& w = out.virial;
  w(0, 0) += v[0], w(1, 1) += v[1], w(2, 2) += v[2];
  w(0, 1) += v[3], w(1, 0) += v[3];
  w(0, 2) += v[4], w(2, 0) += v[4];
  w(1, 2) += v[5], w(2, 1) += v[5];

  // 7. Back to the mesh: the potential phi = sum_m C(m) Q^(m) e^(2 pi i m k / K), dE/dQ = 2 phi.
#pragma omp parallel for schedule(static) if (big_mesh)
  for (int64_t c = 0; c < m.chunks(); ++c)
    fftw_execute_dft(m.chunk_plan(c, false), spectrum + c * kColumnChunk, spectrum + c * kColumnChunk);
#pragma omp parallel for schedule(static) if (big_mesh)
  for (int p = 0; p < k0; ++p)
    fftw_execute_dft_c2r(m.plane_c2r, spectrum + p * m.spectrum_stride, real + p * m.real_stride);

  // 8. Forces: F = -dE/dr = -2 q sum phi grad(theta_x theta_y theta_z), one writer per particle.
  const double scale[3] = {double(k0), double(k1), double(k2)};
#pragma omp parallel for schedule(static) if (many_particles)
  for (int64_t p = 0; p < atoms; ++p) {
    if (q[p] == 0) continue;
    const double* tx = &m.theta[0][size_t(p * n)];
    const double* ty = &m.theta[1][size_t(p * n)];
    const double* tz = &m.theta[2][size_t(p * n)];
    const double* dx = &m.dtheta[0][size_t(p * n)];
    const double* dy = &m.dtheta[1][size_t(p * n)];
    const double* dz = &m.dtheta[2][size_t(p * n)];
    const int ix = m.index[0][size_t(p)], iy = m.index[1][size_t(p)], iz = m.index[2][size_t(p)];
    int xi[kMaxOrder], yi[kMaxOrder], zi[kMaxOrder];
    for (int c = 0; c < n; ++c) {
      xi[c] = ix + c < k0 ? ix + c : ix + c - k0;
      yi[c] = iy + c < k1 ? iy + c : iy + c - k1;
      zi[c] = iz + c < k2 ? iz + c : iz + c - k2;
    }
    // The gradient of sum phi theta_x theta_y theta_z, summed over x and y first for each z point
    // (in vectors along z, eight points at most: orders up to 8, in registers), then over z.
    alignas(32) double v0[8] = {}, v1[8] = {}, v2[8] = {};
    alignas(32) double wrapped[8] = {};
    const bool straight = iz + n <= k2;
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    const __m256i head = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), lane);
    const __m256i tail = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n - 4), lane);
    if (n <= 8) {
      __m256d a0 = _mm256_setzero_pd(), a1 = a0, b0 = a0, b1 = a0, c0 = a0, c1 = a0;
      for (int a = 0; a < n; ++a) {
        const double* grid = real + int64_t(xi[a]) * m.real_stride;
        for (int b = 0; b < n; ++b) {
          const double* row = grid + int64_t(yi[b]) * k2;
          const double* phi = row + iz;
          if (!straight) {
            for (int c = 0; c < n; ++c) wrapped[c] = row[zi[c]];
            phi = wrapped;
          }
          // Lanes past the order read nothing (masked) and stay zero.
          const __m256d lo = _mm256_maskload_pd(phi, head), hi = _mm256_maskload_pd(phi + 4, tail);
          const __m256d w0 = _mm256_set1_pd(dx[a] * ty[b]), w1 = _mm256_set1_pd(tx[a] * dy[b]),
                        w2 = _mm256_set1_pd(tx[a] * ty[b]);
          a0 = _mm256_fmadd_pd(w0, lo, a0), a1 = _mm256_fmadd_pd(w0, hi, a1);
          b0 = _mm256_fmadd_pd(w1, lo, b0), b1 = _mm256_fmadd_pd(w1, hi, b1);
          c0 = _mm256_fmadd_pd(w2, lo, c0), c1 = _mm256_fmadd_pd(w2, hi, c1);
        }
      }
      _mm256_store_pd(v0, a0), _mm256_store_pd(v0 + 4, a1);
      _mm256_store_pd(v1, b0), _mm256_store_pd(v1 + 4, b1);
      _mm256_store_pd(v2, c0), _mm256_store_pd(v2 + 4, c1);
    }
    double g0 = 0, g1 = 0, g2 = 0;
    if (n <= 8) {
      for (int c = 0; c < n; ++c) {
        g0 = std::fma(tz[c], v0[c], g0);
        g1 = std::fma(tz[c], v1[c], g1);
        g2 = std::fma(dz[c], v2[c], g2);
      }
    } else {
      for (int a = 0; a < n; ++a) {
        const double* grid = real + int64_t(xi[a]) * m.real_stride;
        for (int b = 0; b < n; ++b) {
          const double* row = grid + int64_t(yi[b]) * k2;
          double s = 0, sd = 0;
          for (int c = 0; c < n; ++c) {
            const double phi = row[zi[c]];
            s += tz[c] * phi;
            sd += dz[c] * phi;
          }
          g0 += dx[a] * ty[b] * s;
          g1 += tx[a] * dy[b] * s;
          g2 += tx[a] * ty[b] * sd;
        }
      }
    }
    const double f0 = -2 * q[p] * g0 * scale[0], f1 = -2 * q[p] * g1 * scale[1], f2 = -2 * q[p] * g2 * scale[2];
    out.forces[size_t(p)] += f0 * rec[0] + f1 * rec[1] + f2 * rec[2];
  }
  return energy;
}

}  // namespace spire::sponge
