// Building and running a job (job_run.h): the Simulation and monitors a job describes, its state
// for checkpoints, and the stepping loop with progress and checkpoints.
#include "science/elec/job_run.h"

#include <chrono>
#include <cmath>
#include <limits>

#include "engine/core/error.h"
#include "science/elec/checkpoint.h"

namespace spire::elec {

namespace {

// The errors of a part, with the monitor or port they concern.
template <class F>
void naming(const std::string& who, F f) {
  try {
    f();
  } catch (const ConfigError& e) {
    throw ConfigError(detail::cat(who, ": ", e.what()));
  } catch (const IOError& e) {
    throw IOError(detail::cat(who, ": ", e.what()));
  } catch (const ValueError& e) {
    throw ValueError(detail::cat(who, ": ", e.what()));
  }
}

// Prefixed copies of a state's arrays, and the arrays under a prefix with it removed.
void append_prefixed(SimulationState& out, SimulationState&& in, const std::string& prefix) {
  for (StateArray& a : in) out.push_back({prefix + a.name, std::move(a.values)});
}
SimulationState under_prefix(const SimulationState& in, const std::string& prefix) {
  SimulationState out;
  for (const StateArray& a : in)
    if (a.name.compare(0, prefix.size(), prefix) == 0) out.push_back({a.name.substr(prefix.size()), a.values});
  return out;
}

}  // namespace

JobRun::JobRun(const EmJob& job, const std::string& platform) : job_(job) {
  Problem problem = job.problem;
  if (!platform.empty()) problem.platform = platform;
  sim_ = std::make_unique<Simulation>(build(problem));
  monitors_ = std::make_unique<Monitors>(*sim_);
  Provenance provenance;
  provenance.job = job.toml;
  for (const MonitorSpec& m : job.monitors) {
    MonitorObjects o;
    o.spec = &m;
    naming("monitor \"" + m.name + "\"", [&] {
      switch (m.kind) {
        case MonitorKind::dft_fields:
          for (Component c : m.components) o.dfts.push_back(&monitors_->add_dft_fields(c, m.center, m.size, m.frequencies));
          break;
        case MonitorKind::flux:
          o.flux = &monitors_->add_flux(m.regions, m.frequencies);
          if (!m.load_minus_data.empty()) o.flux->load_minus_data(read_flux_data(m.load_minus_data));
          break;
        case MonitorKind::near2far:
          o.near2far = &monitors_->add_near2far(m.regions, m.frequencies, m.epsilon, m.mu);
          if (!m.load_minus_data.empty()) o.near2far->load_minus_data(read_flux_data(m.load_minus_data));
          break;
        case MonitorKind::point:
          o.point = &monitors_->add_point_series(m.center, m.components);
          break;
        case MonitorKind::harminv:
          o.harminv = &monitors_->add_harmonic_inversion(m.components[0], m.center, m.fcen, m.df, m.start_time,
                                                         m.harminv);
          break;
        case MonitorKind::snapshots: {
          FieldOutputOptions options;
          options.components = m.components;
          options.single_precision = m.single_precision;
          options.provenance = provenance;
          o.snapshots = &monitors_->add_snapshots(m.file, m.every, options);
          break;
        }
      }
    });
    objects_.push_back(o);
  }
  for (size_t i = 0; i < job.ports.size(); ++i) {
    if (job.ports[i].frequencies.empty()) {
      ports_.push_back(nullptr);
      continue;
    }
    naming(detail::cat("port[", i, "]"), [&] {
      ports_.push_back(std::make_unique<PortMonitor>(*sim_, job.problem.ports[i], job.ports[i].frequencies));
    });
  }
}

JobRun::~JobRun() = default;

const MonitorObjects& JobRun::monitor(const std::string& name) const {
  std::string names;
  for (const MonitorObjects& o : objects_) {
    if (o.spec->name == name) return o;
    names += (names.empty() ? "" : ", ") + o.spec->name;
  }
  throw ValueError(detail::cat("the job has no monitor \"", name, "\" (it has: ", names, ")"));
}

double JobRun::end_time() const {
  if (job_.run.until >= 0) return job_.run.until;
  const double end = sim_->sources_end_time();
  SPIRE_CHECK(std::isfinite(end) || end < 0, ValueError, job_.where,
              ": run.until_after_sources needs sources that end; a continuous source without end_time never "
              "does (give it end_time, or use run.until)");
  return std::max(0.0, end) + job_.run.until_after_sources;
}

int64_t JobRun::total_steps() const {
  // Simulation::run(until) steps while time < until - 1e-6 dt.
  const double n = end_time() / sim_->dt() - 1e-6;
  return std::max<int64_t>(0, int64_t(std::ceil(n)));
}

SimulationState JobRun::save_state() {
  SimulationState out;
  append_prefixed(out, sim_->save_state(), "simulation/");
  monitors_->save_state(out, "monitors");
  for (size_t i = 0; i < ports_.size(); ++i)
    if (ports_[i]) append_prefixed(out, ports_[i]->save_state(), detail::cat("ports/", i, "/"));
  return out;
}

void JobRun::load_state(const SimulationState& state) {
  sim_->load_state(under_prefix(state, "simulation/"));
  monitors_->load_state(state, "monitors");
  for (size_t i = 0; i < ports_.size(); ++i)
    if (ports_[i]) ports_[i]->load_state(under_prefix(state, detail::cat("ports/", i, "/")));
}

void JobRun::finish() {
  if (finished_) return;
  Provenance provenance;
  provenance.job = job_.toml;
  for (const MonitorObjects& o : objects_) {
    const MonitorSpec& m = *o.spec;
    if (m.save_data.empty()) continue;
    naming("monitor \"" + m.name + "\"", [&] {
      write_flux_data(m.save_data, o.flux ? o.flux->data() : o.near2far->data(), provenance);
    });
  }
  monitors_->finish();
  finished_ = true;
}

RunControl run_control(const EmJob& job) {
  RunControl c;
  c.checkpoint = job.run.checkpoint;
  c.checkpoint_steps = job.run.checkpoint_steps;
  c.checkpoint_seconds = job.run.checkpoint_seconds;
  c.progress_seconds = job.run.progress_seconds;
  return c;
}

RunOutcome run_job(JobRun& run, const RunControl& control) {
  using Clock = std::chrono::steady_clock;
  Simulation& sim = run.simulation();
  const int64_t total = run.total_steps(), first = sim.steps();
  const double end = run.end_time(), cells = double(sim.lattice().samples());
  const Clock::time_point t0 = Clock::now();
  double last_progress = 0, last_checkpoint = 0;
  int64_t last_checkpoint_step = first;
  RunOutcome out;
  const auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  const auto progress = [&] {
    RunProgress p;
    p.step = sim.steps();
    p.total_steps = total;
    p.time = sim.time();
    p.end_time = end;
    p.seconds = seconds();
    const double taken = double(sim.steps() - first);
    p.cell_updates_per_second = p.seconds > 0 ? cells * taken / p.seconds : 0;
    p.eta_seconds = taken > 0 ? p.seconds / taken * double(std::max<int64_t>(0, total - sim.steps())) : 0;
    return p;
  };
  const auto checkpoint = [&] {
    if (control.checkpoint.empty()) return;
    write_checkpoint(control.checkpoint, run);
    ++out.checkpoints;
    last_checkpoint = seconds();
    last_checkpoint_step = sim.steps();
    if (control.checkpoint_written) control.checkpoint_written(control.checkpoint, sim.steps());
  };
  while (sim.steps() < total) {
    if (control.stop && control.stop->load(std::memory_order_relaxed)) break;
    sim.step();
    const double s = seconds();
    if (control.progress && control.progress_seconds > 0 && s - last_progress >= control.progress_seconds) {
      last_progress = s;
      control.progress(progress());
    }
    const bool by_steps = control.checkpoint_steps > 0 && sim.steps() % control.checkpoint_steps == 0;
    const bool by_time = control.checkpoint_seconds > 0 && s - last_checkpoint >= control.checkpoint_seconds;
    if ((by_steps || by_time) && sim.steps() < total) checkpoint();
  }
  out.completed = sim.steps() >= total;
  // One at the end, also when stopped, unless this very step was just written.
  if (last_checkpoint_step != sim.steps() || out.checkpoints == 0) checkpoint();
  out.steps = sim.steps() - first;
  out.seconds = seconds();
  out.last = progress();
  return out;
}

double estimate_memory_bytes(const JobRun& run) {
  const Simulation& sim = run.simulation();
  const YeeLattice& lat = sim.lattice();
  const double samples = double(lat.samples());
  const double real = sim.precision() == Precision::float32 ? 4 : 8;
  const double parts = sim.complex_fields() ? 2 : 1;
  double components = 0, electric = 0;
  for (Component c : lat.components()) components += 1, electric += is_electric(c) ? 1 : 0;
  double bytes = components * samples * real * parts;  // E and H
  bool dispersive = is_dispersive(run.job().problem.geometry);
  if (dispersive) bytes += electric * samples * real * parts * 3;  // D, and P with its history (one model)
  for (const auto& arrays : {sim.materials().inverse, sim.materials().conductivity})
    for (const std::vector<double>& a : arrays) bytes += 8 * double(a.size());
  // CPML: per component, one psi per other axis with a slab, over the slab's cells.
  const ResolvedBoundaries& b = sim.boundaries();
  for (Component c : lat.components())
    for (int a = 0; a < 3; ++a) {
      const double slabs = double(b.axis[size_t(a)].pml_low + b.axis[size_t(a)].pml_high);
      if (a != axis_of(c) && b.axis[size_t(a)].active && slabs > 0) bytes += samples / double(lat.n(a)) * slabs * real * parts;
    }
  for (const MonitorObjects& o : run.monitor_objects()) {
    for (const DftFields* d : o.dfts) bytes += 16 * double(d->points()) * double(d->frequencies().size());
    for (const std::vector<SurfaceDft>* s : {o.flux ? &o.flux->surfaces() : nullptr})
      if (s)
        for (const SurfaceDft& r : *s)
          for (const DftFields& d : r.transforms()) bytes += 16 * double(d.points()) * double(d.frequencies().size());
  }
  return bytes;
}

}  // namespace spire::elec
