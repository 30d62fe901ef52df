// Custom ops from plugins (engine/custom): the example plugin (examples/custom_op, built by the
// test build into SPIRE_PLUGIN_DIR) loaded with load_library, its values against the closed form,
// its gradients against central finite differences, and the errors of loading.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <unistd.h>

#include "engine/autodiff/backward.h"
#include "engine/autodiff/differential.h"
#include "engine/core/op.h"
#include "engine/custom/library.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"
#include "tests/common/expect_error.h"

using namespace spire;

namespace {

const std::string kExample = std::string(SPIRE_PLUGIN_DIR) + "/libspire_example_ops.so";

const OpDef& smooth_abs_op() {
  load_library(kExample);
  return op_def("example.smooth_abs");
}

Tensor smooth_abs(const Tensor& x, double eps) { return call1(smooth_abs_op(), {x}, {{"eps", eps}}); }

}  // namespace

TEST(Custom, LoadsThePluginAndCallsItsOp) {
  std::vector<std::string> names = load_library(kExample);
  EXPECT_EQ(names, std::vector<std::string>{"example.smooth_abs"});
  // Loading again is a no-op that reports the same ops.
  EXPECT_EQ(load_library(kExample), names);

  Tensor x = rules::sample({4, 3}, -2, 2);
  Tensor y = smooth_abs(x, 0.5);
  auto xv = x.to_vector(), yv = y.to_vector();
  for (size_t i = 0; i < xv.size(); ++i) EXPECT_NEAR(yv[i], std::sqrt(xv[i] * xv[i] + 0.25), 1e-15);
  // float32 and strided inputs take the same kernel.
  Tensor xf = cast(transpose(x, 0, 1), DType::Float32);
  Tensor yf = smooth_abs(xf, 0.5);
  EXPECT_EQ(yf.dtype(), DType::Float32);
  EXPECT_NEAR(yf.to_vector()[1], std::sqrt(xv[3] * xv[3] + 0.25), 1e-6);
}

TEST(Custom, PluginOpGradientsMatchFiniteDifferences) {
  const double eps = 0.3, h = 1e-6;
  Tensor x0 = rules::sample({5}, -1.5, 1.5, 3);
  Tensor w = rules::sample({5}, -1, 1, 4);
  auto loss = [&](const Tensor& x) { return sum(mul(w, smooth_abs(x, eps))); };

  Tensor x = x0.detach().set_requires_grad(true);
  Tensor g = autodiff::grad({loss(x)}, {x}, {}, false, /*create_graph=*/true)[0];
  // Second order: the Hessian is diagonal, d/dx (w x / y) = w eps^2 / y^3.
  Tensor gg = autodiff::grad({sum(g)}, {x})[0];
  auto xv = x0.to_vector(), wv = w.to_vector(), gv = g.to_vector(), ggv = gg.to_vector();
  for (size_t i = 0; i < xv.size(); ++i) {
    Tensor e = zeros({5}, DType::Float64);
    e.data<double>()[i] = h;
    double fd = (loss(add(x0, e)).item<double>() - loss(sub(x0, e)).item<double>()) / (2 * h);
    EXPECT_NEAR(gv[i], fd, 1e-8) << "element " << i;
    double y = std::sqrt(xv[i] * xv[i] + eps * eps);
    EXPECT_NEAR(ggv[i], wv[i] * eps * eps / (y * y * y), 1e-10) << "element " << i;
  }
}

TEST(Custom, PluginOpUnderTaylorMode) {
  // The Laplacian of sum(smooth_abs(x)) is sum eps^2 / y^3 (the op is pointwise).
  const double eps = 0.7;
  Tensor x = rules::sample({4}, -1, 1, 9);
  Tensor lap = laplacian([&](const Tensor& v) { return sum(smooth_abs(v, eps)); })(x);
  double expect = 0;
  for (double v : x.to_vector()) expect += eps * eps / std::pow(v * v + eps * eps, 1.5);
  EXPECT_NEAR(lap.item<double>(), expect, 1e-10);
}

TEST(Custom, LoadErrorsNameTheirCause) {
  std::string missing = message_of<IOError>([] { load_library("/nonexistent/libnothing.so"); });
  EXPECT_NE(missing.find("/nonexistent/libnothing.so"), std::string::npos) << missing;

  std::string unresolved = message_of<IOError>(
      [] { load_library(std::string(SPIRE_PLUGIN_DIR) + "/libspire_test_missing_symbol.so"); });
  EXPECT_NE(unresolved.find("spire_test_symbol_nobody_defines"), std::string::npos) << unresolved;

  // A second copy of the example (another file, so the loader runs its initialisers again) defines
  // an op whose name is taken: refused, naming it, and the registered op keeps working.
  smooth_abs_op();
  auto dir = std::filesystem::temp_directory_path() / ("spire_custom_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto copy = dir / "libcopy.so";
  std::filesystem::copy_file(kExample, copy, std::filesystem::copy_options::overwrite_existing);
  std::string dup = message_of<ValueError>([&] { load_library(copy.string()); });
  std::filesystem::remove_all(dir);
  EXPECT_NE(dup.find("'example.smooth_abs' is already registered"), std::string::npos) << dup;
  EXPECT_NEAR(smooth_abs(scalar_tensor(Scalar(0.0), DType::Float64), 2.0).item<double>(), 2.0, 1e-15);

  // Attributes are checked by the op's own infer.
  std::string bad_eps = message_of<ValueError>([] { smooth_abs(ones({2}, DType::Float64), -1.0); });
  EXPECT_NE(bad_eps.find("eps must be positive"), std::string::npos) << bad_eps;
}
