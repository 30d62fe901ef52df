// The Chebyshev space on a bounded interval [x0, x1] (1D): Gauss-Lobatto grid in increasing x,
// transforms by DCT-I (FFTW's REDFT00), and boundary conditions by the ultraspherical tau method
// (ultraspherical.h): each equation of x order K is written in the C^(K) basis and its last K rows
// are replaced by its field's boundary conditions, as Dedalus does.
//
// One pencil of n unknowns (ceil(dealias * n) on the padded grid, rounded up so that FFTW's
// transform size 2 (N - 1) factors into small primes); coefficients are real, stored as complex
// numbers with zero imaginary part.
#pragma once
#include <memory>

#include "science/flow/space.h"

namespace spire::flow {

// ConfigError unless d asks for basis "chebyshev", one dimension, periodic = false, n >= 4,
// dealias >= 1 and x0 < x1.
std::unique_ptr<Space> make_chebyshev_space(const Discretization& d);

// The boundary conditions of one field, checked against the x order K of the equation it closes:
// ConfigError ("equation 1 (u) is second order in x and needs 2 boundary conditions (left and
// right); [bc] gives 1: left; missing: right"). Returns them ordered left, right: the order of the
// equation's tau rows.
std::vector<const BoundaryCondition*> checked_boundary_conditions(const Problem& problem, int equation,
                                                                  int K);

}  // namespace spire::flow
