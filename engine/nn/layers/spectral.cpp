#include "engine/nn/layers/spectral.h"

#include "engine/autodiff/mode.h"
#include "engine/nn/functional/linear.h"
#include "engine/nn/functional/spectral.h"
#include "engine/ops/elementwise.h"

namespace spire::nn {

std::vector<int64_t> spectral_modes(std::vector<int64_t> modes, int64_t n) {
  return functional::expand_option(std::move(modes), n, 0, "SpectralConv", "modes");
}

SpectralConv::SpectralConv(int64_t in, int64_t out, std::vector<int64_t> m, DType dtype, Generator* gen)
    : Module("SpectralConv"), in_channels(in), out_channels(out), modes(std::move(m)) {
  check_layer_dtype(dtype, "SpectralConv");
  int64_t d = int64_t(modes.size());
  SPIRE_CHECK(d >= 1 && d <= 3, ValueError, "SpectralConv: 1 to 3 spatial axes (modes), got ", d);
  SPIRE_CHECK(in >= 1 && out >= 1, ValueError, "SpectralConv: in_channels and out_channels must be >= 1");
  for (int64_t x : modes) SPIRE_CHECK(x >= 1, ValueError, "SpectralConv: modes must be >= 1, got ", x);
  Shape ws{in, out};
  for (int64_t x : modes) ws.push_back(x);
  DType cd = dtype == DType::Float64 ? DType::Complex128 : DType::Complex64;
  for (int64_t c = 0; c < (int64_t(1) << (d - 1)); ++c)
    weights.push_back(register_parameter("weights" + std::to_string(c + 1), zeros(ws, cd)));
  reset_parameters(generator_or_default(gen));
}

void SpectralConv::reset_parameters(Generator& gen) {
  double scale = 1.0 / double(in_channels * out_channels);
  NoGradGuard no_grad;
  for (Tensor& w : weights) {
    DType rd = w.dtype() == DType::Complex128 ? DType::Float64 : DType::Float32;
    Tensor re = uniform(w.shape(), 0.0, 1.0, rd, gen), im = uniform(w.shape(), 0.0, 1.0, rd, gen);
    w.set_data(complex(re * scale, im * scale));
  }
}

Tensor SpectralConv::forward(const Tensor& x) { return functional::spectral_conv(x, weights, modes); }

std::string SpectralConv::extra_repr() const {
  return std::to_string(in_channels) + ", " + std::to_string(out_channels) + ", modes=" + py_tuple(modes);
}

}  // namespace spire::nn
