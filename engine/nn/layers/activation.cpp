#include "engine/nn/layers/activation.h"

#include "engine/core/error.h"
#include "engine/nn/functional/activation.h"
#include "engine/ops/elementwise.h"

namespace spire::nn {

namespace F = functional;

ReLU::ReLU() : Activation("ReLU", [](const Tensor& x) { return F::relu(x); }) {}
GELU::GELU(std::string a)
    : Activation("GELU", [a](const Tensor& x) { return F::gelu(x, a); }, "approximate='" + a + "'"), approximate(a) {
  SPIRE_CHECK(a == "none" || a == "tanh", ValueError, "GELU: approximate must be 'none' or 'tanh', got '", a, "'");
}
SiLU::SiLU() : Activation("SiLU", [](const Tensor& x) { return F::silu(x); }) {}
Tanh::Tanh() : Activation("Tanh", [](const Tensor& x) { return F::tanh(x); }) {}
Sigmoid::Sigmoid() : Activation("Sigmoid", [](const Tensor& x) { return F::sigmoid(x); }) {}
Sin::Sin(double w)
    : Activation("Sin", [w](const Tensor& x) { return F::sin(w == 1.0 ? x : x * w); },
                 w == 1.0 ? "" : "omega_0=" + py_float(w)),
      omega_0(w) {}
Softplus::Softplus(double b, double t)
    : Activation("Softplus", [b, t](const Tensor& x) { return F::softplus(x, b, t); },
                 "beta=" + py_float(b) + ", threshold=" + py_float(t)),
      beta(b), threshold(t) {}
LeakyReLU::LeakyReLU(double s)
    : Activation("LeakyReLU", [s](const Tensor& x) { return F::leaky_relu(x, s); }, "negative_slope=" + py_float(s)),
      negative_slope(s) {}
ELU::ELU(double a)
    : Activation("ELU", [a](const Tensor& x) { return F::elu(x, a); }, "alpha=" + py_float(a)), alpha(a) {}

}  // namespace spire::nn
