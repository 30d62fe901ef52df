// Monitors attached to a running Simulation (Meep's add_dft_fields, add_flux, add_near2far,
// Harminv step function, output fields every n steps, get_field_point time series), each updated
// from one step callback with its component's own time (dft.h's component_time: E at time(), H at
// time() - dt/2), results as arrays.
//
// A Monitors object registers one callback (every step) on the Simulation when it is made and
// removes it when destroyed; it must not outlive the Simulation, nor be moved (the callback holds
// its address). The monitors it returns are owned by it and stay at their addresses.
//
// Normalisation (one place for the whole package): our DFTs are sum_n f(t_n) e^{i omega t_n} dt,
// Meep's the same divided by sqrt(2 pi). Ratios (reflectance, transmittance, normalised flux) agree
// with Meep; absolute DFT fields differ by sqrt(2 pi) and absolute fluxes by 2 pi.
//
// Two-run normalisation (flux.h): run the incident problem, keep flux.data(); build the scattering
// problem, attach a Flux with the same regions and frequencies, call load_minus_data(data) before
// the first step; its flux() is then the scattered (reflected) flux.
#pragma once
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "science/elec/dft.h"
#include "science/elec/field_output.h"
#include "science/elec/flux.h"
#include "science/elec/harmonic_inversion.h"
#include "science/elec/near2far.h"
#include "science/elec/simulation.h"

namespace spire::elec {

// A step's fields as the monitors read them (dft.h). ValueError if Real is not the run's precision.
template <class Real>
FieldArrays<Real> field_arrays(const Simulation& sim);

// Harmonic inversion of one component at one point (Meep's Harminv(c, pt, fcen, df)): the
// component interpolated at the point every step from `start_time` on (Meep applies it after the
// sources are off, during the ring-down), analysed by harmonic_inversion.h on request.
class HarmonicPoint {
 public:
  HarmonicPoint(const Simulation& sim, Component c, Vec3 point, double fcen, double df, double start_time,
                HarmonicInversionOptions options);
  template <class Real>
  void update(const FieldArrays<Real>& fields, double t);
  // The modes found in the samples so far (ValueError when fewer than 16 samples were taken).
  std::vector<HarmonicMode> modes() const;
  const PointTimeSeries& series() const { return series_; }
  Component component() const { return component_; }
  double fcen() const { return fcen_; }
  double df() const { return df_; }
  double start_time() const { return start_; }
  // Checkpoints: the samples taken (PointTimeSeries::save_state under the same prefix).
  void save_state(SimulationState& out, const std::string& prefix) const { series_.save_state(out, prefix); }
  void load_state(const SimulationState& in, const std::string& prefix) { series_.load_state(in, prefix); }

 private:
  Component component_;
  double fcen_, df_, start_, dt_;
  HarmonicInversionOptions options_;
  PointTimeSeries series_;
};

// Field snapshots to HDF5 + XDMF every `every` steps (field_output.h).
struct SnapshotMonitor {
  int64_t every = 1;
  std::unique_ptr<FieldSnapshotWriter> writer;
};

class Monitors {
 public:
  explicit Monitors(Simulation& sim);
  ~Monitors();
  Monitors(const Monitors&) = delete;
  Monitors& operator=(const Monitors&) = delete;

  // DFT of component c over the box center +- size/2 (dft.h's on_region).
  DftFields& add_dft_fields(Component c, Vec3 center, Vec3 size, std::vector<double> frequencies);
  // Poynting flux through planes (flux.h); box_regions() gives the faces of a closed box.
  Flux& add_flux(const std::vector<FluxRegion>& regions, std::vector<double> frequencies);
  // Near-to-far transform from a surface in a homogeneous medium eps, mu (near2far.h).
  Near2Far& add_near2far(const std::vector<FluxRegion>& regions, std::vector<double> frequencies, double eps = 1,
                         double mu = 1);
  // Components at a point every step (empty: every component carried).
  PointTimeSeries& add_point_series(Vec3 point, std::vector<Component> components = {});
  // Meep's Harminv; start_time < 0 (default): from the end of the last source (sources_end_time()).
  HarmonicPoint& add_harmonic_inversion(Component c, Vec3 point, double fcen, double df, double start_time = -1,
                                        HarmonicInversionOptions options = {});
  // Snapshots every `every` steps (>= 1) to `path` (its .xdmf sidecar beside it); finish() or the
  // destructor closes the files.
  FieldSnapshotWriter& add_snapshots(const std::string& path, int64_t every, FieldOutputOptions options = {});

  // Closes the snapshot files (idempotent).
  void finish();

  // Checkpoints: every monitor's accumulated state under prefix + "/dft<i>", "/flux<i>",
  // "/near2far<i>", "/point<i>", "/harminv<i>", "/snapshots<i>" (i counting each kind in the order
  // added). Saving first commits the snapshot files (FieldSnapshotWriter::commit), so that every
  // snapshot the state counts is in a finished file; that is why it is not const. load_state()
  // into the same monitors, added in the same order to a Simulation built from the same problem,
  // continues bit for bit (ValueError naming an array that is missing or of another length).
  void save_state(SimulationState& out, const std::string& prefix = "monitors");
  void load_state(const SimulationState& in, const std::string& prefix = "monitors");

 private:
  template <class Real>
  void update(const FieldArrays<Real>& fields, double t, int64_t step);
  void on_step(Simulation& sim);

  Simulation* sim_;
  int callback_ = -1;
  std::deque<DftFields> dfts_;
  std::deque<Flux> fluxes_;
  std::deque<Near2Far> near2fars_;
  std::deque<PointTimeSeries> points_;
  std::deque<HarmonicPoint> harminvs_;
  std::deque<SnapshotMonitor> snapshots_;
};

}  // namespace spire::elec
