// Fixed-step time schemes on pencil state vectors (pencils.h), in Dedalus's formulation of
// M dt X + L X = F:
//
//   multistep SBDFq:  (a0 M + b0 L) X^n = sum_j c_j F^{n-j} - a_j M X^{n-j}      (j = 1..q)
//   IMEX Runge-Kutta, stage i:
//                     (M + dt H_ii L) X_i = M X_0 + dt sum_{j<i} (A_ij F_j - H_ij L X_j)
//
// Boundary rows (rows of M that are zero and whose right-hand side is a given g(t)) are met at the
// new step's or stage's own time: Dedalus's form would meet them with the combination of g at the
// earlier times that the scheme applies to F, which for the Runge-Kutta schemes is only first order
// accurate when g varies. The correction adds g(t_i) - (that combination) to those rows and is zero
// when g is constant or absent.
//
// SBDF2 and SBDF3 take RK443 steps until their history is full, so the measured order is the
// designed one. Histories are dropped when the step changes. Every buffer is sized once; a step
// allocates nothing.
#pragma once
#include <memory>

#include "science/flow/pencils.h"
#include "science/flow/solver.h"

namespace spire::flow {

// The explicit side of the problem as the schemes see it: F(X, t), reduced pencil rows.
class ExplicitTerms {
 public:
  virtual ~ExplicitTerms() = default;
  virtual void evaluate(const cplx* X, double t, cplx* F) = 0;
  // The part of F that does not depend on X: the boundary values g(t) in a Chebyshev pencil's tau
  // rows. False (B untouched) when there is none, as for periodic problems.
  virtual bool boundary(double /*t*/, cplx* /*B*/) { return false; }
};

class Stepper {
 public:
  virtual ~Stepper() = default;
  // Advances X (a state vector of pencils.size()) from t to t + dt.
  virtual void step(cplx* X, double t, double dt) = 0;
  // Forgets any history (the next step starts the scheme afresh).
  virtual void reset() {}
};

// SBDF1-3, RK222, RK443 (ConfigError for the other schemes).
std::unique_ptr<Stepper> make_imex(Scheme scheme, Pencils& pencils, ExplicitTerms& terms);

}  // namespace spire::flow
