// Step: second derivatives by forward-over-reverse (hessian, hvp), against the analytic Hessian.
#include "cli/demo/demo.h"
#include "engine/autodiff/functional.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

namespace spire::cli::demo {
namespace {

// f(x, y) = (1 - x)^2 + 100 (y - x^2)^2
Tensors rosenbrock(const Tensors& in) {
  Tensor x = select(in[0], 0, 0), y = select(in[0], 0, 1);
  Tensor a = sub(x, Scalar(1.0)), b = y - x * x;
  return {a * a + mul(b * b, Scalar(100.0))};
}

SPIRE_DEMO_STEP(30, "hessian", "Hessian by forward-over-reverse", [](Context& c) {
  if (!c.needs_ops({"select", "mul", "sub"})) return;
  // At (-1.2, 1): H = [[1200 x^2 - 400 y + 2, -400 x], [-400 x, 200]] = [[1330, 480], [480, 200]].
  Tensor p = from_vector<double>({-1.2, 1.0}, {2});
  Tensor h = hessian(rosenbrock)({p})[0];
  c.out << "  H(-1.2, 1) =\n  " << h.str() << "\n";
  std::vector<double> hv = h.to_vector();
  c.check("H[0,0]", hv[0], 1330.0, 1e-9);
  c.check("H[0,1]", hv[1], 480.0, 1e-9);
  c.check("H[1,0]", hv[2], 480.0, 1e-9);
  c.check("H[1,1]", hv[3], 200.0, 1e-9);

  // A Hessian-vector product costs a few gradients, never the whole matrix: H (1, 2) = (2290, 880).
  Tensor v = from_vector<double>({1.0, 2.0}, {2});
  std::vector<double> hvp_v = hvp(rosenbrock, {p}, {v})[0].to_vector();
  c.check("(H v)[0], v = (1, 2)", hvp_v[0], 2290.0, 1e-9);
  c.check("(H v)[1], v = (1, 2)", hvp_v[1], 880.0, 1e-9);
});

}  // namespace
}  // namespace spire::cli::demo
