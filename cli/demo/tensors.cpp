// Step: tensors, broadcasting, type promotion, views.
#include "cli/demo/demo.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

namespace spire::cli::demo {
namespace {

SPIRE_DEMO_STEP(10, "tensors", "Tensors and broadcasting", [](Context& c) {
  if (!c.needs_ops({"add", "mul", "sum", "reshape", "permute"})) return;
  // A column [3,1] against a row [4] broadcasts to [3,4], as in NumPy.
  Tensor a = reshape(arange(0, 3, 1, DType::Float64), {3, 1});
  Tensor b = from_vector<double>({10, 20, 30, 40}, {4});
  Tensor t = a * b + b;  // t[i,j] = (i + 1) * b[j]
  c.out << "  a = " << a.str() << "\n  b = " << b.str() << "\n  a * b + b =\n  " << t.str() << "\n";
  // sum_ij (i + 1) b_j = (1 + 2 + 3) * 100
  c.check("sum(a * b + b)", sum(t).item<double>(), 600.0, 0.0);

  // Promotion follows NumPy's table (docs/dtypes.md); a bare number is "weak" and takes the
  // tensor's type, so float32 * 2.5 stays float32.
  Tensor i32 = full({2}, Scalar(int64_t(3)), DType::Int32);
  Tensor f32 = full({2}, Scalar(0.5), DType::Float32);
  c.out << "  int32 + float32 -> " << name((i32 + f32).dtype()) << "\n";
  c.out << "  float32 * 2.5 -> " << name(mul(f32, Scalar(2.5)).dtype()) << "\n";
  c.check("int32 + float32 is float32 (1 = yes)", double((i32 + f32).dtype() == DType::Float32), 1, 0);
  c.check("float32 * 2.5 is float32 (1 = yes)", double(mul(f32, Scalar(2.5)).dtype() == DType::Float32), 1, 0);

  // Views share memory: a transpose is a new shape and strides over the same storage.
  Tensor tt = transpose(t, 0, 1);
  c.out << "  transpose(t): shape " << shape_str(tt.shape()) << ", strides " << shape_str(tt.strides())
        << ", shares storage: " << (tt.storage() == t.storage() ? "yes" : "no") << "\n";
  c.check("transpose shares storage (1 = yes)", double(tt.storage() == t.storage()), 1, 0);
});

}  // namespace
}  // namespace spire::cli::demo
