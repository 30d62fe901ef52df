#include "engine/nn/layers/conv.h"

#include <cmath>

#include "engine/nn/functional/linear.h"
#include "engine/nn/init.h"

namespace spire::nn {

ConvNd::ConvNd(int64_t n, bool t, int64_t in, int64_t out, std::vector<int64_t> k, const ConvLayerOptions& o)
    : Module(t ? "ConvTranspose" : "Conv"), spatial(n), transposed(t), in_channels(in), out_channels(out),
      groups(o.groups), padding_mode(o.padding_mode), padding_rule(o.padding_rule) {
  const char* who = t ? "ConvTranspose" : "Conv";
  check_layer_dtype(o.dtype, who);
  SPIRE_CHECK(groups >= 1 && in % groups == 0 && out % groups == 0, ValueError, who, ": groups (", groups,
              ") must divide in_channels (", in, ") and out_channels (", out, ")");
  SPIRE_CHECK(padding_mode == "zeros" ||
                  (!t && (padding_mode == "reflect" || padding_mode == "replicate" || padding_mode == "circular")),
              ValueError, who, ": padding_mode must be ",
              (t ? "\"zeros\"" : "\"zeros\", \"reflect\", \"replicate\" or \"circular\""), ", got \"", padding_mode, "\"");
  SPIRE_CHECK(!t || padding_rule.empty(), ValueError, who, ": string padding ('", padding_rule,
              "') is not supported for transposed convolutions (as PyTorch); give the padding in elements");
  kernel_size = functional::expand_option(std::move(k), n, 1, who, "kernel_size");
  stride = functional::expand_option(o.stride, n, 1, who, "stride");
  padding = functional::expand_option(o.padding, n, 0, who, "padding");
  dilation = functional::expand_option(o.dilation, n, 1, who, "dilation");
  output_padding = functional::expand_option(o.output_padding, n, 0, who, "output_padding");
  if (!padding_rule.empty()) {
    // Checked now (an unknown rule, "same" with a stride), as torch does; `padding` keeps the
    // before-side amounts for whoever reads the numbers.
    auto pads = functional::rule_padding(padding_rule, kernel_size, stride, dilation, who);
    for (size_t i = 0; i < pads.size(); ++i) padding[i] = pads[i].first;
  }
  Shape ws = t ? Shape{in, out / groups} : Shape{out, in / groups};
  for (int64_t ks : kernel_size) ws.push_back(ks);
  weight = register_parameter("weight", empty(ws, o.dtype));
  bias = register_parameter("bias", o.bias ? empty({out}, o.dtype) : Tensor());
  reset_parameters(generator_or_default(o.gen));
}

void ConvNd::reset_parameters(Generator& gen) {
  init::kaiming_uniform_(weight, std::sqrt(5.0), "fan_in", "leaky_relu", gen);
  if (bias.defined()) {
    int64_t fan_in = init::fan_in_and_fan_out(weight).first;
    double bound = fan_in > 0 ? 1.0 / std::sqrt(double(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound, gen);
  }
}

Tensor ConvNd::forward(const Tensor& x) { return forward(x, output_padding); }

Tensor ConvNd::forward(const Tensor& x, const std::vector<int64_t>& op) {
  functional::ConvArgs a{stride, padding, dilation, groups, padding_mode, padding_rule};
  if (transposed) return functional::conv_transpose(x, weight, bias, spatial, a, op);
  return functional::conv(x, weight, bias, spatial, a);
}

std::string ConvNd::extra_repr() const {
  auto all = [](const std::vector<int64_t>& v, int64_t x) {
    for (int64_t e : v)
      if (e != x) return false;
    return true;
  };
  std::string s = std::to_string(in_channels) + ", " + std::to_string(out_channels) +
                  ", kernel_size=" + py_tuple(kernel_size) + ", stride=" + py_tuple(stride);
  if (!padding_rule.empty()) s += ", padding=" + padding_rule;
  else if (!all(padding, 0)) s += ", padding=" + py_tuple(padding);
  if (!all(dilation, 1)) s += ", dilation=" + py_tuple(dilation);
  if (!all(output_padding, 0)) s += ", output_padding=" + py_tuple(output_padding);
  if (groups != 1) s += ", groups=" + std::to_string(groups);
  if (!bias.defined()) s += ", bias=False";
  if (padding_mode != "zeros") s += ", padding_mode=" + padding_mode;
  return s;
}

}  // namespace spire::nn
