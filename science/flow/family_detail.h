// Pieces the dataset families share (families.cpp, family_pdeformer.cpp); not a contract.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "science/flow/families.h"

namespace spire::flow::fam {

// The unpadded grid points of one axis, as the spaces place them (space.h): Fourier
// x0 + i (x1 - x0) / n, Chebyshev the Gauss-Lobatto points in increasing order.
std::vector<double> grid_points(const Discretization& d, int axis);

// " + 0.5*u^2" or " - 0.5*u^2" (first: "0.5*u^2" or "-0.5*u^2"); coefficient numbers exact.
std::string signed_term(double c, const std::string& what, bool first = false);

// The PDEformer-1 equation u_t + f0(u) + s(x) + (f1(u) - kappa(x) u_x)_x = 0 from its terms
// (family_pdeformer.cpp draws them; tests give them).
struct PdeformerTerms {
  std::vector<double> f0 = {0, 0, 0, 0}, f1 = {0, 0, 0, 0};  // [0, c1, c2, c3]
  int s_type = 0;             // 0 zero, 1 constant, 2 field
  double s_value = 0;         // s_type 1
  std::string s_field;        // s_type 2: an expression of x
  int kappa_type = 0;         // 0 zero, 1 constant, 2 field
  double kappa_value = 0;     // kappa_type 1
  std::string kappa_field;    // kappa_type 2: an expression of x
  double kappa_bar = 0;       // kappa_type 2: the implicit part (at least max kappa / 2; max kappa here)
  bool periodic = true;
  std::string bc_left, bc_right;  // when not periodic: "dirichlet: g" | "neumann: g" | "robin: ..."
};
ProblemText pdeformer_problem(const PdeformerTerms& terms);

std::unique_ptr<Family> make_pdeformer_family(const std::map<std::string, double>& keys);

}  // namespace spire::flow::fam
