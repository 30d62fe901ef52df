// The policy-value network of AlphaZero as an engine Module: a residual convolutional tower over the
// game's observation planes, a policy head giving one logit per action and a value head giving the
// expected outcome for the player to move in [-1, 1].
//
//   input [n, C, H, W] -> conv3x3 -> (BN) -> ReLU -> blocks x [conv3x3 (BN) ReLU conv3x3 (BN) + skip, ReLU]
//   policy: conv1x1 -> 2 planes -> (BN) -> ReLU -> Linear(2 H W, A)              -> logits [n, A]
//   value:  conv1x1 -> 1 plane  -> (BN) -> ReLU -> Linear(H W, hidden) -> ReLU -> Linear(hidden, 1) -> tanh -> [n]
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/nn/module.h"
#include "engine/ops/random.h"

namespace spire::rl::alphazero {

struct NetworkConfig {
  int64_t blocks = 2;         // residual blocks after the stem
  int64_t channels = 32;      // channels of the tower
  int64_t value_hidden = 64;  // width of the value head's hidden layer
  bool batch_norm = true;     // without it, convolutions carry a bias instead
};

class PolicyValueNet : public nn::Module {
 public:
  // observation_shape: {C, H, W} (Game::observation_shape()); num_actions: the policy's size.
  // Parameters are drawn from `gen` (PyTorch's default initialisations).
  PolicyValueNet(std::vector<int64_t> observation_shape, int64_t num_actions, NetworkConfig config,
                 spire::Generator& gen);

  // {logits [n, A], value [n]} for observations [n, C, H, W].
  using Module::forward;
  Tensors forward(const Tensors& inputs) override;
  std::string extra_repr() const override;

  const std::vector<int64_t>& observation_shape() const { return observation_shape_; }
  int64_t num_actions() const { return num_actions_; }
  const NetworkConfig& config() const { return config_; }

 private:
  std::vector<int64_t> observation_shape_;
  int64_t num_actions_;
  NetworkConfig config_;
  nn::ModulePtr stem_, tower_, policy_conv_, policy_fc_, value_conv_, value_fc1_, value_fc2_;
};

}  // namespace spire::rl::alphazero
