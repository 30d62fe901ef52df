// A spectral discretisation of the domain: grids, transforms, derivatives, and a problem's linear
// operators in pencil form. Fourier (periodic x, or x and y) and Chebyshev (bounded x, 1D) are the
// two; the solver (solver.h) and the evaluator (evaluate.h) see only this interface.
//
// Coefficients of one scalar field are complex and pencil-major: pencil p's unknowns are
// coeffs[p * unknowns_per_pencil() + i]. A Fourier pencil is one wavenumber (kx, or (kx, ky)) with
// one unknown; the Chebyshev space is one pencil of n unknowns (real values in complex storage).
// The solver's state for pencil p is the vector [field][unknown] of length
// fields * unknowns_per_pencil(), so gathering is a fixed index map and needs no virtual call.
//
// Grids are row-major with x slowest: value (i, j) at grid[i * ny + j]. "padded" selects the
// dealiasing grid (ceil(dealias * n) points per axis, rounded up to a size FFTW likes), on which
// the explicit terms are evaluated; coefficients at padded size are the same modes followed by
// zero modes up to the padded size's.
#pragma once
#include <Eigen/Dense>

#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "science/flow/problem.h"

namespace spire::flow {

using cplx = std::complex<double>;

struct Discretization {
  std::string basis = "fourier";  // fourier | chebyshev
  int dims = 1;
  double x0 = -1, x1 = 1;         // [domain] x
  double y0 = -1, y1 = 1;         // [domain] y (dims == 2)
  int nx = 256, ny = 256;         // [discretization] n, or [nx, ny]
  double dealias = 1.5;           // >= 1; 1 turns dealiasing off
  bool periodic = true;
};

class Space {
 public:
  virtual ~Space() = default;
  virtual const Discretization& discretization() const = 0;

  virtual std::vector<int> grid_shape(bool padded) const = 0;  // {nx} or {nx, ny}
  virtual size_t grid_size(bool padded) const = 0;             // product of grid_shape
  // The points of one axis (0 x, 1 y): Fourier x0 + i (x1 - x0) / n; Chebyshev the Gauss-Lobatto
  // points mapped to [x0, x1] in increasing order (both ends included).
  virtual const std::vector<double>& coordinates(int axis, bool padded) const = 0;

  virtual int pencil_count(bool padded) const = 0;
  virtual int unknowns_per_pencil(bool padded) const = 0;
  size_t coeff_size(bool padded) const {
    return size_t(pencil_count(padded)) * size_t(unknowns_per_pencil(padded));
  }

  // Transforms of one scalar field. Thread-safe (FFTW's new-array execute), so one Space may
  // serve the threads of a dataset run; buffers need no particular alignment.
  virtual void forward(const double* grid, cplx* coeffs, bool padded) const = 0;
  virtual void backward(const cplx* coeffs, double* grid, bool padded) const = 0;
  virtual void pad(const cplx* coeffs, cplx* padded) const = 0;       // zero high modes
  virtual void truncate(const cplx* padded, cplx* coeffs) const = 0;  // drop them
  // d^order / d(axis)^order in coefficient space, at either size; in and out may alias.
  virtual void differentiate(const cplx* in, cplx* out, int axis, int order, bool padded) const = 0;

  // Pencil p's matrices, rows [equation][unknown] and columns [field][unknown]:
  // M dt X + L X = rhs. A Chebyshev space writes each equation in the ultraspherical basis of its
  // x order and replaces that equation's last rows (its tau rows) by its field's boundary
  // conditions (in L; M's tau rows are zero). ConfigError when the boundary conditions do not
  // match the equation's order ("equation 1 (u) is second order in x and needs 2 boundary
  // conditions; [bc] gives 1: left").
  virtual void matrices(int p, const Problem& problem, Eigen::MatrixXcd& M, Eigen::MatrixXcd& L) const = 0;
  // Pencil p's right-hand side from the explicit terms F (one coefficient array per equation, at
  // unpadded size) at time t: Fourier copies; Chebyshev converts to each equation's basis and puts
  // the boundary values g(t) in the tau rows.
  virtual void rhs(int p, const Problem& problem, const std::vector<const cplx*>& F, double t,
                   cplx* out) const = 0;
};

// The space a problem asks for; ConfigError for combinations that do not exist (chebyshev with
// periodic, chebyshev in 2D, fourier without periodic, n too small, dealias < 1).
std::unique_ptr<Space> make_space(const Discretization& d);

}  // namespace spire::flow
