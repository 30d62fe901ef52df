// How much precision float32 matrix products may trade for speed, as a process-wide setting that
// backends read at each product. "highest" (the default) computes in full float32; "high" lets a
// GPU round the inputs of float32 products to TF32 (10-bit mantissa) on its tensor cores, several
// times faster and accurate to about 1e-3 relative. The CPU backend always computes in full float32.
// Other dtypes are never affected.
#pragma once
#include <string>

namespace spire {

enum class MatmulPrecision { Highest, High };

// Accepts "highest" or "high"; anything else is a ValueError naming the allowed values.
void set_float32_matmul_precision(const std::string& precision);
// "highest" or "high".
std::string get_float32_matmul_precision();
MatmulPrecision float32_matmul_precision();

}  // namespace spire
