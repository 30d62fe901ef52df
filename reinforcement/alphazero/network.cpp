#include "reinforcement/alphazero/network.h"

#include "engine/core/error.h"
#include "engine/nn/containers.h"
#include "engine/nn/layers/conv.h"
#include "engine/nn/layers/linear.h"
#include "engine/nn/layers/normalization.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/relu.h"
#include "engine/ops/shape.h"

namespace spire::rl::alphazero {
namespace {

nn::ModulePtr conv(int64_t in, int64_t out, int64_t kernel, bool bias, spire::Generator& gen) {
  nn::ConvLayerOptions o;
  o.padding = {kernel / 2};
  o.bias = bias;
  o.gen = &gen;
  return std::make_shared<nn::Conv2d>(in, out, std::vector<int64_t>{kernel, kernel}, o);
}

// conv -> batch norm (when on) -> ReLU; the convolution's bias is redundant before batch norm.
class ConvBlock : public nn::Module {
 public:
  ConvBlock(int64_t in, int64_t out, int64_t kernel, bool batch_norm, spire::Generator& gen) : Module("ConvBlock") {
    conv_ = register_module("conv", conv(in, out, kernel, !batch_norm, gen));
    if (batch_norm) bn_ = register_module("bn", std::make_shared<nn::BatchNorm2d>(out));
  }
  using Module::forward;
  Tensor forward(const Tensor& x) override { return relu(pre_activation(x)); }
  Tensor pre_activation(const Tensor& x) {
    Tensor y = (*conv_)(x);
    return bn_ ? (*bn_)(y) : y;
  }

 private:
  nn::ModulePtr conv_, bn_;
};

// AlphaZero's residual block: relu(x + bn(conv(relu(bn(conv(x)))))).
class ResidualBlock : public nn::Module {
 public:
  ResidualBlock(int64_t channels, bool batch_norm, spire::Generator& gen) : Module("ResidualBlock") {
    first_ = register_module("first", std::make_shared<ConvBlock>(channels, channels, 3, batch_norm, gen));
    second_ = register_module("second", std::make_shared<ConvBlock>(channels, channels, 3, batch_norm, gen));
  }
  using Module::forward;
  Tensor forward(const Tensor& x) override { return relu(x + second_->pre_activation((*first_)(x))); }

 private:
  std::shared_ptr<ConvBlock> first_, second_;
};

}  // namespace

PolicyValueNet::PolicyValueNet(std::vector<int64_t> observation_shape, int64_t num_actions, NetworkConfig config,
                               spire::Generator& gen)
    : Module("PolicyValueNet"), observation_shape_(std::move(observation_shape)), num_actions_(num_actions),
      config_(config) {
  SPIRE_CHECK(observation_shape_.size() == 3, ValueError, "PolicyValueNet: the observation shape must be ",
              "[planes, height, width], got ", observation_shape_.size(), " dimensions");
  SPIRE_CHECK(config.blocks >= 0, ValueError, "PolicyValueNet: blocks must be >= 0, got ", config.blocks);
  SPIRE_CHECK(config.channels >= 1, ValueError, "PolicyValueNet: channels must be >= 1, got ", config.channels);
  SPIRE_CHECK(config.value_hidden >= 1, ValueError, "PolicyValueNet: value_hidden must be >= 1, got ",
              config.value_hidden);
  const int64_t planes = observation_shape_[0], cells = observation_shape_[1] * observation_shape_[2];
  const bool bn = config.batch_norm;
  stem_ = register_module("stem", std::make_shared<ConvBlock>(planes, config.channels, 3, bn, gen));
  auto tower = std::make_shared<nn::Sequential>();
  for (int64_t i = 0; i < config.blocks; ++i) tower->append(std::make_shared<ResidualBlock>(config.channels, bn, gen));
  tower_ = register_module("tower", tower);
  policy_conv_ = register_module("policy_conv", std::make_shared<ConvBlock>(config.channels, 2, 1, bn, gen));
  policy_fc_ = register_module("policy_fc", std::make_shared<nn::Linear>(2 * cells, num_actions, true,
                                                                          DType::Float32, &gen));
  value_conv_ = register_module("value_conv", std::make_shared<ConvBlock>(config.channels, 1, 1, bn, gen));
  value_fc1_ = register_module("value_fc1", std::make_shared<nn::Linear>(cells, config.value_hidden, true,
                                                                          DType::Float32, &gen));
  value_fc2_ = register_module("value_fc2", std::make_shared<nn::Linear>(config.value_hidden, 1, true,
                                                                          DType::Float32, &gen));
}

Tensors PolicyValueNet::forward(const Tensors& inputs) {
  SPIRE_CHECK(inputs.size() == 1, ValueError, "PolicyValueNet: expected one input (observations), got ",
              inputs.size());
  const Tensor& x = inputs[0];
  SPIRE_CHECK(x.dim() == 4 && x.shape(1) == observation_shape_[0] && x.shape(2) == observation_shape_[1] &&
                  x.shape(3) == observation_shape_[2],
              ShapeError, "PolicyValueNet: expected observations [n, ", observation_shape_[0], ", ",
              observation_shape_[1], ", ", observation_shape_[2], "], got ", shape_str(x.shape()));
  const int64_t n = x.shape(0);
  Tensor h = (*tower_)((*stem_)(x));
  Tensor logits = (*policy_fc_)(reshape((*policy_conv_)(h), {n, -1}));
  Tensor v = relu((*value_fc1_)(reshape((*value_conv_)(h), {n, -1})));
  Tensor value = tanh(reshape((*value_fc2_)(v), {n}));
  return {logits, value};
}

std::string PolicyValueNet::extra_repr() const {
  return "blocks=" + std::to_string(config_.blocks) + ", channels=" + std::to_string(config_.channels) +
         ", value_hidden=" + std::to_string(config_.value_hidden) +
         ", batch_norm=" + (config_.batch_norm ? "True" : "False");
}

}  // namespace spire::rl::alphazero
