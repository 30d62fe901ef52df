// Monitors attached to a Simulation (monitors.h).
#include "science/elec/monitors.h"

#include <algorithm>
#include <cmath>
#include <complex>

#include "engine/core/error.h"

namespace spire::elec {

template <class Real>
FieldArrays<Real> field_arrays(const Simulation& sim) {
  FieldArrays<Real> out;
  for (Component c : sim.lattice().components()) {
    const FieldView v = sim.field(c);
    out.real[size_t(int(c))] = v.real_data<Real>();
    if (v.is_complex()) out.imag[size_t(int(c))] = v.imag_data<Real>();
  }
  return out;
}
template FieldArrays<float> field_arrays<float>(const Simulation&);
template FieldArrays<double> field_arrays<double>(const Simulation&);

HarmonicPoint::HarmonicPoint(const Simulation& sim, Component c, Vec3 point, double fcen, double df, double start_time,
                             HarmonicInversionOptions options)
    : component_(c), fcen_(fcen), df_(df), start_(start_time), dt_(sim.dt()), options_(options),
      series_(sim.lattice(), point, {c}, sim.dt()) {
  SPIRE_CHECK(fcen > 0 && df > 0 && fcen - df / 2 >= 0, ValueError,
              "harmonic inversion: need fcen > 0 and 0 < df <= 2 fcen (the band fcen +- df/2), got fcen ", fcen,
              ", df ", df);
}

template <class Real>
void HarmonicPoint::update(const FieldArrays<Real>& fields, double t) {
  // start_ refers to the component's own time, as Meep's after_sources does to the run's time.
  if (component_time(component_, t, dt_) + 1e-12 * std::abs(t) < start_) return;
  series_.update(fields, t);
}
template void HarmonicPoint::update<float>(const FieldArrays<float>&, double);
template void HarmonicPoint::update<double>(const FieldArrays<double>&, double);

std::vector<HarmonicMode> HarmonicPoint::modes() const {
  const std::vector<double>& re = series_.values(component_);
  const std::vector<double>& im = series_.imag_values(component_);
  SPIRE_CHECK(re.size() >= 16, ValueError, "harmonic inversion of ", to_string(component_), ": only ", re.size(),
              " samples were taken after t = ", start_, " (at least 16 needed): run longer");
  const double dt = dt_;
  const double f_min = fcen_ - df_ / 2, f_max = fcen_ + df_ / 2;
  bool complex_signal = false;
  for (double v : im) complex_signal = complex_signal || v != 0;
  if (!complex_signal) return harmonic_inversion(std::span<const double>(re), dt, f_min, f_max, options_);
  std::vector<std::complex<double>> z(re.size());
  for (size_t i = 0; i < re.size(); ++i) z[i] = {re[i], im[i]};
  return harmonic_inversion(std::span<const std::complex<double>>(z), dt, f_min, f_max, options_);
}

Monitors::Monitors(Simulation& sim) : sim_(&sim) {
  callback_ = sim.add_step_callback(1, [this](Simulation& s) { on_step(s); });
}

Monitors::~Monitors() {
  sim_->remove_step_callback(callback_);
  // Snapshot writers close in their destructors only when not unwinding an exception (field_output.h);
  // close them here so a normal end of scope leaves finished files.
  try {
    finish();
  } catch (...) {
  }
}

DftFields& Monitors::add_dft_fields(Component c, Vec3 center, Vec3 size, std::vector<double> frequencies) {
  dfts_.push_back(DftFields::on_region(sim_->lattice(), c, center, size, std::move(frequencies), sim_->dt()));
  return dfts_.back();
}

Flux& Monitors::add_flux(const std::vector<FluxRegion>& regions, std::vector<double> frequencies) {
  fluxes_.emplace_back(sim_->lattice(), regions, std::move(frequencies), sim_->dt());
  return fluxes_.back();
}

Near2Far& Monitors::add_near2far(const std::vector<FluxRegion>& regions, std::vector<double> frequencies, double eps,
                                 double mu) {
  near2fars_.emplace_back(sim_->lattice(), regions, std::move(frequencies), sim_->dt(), eps, mu);
  return near2fars_.back();
}

PointTimeSeries& Monitors::add_point_series(Vec3 point, std::vector<Component> components) {
  if (components.empty()) components = sim_->lattice().components();
  points_.emplace_back(sim_->lattice(), point, std::move(components), sim_->dt());
  return points_.back();
}

HarmonicPoint& Monitors::add_harmonic_inversion(Component c, Vec3 point, double fcen, double df, double start_time,
                                                HarmonicInversionOptions options) {
  if (start_time < 0) start_time = std::max(0.0, sim_->sources_end_time());
  harminvs_.emplace_back(*sim_, c, point, fcen, df, start_time, options);
  return harminvs_.back();
}

FieldSnapshotWriter& Monitors::add_snapshots(const std::string& path, int64_t every, FieldOutputOptions options) {
  SPIRE_CHECK(every >= 1, ValueError, "field snapshots: every must be >= 1 step, got ", every);
  snapshots_.push_back({every, std::make_unique<FieldSnapshotWriter>(path, sim_->lattice(), sim_->dt(),
                                                                     std::move(options))});
  return *snapshots_.back().writer;
}

void Monitors::finish() {
  for (SnapshotMonitor& s : snapshots_) s.writer->close();
}

void Monitors::save_state(SimulationState& out, const std::string& prefix) {
  const auto name = [&](const char* kind, size_t i) { return prefix + "/" + kind + std::to_string(i); };
  for (size_t i = 0; i < dfts_.size(); ++i) dfts_[i].save_state(out, name("dft", i));
  for (size_t i = 0; i < fluxes_.size(); ++i) fluxes_[i].save_state(out, name("flux", i));
  for (size_t i = 0; i < near2fars_.size(); ++i) near2fars_[i].save_state(out, name("near2far", i));
  for (size_t i = 0; i < points_.size(); ++i) points_[i].save_state(out, name("point", i));
  for (size_t i = 0; i < harminvs_.size(); ++i) harminvs_[i].save_state(out, name("harminv", i));
  for (size_t i = 0; i < snapshots_.size(); ++i) {
    snapshots_[i].writer->commit();
    snapshots_[i].writer->save_state(out, name("snapshots", i));
  }
}

void Monitors::load_state(const SimulationState& in, const std::string& prefix) {
  const auto name = [&](const char* kind, size_t i) { return prefix + "/" + kind + std::to_string(i); };
  for (size_t i = 0; i < dfts_.size(); ++i) dfts_[i].load_state(in, name("dft", i));
  for (size_t i = 0; i < fluxes_.size(); ++i) fluxes_[i].load_state(in, name("flux", i));
  for (size_t i = 0; i < near2fars_.size(); ++i) near2fars_[i].load_state(in, name("near2far", i));
  for (size_t i = 0; i < points_.size(); ++i) points_[i].load_state(in, name("point", i));
  for (size_t i = 0; i < harminvs_.size(); ++i) harminvs_[i].load_state(in, name("harminv", i));
  for (size_t i = 0; i < snapshots_.size(); ++i) snapshots_[i].writer->load_state(in, name("snapshots", i));
}

template <class Real>
void Monitors::update(const FieldArrays<Real>& fields, double t, int64_t step) {
  for (DftFields& d : dfts_) d.update(fields, t);
  for (Flux& f : fluxes_) f.update(fields, t);
  for (Near2Far& n : near2fars_) n.update(fields, t);
  for (PointTimeSeries& p : points_) p.update(fields, t);
  for (HarmonicPoint& h : harminvs_) h.update(fields, t);
  for (SnapshotMonitor& s : snapshots_)
    if (step % s.every == 0) s.writer->write(fields, t, step);
}

void Monitors::on_step(Simulation& sim) {
  if (sim.precision() == Precision::float64)
    update(field_arrays<double>(sim), sim.time(), sim.steps());
  else
    update(field_arrays<float>(sim), sim.time(), sim.steps());
}

}  // namespace spire::elec
