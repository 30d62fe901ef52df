// An FDTD run: a Yee lattice (yee.h), its boundaries (boundary.h), the material coefficient arrays
// (material_arrays.h), sources (source.h) and, for dispersive media, a polarisation hook; step(),
// run(until), step callbacks, field access and the discrete field energy.
//
// Time: time() = n dt after n steps; dt = courant * dx (normalised units, c = 1). The Courant
// number defaults to Meep's 0.5 and must not exceed the Yee stability limit 1/sqrt(number of axes
// the problem has). E (and D) are at time(), H at time() - dt/2: step() advances H from
// t_n - dt/2 to t_n + dt/2, then E from t_n to t_n + dt (fdtd_update.h), each with its sources
// centred in the interval (time_profile.h).
//
// Precision: float32 or float64 storage and arithmetic in the updates; sources, energies and
// accumulations are double. Bloch boundaries make the fields complex (an imaginary part for every
// array; sources then inject the complex current, as Meep's complex fields do).
//
// Polarisations (dispersive media by auxiliary differential equations): the constitutive step
//   E^{n+1} = inv_eps (D^{n+1} - P^{n+1})
// needs P^{n+1} before E^{n+1} is formed. A PolarizationHook supplies it: once per step, after D
// has been advanced to t_{n+1} and before E is, step(c, part, e_now, p_total, n) is called for
// every carried electric component c (and for the imaginary part too when the fields are complex),
// with e_now = E^n of that component and part (n = lattice.samples() values); it advances its
// polarisation state (P^{n-1}, P^n -> P^{n+1}, as Meep's update_pols does from E^n) and writes the
// sum of all polarisations P^{n+1} into p_total (n values). Runs without a hook store no D and
// update E directly (fields.h); installing a hook (set_polarization, before the first step)
// switches the run to stored D.
//
// State (checkpoints: a long run's resume, the adjoint's recomputation from stored steps): every
// array the stepping carries (E, H, D, the CPML psi, the polarisations of the hook, the state of
// distributed sources) as named arrays of doubles (float32 values convert exactly), plus the step
// count. load_state() into a Simulation built from the same problem continues bit for bit as the
// run that saved it would have.
//
// Platforms: "cpu" (the kernels of fdtd_update.h), or a platform whose library registered an
// engine factory when it loaded (simulation_engine.h), as "cuda" or "cuda:1".
#pragma once
#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "science/elec/boundary.h"
#include "science/elec/fields.h"
#include "science/elec/material_arrays.h"
#include "science/elec/source.h"
#include "science/elec/yee.h"

namespace spire::elec {

enum class Precision { float32, float64 };
std::string to_string(Precision p);
// "float32" ("single", "f32"), "float64" ("double", "f64"); ConfigError naming them otherwise.
Precision parse_precision(const std::string& text);

// One named array of a run's state.
struct StateArray {
  std::string name;
  std::vector<double> values;
};
using SimulationState = std::vector<StateArray>;
// The array called `name` (ValueError naming it and the run's arrays when it is missing, or when
// `size` >= 0 and its length differs).
const StateArray& find_state(const SimulationState& state, const std::string& name, int64_t size = -1);

// (A subclass that overrides only the double version writes `using PolarizationHook::step;` so
// that the float overload stays visible.)
class PolarizationHook {
 public:
  virtual ~PolarizationHook();
  virtual void step(Component c, FieldPart part, const double* e_now, double* p_total, int64_t n) = 0;
  // float32 runs call this one; by default it goes through the double version with converted
  // copies (override it to work in float directly).
  virtual void step(Component c, FieldPart part, const float* e_now, float* p_total, int64_t n);
  // The hook's state for checkpoints, appended to `out` under names that start with "pol/".
  virtual void save_state(SimulationState& out) const;
  virtual void load_state(const SimulationState& in);

 private:
  std::vector<double> e_scratch_, p_scratch_;
};

// A read-only view of one component's samples (yee.h's order), valid until the next step or
// set_field / set_polarization call.
struct FieldView {
  const YeeLattice* lattice = nullptr;
  Component component = Component::Ez;
  Precision precision = Precision::float64;
  const void* re = nullptr;
  const void* im = nullptr;  // null for real fields
  double time = 0;           // the time the samples are at (H lags E by dt/2)

  bool is_complex() const { return im != nullptr; }
  double real(int64_t i) const;
  double imag(int64_t i) const;  // 0 for real fields
  std::complex<double> at(int64_t i) const { return {real(i), imag(i)}; }
  // The raw arrays; ValueError if T is not the run's precision.
  template <class T>
  const T* real_data() const;
  template <class T>
  const T* imag_data() const;
};

struct EngineConfig;  // simulation_engine.h

class Simulation {
 public:
  using StepCallback = std::function<void(Simulation&)>;

  // ValueError for a Courant number out of (0, 1/sqrt(axes)] (naming both), bad material arrays or
  // boundaries (boundary.h, fdtd_update.h).
  // platform: "cpu" or a registered one (ConfigError naming those there are otherwise).
  Simulation(const YeeLattice& lattice, MaterialArrays materials, const Boundaries& boundaries = Boundaries(),
             double courant = 0.5, Precision precision = Precision::float64, const std::string& platform = "cpu");
  ~Simulation();
  Simulation(Simulation&&) noexcept;
  Simulation& operator=(Simulation&&) noexcept;

  void add_source(const Source& source);
  // A source already on the lattice (discretize(), or a distributed source such as a plane wave's
  // surface currents); ValueError for an index out of range, a component not carried, or neither
  // or both of profile and distributed.
  void add_source(SourceSamples samples);
  // Installs the polarisation hook (nullptr removes it); only before the first step.
  void set_polarization(std::shared_ptr<PolarizationHook> hook);
  // Calls `callback` after every `every`-th step (every >= 1); returns an id for removal.
  int add_step_callback(int64_t every, StepCallback callback);
  void remove_step_callback(int id);

  void step();
  // Steps while time() < until (Meep's run(until=...)).
  void run(double until);
  void run_steps(int64_t steps);

  double time() const { return double(steps_) * dt_; }
  double dt() const { return dt_; }
  int64_t steps() const { return steps_; }
  double courant() const { return courant_; }
  // The stability limit 1/sqrt(axes) of this lattice.
  double courant_limit() const;
  const YeeLattice& lattice() const { return lattice_; }
  const ResolvedBoundaries& boundaries() const { return resolved_; }
  const MaterialArrays& materials() const { return materials_; }
  Precision precision() const { return precision_; }
  bool complex_fields() const { return resolved_.complex_fields(); }
  // The sources added, on the lattice (point and sheet sources discretized, distributed ones).
  const std::vector<SourceSamples>& sources() const { return sources_; }
  // The latest end time of the sources added (-infinity when there are none).
  double sources_end_time() const;

  // E (Ex..Ez) at time(), H (Hx..Hz) at time() - dt/2. ValueError for a component not carried.
  FieldView field(Component c) const;
  // Sets every sample of c to value(position) (its imaginary part is ignored for real fields);
  // for H this is the field at time() - dt/2. Samples a pec/pmc wall holds at zero stay zero.
  void set_field(Component c, const std::function<std::complex<double>(const Vec3&)>& value);

  // The discrete electromagnetic energy of the cell, in normalised units (a^d per unit volume):
  //   W(t_n) = 1/2 sum (E^n . D^n) dV + 1/2 sum (H^{n-1/2} . B^{n+1/2}) dV,
  // which the Yee scheme conserves exactly in a closed lossless cell (the magnetic term pairs the
  // two half steps around t_n; B^{n+1/2} is computed by a trial half step that is then undone).
  // For complex fields the products are Re(a conj(b)).
  double energy() const;
  double electric_energy() const;
  double magnetic_energy() const;

  // The run's state (header comment) and its restoration; load_state() checks every array's name
  // and length against this run's (ValueError naming the first that differs).
  SimulationState save_state() const;
  void load_state(const SimulationState& state);
  const std::string& platform() const { return platform_; }

  struct Engine;

 private:
  EngineConfig engine_config(bool store_d) const;
  YeeLattice lattice_;
  MaterialArrays materials_;
  ResolvedBoundaries resolved_;
  PmlProfile pml_profile_;
  Precision precision_;
  std::string platform_;
  double courant_, dt_;
  int64_t steps_ = 0;
  std::unique_ptr<Engine> engine_;
  std::shared_ptr<PolarizationHook> hook_;
  std::vector<SourceSamples> sources_;
  struct Callback {
    int id;
    int64_t every;
    StepCallback fn;
  };
  std::vector<Callback> callbacks_;
  int next_callback_id_ = 0;
};

}  // namespace spire::elec
