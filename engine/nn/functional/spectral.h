// The spectral convolution of the Fourier neural operator (Li et al., "Fourier Neural Operator for
// Parametric Partial Differential Equations", ICLR 2021), as its reference implementation computes
// it: rFFT over the spatial axes, keep the `modes` lowest frequencies per axis (both the positive
// and the negative ones on every axis but the last, which the real FFT halves), multiply channels
// by a complex matrix per retained mode, and invert back to the input's size.
#pragma once
#include <vector>

#include "engine/core/tensor.h"

namespace spire::nn::functional {

// x [N, C_in, n_1, ..., n_d] real; weights: 2^(d-1) complex tensors [C_in, C_out, m_1, ..., m_d],
// one per corner of the retained block: bit i of the index set means the negative frequencies
// (the last m_i entries) of axis i, as the reference's weights1, weights2, ... (2-d: weights[0]
// takes [:m1, :m2], weights[1] takes [-m1:, :m2]). Needs 2 m_i <= n_i on every axis but the last
// and m_d <= n_d / 2 + 1. Returns [N, C_out, n_1, ..., n_d] in x's dtype.
Tensor spectral_conv(const Tensor& x, const std::vector<Tensor>& weights, const std::vector<int64_t>& modes);
Tensor spectral_conv1d(const Tensor& x, const Tensor& weight, int64_t modes);

}  // namespace spire::nn::functional
