// The geometry of a 1-, 2- or 3-d convolution as both backends' kernels walk it: every axis
// padded to three (leading axes of size 1), so one kernel serves every dimensionality. Plain C++
// (CUDA kernel files include it too).
#pragma once
#include <cstdint>
#include <vector>

namespace spire {

struct ConvGeometry {
  int64_t in[3], out[3], k[3], s[3], p[3], d[3];
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t k_size() const { return k[0] * k[1] * k[2]; }
};

// From the op's stride, padding and dilation (one entry per spatial axis) and the shapes of the
// input, the output and the kernel (their trailing axes are the spatial ones).
inline ConvGeometry conv_geometry(const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                                  const std::vector<int64_t>& dilation, const std::vector<int64_t>& in,
                                  const std::vector<int64_t>& out, const std::vector<int64_t>& k) {
  const int64_t D = int64_t(stride.size()), lead = 3 - D;
  ConvGeometry g{};
  for (int64_t i = 0; i < 3; ++i) {
    const bool real_axis = i >= lead;
    const int64_t j = i - lead;
    g.in[i] = real_axis ? in[in.size() - D + j] : 1;
    g.out[i] = real_axis ? out[out.size() - D + j] : 1;
    g.k[i] = real_axis ? k[k.size() - D + j] : 1;
    g.s[i] = real_axis ? stride[j] : 1;
    g.p[i] = real_axis ? padding[j] : 0;
    g.d[i] = real_axis ? dilation[j] : 1;
  }
  return g;
}

}  // namespace spire
