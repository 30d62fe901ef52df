// The engine behind a Simulation (simulation.h): the storage and kernels of one platform. The
// Simulation owns the step count, time, callbacks and hooks; its engine owns the fields, the CPML
// state and the update coefficients, and runs one step at a time. The CPU engine is built in;
// a platform library (the CUDA one, science/elec/cuda) registers a factory when it loads, so
// spire_elec itself never links a device runtime.
#pragma once
#include <complex>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "science/elec/simulation.h"

namespace spire::elec {

struct Simulation::Engine {
  virtual ~Engine() = default;
  // One step from t_n: H to t_n + dt/2 with the magnetic sources (currents at t_mid = t_n), then E
  // (or D, then E from D and the hook's polarisation) to t_n + dt with the electric sources
  // (t_mid = t_n + dt/2), the pec/pmc walls held at zero (simulation.cpp's CPU engine is the
  // reference sequence).
  virtual void step(double t_n, double dt, PolarizationHook* hook) = 0;
  virtual void add_source(SourceSamples s) = 0;
  // A host-readable view (a device engine downloads into a host copy it keeps).
  virtual FieldView view(Component c) const = 0;
  virtual void set(Component c, const std::function<std::complex<double>(const Vec3&)>& value,
                   const MaterialArrays& m) = 0;
  virtual double electric_energy(const MaterialArrays& m) const = 0;
  virtual double magnetic_energy(const MaterialArrays& m, double t_n, double dt) = 0;
  // Appends the fields ("E/<c>/<part>", "D/<c>/<part>") and CPML state ("psi/<c>/<axis>/<part>")
  // and the state of distributed sources ("source/<i>"); load_state reads the same names.
  virtual void save_state(SimulationState& out) const = 0;
  virtual void load_state(const SimulationState& in) = 0;
};

struct EngineConfig {
  const YeeLattice* lattice = nullptr;
  const MaterialArrays* materials = nullptr;
  const ResolvedBoundaries* boundaries = nullptr;
  const PmlProfile* pml_profile = nullptr;
  double dt = 0;
  bool store_d = false;  // a polarisation hook is installed
  Precision precision = Precision::float64;
  int device = 0;        // the N of "cuda:N"
};
using EngineFactory = std::function<std::unique_ptr<Simulation::Engine>(const EngineConfig&)>;

// Registers platform `name` ("cuda"); a second registration of a name replaces the first.
void register_platform(const std::string& name, EngineFactory factory);
// "cpu" and the registered platforms, sorted.
std::vector<std::string> platforms();
// The engine for "name" or "name:N" (ConfigError naming the platforms there are otherwise).
std::unique_ptr<Simulation::Engine> make_engine(const std::string& platform, const EngineConfig& config);

}  // namespace spire::elec
