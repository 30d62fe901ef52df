// The implicit side of a split problem (problem.h) on a space (space.h), pencil by pencil: the
// solver's state layout, gathering and scattering between field coefficient arrays and pencil
// vectors, products with M and L, and solves with a M + b L whose factorisations are cached per
// (a, b).
//
// The gauge rule: in a pencil where some field's columns are zero in both M and L (a stream
// function's mean in Fourier mode 0), that field is zero and the equation it closes is dropped.
// What remains is square; the state vector holds only those reduced unknowns, pencil after pencil
// (pencil p at offset(p), length size(p)), and right-hand sides hold the matching reduced rows.
//
// When every reduced pencil has at most one unknown (Fourier problems of one field), M, L and the
// solves are plain complex scalars. Otherwise M, L and the LU factors (partial pivoting) are kept
// as block-diagonal sparse rows over the whole state: a Chebyshev pencil's matrices are banded
// apart from their boundary rows, so products and solves cost O(nonzeros) rather than O(n^2), and
// the small coupled pencils of a Fourier system (w, psi) lose nothing. Solves allocate nothing.
#pragma once
#include <complex>
#include <vector>

#include "science/flow/problem.h"
#include "science/flow/space.h"

namespace spire::flow {

class Pencils {
 public:
  // Forms every pencil's matrices. ConfigError when a reduced pencil is not square (a problem
  // whose equations do not close its fields).
  Pencils(const Problem& problem, const Space& space);

  int count() const { return int(offset_.size()) - 1; }
  size_t size() const { return size_t(offset_.back()); }     // length of a state vector
  int offset(int p) const { return offset_[p]; }
  int size(int p) const { return offset_[p + 1] - offset_[p]; }
  bool scalar() const { return scalar_; }                    // every pencil 0 or 1 unknowns
  int fields() const { return fields_; }

  // Field coefficient arrays (unpadded, pencil-major) <-> state vector. Scatter writes zero where
  // the gauge rule dropped a field.
  void gather(const std::vector<const cplx*>& fields, cplx* X) const;
  void scatter(const cplx* X, const std::vector<cplx*>& fields) const;
  // The reduced right-hand side of every pencil from the explicit terms of every equation at t.
  void gather_rhs(const std::vector<const cplx*>& F, double t, cplx* out) const;

  // out = alpha * M X + beta * out (and the same for L); beta = 0 ignores what out held.
  void apply_M(const cplx* X, cplx* out, double alpha = 1, double beta = 0) const;
  void apply_L(const cplx* X, cplx* out, double alpha = 1, double beta = 0) const;

  // Index of the factorisation of a M + b L, made on first use and kept (a few at most per run).
  // ConfigError naming the pencil when the matrix is singular.
  int factor(double a, double b);
  // Solves (a M + b L) X = rhs with factorisation `f`; rhs and X may alias.
  void solve(int f, const cplx* rhs, cplx* X) const;
  // Whether a M + b L can be factored (M alone, for the adaptive scheme): no exception.
  bool invertible(double a, double b);

  // Diagonal structure, for the exponential scheme: true when every reduced pencil's M and L are
  // diagonal and M has no zero on its diagonal. diagonal_M / diagonal_L then give the diagonals,
  // in state order.
  bool diagonal() const;
  std::vector<cplx> diagonal_M() const;
  std::vector<cplx> diagonal_L() const;

  // Pencils with constraint equations (rows where M is zero, closing fields that have no dt):
  // given a right-hand side `rhs` for X's current state, solves the constraint rows for the
  // constrained unknowns with the others held, so that an initial state satisfies its
  // constraints. Constraint rows are rows of M that are zero and involve a constrained unknown
  // (so a Chebyshev pencil's boundary rows of evolved fields are not among them); a pencil where
  // they do not pair one to one with the constrained unknowns is left alone.
  bool has_constraints() const { return !constraint_pencils_.empty(); }
  void enforce_constraints(const cplx* rhs, cplx* X) const;

 private:
  // Compressed sparse rows over the state (block diagonal: row k's columns lie in k's pencil).
  struct Sparse {
    std::vector<int> start;  // size() + 1
    std::vector<int> col;
    std::vector<cplx> val;
    void push_row() { start.push_back(int(col.size())); }
  };
  struct Factorisation {
    double a = 0, b = 0;
    std::vector<cplx> lu;   // scalar: 1 / (a m + b l); otherwise U's reciprocal diagonal
    std::vector<int> piv;   // the row swapped with row k (state indices), applied in order
    Sparse lower, upper;    // strictly lower (unit diagonal) and strictly upper parts
  };
  struct Constraint {
    int p;
    std::vector<int> rows, cols, free_cols;  // reduced indices within the pencil
    std::vector<cplx> lu;                     // LU of L[rows, cols]
    std::vector<int> piv;
  };
  static void apply_sparse(const Sparse& A, const cplx* X, cplx* out, double alpha, double beta);

  const Space& space_;
  const Problem& problem_;
  int fields_ = 0, unknowns_ = 0, equations_ = 0;
  bool scalar_ = true;
  bool identity_ = false;    // one field, one unknown in every pencil: X is the field's array
  bool copy_rhs_ = false;    // the space's rhs() copies F (Fourier): gather it directly
  std::vector<size_t> dropped_;  // (field, coefficient) pairs the gauge rule zeroes: f * size + i
  std::vector<int> offset_;    // state offsets, count + 1
  std::vector<int> moffset_;   // matrix offsets (size(p)^2), count + 1
  std::vector<int> rows_;      // per reduced row: full row index [equation][unknown]
  std::vector<int> cols_;      // per reduced column: full column index [field][unknown]
  std::vector<cplx> M_, L_;    // reduced matrices, row-major, at moffset_
  Sparse Ms_, Ls_;             // the same as sparse rows (when not scalar)
  // Column order for factoring (state indices; empty: as they are). In a Chebyshev pencil each
  // field's K lowest modes go last, so that the x derivative of order K of the ultraspherical
  // method, a band K above the diagonal, lands on it: elimination then keeps the band and the
  // boundary rows stay at the bottom without swaps (no fill).
  std::vector<int> perm_;
  mutable std::vector<cplx> solve_scratch_;
  std::vector<Factorisation> factors_;
  std::vector<Constraint> constraint_pencils_;
  mutable std::vector<cplx> rhs_scratch_;
  mutable std::vector<const cplx*> field_ptrs_;
};

// a * b without the C99 infinity recovery of std::complex's operator* (a library call on every
// NaN check): the step loops multiply complex numbers millions of times, and blow-ups are caught
// by the solver's own finiteness checks.
inline cplx mul(cplx a, cplx b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// Dense LU with partial pivoting of an n x n row-major matrix in place (U's diagonal stored as its
// reciprocal); false when singular. threshold < 1 keeps the diagonal as pivot while it is at least
// that fraction of its column's largest entry (threshold pivoting); 1 is classic partial pivoting.
bool lu_factor(cplx* A, int* piv, int n, double threshold = 1);
void lu_solve(const cplx* LU, const int* piv, int n, cplx* x);  // x: rhs in, solution out

}  // namespace spire::flow
