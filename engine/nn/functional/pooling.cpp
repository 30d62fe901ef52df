#include "engine/nn/functional/pooling.h"

#include <cmath>

#include "engine/nn/functional/linear.h"
#include "engine/ops/interpolate.h"
#include "engine/ops/pool.h"

namespace spire::nn::functional {
namespace {

std::string with_d(const char* base, int64_t spatial) { return base + std::to_string(spatial) + "d"; }

// torch's inputs: [N, C, *spatial] or unbatched [C, *spatial].
void check_input(const std::string& op, const Tensor& x, int64_t spatial) {
  SPIRE_CHECK(spatial >= 1 && spatial <= 3, ValueError, op, ": pools 1 to 3 spatial axes, got ", spatial);
  SPIRE_CHECK(x.dim() == spatial + 1 || x.dim() == spatial + 2, ShapeError, op, ": input must be [N, C, ", spatial,
              " spatial axes] or unbatched [C, ", spatial, " spatial axes], got shape ", shape_str(x.shape()));
}

PoolOptions pool_options(const std::vector<int64_t>& k, const std::vector<int64_t>& stride,
                         const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, bool ceil_mode) {
  return PoolOptions{k, stride, padding, dilation, ceil_mode};
}

std::vector<int64_t> resolve_output_size(const std::string& op, const Tensor& x, int64_t spatial,
                                         const OutputSize& o) {
  SPIRE_CHECK(o.size() == 1 || int64_t(o.size()) == spatial, ValueError, op, ": output_size needs 1 or ", spatial,
              " entries, got ", o.size());
  std::vector<int64_t> out;
  for (int64_t i = 0; i < spatial; ++i) {
    const auto& e = o[o.size() == 1 ? 0 : size_t(i)];
    out.push_back(e ? *e : x.shape(x.dim() - spatial + i));
  }
  return out;
}

}  // namespace

std::pair<Tensor, Tensor> max_pool_with_indices(const Tensor& x, int64_t spatial, const std::vector<int64_t>& k,
                                                const MaxPoolArgs& a) {
  check_input(with_d("max_pool", spatial), x, spatial);
  return spire::max_pool(x, spatial, pool_options(k, a.stride, a.padding, a.dilation, a.ceil_mode));
}
Tensor max_pool(const Tensor& x, int64_t spatial, const std::vector<int64_t>& k, const MaxPoolArgs& a) {
  return max_pool_with_indices(x, spatial, k, a).first;
}
Tensor max_pool1d(const Tensor& x, const std::vector<int64_t>& k, const MaxPoolArgs& a) { return max_pool(x, 1, k, a); }
Tensor max_pool2d(const Tensor& x, const std::vector<int64_t>& k, const MaxPoolArgs& a) { return max_pool(x, 2, k, a); }
Tensor max_pool3d(const Tensor& x, const std::vector<int64_t>& k, const MaxPoolArgs& a) { return max_pool(x, 3, k, a); }
std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& x, const std::vector<int64_t>& k, const MaxPoolArgs& a) {
  return max_pool_with_indices(x, 1, k, a);
}
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& x, const std::vector<int64_t>& k, const MaxPoolArgs& a) {
  return max_pool_with_indices(x, 2, k, a);
}
std::pair<Tensor, Tensor> max_pool3d_with_indices(const Tensor& x, const std::vector<int64_t>& k, const MaxPoolArgs& a) {
  return max_pool_with_indices(x, 3, k, a);
}

Tensor avg_pool(const Tensor& x, int64_t spatial, const std::vector<int64_t>& k, const AvgPoolArgs& a) {
  check_input(with_d("avg_pool", spatial), x, spatial);
  return spire::avg_pool(x, spatial, pool_options(k, a.stride, a.padding, {1}, a.ceil_mode), a.count_include_pad,
                         a.divisor_override);
}
Tensor avg_pool1d(const Tensor& x, const std::vector<int64_t>& k, const AvgPoolArgs& a) { return avg_pool(x, 1, k, a); }
Tensor avg_pool2d(const Tensor& x, const std::vector<int64_t>& k, const AvgPoolArgs& a) { return avg_pool(x, 2, k, a); }
Tensor avg_pool3d(const Tensor& x, const std::vector<int64_t>& k, const AvgPoolArgs& a) { return avg_pool(x, 3, k, a); }

Tensor max_unpool(const Tensor& x, const Tensor& indices, int64_t spatial, const std::vector<int64_t>& kernel_size,
                  const MaxUnpoolArgs& a) {
  std::string op = with_d("max_unpool", spatial);
  check_input(op, x, spatial);
  std::vector<int64_t> k = expand_option(kernel_size, spatial, 0, op.c_str(), "kernel_size");
  std::vector<int64_t> s = a.stride.empty() ? k : expand_option(a.stride, spatial, 1, op.c_str(), "stride");
  std::vector<int64_t> p = expand_option(a.padding, spatial, 0, op.c_str(), "padding");
  std::vector<int64_t> out;
  for (int64_t d = 0; d < spatial; ++d) out.push_back((x.shape(x.dim() - spatial + d) - 1) * s[d] + k[d] - 2 * p[d]);
  if (!a.output_size.empty()) {
    std::vector<int64_t> want = a.output_size;
    if (int64_t(want.size()) == spatial + 2) want.erase(want.begin(), want.begin() + 2);
    SPIRE_CHECK(int64_t(want.size()) == spatial, ValueError, op, ": output_size needs ", spatial, " or ", spatial + 2,
                " entries, got ", a.output_size.size());
    for (int64_t d = 0; d < spatial; ++d)
      SPIRE_CHECK(out[d] - s[d] < want[d] && want[d] < out[d] + s[d], ValueError, op, ": output_size ",
                  shape_str(want), " is invalid: axis ", d, " must lie between ", out[d] - s[d], " and ",
                  out[d] + s[d], " (exclusive)");
    out = want;
  }
  for (int64_t d = 0; d < spatial; ++d)
    SPIRE_CHECK(out[d] >= 0, ValueError, op, ": the output size ", shape_str(out), " is negative");
  return spire::max_unpool(x, indices, out);
}
Tensor max_unpool1d(const Tensor& x, const Tensor& i, const std::vector<int64_t>& k, const MaxUnpoolArgs& a) {
  return max_unpool(x, i, 1, k, a);
}
Tensor max_unpool2d(const Tensor& x, const Tensor& i, const std::vector<int64_t>& k, const MaxUnpoolArgs& a) {
  return max_unpool(x, i, 2, k, a);
}
Tensor max_unpool3d(const Tensor& x, const Tensor& i, const std::vector<int64_t>& k, const MaxUnpoolArgs& a) {
  return max_unpool(x, i, 3, k, a);
}

Tensor adaptive_avg_pool(const Tensor& x, int64_t spatial, const OutputSize& o) {
  std::string op = with_d("adaptive_avg_pool", spatial);
  check_input(op, x, spatial);
  return spire::adaptive_avg_pool(x, resolve_output_size(op, x, spatial, o));
}
Tensor adaptive_avg_pool1d(const Tensor& x, const OutputSize& o) { return adaptive_avg_pool(x, 1, o); }
Tensor adaptive_avg_pool2d(const Tensor& x, const OutputSize& o) { return adaptive_avg_pool(x, 2, o); }
Tensor adaptive_avg_pool3d(const Tensor& x, const OutputSize& o) { return adaptive_avg_pool(x, 3, o); }

std::pair<Tensor, Tensor> adaptive_max_pool_with_indices(const Tensor& x, int64_t spatial, const OutputSize& o) {
  std::string op = with_d("adaptive_max_pool", spatial);
  check_input(op, x, spatial);
  return spire::adaptive_max_pool(x, resolve_output_size(op, x, spatial, o));
}
Tensor adaptive_max_pool(const Tensor& x, int64_t spatial, const OutputSize& o) {
  return adaptive_max_pool_with_indices(x, spatial, o).first;
}
Tensor adaptive_max_pool1d(const Tensor& x, const OutputSize& o) { return adaptive_max_pool(x, 1, o); }
Tensor adaptive_max_pool2d(const Tensor& x, const OutputSize& o) { return adaptive_max_pool(x, 2, o); }
Tensor adaptive_max_pool3d(const Tensor& x, const OutputSize& o) { return adaptive_max_pool(x, 3, o); }
std::pair<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& x, const OutputSize& o) {
  return adaptive_max_pool_with_indices(x, 1, o);
}
std::pair<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& x, const OutputSize& o) {
  return adaptive_max_pool_with_indices(x, 2, o);
}
std::pair<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& x, const OutputSize& o) {
  return adaptive_max_pool_with_indices(x, 3, o);
}

Tensor interpolate(const Tensor& x, const InterpolateArgs& a) {
  const char* op = "interpolate";
  SPIRE_CHECK(x.dim() >= 3 && x.dim() <= 5, ShapeError, op, ": input must be [N, C, *spatial] with 1 to 3 spatial ",
              "axes, got shape ", shape_str(x.shape()));
  int64_t D = x.dim() - 2;
  const std::string& mode = a.mode;
  ResampleMode m;
  int64_t want = 0;  // the input rank a linear mode needs
  if (mode == "nearest") m = ResampleMode::Nearest;
  else if (mode == "nearest-exact") m = ResampleMode::NearestExact;
  else if (mode == "area") m = ResampleMode::Area;
  else if (mode == "linear") m = ResampleMode::Linear, want = 3;
  else if (mode == "bilinear") m = ResampleMode::Linear, want = 4;
  else if (mode == "trilinear") m = ResampleMode::Linear, want = 5;
  else
    throw ValueError(detail::cat(op, ": mode \"", mode, "\" is not supported; use \"nearest\", \"nearest-exact\", ",
                                 "\"linear\", \"bilinear\", \"trilinear\" or \"area\""));
  SPIRE_CHECK(want == 0 || x.dim() == want, ShapeError, op, ": got a ", x.dim(), "-d input, but mode \"", mode,
              "\" needs a ", want, "-d input ([N, C, ", want - 2, " spatial axes])");
  SPIRE_CHECK(m == ResampleMode::Linear || !a.align_corners, ValueError, op,
              ": align_corners can only be set with the interpolating modes (linear, bilinear, trilinear)");
  SPIRE_CHECK(!a.antialias, ValueError, op, ": antialias=True is not supported");
  SPIRE_CHECK(a.size.empty() != a.scale_factor.empty(), ValueError, op,
              a.size.empty() ? ": either size or scale_factor must be given" : ": only one of size and scale_factor may be given");
  SPIRE_CHECK(!(a.recompute_scale_factor.value_or(false) && !a.size.empty()), ValueError, op,
              ": recompute_scale_factor is not meaningful with an explicit size");
  std::vector<int64_t> out;
  std::vector<double> scales;
  if (!a.size.empty()) {
    SPIRE_CHECK(a.size.size() == 1 || int64_t(a.size.size()) == D, ValueError, op, ": size has ", a.size.size(),
                " entries for an input with ", D, " spatial axes ", shape_str(x.shape()));
    for (int64_t i = 0; i < D; ++i) out.push_back(a.size[a.size.size() == 1 ? 0 : size_t(i)]);
  } else {
    SPIRE_CHECK(a.scale_factor.size() == 1 || int64_t(a.scale_factor.size()) == D, ValueError, op,
                ": scale_factor has ", a.scale_factor.size(), " entries for an input with ", D, " spatial axes ",
                shape_str(x.shape()));
    // "area" always maps with in / out, as torch recomputes the scale for it.
    bool recompute = a.recompute_scale_factor.value_or(false) || m == ResampleMode::Area;
    for (int64_t i = 0; i < D; ++i) {
      double s = a.scale_factor[a.scale_factor.size() == 1 ? 0 : size_t(i)];
      SPIRE_CHECK(s > 0 && std::isfinite(s), ValueError, op, ": scale_factor must be positive and finite, got ", s);
      out.push_back(int64_t(std::floor(double(x.shape(2 + i)) * s)));
      scales.push_back(recompute ? 0.0 : s);
    }
  }
  for (int64_t o : out)
    SPIRE_CHECK(o >= 1, ValueError, op, ": the output size ", shape_str(out), " of an input of shape ",
                shape_str(x.shape()), " must be >= 1 along every spatial axis");
  return resample(x, out, m, a.align_corners.value_or(false), scales);
}

}  // namespace spire::nn::functional
