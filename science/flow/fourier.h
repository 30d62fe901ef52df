// The Fourier space of a periodic x (1D) or periodic x and y (2D), on FFTW's real transforms.
//
// Coefficients follow space.h: u(x) = sum_m c_m exp(i k_m (x - x0)), forward divides by the grid
// size. 1D: pencils m = 0..n/2 (r2c). 2D: x is full complex (index i, negative kx at the end),
// y is r2c (j = 0..ny/2), pencil p = i (ny/2 + 1) + j, each pencil one unknown.
//
// The Nyquist mode of an even grid stands for cos(k_N x) only. Padding splits it evenly between
// +k_N and -k_N, so that the padded grid sees the same interpolant; truncating sums them back.
// Odd derivatives of a Nyquist mode are zero (the sin(k_N x) they would make is not representable).
#pragma once
#include "science/flow/fftw_plans.h"
#include "science/flow/space.h"

namespace spire::flow {

class FourierSpace : public Space {
 public:
  explicit FourierSpace(const Discretization& d);  // d validated by make_space

  const Discretization& discretization() const override { return d_; }
  std::vector<int> grid_shape(bool padded) const override;
  size_t grid_size(bool padded) const override;
  const std::vector<double>& coordinates(int axis, bool padded) const override;
  int pencil_count(bool padded) const override;
  int unknowns_per_pencil(bool padded) const override { return 1; }

  void forward(const double* grid, cplx* coeffs, bool padded) const override;
  void backward(const cplx* coeffs, double* grid, bool padded) const override;
  void pad(const cplx* coeffs, cplx* padded) const override;
  void truncate(const cplx* padded, cplx* coeffs) const override;
  void differentiate(const cplx* in, cplx* out, int axis, int order, bool padded) const override;

  void matrices(int p, const Problem& problem, Eigen::MatrixXcd& M, Eigen::MatrixXcd& L) const override;
  void rhs(int p, const Problem& problem, const std::vector<const cplx*>& F, double t,
           cplx* out) const override;

  // backward() without the copy that keeps `coeffs` intact: FFTW's c2r overwrites them. For
  // callers whose coefficients are a dead temporary (the evaluator).
  void backward_destroying(cplx* coeffs, double* grid, bool padded) const;

  // backward() on the padded grid for coefficients that are zero in every column beyond the
  // unpadded ones (what pad() leaves, and derivatives and sums of that): in 2D the transforms down
  // x then skip the zero third of the columns (about 20% faster). `overwrite`: as
  // backward_destroying. Any other case is an ordinary backward.
  void backward_band_limited(cplx* coeffs, double* grid, bool overwrite) const;

  // forward() on the padded grid for a caller that keeps only the unpadded modes (truncate()): in
  // 2D the transforms down x skip the columns truncation drops, which are left unset.
  void forward_band_limited(const double* grid, cplx* coeffs) const;

  // pad() then (d/dx)^dx (d/dy)^dy at the padded size, row by row in one pass (the evaluator's
  // derivatives of fields).
  void pad_derivative(const cplx* coeffs, cplx* padded, int dx, int dy) const;

  // (i k)^order along `axis` for index `index` of that axis (full-complex x in 2D, r2c otherwise).
  cplx derivative_factor(int axis, int index, int order, bool padded) const;

 private:
  // One size of the space: the grid and the layout of its coefficients.
  struct Level {
    int nx = 0, ny = 1;       // grid points (ny = 1 in 1D)
    int rows = 1, cols = 0;   // coefficient layout: rows of x (2D) by r2c columns
    std::vector<double> x, y; // coordinates
    const FftPlan* r2c = nullptr;
    const FftPlan* c2r = nullptr;
    // k^order of every index of the row (2D x) and column (r2c) axes, orders 0..4, zero for odd
    // orders at Nyquist: (i k)^order = i^order * power, applied without complex multiplication.
    std::vector<double> row_power[5], col_power[5];
  };
  static constexpr int tabulated_orders = 4;
  const Level& level(bool padded) const { return padded ? padded_ : base_; }
  Level make_level(int nx, int ny) const;
  double wavenumber(int axis, int index, const Level& l) const;  // k of that index; Nyquist > 0
  double power(int axis, int index, int order, const Level& l) const;  // k^order, Nyquist rule
  bool pad_row(const cplx* coeffs, int r, cplx* out) const;

  Discretization d_;
  Level base_, padded_;
  const FftPlan* band_columns_ = nullptr;  // 2D, y padded: x transforms of the unpadded columns
  const FftPlan* band_rows_ = nullptr;     // then c2r of every row
  const FftPlan* kept_rows_ = nullptr;     // forward: r2c of every row
  const FftPlan* kept_columns_ = nullptr;  // then x transforms of the unpadded columns only
};

}  // namespace spire::flow
