// Exponential time differencing, fourth order (Cox & Matthews 2002), for problems whose pencils are
// diagonal: M dt X + L X = F becomes, unknown by unknown, dt X = c X + N with c = -L/M and
// N = F/M, and the stiff linear part is integrated exactly. The coefficients phi(c dt) are
// computed by Kassam & Trefethen's (2005) contour integrals (32 points on a unit circle around
// each c dt), which avoid the cancellation of the direct formulas for small |c dt|.
#pragma once
#include <memory>

#include "science/flow/imex.h"

namespace spire::flow {

// ConfigError unless every pencil's M and L are diagonal with M invertible (periodic problems
// without constraint equations).
std::unique_ptr<Stepper> make_etdrk4(Pencils& pencils, ExplicitTerms& terms);

}  // namespace spire::flow
