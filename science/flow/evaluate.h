// Evaluating expressions on the grid: the explicit terms F of a problem, computed pseudo-spectrally
// on the dealiasing grid (products and functions pointwise there; derivatives in coefficient
// space), then truncated to the problem's modes. An Evaluator owns scratch buffers: one per
// solver (it is not shared between threads).
#pragma once
#include <memory>
#include <vector>

#include "science/flow/problem.h"
#include "science/flow/space.h"

namespace spire::flow {

class Evaluator {
 public:
  Evaluator(const Problem& problem, const Space& space);
  ~Evaluator();

  // F of every equation (coefficients, unpadded size; zero where Equation::rhs is null) from every
  // field's coefficients (unpadded) at time t.
  void explicit_terms(const std::vector<const cplx*>& fields, double t, const std::vector<cplx*>& F);

  // An expression without fields on the grid (unpadded unless padded), e.g. a coefficient field.
  std::vector<double> on_grid(const Expr& e, double t, bool padded = false);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace spire::flow
