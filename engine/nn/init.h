// Weight initialisers, as torch.nn.init: each fills an existing tensor in place (rebinding its
// values with Tensor::set_data, without history) from a seedable Generator, and returns it.
// Fans follow torch.nn.init._calculate_fan_in_and_fan_out: for a weight [out, in, *kernel],
// fan_in = in * prod(kernel) and fan_out = out * prod(kernel).
#pragma once
#include <optional>
#include <string>
#include <utility>

#include "engine/core/tensor.h"
#include "engine/ops/random.h"

namespace spire::nn::init {

// The recommended gain for a nonlinearity (torch.nn.init.calculate_gain): linear, conv*d,
// conv_transpose*d, sigmoid: 1; tanh: 5/3; relu: sqrt(2); leaky_relu: sqrt(2 / (1 + slope^2))
// (slope defaults to 0.01); selu: 3/4.
double calculate_gain(const std::string& nonlinearity, std::optional<double> param = std::nullopt);
// (fan_in, fan_out) of a tensor of rank >= 2.
std::pair<int64_t, int64_t> fan_in_and_fan_out(const Tensor& t);

Tensor& uniform_(Tensor& t, double a = 0.0, double b = 1.0, Generator& gen = default_generator());
Tensor& normal_(Tensor& t, double mean = 0.0, double std = 1.0, Generator& gen = default_generator());
Tensor& constant_(Tensor& t, double value);
Tensor& zeros_(Tensor& t);
Tensor& ones_(Tensor& t);
// The identity matrix (2-d tensors).
Tensor& eye_(Tensor& t);

// Glorot and Bengio (2010): U(-a, a), a = gain sqrt(6 / (fan_in + fan_out)); or N(0, gain^2 2 /
// (fan_in + fan_out)).
Tensor& xavier_uniform_(Tensor& t, double gain = 1.0, Generator& gen = default_generator());
Tensor& xavier_normal_(Tensor& t, double gain = 1.0, Generator& gen = default_generator());
// He et al. (2015): std = gain(nonlinearity, a) / sqrt(fan), fan = fan_in or fan_out (mode);
// uniform draws from U(-sqrt(3) std, sqrt(3) std).
Tensor& kaiming_uniform_(Tensor& t, double a = 0.0, const std::string& mode = "fan_in",
                         const std::string& nonlinearity = "leaky_relu", Generator& gen = default_generator());
Tensor& kaiming_normal_(Tensor& t, double a = 0.0, const std::string& mode = "fan_in",
                        const std::string& nonlinearity = "leaky_relu", Generator& gen = default_generator());
// Saxe et al. (2013): the Q of the QR decomposition of a standard normal [rows, numel / rows]
// matrix (transposed when wider than tall), with R's diagonal made positive, times gain.
Tensor& orthogonal_(Tensor& t, double gain = 1.0, Generator& gen = default_generator());
// Sitzmann et al. (2020), SIREN: the first layer U(-1/fan_in, 1/fan_in), later layers
// U(-sqrt(6 / fan_in) / omega_0, sqrt(6 / fan_in) / omega_0).
Tensor& siren_uniform_(Tensor& t, bool is_first, double omega_0 = 30.0, Generator& gen = default_generator());

}  // namespace spire::nn::init
