#include "reinforcement/agents/networks.h"

#include <cmath>

#include "engine/autodiff/mode.h"
#include "engine/nn/init.h"
#include "engine/nn/layers/activation.h"
#include "engine/nn/layers/linear.h"
#include "engine/ops/shape.h"

namespace spire::rl::agents {

const std::vector<std::string>& activation_names() {
  static const std::vector<std::string> names{"tanh", "relu", "elu", "gelu", "silu"};
  return names;
}

nn::ModulePtr make_activation(const std::string& name) {
  if (name == "tanh") return std::make_shared<nn::Tanh>();
  if (name == "relu") return std::make_shared<nn::ReLU>();
  if (name == "elu") return std::make_shared<nn::ELU>();
  if (name == "gelu") return std::make_shared<nn::GELU>();
  if (name == "silu") return std::make_shared<nn::SiLU>();
  throw ValueError(detail::cat("activation \"", name, "\" is not one Spire's RL networks know; allowed: ",
                               detail::join(activation_names())));
}

std::shared_ptr<nn::Sequential> mlp(int64_t in, const std::vector<int>& hidden, int64_t out,
                                    const std::string& activation, double out_gain, spire::Generator& gen) {
  SPIRE_CHECK(in >= 1 && out >= 1, ValueError, "mlp: input and output sizes must be >= 1, got ", in, " and ", out);
  auto net = std::make_shared<nn::Sequential>();
  NoGradGuard no_grad;
  auto linear = [&](int64_t from, int64_t to, double gain) {
    auto layer = std::make_shared<nn::Linear>(from, to, true, DType::Float32, &gen);
    nn::init::orthogonal_(layer->weight, gain, gen);
    nn::init::zeros_(layer->bias);
    net->append(layer);
  };
  int64_t width = in;
  for (int h : hidden) {
    SPIRE_CHECK(h >= 1, ValueError, "mlp: hidden sizes must be >= 1, got ", h);
    linear(width, h, std::sqrt(2.0));
    net->append(make_activation(activation));
    width = h;
  }
  linear(width, out, out_gain);
  return net;
}

std::vector<Tensor> copy_parameters(const nn::Module& module) {
  std::vector<Tensor> out;
  for (const Tensor& p : module.parameters()) out.push_back(copy(p.detach()));
  return out;
}

void load_parameters(nn::Module& module, const std::vector<Tensor>& values) {
  Tensors params = module.parameters();
  SPIRE_CHECK(params.size() == values.size(), ValueError, "load_parameters: the module has ", params.size(),
              " parameters, got ", values.size(), " tensors");
  for (size_t i = 0; i < params.size(); ++i) {
    SPIRE_CHECK(params[i].shape() == values[i].shape() && params[i].dtype() == values[i].dtype(), ValueError,
                "load_parameters: parameter ", i, " is ", shape_str(params[i].shape()), " ", name(params[i].dtype()),
                ", got ", shape_str(values[i].shape()), " ", name(values[i].dtype()));
    params[i].set_data(copy(values[i].detach()));
  }
}

int64_t input_size(const Space& observation_space) {
  SPIRE_CHECK(observation_space.is_box(), ValueError, "RL networks take Box observations, got ",
              observation_space.to_string());
  return observation_space.size();
}

int64_t output_size(const Space& action_space) {
  return action_space.is_discrete() ? action_space.n() : action_space.size();
}

}  // namespace spire::rl::agents
