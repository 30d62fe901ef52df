// Shared by taylor.cpp (levels, plain jets) and taylor_directions.cpp (many directions at once).
#pragma once
#include "engine/autodiff/taylor.h"

namespace spire::taylor::detail {

// The op's Taylor rule to `order`, its answer padded to one series of `order` entries per output.
std::vector<Series> run_rule(const OpDef& op, const Attrs& attrs, const std::vector<Tensor>& inputs,
                             const std::vector<Tensor>& outputs, const std::vector<Series>& in, int order);

// Output coefficients at a level carrying `s.directions` jets (taylor.h).
std::vector<Series> propagate_directions(const OpDef& op, const Attrs& attrs, const LevelSpec& s,
                                         const std::vector<Tensor>& inputs,
                                         const std::vector<Tensor>& outputs,
                                         const std::vector<Series>& in);

}  // namespace spire::taylor::detail
