// Discrete Fourier and cosine transforms over any set of axes (FFTW on CPU, plans cached).
// norm: "backward" (default: unscaled forward, 1/n inverse), "ortho", or "forward", as NumPy.
#pragma once
#include <string>

#include "engine/core/tensor.h"

namespace spire {

Tensor fftn(const Tensor& x, const std::vector<int64_t>& axes = {}, const std::string& norm = "backward");
Tensor ifftn(const Tensor& x, const std::vector<int64_t>& axes = {}, const std::string& norm = "backward");
// Real input; the last of `axes` is halved to n/2+1.
Tensor rfftn(const Tensor& x, const std::vector<int64_t>& axes = {}, const std::string& norm = "backward");
// `sizes` gives the output length along each axis (needed to tell odd from even along the last).
Tensor irfftn(const Tensor& x, const std::vector<int64_t>& sizes, const std::vector<int64_t>& axes = {},
              const std::string& norm = "backward");
Tensor fft(const Tensor& x, int64_t axis = -1, const std::string& norm = "backward");
Tensor ifft(const Tensor& x, int64_t axis = -1, const std::string& norm = "backward");
Tensor rfft(const Tensor& x, int64_t axis = -1, const std::string& norm = "backward");
Tensor irfft(const Tensor& x, int64_t n = -1, int64_t axis = -1, const std::string& norm = "backward");
// DCT types I, II and III along one axis, scaled as scipy.fft.dct / idct (norm "backward",
// "ortho" or "forward"); idct inverts dct of the same type. Complex input transforms its real and
// imaginary parts separately.
Tensor dct(const Tensor& x, int type = 2, int64_t axis = -1, const std::string& norm = "backward");
Tensor idct(const Tensor& x, int type = 2, int64_t axis = -1, const std::string& norm = "backward");

}  // namespace spire
