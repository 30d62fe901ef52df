#include "science/flow/fourier.h"

#include <cmath>
#include <cstring>
#include <numbers>

#include "engine/core/error.h"

namespace spire::flow {

namespace {
// Scratch that a const, thread-safe transform needs (c2r destroys its input). Per thread, grown
// on demand, so steady-state calls allocate nothing.
AlignedVector<cplx>& scratch(size_t n) {
  thread_local AlignedVector<cplx> buffer;
  if (buffer.size() < n) buffer.resize(n);
  return buffer;
}

int padded_size(int n, double dealias) {
  return fft_friendly_size(std::max(n, int(std::ceil(dealias * n - 1e-9))));
}

// i^order * m.
cplx i_power(double m, int order) {
  switch (order % 4) {
    case 0: return {m, 0};
    case 1: return {0, m};
    case 2: return {-m, 0};
    default: return {0, -m};
  }
}

// out = i^order * power * in, elementwise, in real arithmetic (std::complex's operator* checks
// for infinities and does not vectorise).
void multiply(const cplx* in, cplx* out, const double* power, int order, size_t n) {
  const double* a = reinterpret_cast<const double*>(in);
  double* d = reinterpret_cast<double*>(out);
  switch (order % 4) {
    case 0:
      for (size_t k = 0; k < n; ++k) d[2 * k] = power[k] * a[2 * k], d[2 * k + 1] = power[k] * a[2 * k + 1];
      return;
    case 1:
      for (size_t k = 0; k < n; ++k) {
        const double re = a[2 * k], im = a[2 * k + 1];
        d[2 * k] = -power[k] * im, d[2 * k + 1] = power[k] * re;
      }
      return;
    case 2:
      for (size_t k = 0; k < n; ++k) d[2 * k] = -power[k] * a[2 * k], d[2 * k + 1] = -power[k] * a[2 * k + 1];
      return;
    default:
      for (size_t k = 0; k < n; ++k) {
        const double re = a[2 * k], im = a[2 * k + 1];
        d[2 * k] = power[k] * im, d[2 * k + 1] = -power[k] * re;
      }
      return;
  }
}
}  // namespace

FourierSpace::FourierSpace(const Discretization& d) : d_(d) {
  const bool two = d.dims == 2;
  base_ = make_level(d.nx, two ? d.ny : 1);
  padded_ = make_level(padded_size(d.nx, d.dealias), two ? padded_size(d.ny, d.dealias) : 1);
  if (two && padded_.cols > base_.cols) {
    band_columns_ = &fft_plan(FftKind::ColumnsBackward, {padded_.nx, base_.cols, padded_.cols});
    band_rows_ = &fft_plan(FftKind::RowsC2R, {padded_.nx, padded_.ny});
    kept_rows_ = &fft_plan(FftKind::RowsR2C, {padded_.nx, padded_.ny});
    kept_columns_ = &fft_plan(FftKind::ColumnsForward, {padded_.nx, base_.cols, padded_.cols});
  }
}

FourierSpace::Level FourierSpace::make_level(int nx, int ny) const {
  Level l;
  l.nx = nx;
  l.ny = ny;
  const bool two = d_.dims == 2;
  l.rows = two ? nx : 1;
  l.cols = two ? ny / 2 + 1 : nx / 2 + 1;
  l.x.resize(nx);
  for (int i = 0; i < nx; ++i) l.x[i] = d_.x0 + i * (d_.x1 - d_.x0) / nx;
  if (two) {
    l.y.resize(ny);
    for (int j = 0; j < ny; ++j) l.y[j] = d_.y0 + j * (d_.y1 - d_.y0) / ny;
  }
  std::vector<int> shape = two ? std::vector<int>{nx, ny} : std::vector<int>{nx};
  l.r2c = &fft_plan(FftKind::R2C, shape);
  l.c2r = &fft_plan(FftKind::C2R, shape);
  for (int o = 0; o <= tabulated_orders; ++o) {
    l.col_power[o].resize(l.cols);
    for (int j = 0; j < l.cols; ++j) l.col_power[o][j] = power(two ? 1 : 0, j, o, l);
    if (two) {
      l.row_power[o].resize(l.rows);
      for (int i = 0; i < l.rows; ++i) l.row_power[o][i] = power(0, i, o, l);
    }
  }
  return l;
}

std::vector<int> FourierSpace::grid_shape(bool padded) const {
  const Level& l = level(padded);
  return d_.dims == 2 ? std::vector<int>{l.nx, l.ny} : std::vector<int>{l.nx};
}

size_t FourierSpace::grid_size(bool padded) const {
  const Level& l = level(padded);
  return size_t(l.nx) * size_t(l.ny);
}

const std::vector<double>& FourierSpace::coordinates(int axis, bool padded) const {
  SPIRE_CHECK(axis == 0 || (axis == 1 && d_.dims == 2), ValueError, "coordinates: axis ", axis,
              " does not exist in a ", d_.dims, "D space (allowed: 0", d_.dims == 2 ? ", 1)" : ")");
  return axis == 0 ? level(padded).x : level(padded).y;
}

int FourierSpace::pencil_count(bool padded) const {
  const Level& l = level(padded);
  return l.rows * l.cols;
}

void FourierSpace::forward(const double* grid, cplx* coeffs, bool padded) const {
  const Level& l = level(padded);
  l.r2c->r2c(grid, coeffs);
  const double scale = 1.0 / (double(l.nx) * double(l.ny));
  const size_t n = size_t(l.rows) * size_t(l.cols);
  for (size_t k = 0; k < n; ++k) coeffs[k] *= scale;
}

void FourierSpace::backward(const cplx* coeffs, double* grid, bool padded) const {
  const Level& l = level(padded);
  const size_t n = size_t(l.rows) * size_t(l.cols);
  AlignedVector<cplx>& s = scratch(n);
  std::memcpy(s.data(), coeffs, n * sizeof(cplx));
  l.c2r->c2r(s.data(), grid);
}

void FourierSpace::backward_destroying(cplx* coeffs, double* grid, bool padded) const {
  level(padded).c2r->c2r(coeffs, grid);
}

void FourierSpace::backward_band_limited(cplx* coeffs, double* grid, bool overwrite) const {
  if (!band_columns_) {
    if (overwrite) backward_destroying(coeffs, grid, true);
    else backward(coeffs, grid, true);
    return;
  }
  cplx* work = coeffs;
  if (!overwrite) {
    const size_t n = size_t(padded_.rows) * size_t(padded_.cols);
    work = scratch(n).data();
    std::memcpy(static_cast<void*>(work), coeffs, n * sizeof(cplx));
  }
  band_columns_->dft_columns(work);
  band_rows_->c2r_rows(work, grid);
}

void FourierSpace::forward_band_limited(const double* grid, cplx* coeffs) const {
  if (!kept_rows_) {
    forward(grid, coeffs, true);
    return;
  }
  kept_rows_->r2c_rows(grid, coeffs);
  kept_columns_->dft_columns(coeffs);
  const double scale = 1.0 / (double(padded_.nx) * double(padded_.ny));
  for (int i = 0; i < padded_.rows; ++i)
    for (int j = 0; j < base_.cols; ++j) coeffs[size_t(i) * padded_.cols + j] *= scale;
}

double FourierSpace::wavenumber(int axis, int index, const Level& l) const {
  const double two_pi = 2 * std::numbers::pi;
  if (d_.dims == 1 || axis == 1) {  // r2c axis: index is m itself
    const double length = axis == 0 ? d_.x1 - d_.x0 : d_.y1 - d_.y0;
    return two_pi * index / length;
  }
  const int m = index <= l.nx / 2 ? index : index - l.nx;
  return two_pi * m / (d_.x1 - d_.x0);
}

double FourierSpace::power(int axis, int index, int order, const Level& l) const {
  const int n_axis = d_.dims == 1 ? l.nx : axis == 0 ? l.nx : l.ny;
  if (order % 2 == 1 && index == n_axis / 2) return 0;  // Nyquist: see fourier.h
  const double k = wavenumber(axis, index, l);
  double m = 1;
  for (int o = 0; o < order; ++o) m *= k;
  return m;
}

cplx FourierSpace::derivative_factor(int axis, int index, int order, bool padded) const {
  return i_power(power(axis, index, order, level(padded)), order);
}

void FourierSpace::differentiate(const cplx* in, cplx* out, int axis, int order, bool padded) const {
  SPIRE_CHECK(axis == 0 || (axis == 1 && d_.dims == 2), ValueError, "differentiate: axis ", axis,
              " does not exist in a ", d_.dims, "D space");
  SPIRE_CHECK(order >= 0, ValueError, "differentiate: order must be >= 0, got ", order);
  const Level& l = level(padded);
  const bool rows = d_.dims == 2 && axis == 0;  // one factor per row, else one per column
  thread_local std::vector<double> untabulated;
  const double* table;
  if (order <= tabulated_orders) {
    table = rows ? l.row_power[order].data() : l.col_power[order].data();
  } else {
    const int n = rows ? l.rows : l.cols;
    if (untabulated.size() < size_t(n)) untabulated.resize(n);
    for (int k = 0; k < n; ++k) untabulated[k] = power(axis, k, order, l);
    table = untabulated.data();
  }
  if (rows) {
    for (int i = 0; i < l.rows; ++i) {
      const size_t at = size_t(i) * l.cols;
      const cplx f = i_power(table[i], order);
      for (int j = 0; j < l.cols; ++j) {
        const cplx v = in[at + j];
        out[at + j] = {f.real() * v.real() - f.imag() * v.imag(), f.real() * v.imag() + f.imag() * v.real()};
      }
    }
    return;
  }
  for (int i = 0; i < l.rows; ++i)
    multiply(in + size_t(i) * l.cols, out + size_t(i) * l.cols, table, order, l.cols);
}

// Where small row i lands in the padded layout: one row, or (Nyquist of an even x that grows)
// two rows sharing it. 1D has a single row.
namespace {
struct RowMap {
  int first, second;  // second == -1 when there is one
  double weight;
};
RowMap row_map(int i, int rows, int padded_rows) {
  if (rows == padded_rows) return {i, -1, 1};
  if (i < rows / 2) return {i, -1, 1};
  if (i > rows / 2) return {i - rows + padded_rows, -1, 1};
  return {rows / 2, padded_rows - rows / 2, 0.5};
}
}  // namespace

// Padded row r from the unpadded coefficients; false when it is a row of zeros.
bool FourierSpace::pad_row(const cplx* coeffs, int r, cplx* out) const {
  const Level &b = base_, &p = padded_;
  const int nr = d_.dims == 1 ? b.nx : b.ny, pr = d_.dims == 1 ? p.nx : p.ny;
  const bool split_column = pr != nr;  // the r2c Nyquist column then stands for +-k_N
  const int half = b.rows / 2;
  int source = -1;
  double w = 1;
  if (p.rows == b.rows) source = r;
  else if (r < half) source = r;
  else if (r == half || r == p.rows - half) source = half, w = 0.5;
  else if (r > p.rows - half) source = r - p.rows + b.rows;
  if (source < 0) {
    std::memset(static_cast<void*>(out), 0, sizeof(cplx) * p.cols);
    return false;
  }
  const cplx* in = coeffs + size_t(source) * b.cols;
  if (w == 1) std::memcpy(static_cast<void*>(out), in, sizeof(cplx) * b.cols);
  else
    for (int j = 0; j < b.cols; ++j) out[j] = w * in[j];
  if (split_column) out[nr / 2] *= 0.5;
  std::memset(static_cast<void*>(out + b.cols), 0, sizeof(cplx) * (p.cols - b.cols));
  return true;
}

void FourierSpace::pad(const cplx* coeffs, cplx* padded) const {
  for (int r = 0; r < padded_.rows; ++r) pad_row(coeffs, r, padded + size_t(r) * padded_.cols);
}

void FourierSpace::pad_derivative(const cplx* coeffs, cplx* padded, int dx, int dy) const {
  if (dx > tabulated_orders || dy > tabulated_orders || (d_.dims == 1 && dy)) {
    pad(coeffs, padded);
    if (dx) differentiate(padded, padded, 0, dx, true);
    if (dy) differentiate(padded, padded, 1, dy, true);
    return;
  }
  // Row by row while the row is in cache; the same products as pad() then differentiate().
  const Level& p = padded_;
  for (int r = 0; r < p.rows; ++r) {
    cplx* row = padded + size_t(r) * p.cols;
    if (!pad_row(coeffs, r, row)) continue;
    if (d_.dims == 1) {
      if (dx) multiply(row, row, p.col_power[dx].data(), dx, p.cols);
      continue;
    }
    if (dx) {
      const cplx f = i_power(p.row_power[dx][r], dx);
      for (int j = 0; j < p.cols; ++j) {
        const cplx v = row[j];
        row[j] = {f.real() * v.real() - f.imag() * v.imag(), f.real() * v.imag() + f.imag() * v.real()};
      }
    }
    if (dy) multiply(row, row, p.col_power[dy].data(), dy, p.cols);
  }
}

void FourierSpace::truncate(const cplx* padded, cplx* coeffs) const {
  const Level &b = base_, &p = padded_;
  const int nr = d_.dims == 1 ? b.nx : b.ny, pr = d_.dims == 1 ? p.nx : p.ny;
  const bool split_column = pr != nr;
  auto at = [&](int row, int j) { return padded[size_t(row) * p.cols + j]; };
  auto neg = [&](int row) { return (p.rows - row) % p.rows; };
  for (int i = 0; i < b.rows; ++i) {
    const RowMap r = row_map(i, b.rows, p.rows);
    for (int j = 0; j < b.cols; ++j) {
      cplx v = 0;
      const bool nyquist = split_column && j == nr / 2;
      for (int row : {r.first, r.second}) {
        if (row < 0) continue;
        v += at(row, j);
        if (nyquist) v += std::conj(at(neg(row), j));  // the implicit -k_N half
      }
      coeffs[size_t(i) * b.cols + j] = v;
    }
  }
}

void FourierSpace::matrices(int p, const Problem& problem, Eigen::MatrixXcd& M, Eigen::MatrixXcd& L) const {
  SPIRE_CHECK(p >= 0 && p < pencil_count(false), ValueError, "matrices: pencil ", p, " outside 0..",
              pencil_count(false) - 1);
  const int n_eq = int(problem.equations.size()), n_f = int(problem.fields.size());
  M.setZero(n_eq, n_f);
  L.setZero(n_eq, n_f);
  const int i = p / base_.cols, j = p % base_.cols;
  auto factor = [&](const LinearTerm& term) -> cplx {
    SPIRE_CHECK(term.field >= 0 && term.field < n_f, ValueError, "matrices: field index ", term.field,
                " outside 0..", n_f - 1);
    if (d_.dims == 1) {
      SPIRE_CHECK(term.dy == 0, ConfigError, "dy() in a 1D problem (only x is a coordinate)");
      return term.coefficient * derivative_factor(0, j, term.dx, false);
    }
    return term.coefficient * derivative_factor(0, i, term.dx, false) *
           derivative_factor(1, j, term.dy, false);
  };
  for (int e = 0; e < n_eq; ++e) {
    for (const LinearTerm& t : problem.equations[e].mass) M(e, t.field) += factor(t);
    for (const LinearTerm& t : problem.equations[e].linear) L(e, t.field) += factor(t);
  }
}

void FourierSpace::rhs(int p, const Problem& problem, const std::vector<const cplx*>& F, double t,
                       cplx* out) const {
  for (size_t e = 0; e < problem.equations.size(); ++e) out[e] = e < F.size() && F[e] ? F[e][p] : cplx(0);
}

}  // namespace spire::flow
