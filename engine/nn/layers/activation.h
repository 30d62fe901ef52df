// Activation modules (torch.nn.ReLU, GELU, ...); Sin is SIREN's sin(omega_0 x) (omega_0 = 1 by
// default).
#pragma once
#include <functional>
#include <string>

#include "engine/nn/layers/common.h"
#include "engine/nn/module.h"

namespace spire::nn {

// A parameter-free elementwise layer.
class Activation : public Module {
 public:
  Activation(std::string name, std::function<Tensor(const Tensor&)> f, std::string extra = "")
      : Module(std::move(name)), f_(std::move(f)), extra_(std::move(extra)) {}
  using Module::forward;
  Tensor forward(const Tensor& x) override { return f_(x); }
  std::string extra_repr() const override { return extra_; }

 private:
  std::function<Tensor(const Tensor&)> f_;
  std::string extra_;
};

struct ReLU : Activation { ReLU(); };
struct GELU : Activation {
  explicit GELU(std::string approximate = "none");
  std::string approximate;
};
struct SiLU : Activation { SiLU(); };
struct Tanh : Activation { Tanh(); };
struct Sigmoid : Activation { Sigmoid(); };
struct Sin : Activation {
  explicit Sin(double omega_0 = 1.0);
  double omega_0;
};
struct Softplus : Activation {
  explicit Softplus(double beta = 1.0, double threshold = 20.0);
  double beta, threshold;
};
struct LeakyReLU : Activation {
  explicit LeakyReLU(double negative_slope = 0.01);
  double negative_slope;
};
struct ELU : Activation {
  explicit ELU(double alpha = 1.0);
  double alpha;
};

}  // namespace spire::nn
