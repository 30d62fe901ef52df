// Pieces shared by the layers: the generator to draw from, and PyTorch-style reprs of options.
#pragma once
#include <string>
#include <vector>

#include "engine/core/dtype.h"
#include "engine/ops/random.h"

namespace spire::nn {

inline Generator& generator_or_default(Generator* g) { return g ? *g : default_generator(); }
// Python's repr of a float ("1e-05", "0.1", "1.0") and of a tuple of ints ("(3, 3)", "(4,)").
std::string py_float(double v);
std::string py_tuple(const std::vector<int64_t>& v);
inline const char* py_bool(bool b) { return b ? "True" : "False"; }
// Checks that a layer's dtype is float32 or float64.
void check_layer_dtype(DType dtype, const char* layer);

}  // namespace spire::nn
