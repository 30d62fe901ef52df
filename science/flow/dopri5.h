// Adaptive Dormand-Prince 5(4) through Boost.Odeint (runge_kutta_dopri5, controlled, with dense
// output), for method-of-lines use: dX/dt = M^{-1} (F - L X), every term explicit. Absolute and
// relative tolerances are both TimeSettings::tolerance, applied to the coefficients. Snapshots come
// from the dense output, so steps are not shortened to meet them.
#pragma once
#include <memory>
#include <utility>

#include "science/flow/imex.h"

namespace spire::flow {

class Dopri5 {
 public:
  // ConfigError when M is singular (a constraint equation, or a Chebyshev problem's boundary rows).
  Dopri5(Pencils& pencils, ExplicitTerms& terms, double tolerance);
  ~Dopri5();

  void initialize(const cplx* X, double t, double dt);
  // One accepted step; returns the interval it covered.
  std::pair<double, double> step();
  const cplx* current() const;          // the state at the end of the last step
  void state_at(double t, cplx* X);     // dense output, t within the last step
  long rejected() const;                // steps rejected by the error control so far
  double time() const;                  // where the last accepted step ended

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace spire::flow
