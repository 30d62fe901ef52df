#include "engine/nn/functional/spectral.h"

#include <string>

#include "engine/core/error.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/fft.h"
#include "engine/ops/linalg.h"
#include "engine/ops/shape.h"

namespace spire::nn::functional {

namespace {

Tensor zeros_along(const Tensor& like, int64_t axis, int64_t n) {
  Shape s = like.shape();
  s[size_t(axis)] = n;
  return zeros(s, like.dtype(), like.device());
}

}  // namespace

Tensor spectral_conv(const Tensor& x, const std::vector<Tensor>& weights, const std::vector<int64_t>& modes) {
  const int64_t d = int64_t(modes.size());
  SPIRE_CHECK(d >= 1 && d <= 3, ValueError, "spectral_conv: 1 to 3 spatial axes, got ", d);
  SPIRE_CHECK(x.dim() == d + 2, ShapeError, "spectral_conv: input must be [N, C_in, ", d,
              " spatial axes], got ", shape_str(x.shape()));
  SPIRE_CHECK(int64_t(weights.size()) == (int64_t(1) << (d - 1)), ValueError, "spectral_conv: ", d,
              "-d needs ", (1 << (d - 1)), " weight tensors, got ", weights.size());
  std::vector<int64_t> axes, sizes;
  for (int64_t i = 0; i < d; ++i) {
    int64_t n = x.shape(2 + i), m = modes[size_t(i)];
    bool last = i == d - 1;
    SPIRE_CHECK(m >= 1 && (last ? m <= n / 2 + 1 : 2 * m <= n), ValueError, "spectral_conv: modes[", i, "] = ", m,
                " does not fit axis of size ", n, " (allowed: 1 to ", (last ? n / 2 + 1 : n / 2), ")");
    axes.push_back(2 + i);
    sizes.push_back(n);
  }
  SPIRE_CHECK(weights[0].dim() == d + 2, ShapeError, "spectral_conv: weight 0 ", shape_str(weights[0].shape()),
              " must be [C_in, C_out, modes...]");
  Shape expected{x.shape(1), weights[0].shape(1)};
  for (int64_t m : modes) expected.push_back(m);
  // einsum "bixy,ioxy->boxy" with as many mode letters as axes.
  std::string letters = std::string("xyz").substr(0, size_t(d));
  std::string eq = "bi" + letters + ",io" + letters + "->bo" + letters;

  Tensor xf = rfftn(x, axes);
  std::vector<Tensor> blocks;
  for (size_t c = 0; c < weights.size(); ++c) {
    Tensor s = xf;
    for (int64_t i = 0; i < d; ++i) {
      int64_t m = modes[size_t(i)], n = x.shape(2 + i);
      bool high = i < d - 1 && ((c >> i) & 1);
      s = high ? slice(s, 2 + i, n - m, n) : slice(s, 2 + i, 0, m);
    }
    SPIRE_CHECK(weights[c].shape() == expected, ShapeError, "spectral_conv: weight ", c, " has shape ",
                shape_str(weights[c].shape()), ", expected ", shape_str(expected), " ([C_in, C_out, modes...])");
    blocks.push_back(einsum(eq, {s, weights[c]}));
  }
  // Assemble the full half-spectrum: along each non-last axis, low block, zeros, high block.
  for (int64_t i = 0; i + 1 < d; ++i) {
    int64_t axis = 2 + i, gap = x.shape(axis) - 2 * modes[size_t(i)];
    std::vector<Tensor> merged;
    for (size_t c = 0; c + 1 < blocks.size(); c += 2) {
      std::vector<Tensor> parts{blocks[c]};
      if (gap > 0) parts.push_back(zeros_along(blocks[c], axis, gap));
      parts.push_back(blocks[c + 1]);
      merged.push_back(concat(parts, axis));
    }
    blocks = std::move(merged);
  }
  Tensor out = blocks[0];
  int64_t last_axis = d + 1, half = x.shape(last_axis) / 2 + 1, gap = half - modes.back();
  if (gap > 0) out = concat({out, zeros_along(out, last_axis, gap)}, last_axis);
  return irfftn(out, sizes, axes);
}

Tensor spectral_conv1d(const Tensor& x, const Tensor& weight, int64_t modes) {
  return spectral_conv(x, {weight}, {modes});
}

}  // namespace spire::nn::functional
