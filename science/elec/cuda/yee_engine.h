// The cuda platform's Simulation::Engine (simulation_engine.h), written over a Backend (backend.h):
// on the CUDA backend everything a step touches lives on the device, and the host only evaluates
// the sources' currents.
//
//   fields      one array per carried component (yee.h's order), float or double;
//   CPML        the psi arrays (cpml.h's shapes and names) and the b, c, 1/kappa - 1 tables, which
//               are the CPU engine's own (built by Cpml<T> and copied);
//   materials   decay and scale per sample where the CPU keeps them (make_update_coefficients),
//               inv_eps / inv_mu only when an energy is asked for;
//   a step      H half step (one fused kernel: every H component, CPML terms included), the
//               magnetic source entries, pmc walls; E half step likewise, electric entries, pec
//               walls: simulation.cpp's sequence, each body with the CPU's arithmetic, so a float64
//               or float32 run has the CPU's bits (yee_kernels.cuh);
//   energies    the CPU's chunked sums in the CPU's order (4096 samples per chunk, summed in
//               index order by one thread, the chunks added in order on the host): the same bits;
//               the magnetic energy's trial half step keeps device copies of H and its psi once
//               asked (memory for the next call);
//   views       field(c) downloads the whole component into a host copy, once per step: a monitor
//               that reads fields every step pays a device-to-host copy of each component it reads;
//   state       the CPU's array names ("E/<c>/re", "psi/<c>/<axis>/re", "source/<i>"), so a
//               checkpoint moves between platforms.
// What it does not run (ConfigError at construction, naming what it runs): complex fields (Bloch
// boundaries) and stored D (a polarisation hook: dispersive media).
#pragma once
#include <array>
#include <memory>
#include <vector>

#include "science/elec/cuda/backend.h"
#include "science/elec/cuda/source_batch.h"
#include "science/elec/fdtd_update.h"
#include "science/elec/simulation_engine.h"

namespace spire::elec::cuda {

// ConfigError unless the platform runs this configuration (real fields, no stored D).
void check_supported(const EngineConfig& config);

template <class T>
class YeeEngine final : public Simulation::Engine {
 public:
  YeeEngine(const EngineConfig& config, std::unique_ptr<Backend<T>> backend);
  ~YeeEngine() override;

  void step(double t_n, double dt, PolarizationHook* hook) override;
  void add_source(SourceSamples s) override;
  FieldView view(Component c) const override;
  void set(Component c, const std::function<std::complex<double>(const Vec3&)>& value,
           const MaterialArrays& m) override;
  double electric_energy(const MaterialArrays& m) const override;
  double magnetic_energy(const MaterialArrays& m, double t_n, double dt) override;
  void save_state(SimulationState& out) const override;
  void load_state(const SimulationState& in) override;

  const Backend<T>& backend() const { return *backend_; }

 private:
  using Array = Buffer<T, T>;
  struct Batch {  // one kind's source entries on the backend
    SourceBatch host;
    Buffer<int64_t, T> index;
    Buffer<double, T> factor;
    Buffer<int32_t, T> slot, source;
    Buffer<int8_t, T> component;
    Buffer<double, T> values;
    std::vector<double> upload;
  };
  void upload_batch(Batch& b, bool electric);
  void apply_sources(Batch& b, double t_mid, double dt);
  // Sum over the chunks of a[i] b[i] / inv[i] for component c (simulation.cpp's ordered_sum).
  double ordered_sum(Component c, const T* a, const T* b, const MaterialArrays& m) const;
  std::vector<T> download(const Array& a) const;
  void stale() const { fresh_.fill(false); }
  static std::string psi_name(Component c, int a) { return "psi/" + to_string(c) + "/" + "xyz"[a] + "/re"; }

  YeeLattice lattice_;
  ResolvedBoundaries bc_;
  std::unique_ptr<Backend<T>> backend_;
  UpdateCoefficients<T> co_;  // host: scale, for the sources' factors (decay is dropped once uploaded)
  std::array<Array, 6> field_;
  std::array<std::array<Array, 3>, 6> psi_;
  std::array<Array, 6> decay_, scale_;
  std::array<std::array<Array, 2>, 3> pml_b_, pml_c_, pml_kappa_term_;
  StepPlan<T> h_plan_, e_plan_;
  WallPlan<T> pec_, pmc_;
  FieldTable<T> table_;
  std::vector<SourceSamples> sources_;
  SourceCurrents currents_;
  Batch magnetic_, electric_;
  // Views and energies (logically const).
  mutable std::array<std::vector<T>, 6> host_;
  mutable std::array<bool, 6> fresh_{};
  mutable std::array<Buffer<double, T>, 6> inverse_;
  mutable std::array<int, 6> inverse_kind_{};  // 0: not yet looked at, 1: uniform, 2: per sample
  mutable std::array<double, 6> inverse_uniform_{};
  mutable Buffer<double, T> partial_;
  std::array<Array, 6> saved_h_;                     // the energy's trial half step
  std::array<std::array<Array, 3>, 6> saved_psi_;
};

extern template class YeeEngine<float>;
extern template class YeeEngine<double>;

}  // namespace spire::elec::cuda
