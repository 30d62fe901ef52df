// Step: a physics-informed neural network (PINN) solving a Poisson problem. The PDE residual needs
// the network's Laplacian at every collocation point; the forward Laplacian (one Taylor-mode pass
// carrying the value, d tangents and one summed second-order term) gives it, and reverse mode
// differentiates that pass with respect to the weights. Adam finds the basin, L-BFGS converges.
#include <chrono>
#include <cmath>
#include <numbers>

#include "cli/demo/demo.h"
#include "engine/autodiff/differential.h"
#include "engine/autodiff/mode.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/random.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"
#include "engine/optim/adam.h"
#include "engine/optim/lbfgs.h"

namespace spire::cli::demo {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr DType kDType = DType::Float64;  // float32 stalls above the 1e-3 target

// A tanh multilayer perceptron [..., 2] -> [...]: weights Glorot-normal, biases zero.
struct Mlp {
  Tensors params;  // W0, b0, W1, b1, ...

  Mlp(const std::vector<int64_t>& widths, Generator& gen) {
    for (size_t i = 0; i + 1 < widths.size(); ++i) {
      double sd = std::sqrt(2.0 / double(widths[i] + widths[i + 1]));
      params.push_back(normal({widths[i], widths[i + 1]}, 0.0, sd, kDType, gen));
      params.push_back(zeros({widths[i + 1]}, kDType));
    }
    for (Tensor& p : params) p.set_requires_grad();
  }

  Tensor operator()(const Tensor& x) const {
    Tensor h = x;
    for (size_t i = 0; i < params.size(); i += 2) {
      h = add(matmul(h, params[i]), params[i + 1]);
      if (i + 2 < params.size()) h = tanh(h);
    }
    return squeeze(h, {-1});
  }
};

Tensor column(const Tensor& x, int64_t j) { return select(x, -1, j); }

// The manufactured solution u = sin(pi x) sin(pi y), zero on the boundary of the unit square, and
// its source f = -Laplacian(u) = 2 pi^2 u.
Tensor exact(const Tensor& x) { return mul(sin(mul(column(x, 0), kPi)), sin(mul(column(x, 1), kPi))); }

// n points on each side of the unit square.
Tensor boundary_points(int64_t n, Generator& gen) {
  Tensor s = uniform({n}, 0.0, 1.0, kDType, gen), o = zeros({n}, kDType), l = ones({n}, kDType);
  return concat({stack({s, o}, 1), stack({s, l}, 1), stack({o, s}, 1), stack({l, s}, 1)}, 0);
}

Tensor grid_points(int64_t n) {
  Tensor t = linspace(0.0, 1.0, n, kDType);
  Tensor x = expand(reshape(t, {n, 1}), {n, n}), y = expand(reshape(t, {1, n}), {n, n});
  return reshape(stack({x, y}, -1), {n * n, 2});
}

double relative_l2(const Tensor& u, const Tensor& v) {
  return std::sqrt(sum(square(sub(u, v))).item<double>() / sum(square(v)).item<double>());
}

SPIRE_DEMO_STEP(80, "pinn", "A PINN for a Poisson equation (forward Laplacian, Adam, L-BFGS)", [](Context& c) {
  if (!c.needs_ops({"matmul", "tanh", "sin", "square", "concat", "select"})) return;
  // Sizes chosen to reach a relative error of 2e-4 to 3e-4 (over seeds) in about 3 s on one core.
  const int64_t interior = 500, per_side = 50, adam_steps = 500, lbfgs_iterations = 1200;
  const double boundary_weight = 100;  // the residual is O(2 pi^2); u = 0 on the boundary must not lag

  Generator gen(2024);
  Mlp net({2, 24, 24, 1}, gen);
  Tensor x = uniform({interior, 2}, 0.0, 1.0, kDType, gen);
  Tensor xb = boundary_points(per_side, gen);
  Tensor f = mul(exact(x), 2 * kPi * kPi);
  PointFunction u = [&net](const Tensor& p) { return net(p); };
  PointFunction laplacian_u = laplacian(u);
  auto loss_fn = [&] {
    Tensor residual = add(laplacian_u(x), f);  // -Laplacian(u) = f
    return add(mean(square(residual)), mul(mean(square(u(xb))), boundary_weight));
  };
  c.out << "  -Laplacian(u) = 2 pi^2 sin(pi x) sin(pi y) on [0,1]^2, u = 0 on the boundary\n"
        << "  MLP 2-24-24-1 (tanh, float64), " << interior << " collocation + " << 4 * per_side
        << " boundary points\n";

  auto t0 = std::chrono::steady_clock::now();
  optim::Adam adam(net.params, {.lr = 1e-3});
  double loss = 0;
  for (int64_t i = 0; i < adam_steps; ++i) {
    adam.zero_grad();
    Tensor l = loss_fn();
    l.backward();
    adam.step();
    loss = l.item<double>();
  }
  double t_adam = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  c.out << "  Adam, " << adam_steps << " steps: loss " << loss << "\n";

  optim::LBFGS lbfgs(net.params, {.max_iter = 100, .tolerance_grad = 1e-10, .tolerance_change = 1e-14,
                                  .history_size = 50, .line_search = optim::LineSearch::StrongWolfe});
  auto closure = [&] {
    lbfgs.zero_grad();
    Tensor l = loss_fn();
    l.backward();
    return l;
  };
  while (lbfgs.iterations() < lbfgs_iterations) {
    int64_t before = lbfgs.iterations();
    loss = lbfgs.step(closure).item<double>();
    if (lbfgs.iterations() == before) break;  // converged: no iteration left to make
  }
  double t_total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  c.out << "  L-BFGS (strong Wolfe), " << lbfgs.iterations() << " iterations: loss " << loss << "\n";

  Tensor grid = grid_points(101);
  double error;
  {
    NoGradGuard no_grad;
    error = relative_l2(net(grid), exact(grid));
  }
  c.figure("final loss", loss);
  c.figure("L-BFGS iterations", double(lbfgs.iterations()));
  c.figure("L-BFGS loss evaluations", double(lbfgs.function_evaluations()));
  c.figure("training time, Adam", t_adam, "s");
  c.figure("training time, total", t_total, "s");
  c.check("relative L2 error on a 101x101 grid", error, 0.0, 1e-3);
});

}  // namespace
}  // namespace spire::cli::demo
