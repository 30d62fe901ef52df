// SpectralConv1d/2d/3d: the Fourier layer of the FNO (functional/spectral.h), with the reference
// implementation's parameters: weights1 ... weights{2^(d-1)}, complex [in, out, modes...], drawn as
// scale (U[0,1) + i U[0,1)) with scale = 1 / (in_channels out_channels).
#pragma once
#include <vector>

#include "engine/nn/layers/common.h"
#include "engine/nn/module.h"

namespace spire::nn {

class SpectralConv : public Module {
 public:
  // modes: one per spatial axis (the number of axes is modes.size()). dtype is the real dtype of
  // the input; the weights are complex64 for float32 and complex128 for float64.
  SpectralConv(int64_t in_channels, int64_t out_channels, std::vector<int64_t> modes,
               DType dtype = DType::Float32, Generator* gen = nullptr);
  void reset_parameters(Generator& gen);
  using Module::forward;
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;

  int64_t in_channels, out_channels;
  std::vector<int64_t> modes;
  std::vector<Tensor> weights;
};

#define SPIRE_SPECTRAL_LAYER(Name, N)                                                                  \
  class Name : public SpectralConv {                                                                   \
   public:                                                                                             \
    Name(int64_t in_channels, int64_t out_channels, std::vector<int64_t> modes,                        \
         DType dtype = DType::Float32, Generator* gen = nullptr)                                       \
        : SpectralConv(in_channels, out_channels, spectral_modes(std::move(modes), N), dtype, gen) {           \
      set_type_name(#Name);                                                                            \
    }                                                                                                  \
  };
// One value repeated over n axes, or n values.
std::vector<int64_t> spectral_modes(std::vector<int64_t> modes, int64_t n);
SPIRE_SPECTRAL_LAYER(SpectralConv1d, 1)
SPIRE_SPECTRAL_LAYER(SpectralConv2d, 2)
SPIRE_SPECTRAL_LAYER(SpectralConv3d, 3)
#undef SPIRE_SPECTRAL_LAYER

}  // namespace spire::nn
