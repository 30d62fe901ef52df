// Step: reverse-mode gradients, checked against the analytic gradient of the Rosenbrock function.
#include <cmath>

#include "cli/demo/demo.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

namespace spire::cli::demo {
namespace {

// f(x) = sum_i (1 - x_i)^2 + 100 (x_{i+1} - x_i^2)^2, written with tensor ops on slices.
Tensor rosenbrock(const Tensor& x) {
  int64_t n = x.shape(0);
  Tensor head = slice(x, 0, 0, n - 1), tail = slice(x, 0, 1, n);
  Tensor a = sub(head, Scalar(1.0));
  Tensor b = tail - head * head;
  return sum(a * a + mul(b * b, Scalar(100.0)));
}

SPIRE_DEMO_STEP(20, "gradient", "Reverse-mode gradient (Rosenbrock function)", [](Context& c) {
  if (!c.needs_ops({"slice", "mul", "sub", "sum"})) return;
  // The classic start point (-1.2, 1): f = 24.2, grad = (-215.6, -88).
  Tensor x = from_vector<double>({-1.2, 1.0}, {2});
  x.set_requires_grad();
  Tensor f = rosenbrock(x);
  f.backward();
  std::vector<double> g = x.grad().to_vector();
  c.out << "  f(-1.2, 1) = " << f.item<double>() << ", grad = " << x.grad().str() << "\n";
  c.check("f(-1.2, 1)", f.item<double>(), 24.2, 1e-12);
  c.check("df/dx0 at (-1.2, 1)", g[0], -215.6, 1e-10);
  c.check("df/dx1 at (-1.2, 1)", g[1], -88.0, 1e-10);

  // The same in 1000 dimensions, against the gradient derived by hand.
  const int64_t n = 1000;
  std::vector<double> xv(n);
  for (int64_t i = 0; i < n; ++i) xv[i] = 0.5 + 0.4 * std::sin(0.37 * double(i));
  std::vector<double> expected(n, 0.0);
  for (int64_t i = 0; i + 1 < n; ++i) {
    double r = xv[i + 1] - xv[i] * xv[i];
    expected[i] += -2 * (1 - xv[i]) - 400 * xv[i] * r;
    expected[i + 1] += 200 * r;
  }
  Tensor big = from_vector<double>(xv, {n});
  big.set_requires_grad();
  rosenbrock(big).backward();
  std::vector<double> got = big.grad().to_vector();
  double err = 0;
  for (int64_t i = 0; i < n; ++i) err = std::max(err, std::abs(got[i] - expected[i]));
  c.check("max |grad - analytic|, n = 1000", err, 0.0, 1e-11);
});

}  // namespace
}  // namespace spire::cli::demo
