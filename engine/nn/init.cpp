#include "engine/nn/init.h"

#include <cmath>
#include <vector>

#include "engine/autodiff/mode.h"
#include "engine/core/error.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/shape.h"

namespace spire::nn::init {

namespace {

void check_float(const Tensor& t, const char* op) {
  SPIRE_CHECK(t.defined(), ValueError, op, ": the tensor is undefined");
  SPIRE_CHECK(t.dtype() == DType::Float32 || t.dtype() == DType::Float64, DTypeError, op,
              ": needs a float32 or float64 tensor, got ", name(t.dtype()));
}

// Rebinds t's values to `v` (computed on the CPU) without history.
Tensor& assign(Tensor& t, const Tensor& v) {
  NoGradGuard no_grad;
  Tensor w = cast(v, t.dtype());
  if (w.device() != t.device()) w = spire::to(w, t.device());
  t.set_data(contiguous(w));
  return t;
}

double fan(const Tensor& t, const std::string& mode, const char* op) {
  auto [in, out] = fan_in_and_fan_out(t);
  SPIRE_CHECK(mode == "fan_in" || mode == "fan_out", ValueError, op, ": mode must be \"fan_in\" or \"fan_out\", got \"",
              mode, "\"");
  return double(mode == "fan_in" ? in : out);
}

}  // namespace

double calculate_gain(const std::string& nl, std::optional<double> param) {
  if (nl == "linear" || nl == "conv1d" || nl == "conv2d" || nl == "conv3d" || nl == "conv_transpose1d" ||
      nl == "conv_transpose2d" || nl == "conv_transpose3d" || nl == "sigmoid")
    return 1.0;
  if (nl == "tanh") return 5.0 / 3.0;
  if (nl == "relu") return std::sqrt(2.0);
  if (nl == "leaky_relu") {
    double slope = param ? *param : 0.01;
    return std::sqrt(2.0 / (1.0 + slope * slope));
  }
  if (nl == "selu") return 3.0 / 4.0;
  throw ValueError(detail::cat("calculate_gain: unsupported nonlinearity \"", nl,
                               "\" (allowed: linear, conv1d-3d, conv_transpose1d-3d, sigmoid, tanh, relu, "
                               "leaky_relu, selu)"));
}

std::pair<int64_t, int64_t> fan_in_and_fan_out(const Tensor& t) {
  SPIRE_CHECK(t.dim() >= 2, ValueError, "fan_in_and_fan_out: needs a tensor with at least 2 dimensions, got ",
              shape_str(t.shape()));
  int64_t receptive = 1;
  for (int64_t i = 2; i < t.dim(); ++i) receptive *= t.shape(i);
  return {t.shape(1) * receptive, t.shape(0) * receptive};
}

Tensor& uniform_(Tensor& t, double a, double b, Generator& gen) {
  check_float(t, "uniform_");
  return assign(t, uniform(t.shape(), a, b, t.dtype(), gen));
}
Tensor& normal_(Tensor& t, double mean, double std, Generator& gen) {
  check_float(t, "normal_");
  return assign(t, normal(t.shape(), mean, std, t.dtype(), gen));
}
Tensor& constant_(Tensor& t, double value) {
  SPIRE_CHECK(t.defined(), ValueError, "constant_: the tensor is undefined");
  return assign(t, full(t.shape(), value, t.dtype()));
}
Tensor& zeros_(Tensor& t) { return constant_(t, 0.0); }
Tensor& ones_(Tensor& t) { return constant_(t, 1.0); }
Tensor& eye_(Tensor& t) {
  SPIRE_CHECK(t.dim() == 2, ValueError, "eye_: needs a 2-d tensor, got ", shape_str(t.shape()));
  Tensor v = zeros(t.shape(), DType::Float64);
  for (int64_t i = 0; i < std::min(t.shape(0), t.shape(1)); ++i) v.data<double>()[i * t.shape(1) + i] = 1.0;
  return assign(t, v);
}

Tensor& xavier_uniform_(Tensor& t, double gain, Generator& gen) {
  check_float(t, "xavier_uniform_");
  auto [in, out] = fan_in_and_fan_out(t);
  double a = gain * std::sqrt(6.0 / double(in + out));
  return uniform_(t, -a, a, gen);
}
Tensor& xavier_normal_(Tensor& t, double gain, Generator& gen) {
  check_float(t, "xavier_normal_");
  auto [in, out] = fan_in_and_fan_out(t);
  return normal_(t, 0.0, gain * std::sqrt(2.0 / double(in + out)), gen);
}
Tensor& kaiming_uniform_(Tensor& t, double a, const std::string& mode, const std::string& nl, Generator& gen) {
  check_float(t, "kaiming_uniform_");
  double bound = std::sqrt(3.0) * calculate_gain(nl, a) / std::sqrt(fan(t, mode, "kaiming_uniform_"));
  return uniform_(t, -bound, bound, gen);
}
Tensor& kaiming_normal_(Tensor& t, double a, const std::string& mode, const std::string& nl, Generator& gen) {
  check_float(t, "kaiming_normal_");
  return normal_(t, 0.0, calculate_gain(nl, a) / std::sqrt(fan(t, mode, "kaiming_normal_")), gen);
}

Tensor& orthogonal_(Tensor& t, double gain, Generator& gen) {
  check_float(t, "orthogonal_");
  SPIRE_CHECK(t.dim() >= 2, ValueError, "orthogonal_: needs a tensor with at least 2 dimensions, got ",
              shape_str(t.shape()));
  int64_t rows = t.shape(0), cols = t.numel() / std::max<int64_t>(rows, 1);
  Tensor g = normal({rows, cols}, 0.0, 1.0, DType::Float64, gen);
  // Columns of a tall matrix A [m, n] (m >= n) orthonormalised by modified Gram-Schmidt: A = Q R
  // with R's diagonal positive, which is the QR with the sign fix PyTorch applies.
  bool wide = rows < cols;
  int64_t m = wide ? cols : rows, n = wide ? rows : cols;
  const double* src = g.data<double>();
  std::vector<double> a(size_t(m * n));  // column-major: column j at a[j*m]
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      int64_t r = wide ? j : i, c = wide ? i : j;
      a[size_t(c * m + r)] = src[i * cols + j];
    }
  for (int64_t j = 0; j < n; ++j) {
    double* cj = &a[size_t(j * m)];
    for (int64_t k = 0; k < j; ++k) {
      const double* ck = &a[size_t(k * m)];
      double d = 0;
      for (int64_t r = 0; r < m; ++r) d += ck[r] * cj[r];
      for (int64_t r = 0; r < m; ++r) cj[r] -= d * ck[r];
    }
    double nn = 0;
    for (int64_t r = 0; r < m; ++r) nn += cj[r] * cj[r];
    nn = std::sqrt(nn);
    for (int64_t r = 0; r < m; ++r) cj[r] /= nn;
  }
  Tensor q = empty({rows, cols}, DType::Float64);
  double* dst = q.data<double>();
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      int64_t r = wide ? j : i, c = wide ? i : j;
      dst[i * cols + j] = gain * a[size_t(c * m + r)];
    }
  return assign(t, reshape(q, t.shape()));
}

Tensor& siren_uniform_(Tensor& t, bool is_first, double omega_0, Generator& gen) {
  check_float(t, "siren_uniform_");
  double in = double(fan_in_and_fan_out(t).first);
  double bound = is_first ? 1.0 / in : std::sqrt(6.0 / in) / omega_0;
  return uniform_(t, -bound, bound, gen);
}

}  // namespace spire::nn::init
