// Running DFTs of a field component at a rectilinear set of points (dft.h).
#include "science/elec/dft.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "engine/core/error.h"
#include "science/elec/interpolation.h"

namespace spire::elec {

namespace {

constexpr const char* kAxis[] = {"x", "y", "z"};

void check_frequencies(const std::vector<double>& frequencies, const char* who) {
  SPIRE_CHECK(!frequencies.empty(), ValueError, who, ": no frequencies given; at least one is needed");
  for (double f : frequencies)
    SPIRE_CHECK(std::isfinite(f), ValueError, who, ": frequencies must be finite, got ", f);
}

}  // namespace

std::vector<double> frequency_list(double fcen, double df, int nfreq) {
  SPIRE_CHECK(nfreq >= 1, ValueError, "frequency_list: nfreq must be >= 1, got ", nfreq);
  SPIRE_CHECK(std::isfinite(fcen) && std::isfinite(df) && df >= 0, ValueError,
              "frequency_list: fcen must be finite and df finite and >= 0, got fcen = ", fcen, ", df = ", df);
  if (nfreq == 1) return {fcen};
  std::vector<double> out(static_cast<size_t>(nfreq));
  for (int i = 0; i < nfreq; ++i) out[size_t(i)] = fcen - df / 2 + df * i / (nfreq - 1);
  return out;
}

DftFields::DftFields(const YeeLattice& lattice, Component c, const std::array<std::vector<double>, 3>& positions,
                     std::vector<double> frequencies, double dt)
    : component_(c), frequencies_(std::move(frequencies)), dt_(dt), positions_(positions) {
  const char* who = "DftFields";
  SPIRE_CHECK(lattice.has(c), ValueError, who, ": the ", to_string(lattice.dimensions()), " lattice has no ",
              to_string(c), " component");
  check_frequencies(frequencies_, who);
  SPIRE_CHECK(std::isfinite(dt) && dt > 0, ValueError, who, ": dt must be finite and > 0, got ", dt);
  strides_ = {lattice.n(1) * lattice.n(2), lattice.n(2), 1};
  points_ = 1;
  for (int a = 0; a < 3; ++a) {
    const auto& pos = positions_[size_t(a)];
    if (!lattice.has_axis(a))
      SPIRE_CHECK(pos.size() == 1, ValueError, who, ": the lattice has no ", kAxis[a], " axis, so the ", kAxis[a],
                  " positions must be one value; got ", pos.size());
    SPIRE_CHECK(!pos.empty(), ValueError, who, ": no ", kAxis[a], " positions given");
    for (double x : pos) {  // an axis the lattice lacks: sample 0 alone
      const AxisTaps t = axis_taps(lattice, c, a, x, who);
      lo_[a].push_back(t.lo);
      hi_[a].push_back(t.hi);
      w_hi_[a].push_back(t.w_hi);
    }
    points_ *= int64_t(pos.size());
  }
  const size_t total = frequencies_.size() * size_t(points_);
  re_.assign(total, 0.0);
  im_.assign(total, 0.0);
}

DftFields DftFields::on_region(const YeeLattice& lattice, Component c, Vec3 center, Vec3 size,
                               std::vector<double> frequencies, double dt) {
  const char* who = "DftFields::on_region";
  SPIRE_CHECK(lattice.has(c), ValueError, who, ": the ", to_string(lattice.dimensions()), " lattice has no ",
              to_string(c), " component");
  std::array<std::vector<double>, 3> positions;
  const Vec3 cell = lattice.size(), offset = lattice.offset(c);
  for (int a = 0; a < 3; ++a) {
    if (!lattice.has_axis(a)) {
      positions[size_t(a)] = {0.0};
      continue;
    }
    SPIRE_CHECK(std::isfinite(center[a]) && std::isfinite(size[a]) && size[a] >= 0, ValueError, who, ": the region's ",
                kAxis[a], " center and size must be finite with size >= 0, got ", center[a], " and ", size[a]);
    if (size[a] == 0) {
      positions[size_t(a)] = {center[a]};
      continue;
    }
    const double dx = lattice.dx(), tol = 1e-9 * dx, half = cell[a] / 2;
    const double lo = center[a] - size[a] / 2, hi = center[a] + size[a] / 2;
    SPIRE_CHECK(lo >= -half - tol && hi <= half + tol, ValueError, who, ": the region spans [", lo, ", ", hi,
                "] along ", kAxis[a], ", outside the cell [", -half, ", ", half, "]");
    for (int64_t i = 0; i < lattice.n(a); ++i) {
      const double x = -half + (double(i) + offset[a]) * dx;
      if (x >= lo - tol && x <= hi + tol) positions[size_t(a)].push_back(x);
    }
    SPIRE_CHECK(!positions[size_t(a)].empty(), ValueError, who, ": the region [", lo, ", ", hi, "] along ", kAxis[a],
                " holds no ", to_string(c), " sample; give it size 0 for a slice");
  }
  return DftFields(lattice, c, positions, std::move(frequencies), dt);
}

std::array<int64_t, 3> DftFields::shape() const {
  return {int64_t(positions_[0].size()), int64_t(positions_[1].size()), int64_t(positions_[2].size())};
}

std::vector<DftFields::Tap> DftFields::taps() const {
  const int64_t nx = int64_t(lo_[0].size()), ny = int64_t(lo_[1].size()), nz = int64_t(lo_[2].size());
  std::vector<Tap> out;
  for (int64_t i = 0; i < nx; ++i)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t k = 0; k < nz; ++k) {
        const int64_t p = (i * ny + j) * nz + k;
        for (int ci = 0; ci < 2; ++ci)
          for (int cj = 0; cj < 2; ++cj)
            for (int ck = 0; ck < 2; ++ck) {
              const double wx = ci ? w_hi_[0][size_t(i)] : 1 - w_hi_[0][size_t(i)];
              const double wy = cj ? w_hi_[1][size_t(j)] : 1 - w_hi_[1][size_t(j)];
              const double wz = ck ? w_hi_[2][size_t(k)] : 1 - w_hi_[2][size_t(k)];
              const double w = wx * wy * wz;
              if (w == 0) continue;
              const int64_t sample = (ci ? hi_[0][size_t(i)] : lo_[0][size_t(i)]) * strides_[0] +
                                     (cj ? hi_[1][size_t(j)] : lo_[1][size_t(j)]) * strides_[1] +
                                     (ck ? hi_[2][size_t(k)] : lo_[2][size_t(k)]);
              out.push_back({sample, p, w});
            }
      }
  return out;
}

template <class Real>
void DftFields::gather(const Real* field, std::vector<double>& out) const {
  const int64_t nx = int64_t(lo_[0].size()), ny = int64_t(lo_[1].size()), nz = int64_t(lo_[2].size());
  out.assign(size_t(points_), 0.0);
  const int64_t* klo = lo_[2].data();
  const int64_t* khi = hi_[2].data();
  const double* wz = w_hi_[2].data();
  // One output row (i, j) per iteration, over both leading axes so a plane normal to x threads too;
  // each row is written by one thread. The taps of each axis are (sample, weight) pairs; a tap of
  // weight 0 (a point on a sample) is skipped. Smaller sets run on one thread: a parallel region
  // costs more than their work.
#pragma omp parallel for schedule(static) if (points_ > 65536)
  for (int64_t ij = 0; ij < nx * ny; ++ij) {
    const int64_t i = ij / ny, j = ij % ny;
    double* o = out.data() + ij * nz;
    for (int ci = 0; ci < 2; ++ci) {
      const double wx = ci ? w_hi_[0][size_t(i)] : 1 - w_hi_[0][size_t(i)];
      if (wx == 0) continue;
      const int64_t si = (ci ? hi_[0][size_t(i)] : lo_[0][size_t(i)]) * strides_[0];
      for (int cj = 0; cj < 2; ++cj) {
        const double wy = cj ? w_hi_[1][size_t(j)] : 1 - w_hi_[1][size_t(j)];
        if (wy == 0) continue;
        const double wxy = wx * wy;
        const Real* row = field + si + (cj ? hi_[1][size_t(j)] : lo_[1][size_t(j)]) * strides_[1];
        for (int64_t k = 0; k < nz; ++k) {
          const double lo = double(row[klo[k]]);
          const double hi = double(row[khi[k]]);  // wrapped, so always a valid sample
          o[k] += wxy * (lo + wz[k] * (hi - lo));
        }
      }
    }
  }
}

void DftFields::add(double t) {
  const double tc = component_time(component_, t, dt_);
  const int64_t np = points_;
  const size_t nf = frequencies_.size();
  std::vector<double> cs(nf), sn(nf);
  for (size_t f = 0; f < nf; ++f) {
    const double phase = 2 * std::numbers::pi * frequencies_[f] * tc;
    cs[f] = std::cos(phase) * dt_;
    sn[f] = std::sin(phase) * dt_;
  }
  // One region for all frequencies: blocks of points, each block's gathered values reused from
  // cache for every frequency; every accumulator is written by one thread.
  constexpr int64_t kBlock = 2048;
  const int64_t blocks = (np + kBlock - 1) / kBlock;
  const double* gr = gathered_re_.data();
  const double* gi = complex_step_ ? gathered_im_.data() : nullptr;
#pragma omp parallel for schedule(static) if (np * int64_t(nf) > 262144)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t p0 = b * kBlock, p1 = std::min(np, p0 + kBlock);
    for (size_t f = 0; f < nf; ++f) {
      const double c = cs[f], s = sn[f];
      double* re = re_.data() + f * size_t(np);
      double* im = im_.data() + f * size_t(np);
      if (gi) {
        for (int64_t p = p0; p < p1; ++p) {
          re[p] += c * gr[p] - s * gi[p];
          im[p] += s * gr[p] + c * gi[p];
        }
      } else {
        for (int64_t p = p0; p < p1; ++p) {
          re[p] += c * gr[p];
          im[p] += s * gr[p];
        }
      }
    }
  }
  ++steps_;
}

void DftFields::accumulate(const double* field, double t) {
  gather(field, gathered_re_);
  complex_step_ = false;
  add(t);
}
void DftFields::accumulate(const float* field, double t) {
  gather(field, gathered_re_);
  complex_step_ = false;
  add(t);
}
void DftFields::accumulate(const double* real, const double* imag, double t) {
  gather(real, gathered_re_);
  gather(imag, gathered_im_);
  complex_step_ = true;
  add(t);
}
void DftFields::accumulate(const float* real, const float* imag, double t) {
  gather(real, gathered_re_);
  gather(imag, gathered_im_);
  complex_step_ = true;
  add(t);
}

template <class Real>
void DftFields::update(const FieldArrays<Real>& fields, double t) {
  const int c = int(component_);
  SPIRE_CHECK(fields.real[size_t(c)] != nullptr, ValueError, "DftFields::update: the step's fields have no ",
              to_string(component_), " array");
  if (fields.imag[size_t(c)])
    accumulate(fields.real[size_t(c)], fields.imag[size_t(c)], t);
  else
    accumulate(fields.real[size_t(c)], t);
}
template void DftFields::update<float>(const FieldArrays<float>&, double);
template void DftFields::update<double>(const FieldArrays<double>&, double);

std::complex<double> DftFields::value(size_t f, int64_t p) const {
  SPIRE_CHECK(f < frequencies_.size() && p >= 0 && p < points_, ValueError, "DftFields::value: frequency index ", f,
              " of ", frequencies_.size(), ", point ", p, " of ", points_);
  const size_t i = f * size_t(points_) + size_t(p);
  return {re_[i], im_[i]};
}

std::vector<std::complex<double>> DftFields::values(size_t f) const {
  SPIRE_CHECK(f < frequencies_.size(), ValueError, "DftFields::values: frequency index ", f, " of ",
              frequencies_.size());
  std::vector<std::complex<double>> out(static_cast<size_t>(points_));
  for (int64_t p = 0; p < points_; ++p) out[size_t(p)] = {re_[f * size_t(points_) + size_t(p)], im_[f * size_t(points_) + size_t(p)]};
  return out;
}

std::vector<std::complex<double>> DftFields::data() const {
  std::vector<std::complex<double>> out(re_.size());
  for (size_t i = 0; i < re_.size(); ++i) out[i] = {re_[i], im_[i]};
  return out;
}

void DftFields::set_data(const std::vector<std::complex<double>>& data, double scale) {
  SPIRE_CHECK(data.size() == re_.size(), ValueError, "DftFields::set_data: ", data.size(), " values for a ",
              to_string(component_), " DFT of ", points_, " points x ", frequencies_.size(), " frequencies (",
              re_.size(), " expected)");
  for (size_t i = 0; i < data.size(); ++i) {
    re_[i] = scale * data[i].real();
    im_[i] = scale * data[i].imag();
  }
}

void DftFields::save_state(SimulationState& out, const std::string& prefix) const {
  out.push_back({prefix + "/re", re_});
  out.push_back({prefix + "/im", im_});
  out.push_back({prefix + "/steps", {double(steps_)}});
}

void DftFields::load_state(const SimulationState& in, const std::string& prefix) {
  re_ = find_state(in, prefix + "/re", int64_t(re_.size())).values;
  im_ = find_state(in, prefix + "/im", int64_t(im_.size())).values;
  steps_ = int64_t(find_state(in, prefix + "/steps", 1).values[0]);
}

}  // namespace spire::elec
