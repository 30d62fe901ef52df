// Boundary conditions from their text ("dirichlet: g", "neumann: g", "robin: a*u + b*dx(u) = g").
// Internal to science/flow: build_problem's last step.
#pragma once
#include <vector>

#include "science/flow/problem.h"

namespace spire::flow::detail {

// The conditions of text.bcs for a problem whose fields and parameters are known, ordered by field
// then side. ConfigError for conditions on a periodic problem, an unknown field or side, a key ""
// in a system, and a condition that is none of the three kinds; ParseError for g that does not
// parse. The count against each equation's x order is the Chebyshev space's check, not this one.
std::vector<BoundaryCondition> boundary_conditions(const ProblemText& text, const Problem& problem);

// One condition on `field` (index into problem.fields) at `side` (0 left, 1 right).
BoundaryCondition boundary_condition(const std::string& condition, const std::string& where, int field, int side,
                                     const Problem& problem);

}  // namespace spire::flow::detail
