#include "engine/nn/functional/linear.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/shape.h"

namespace spire::nn::functional {

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  SPIRE_CHECK(weight.dim() == 2, ShapeError, "linear: weight must be [out_features, in_features], got ",
              shape_str(weight.shape()));
  SPIRE_CHECK(x.dim() >= 1 && x.shape(-1) == weight.shape(1), ShapeError, "linear: input ",
              shape_str(x.shape()), " must end in in_features = ", weight.shape(1));
  Tensor y = matmul(x, mT(weight));
  if (bias.defined()) {
    SPIRE_CHECK(bias.dim() == 1 && bias.shape(0) == weight.shape(0), ShapeError, "linear: bias must be [",
                weight.shape(0), "], got ", shape_str(bias.shape()));
    y = y + bias;
  }
  return y;
}

std::vector<int64_t> expand_option(std::vector<int64_t> v, int64_t spatial, int64_t dflt, const char* op,
                                   const char* name) {
  if (v.empty()) v.assign(size_t(spatial), dflt);
  if (v.size() == 1) v.assign(size_t(spatial), v[0]);
  SPIRE_CHECK(int64_t(v.size()) == spatial, ValueError, op, ": ", name, " needs 1 or ", spatial,
              " values, got ", v.size());
  return v;
}

namespace {

// Adds a batch axis to unbatched input (as PyTorch accepts [C, *spatial]); returns whether it did.
bool batchify(Tensor& x, int64_t spatial, const char* op) {
  SPIRE_CHECK(x.dim() == spatial + 1 || x.dim() == spatial + 2, ShapeError, op, ": input must be [N, C, ",
              spatial, " spatial axes] or [C, ", spatial, " spatial axes], got ", shape_str(x.shape()));
  if (x.dim() == spatial + 2) return false;
  x = unsqueeze(x, 0);
  return true;
}

Tensor add_channel_bias(const Tensor& y, const Tensor& bias, const char* op) {
  if (!bias.defined()) return y;
  SPIRE_CHECK(bias.dim() == 1 && bias.shape(0) == y.shape(1), ShapeError, op, ": bias must be [",
              y.shape(1), "], got ", shape_str(bias.shape()));
  Shape s(size_t(y.dim()), 1);
  s[1] = bias.shape(0);
  return y + reshape(bias, s);
}

// The primitive's options from the layer's arguments (one number meaning every spatial axis).
ConvOptions conv_options(const ConvArgs& a, int64_t spatial, const char* op) {
  ConvOptions o;
  o.stride = expand_option(a.stride, spatial, 1, op, "stride");
  o.padding = expand_option(a.padding, spatial, 0, op, "padding");
  o.dilation = expand_option(a.dilation, spatial, 1, op, "dilation");
  o.groups = a.groups;
  return o;
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> rule_padding(const std::string& rule, const std::vector<int64_t>& kernel,
                                                      const std::vector<int64_t>& stride,
                                                      const std::vector<int64_t>& dilation, const char* op) {
  SPIRE_CHECK(rule == "same" || rule == "valid", ValueError, op, ": invalid padding string '", rule,
              "', should be one of {'valid', 'same'}");
  std::vector<std::pair<int64_t, int64_t>> pads(kernel.size(), {0, 0});
  if (rule == "valid") return pads;
  for (int64_t s : stride)
    SPIRE_CHECK(s == 1, ValueError, op, ": padding='same' is not supported for strided convolutions (stride ",
                s, "); give the padding in elements");
  for (size_t i = 0; i < kernel.size(); ++i) {
    int64_t total = dilation[i] * (kernel[i] - 1);
    pads[i] = {total / 2, total - total / 2};
  }
  return pads;
}

namespace {

// The edge slice of `axis` repeated `n` times (replicate padding, composed of differentiable views).
Tensor edge_block(const Tensor& x, int64_t axis, bool before, int64_t n) {
  int64_t len = x.shape(axis);
  Tensor edge = before ? slice(x, axis, 0, 1) : slice(x, axis, len - 1, len);
  Shape s = x.shape();
  s[size_t(axis)] = n;
  return expand(edge, s);
}

}  // namespace

Tensor pad_for_conv(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& pads,
                    const std::string& padding_mode, const char* op) {
  SPIRE_CHECK(padding_mode == "zeros" || padding_mode == "reflect" || padding_mode == "replicate" ||
                  padding_mode == "circular",
              ValueError, op, ": padding_mode must be \"zeros\", \"reflect\", \"replicate\" or \"circular\", got \"",
              padding_mode, "\"");
  bool any = false;
  for (auto& [a, b] : pads) {
    SPIRE_CHECK(a >= 0 && b >= 0, ValueError, op, ": padding must be non-negative, got ", a, " and ", b);
    any = any || a > 0 || b > 0;
  }
  if (!any) return x;
  if (padding_mode == "zeros") return pad(x, pads, PadMode::Constant);
  if (padding_mode == "reflect") return pad(x, pads, PadMode::Reflect);
  if (padding_mode == "circular") return pad(x, pads, PadMode::Circular);
  int64_t first = x.dim() - int64_t(pads.size());
  Tensor y = x;
  for (size_t i = 0; i < pads.size(); ++i) {
    int64_t axis = first + int64_t(i);
    SPIRE_CHECK(y.shape(axis) > 0, ShapeError, op, ": replicate padding needs a non-empty axis ", axis);
    std::vector<Tensor> parts;
    if (pads[i].first > 0) parts.push_back(edge_block(y, axis, true, pads[i].first));
    parts.push_back(y);
    if (pads[i].second > 0) parts.push_back(edge_block(y, axis, false, pads[i].second));
    if (parts.size() > 1) y = concat(parts, axis);
  }
  return y;
}

Tensor conv(const Tensor& x_in, const Tensor& weight, const Tensor& bias, int64_t spatial, const ConvArgs& a) {
  const char* op = "conv";
  Tensor x = x_in;
  bool added = batchify(x, spatial, op);
  ConvOptions o = conv_options(a, spatial, op);
  SPIRE_CHECK(weight.dim() == spatial + 2, ShapeError, op, ": weight must be [C_out, C_in/groups, ", spatial,
              " kernel axes], got ", shape_str(weight.shape()));
  std::vector<std::pair<int64_t, int64_t>> pads;
  if (!a.padding_rule.empty()) {
    std::vector<int64_t> kernel(weight.shape().begin() + 2, weight.shape().end());
    pads = rule_padding(a.padding_rule, kernel, o.stride, o.dilation, op);
  } else {
    for (int64_t p : o.padding) pads.push_back({p, p});
  }
  bool symmetric = std::all_of(pads.begin(), pads.end(), [](const auto& p) { return p.first == p.second; });
  if (a.padding_mode == "zeros" && symmetric) {
    // The primitive pads with zeros itself, without a padded copy.
    for (size_t i = 0; i < pads.size(); ++i) o.padding[i] = pads[i].first;
  } else {
    x = pad_for_conv(x, pads, a.padding_mode, op);
    o.padding.assign(size_t(spatial), 0);
  }
  Tensor y = add_channel_bias(spire::conv(x, weight, o), bias, op);
  return added ? squeeze(y, {0}) : y;
}

Tensor conv1d(const Tensor& x, const Tensor& w, const Tensor& b, const ConvArgs& a) { return conv(x, w, b, 1, a); }
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& b, const ConvArgs& a) { return conv(x, w, b, 2, a); }
Tensor conv3d(const Tensor& x, const Tensor& w, const Tensor& b, const ConvArgs& a) { return conv(x, w, b, 3, a); }

Tensor conv_transpose(const Tensor& x_in, const Tensor& weight, const Tensor& bias, int64_t spatial,
                      const ConvArgs& a, std::vector<int64_t> output_padding) {
  const char* op = "conv_transpose";
  SPIRE_CHECK(a.padding_mode == "zeros", ValueError, op, ": only padding_mode \"zeros\" is supported (as PyTorch)");
  SPIRE_CHECK(a.padding_rule.empty(), ValueError, op, ": string padding ('", a.padding_rule,
              "') is not supported for transposed convolutions (as PyTorch); give the padding in elements");
  Tensor x = x_in;
  bool added = batchify(x, spatial, op);
  ConvOptions o = conv_options(a, spatial, op);
  output_padding = expand_option(std::move(output_padding), spatial, 0, op, "output_padding");
  Tensor y = add_channel_bias(spire::conv_transpose(x, weight, o, output_padding), bias, op);
  return added ? squeeze(y, {0}) : y;
}

Tensor conv_transpose1d(const Tensor& x, const Tensor& w, const Tensor& b, const ConvArgs& a, std::vector<int64_t> op) {
  return conv_transpose(x, w, b, 1, a, std::move(op));
}
Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor& b, const ConvArgs& a, std::vector<int64_t> op) {
  return conv_transpose(x, w, b, 2, a, std::move(op));
}
Tensor conv_transpose3d(const Tensor& x, const Tensor& w, const Tensor& b, const ConvArgs& a, std::vector<int64_t> op) {
  return conv_transpose(x, w, b, 3, a, std::move(op));
}

}  // namespace spire::nn::functional
