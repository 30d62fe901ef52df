// The networks RL agents share: multilayer perceptrons initialised as Stable-Baselines3 and
// CleanRL do (orthogonal weights, zero biases; gain sqrt(2) on hidden layers and a per-head gain on
// the output), and the copies of parameters that travel between learner and actors.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/nn/containers.h"
#include "engine/ops/random.h"
#include "reinforcement/envs/spaces.h"

namespace spire::rl::agents {

// The activations an MLP may use, as job files name them.
const std::vector<std::string>& activation_names();  // "tanh", "relu", "elu", "gelu", "silu"
nn::ModulePtr make_activation(const std::string& name);

// in -> hidden[0] -> ... -> hidden[k-1] -> out, the activation after every hidden layer, float32.
// Weights orthogonal (gain sqrt(2) for hidden layers, out_gain for the last), biases zero.
std::shared_ptr<nn::Sequential> mlp(int64_t in, const std::vector<int>& hidden, int64_t out,
                                    const std::string& activation, double out_gain, spire::Generator& gen);

// Detached copies of a module's parameters, in parameters() order.
std::vector<Tensor> copy_parameters(const nn::Module& module);
// Copies values into a module's parameters (same order, shapes and dtypes; ValueError otherwise).
void load_parameters(nn::Module& module, const std::vector<Tensor>& values);

// The network input width of an observation space (a Box's element count) and the output width
// of an action space (a Discrete's n, a Box's element count).
int64_t input_size(const Space& observation_space);
int64_t output_size(const Space& action_space);

}  // namespace spire::rl::agents
