// Registers the "cuda" platform of the FDTD solver (simulation_engine.h) when libspire_elec_cuda is
// loaded: programs that link it (through spire_elec_platforms) can build a Simulation on "cuda" or
// "cuda:N"; spire_elec itself never links CUDA.
#include "engine/core/error.h"
#include "science/elec/cuda/cuda_backend.h"
#include "science/elec/cuda/yee_engine.h"

namespace spire::elec::cuda {
namespace {

std::unique_ptr<Simulation::Engine> make_cuda_engine(const EngineConfig& cfg) {
  // What the platform runs is checked before a device is touched, so the message is the same on a
  // machine without one.
  check_supported(cfg);
  SPIRE_CHECK(cfg.lattice->samples() <= kMaxCudaSamples, ConfigError, "platform cuda: the lattice has ",
              cfg.lattice->samples(), " samples per component; the kernels index at most ", kMaxCudaSamples);
  if (cfg.precision == Precision::float32)
    return std::make_unique<YeeEngine<float>>(cfg, make_cuda_backend<float>(cfg.device));
  return std::make_unique<YeeEngine<double>>(cfg, make_cuda_backend<double>(cfg.device));
}

const bool kRegistered = [] {
  register_platform("cuda", make_cuda_engine);
  return true;
}();

}  // namespace
}  // namespace spire::elec::cuda
