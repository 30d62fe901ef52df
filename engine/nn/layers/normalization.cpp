#include "engine/nn/layers/normalization.h"

#include "engine/autodiff/mode.h"
#include "engine/nn/functional/normalization.h"
#include "engine/nn/init.h"
#include "engine/ops/elementwise.h"

namespace spire::nn {

LayerNorm::LayerNorm(std::vector<int64_t> shape, double e, bool affine, bool has_bias, DType dtype)
    : Module("LayerNorm"), normalized_shape(std::move(shape)), eps(e), elementwise_affine(affine) {
  check_layer_dtype(dtype, "LayerNorm");
  SPIRE_CHECK(!normalized_shape.empty(), ValueError, "LayerNorm: normalized_shape must not be empty");
  weight = register_parameter("weight", affine ? ones(normalized_shape, dtype) : Tensor());
  bias = register_parameter("bias", affine && has_bias ? zeros(normalized_shape, dtype) : Tensor());
}

void LayerNorm::reset_parameters() {
  if (weight.defined()) init::ones_(weight);
  if (bias.defined()) init::zeros_(bias);
}

Tensor LayerNorm::forward(const Tensor& x) { return functional::layer_norm(x, normalized_shape, weight, bias, eps); }

std::string LayerNorm::extra_repr() const {
  return py_tuple(normalized_shape) + ", eps=" + py_float(eps) + ", elementwise_affine=" + py_bool(elementwise_affine);
}

BatchNorm::BatchNorm(int64_t n, int64_t c, double e, std::optional<double> m, bool aff, bool track, DType dtype)
    : Module("BatchNorm"), spatial(n), num_features(c), eps(e), momentum(m), affine(aff), track_running_stats(track) {
  check_layer_dtype(dtype, "BatchNorm");
  SPIRE_CHECK(c >= 1, ValueError, "BatchNorm: num_features must be >= 1, got ", c);
  weight = register_parameter("weight", aff ? ones({c}, dtype) : Tensor());
  bias = register_parameter("bias", aff ? zeros({c}, dtype) : Tensor());
  running_mean = register_buffer("running_mean", track ? zeros({c}, dtype) : Tensor());
  running_var = register_buffer("running_var", track ? ones({c}, dtype) : Tensor());
  num_batches_tracked = register_buffer("num_batches_tracked", track ? zeros({}, DType::Int64) : Tensor());
}

void BatchNorm::reset_running_stats() {
  if (!track_running_stats) return;
  init::zeros_(running_mean);
  init::ones_(running_var);
  NoGradGuard no_grad;
  num_batches_tracked.set_data(zeros({}, DType::Int64));
}

void BatchNorm::reset_parameters() {
  reset_running_stats();
  if (weight.defined()) init::ones_(weight);
  if (bias.defined()) init::zeros_(bias);
}

Tensor BatchNorm::forward(const Tensor& x) {
  bool ok = spatial == 1 ? (x.dim() == 2 || x.dim() == 3) : x.dim() == spatial + 2;
  SPIRE_CHECK(ok, ShapeError, type_name(), ": expected ", (spatial == 1 ? "2-d or 3-d" : std::to_string(spatial + 2) + "-d"),
              " input [N, C", (spatial == 1 ? ", (L)" : ", ..."), "], got ", shape_str(x.shape()));
  SPIRE_CHECK(x.shape(1) == num_features, ShapeError, type_name(), ": expected ", num_features,
              " channels (axis 1), got input ", shape_str(x.shape()));
  double factor = momentum ? *momentum : 0.0;
  bool training = is_training();
  if (training && track_running_stats) {
    NoGradGuard no_grad;
    num_batches_tracked.set_data(num_batches_tracked + int64_t(1));
    if (!momentum) factor = 1.0 / double(num_batches_tracked.item<int64_t>());
  }
  // Batch statistics in training, or when there are no running ones to use.
  bool use_batch = training || !running_mean.defined();
  bool pass_running = !training || track_running_stats;
  return functional::batch_norm(x, pass_running ? running_mean : Tensor(), pass_running ? running_var : Tensor(),
                                weight, bias, use_batch, factor, eps);
}

std::string BatchNorm::extra_repr() const {
  return std::to_string(num_features) + ", eps=" + py_float(eps) + ", momentum=" +
         (momentum ? py_float(*momentum) : std::string("None")) + ", affine=" + py_bool(affine) +
         ", track_running_stats=" + py_bool(track_running_stats);
}

GroupNorm::GroupNorm(int64_t g, int64_t c, double e, bool aff, DType dtype)
    : Module("GroupNorm"), num_groups(g), num_channels(c), eps(e), affine(aff) {
  check_layer_dtype(dtype, "GroupNorm");
  SPIRE_CHECK(g >= 1 && c % g == 0, ValueError, "GroupNorm: num_groups (", g, ") must divide num_channels (", c, ")");
  weight = register_parameter("weight", aff ? ones({c}, dtype) : Tensor());
  bias = register_parameter("bias", aff ? zeros({c}, dtype) : Tensor());
}

void GroupNorm::reset_parameters() {
  if (weight.defined()) init::ones_(weight);
  if (bias.defined()) init::zeros_(bias);
}

Tensor GroupNorm::forward(const Tensor& x) {
  SPIRE_CHECK(x.dim() >= 2 && x.shape(1) == num_channels, ShapeError, "GroupNorm: expected input [N, ", num_channels,
              ", *], got ", shape_str(x.shape()));
  return functional::group_norm(x, num_groups, weight, bias, eps);
}

std::string GroupNorm::extra_repr() const {
  return std::to_string(num_groups) + ", " + std::to_string(num_channels) + ", eps=" + py_float(eps) +
         ", affine=" + py_bool(affine);
}

}  // namespace spire::nn
