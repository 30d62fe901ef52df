// Complex parts on the GPU: real, imag, conj and complex(re, im), as the CPU kernels.
#include "engine/backends/cuda/complex.h"
#include "engine/backends/cuda/elementwise.cuh"

namespace spire::cuda {
namespace {

struct RealPart { template <class Z> SPIRE_HD real_t<Z> operator()(Z z) const { return z.real(); } };
struct ImagPart { template <class Z> SPIRE_HD real_t<Z> operator()(Z z) const { return z.imag(); } };
struct Conj { template <class Z> SPIRE_HD Z operator()(Z z) const { return Z(z.real(), -z.imag()); } };
template <class Z>
struct MakeComplex {
  SPIRE_HD Z operator()(real_t<Z> re, real_t<Z> im) const { return Z(re, im); }
};

}  // namespace

cudaError_t launch_complex_part(ComplexPart part, const Loop<2>& L) {
  switch (L.elem[1]) {
    case Elem::Complex64:
      return part == ComplexPart::Real ? launch_map<float, c64>(L, RealPart{}) : launch_map<float, c64>(L, ImagPart{});
    case Elem::Complex128:
      return part == ComplexPart::Real ? launch_map<double, c128>(L, RealPart{})
                                       : launch_map<double, c128>(L, ImagPart{});
    default: return cudaErrorNotSupported;
  }
}

cudaError_t launch_conj(const Loop<2>& L) {
  switch (L.elem[1]) {
    case Elem::Complex64: return launch_map<c64, c64>(L, Conj{});
    case Elem::Complex128: return launch_map<c128, c128>(L, Conj{});
    default: return cudaErrorNotSupported;
  }
}

cudaError_t launch_make_complex(const Loop<3>& L) {
  switch (L.elem[1]) {
    case Elem::Float32: return launch_map<c64, float, float>(L, MakeComplex<c64>{});
    case Elem::Float64: return launch_map<c128, double, double>(L, MakeComplex<c128>{});
    default: return cudaErrorNotSupported;
  }
}

}  // namespace spire::cuda
