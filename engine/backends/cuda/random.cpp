// The random draws on CUDA: uniform, normal, bernoulli, randint, permutation, with the CPU's bits
// (random.cu). The attributes carry the Philox coordinates; nothing is drawn on the host.
#include <cmath>

#include "engine/backends/cuda/loop.h"
#include "engine/backends/cuda/random.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"

namespace spire::cuda {
namespace {

PhiloxAt coordinates(const Attrs& a) {
  return {uint64_t(a.get<int64_t>("seed")), uint64_t(a.get<int64_t>("stream")), uint64_t(a.get<int64_t>("offset"))};
}

void uniform_kernel(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  Tensor& y = out[0];
  DeviceGuard guard(y.device());
  check_launch(launch_uniform(elem(y.dtype()), y.raw_data(), y.numel(), coordinates(a), a.get<double>("low"),
                              a.get<double>("high")),
               "uniform");
}

void normal_kernel(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  Tensor& y = out[0];
  DeviceGuard guard(y.device());
  check_launch(launch_normal(elem(y.dtype()), y.raw_data(), y.numel(), coordinates(a), a.get<double>("mean"),
                             a.get<double>("std")),
               "normal");
}

void bernoulli_kernel(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  Tensor& y = out[0];
  DeviceGuard guard(y.device());
  uint64_t threshold = uint64_t(std::ceil(a.get<double>("p") * 0x1.0p32));  // as the CPU computes it
  check_launch(launch_bernoulli(y.data<bool>(), y.numel(), coordinates(a), threshold), "bernoulli");
}

void randint_kernel(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  Tensor& y = out[0];
  DeviceGuard guard(y.device());
  int64_t low = a.get<int64_t>("low");
  uint64_t range = uint64_t(a.get<int64_t>("high")) - uint64_t(low);
  check_launch(launch_randint(elem(y.dtype()), y.raw_data(), y.numel(), coordinates(a), low, range), "randint");
}

void permutation_kernel(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  Tensor& y = out[0];
  DeviceGuard guard(y.device());
  Temporaries temps;
  check_launch(launch_permutation(y.data<int64_t>(), y.numel(), coordinates(a), temps), "permutation");
}

SPIRE_REGISTER_KERNEL("uniform", DeviceKind::CUDA, uniform_kernel);
SPIRE_REGISTER_KERNEL("normal", DeviceKind::CUDA, normal_kernel);
SPIRE_REGISTER_KERNEL("bernoulli", DeviceKind::CUDA, bernoulli_kernel);
SPIRE_REGISTER_KERNEL("randint", DeviceKind::CUDA, randint_kernel);
SPIRE_REGISTER_KERNEL("permutation", DeviceKind::CUDA, permutation_kernel);

}  // namespace
}  // namespace spire::cuda
