#include "engine/nn/layers/pooling.h"

#include "engine/nn/functional/linear.h"
#include "engine/nn/layers/common.h"

namespace spire::nn {
namespace {

// An option as the user gave it: one value as an int, several as a tuple (torch's repr).
std::string given(const std::vector<int64_t>& v) { return v.size() == 1 ? std::to_string(v[0]) : py_tuple(v); }

std::string given(const functional::OutputSize& o) {
  auto one = [](const std::optional<int64_t>& e) { return e ? std::to_string(*e) : std::string("None"); };
  if (o.size() == 1) return one(o[0]);
  std::string s = "(";
  for (size_t i = 0; i < o.size(); ++i) s += (i ? ", " : "") + one(o[i]);
  return s + ")";
}

// Checks the number of entries of an option now, so a layer cannot be built that fails every call.
void check_entries(const char* layer, const char* what, size_t n, int64_t spatial) {
  SPIRE_CHECK(n == 1 || int64_t(n) == spatial, ValueError, layer, ": ", what, " needs 1 or ", spatial,
              " values, got ", n);
}

}  // namespace

MaxPoolNd::MaxPoolNd(int64_t n, std::vector<int64_t> k, const MaxPoolOptions& o)
    : Module("MaxPool"), spatial(n), kernel_size(std::move(k)), stride(o.stride.empty() ? kernel_size : o.stride),
      padding(o.padding), dilation(o.dilation), return_indices(o.return_indices), ceil_mode(o.ceil_mode) {
  check_entries("MaxPool", "kernel_size", kernel_size.size(), n);
  check_entries("MaxPool", "stride", stride.size(), n);
  check_entries("MaxPool", "padding", padding.size(), n);
  check_entries("MaxPool", "dilation", dilation.size(), n);
}

std::pair<Tensor, Tensor> MaxPoolNd::forward_with_indices(const Tensor& x) {
  return functional::max_pool_with_indices(x, spatial, kernel_size,
                                           functional::MaxPoolArgs{stride, padding, dilation, ceil_mode});
}
Tensor MaxPoolNd::forward(const Tensor& x) {
  return functional::max_pool(x, spatial, kernel_size, functional::MaxPoolArgs{stride, padding, dilation, ceil_mode});
}
Tensors MaxPoolNd::forward(const Tensors& inputs) {
  SPIRE_CHECK(inputs.size() == 1, ValueError, type_name(), ": takes one input, got ", inputs.size());
  if (!return_indices) return {forward(inputs[0])};
  auto [v, i] = forward_with_indices(inputs[0]);
  return {v, i};
}
std::string MaxPoolNd::extra_repr() const {
  return "kernel_size=" + given(kernel_size) + ", stride=" + given(stride) + ", padding=" + given(padding) +
         ", dilation=" + given(dilation) + ", ceil_mode=" + py_bool(ceil_mode);
}

AvgPoolNd::AvgPoolNd(int64_t n, std::vector<int64_t> k, const AvgPoolOptions& o)
    : Module("AvgPool"), spatial(n), kernel_size(std::move(k)), stride(o.stride.empty() ? kernel_size : o.stride),
      padding(o.padding), ceil_mode(o.ceil_mode), count_include_pad(o.count_include_pad),
      divisor_override(o.divisor_override) {
  check_entries("AvgPool", "kernel_size", kernel_size.size(), n);
  check_entries("AvgPool", "stride", stride.size(), n);
  check_entries("AvgPool", "padding", padding.size(), n);
  SPIRE_CHECK(!divisor_override || *divisor_override > 0, ValueError, "AvgPool: divisor_override must be positive, got ",
              divisor_override.value_or(0));
}
Tensor AvgPoolNd::forward(const Tensor& x) {
  return functional::avg_pool(x, spatial, kernel_size,
                              functional::AvgPoolArgs{stride, padding, ceil_mode, count_include_pad, divisor_override});
}
std::string AvgPoolNd::extra_repr() const {
  // torch keeps AvgPool1d's options as 1-tuples.
  auto show = [&](const std::vector<int64_t>& v) { return spatial == 1 ? py_tuple(v) : given(v); };
  return "kernel_size=" + show(kernel_size) + ", stride=" + show(stride) + ", padding=" + show(padding);
}

AdaptiveAvgPoolNd::AdaptiveAvgPoolNd(int64_t n, functional::OutputSize o)
    : Module("AdaptiveAvgPool"), spatial(n), output_size(std::move(o)) {
  check_entries("AdaptiveAvgPool", "output_size", output_size.size(), n);
}
Tensor AdaptiveAvgPoolNd::forward(const Tensor& x) { return functional::adaptive_avg_pool(x, spatial, output_size); }
std::string AdaptiveAvgPoolNd::extra_repr() const { return "output_size=" + given(output_size); }

AdaptiveMaxPoolNd::AdaptiveMaxPoolNd(int64_t n, functional::OutputSize o, bool r)
    : Module("AdaptiveMaxPool"), spatial(n), output_size(std::move(o)), return_indices(r) {
  check_entries("AdaptiveMaxPool", "output_size", output_size.size(), n);
}
std::pair<Tensor, Tensor> AdaptiveMaxPoolNd::forward_with_indices(const Tensor& x) {
  return functional::adaptive_max_pool_with_indices(x, spatial, output_size);
}
Tensor AdaptiveMaxPoolNd::forward(const Tensor& x) { return forward_with_indices(x).first; }
Tensors AdaptiveMaxPoolNd::forward(const Tensors& inputs) {
  SPIRE_CHECK(inputs.size() == 1, ValueError, type_name(), ": takes one input, got ", inputs.size());
  auto [v, i] = forward_with_indices(inputs[0]);
  if (!return_indices) return {v};
  return {v, i};
}
std::string AdaptiveMaxPoolNd::extra_repr() const { return "output_size=" + given(output_size); }

// torch keeps MaxUnpool's options as full tuples.
MaxUnpoolNd::MaxUnpoolNd(int64_t n, std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p)
    : Module("MaxUnpool"), spatial(n) {
  kernel_size = functional::expand_option(std::move(k), n, 1, "MaxUnpool", "kernel_size");
  stride = s.empty() ? kernel_size : functional::expand_option(std::move(s), n, 1, "MaxUnpool", "stride");
  padding = functional::expand_option(std::move(p), n, 0, "MaxUnpool", "padding");
}
Tensor MaxUnpoolNd::forward(const Tensor& x, const Tensor& indices, const std::vector<int64_t>& output_size) {
  return functional::max_unpool(x, indices, spatial, kernel_size, functional::MaxUnpoolArgs{stride, padding, output_size});
}
Tensors MaxUnpoolNd::forward(const Tensors& inputs) {
  SPIRE_CHECK(inputs.size() == 2, ValueError, type_name(), ": takes the input and its indices, got ", inputs.size(),
              " tensors");
  return {forward(inputs[0], inputs[1])};
}
std::string MaxUnpoolNd::extra_repr() const {
  return "kernel_size=" + py_tuple(kernel_size) + ", stride=" + py_tuple(stride) + ", padding=" + py_tuple(padding);
}

Upsample::Upsample(functional::InterpolateArgs a) : Module("Upsample"), args(std::move(a)) {
  SPIRE_CHECK(args.size.empty() != args.scale_factor.empty(), ValueError, "Upsample: ",
              args.size.empty() ? "either size or scale_factor must be given" : "only one of size and scale_factor may be given");
}
Tensor Upsample::forward(const Tensor& x) { return functional::interpolate(x, args); }
std::string Upsample::extra_repr() const {
  std::string s;
  if (!args.scale_factor.empty()) {
    if (args.scale_factor.size() == 1) {
      s = "scale_factor=" + py_float(args.scale_factor[0]);
    } else {
      s = "scale_factor=(";
      for (size_t i = 0; i < args.scale_factor.size(); ++i) s += (i ? ", " : "") + py_float(args.scale_factor[i]);
      s += ")";
    }
  } else {
    s = "size=" + given(args.size);
  }
  return s + ", mode='" + args.mode + "'";
}

}  // namespace spire::nn
