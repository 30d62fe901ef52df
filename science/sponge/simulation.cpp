// The run loop, reporting schedule, restart and progress lines of a Simulation (simulation.h), on
// the cpu or on a platform's device in chunks of steps.
#include "science/sponge/simulation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "engine/core/error.h"
#include "science/sponge/checkpoint.h"

namespace spire::sponge {

Simulation::Simulation(System system, State state, ForceField forces, std::shared_ptr<Integrator> integrator,
                       SimulationOptions options)
    : system_(std::move(system)),
      state_(std::move(state)),
      forces_(std::move(forces)),
      integrator_(std::move(integrator)),
      options_(options) {
  SPIRE_CHECK(integrator_ != nullptr, ValueError, "Simulation: no integrator");
  system_.check();
  const size_t n = size_t(system_.size());
  SPIRE_CHECK(state_.positions.size() == n, ValueError, "Simulation: the state has ", state_.positions.size(),
              " positions for a system of ", n, " particles");
  if (state_.velocities.empty()) state_.velocities.assign(n, Vec3{});
  SPIRE_CHECK(state_.velocities.size() == n, ValueError, "Simulation: the state has ", state_.velocities.size(),
              " velocities for a system of ", n, " particles");
  // An unknown platform is named now rather than at the first step.
  if (options_.platform.name != "cpu")
    parse_platform(options_.platform.name + ":" + std::to_string(std::max(0, options_.platform.device)));
}

Simulation::~Simulation() = default;

void Simulation::add_reporter(ReporterPtr reporter, int64_t interval) {
  SPIRE_CHECK(reporter != nullptr, ValueError, "Simulation::add_reporter: null reporter");
  SPIRE_CHECK(interval >= 1, ValueError, "Simulation::add_reporter: ", reporter->name(), " has interval ", interval,
              "; it must be a number of steps >= 1");
  reporters_.push_back({std::move(reporter), interval});
}

void Simulation::add_callback(int64_t interval, std::function<void(Simulation&)> callback) {
  SPIRE_CHECK(callback != nullptr, ValueError, "Simulation::add_callback: empty callback");
  SPIRE_CHECK(interval >= 1, ValueError, "Simulation::add_callback: interval ", interval,
              "; it must be a number of steps >= 1");
  callbacks_.push_back({interval, std::move(callback)});
}

State& Simulation::modify_state() {
  stale_ = true;
  observables_valid_ = false;
  return state_;
}

void Simulation::prepare() {
  if (!checked_) {
    forces_.check(system_, state_);
    checked_ = true;
  }
  if (!stale_) return;
  if (options_.platform.name == "cpu") {
    integrator_->prepare(system_, state_, forces_);
  } else {
    // The host puts the state on its constraints and sets the integrator up (the thermostat's
    // degrees of freedom) as on the cpu; the device computes the forces at what it is given.
    integrator_->prepare(system_, state_, no_forces_);
    if (!device_)
      device_ = make_device_dynamics(options_.platform, system_, forces_, *integrator_, options_.seed);
    device_->upload(state_, integrator_->save_state());
    pull_from_device();
  }
  stale_ = false;
  observables_valid_ = false;
}

void Simulation::pull_from_device() {
  ForceResult result = forces_.result();  // sized as before; the device overwrites every part
  IntegratorState variables;
  device_->download(state_, result, variables, device_constraint_virial_);
  forces_.set_result(std::move(result));
  integrator_->load_state(variables);
  observables_valid_ = false;
}

std::string Simulation::device() const {
  if (options_.platform.name == "cpu") return "cpu";
  if (device_) return device_->device();
  return options_.platform.name + ":" + std::to_string(options_.platform.device);
}

int64_t Simulation::steps_to_next_due(int64_t limit) const {
  int64_t n = limit;
  // interval - step % interval is in [1, interval]: the next multiple after the current step.
  for (const Scheduled& r : reporters_) n = std::min(n, r.interval - state_.step % r.interval);
  for (const Callback& c : callbacks_) n = std::min(n, c.interval - state_.step % c.interval);
  return n;
}

const Observables& Simulation::observables() const {
  SPIRE_CHECK(!stale_, ValueError, "Simulation::observables: the forces are not computed at the current state; "
              "call prepare() (run() and restore() do) first");
  if (!observables_valid_) {
    observables_ = compute_observables(system_, state_, forces_.result(), removes_com_motion(),
                                       device_ ? device_constraint_virial_ : integrator_->constraint_virial());
    observables_.conserved_energy = integrator_->conserved_energy(system_, state_, forces_);
    observables_valid_ = true;
  }
  return observables_;
}

bool Simulation::removes_com_motion() const {
  if (options_.remove_com_motion) return *options_.remove_com_motion;
  return integrator_->removes_com_motion();
}

void Simulation::report_due() {
  for (Scheduled& r : reporters_) {
    // A run that starts where the previous one ended has reported this step already.
    if (state_.step % r.interval != 0 || r.last_step == state_.step) continue;
    r.reporter->report(*this);
    r.last_step = state_.step;
  }
}

namespace {

std::string clock_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const long s = long(std::llround(seconds));
  char buf[48];
  if (s >= 86400)
    std::snprintf(buf, sizeof buf, "%ldd %02ld:%02ld:%02ld", s / 86400, s / 3600 % 24, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  return buf;
}

// Simulated time per day as "12.3 ns/day" (md: the time unit is ps) or "4.56e+03 tau/day".
std::string speed_text(const Units& units, double per_day) {
  char buf[64];
  if (units.time == "ps")
    std::snprintf(buf, sizeof buf, "%.4g ns/day", per_day / 1000);
  else
    std::snprintf(buf, sizeof buf, "%.4g %s/day", per_day, units.time.c_str());
  return buf;
}

}  // namespace

void Simulation::progress_line(int64_t done, int64_t total, std::chrono::steady_clock::time_point start, double t0) {
  std::ostream& out = options_.progress ? *options_.progress : std::cerr;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double per_day = wall > 0 ? (state_.time - t0) / wall * 86400 : 0;
  const double eta = done > 0 ? wall * double(total - done) / double(done) : NAN;
  char buf[160];
  std::snprintf(buf, sizeof buf, "sponge: step %lld (%lld/%lld, %.1f%%), t = %.6g %s, ", (long long)state_.step,
                (long long)done, (long long)total, total > 0 ? 100.0 * double(done) / double(total) : 100.0,
                state_.time, system_.units.time.c_str());
  out << buf << speed_text(system_.units, per_day) << on_device() << ", ETA " << clock_text(eta) << std::endl;
}

void Simulation::run(int64_t steps) {
  SPIRE_CHECK(steps >= 0, ValueError, "Simulation::run: ", steps, " steps; the number of steps must be >= 0");
  prepare();
  report_due();
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const double t0 = state_.time;
  const bool show = options_.progress_seconds > 0;
  Clock::time_point next_line = start + std::chrono::duration_cast<Clock::duration>(
                                            std::chrono::duration<double>(show ? options_.progress_seconds : 0));
  bool any_line = false;
  interrupted_ = false;
  int64_t done = 0;
  while (done < steps) {
    if (options_.poll) options_.poll();
    if (options_.stop && options_.stop->load(std::memory_order_relaxed)) {
      interrupted_ = true;
      break;
    }
    if (device_) {
      // Up to the next step the host must see (a report, a callback, the end of the run).
      const int64_t chunk = steps_to_next_due(std::min(steps - done, kDeviceChunk));
      try {
        device_->run(chunk);
      } catch (...) {
        stale_ = true;  // the host keeps the last chunk's end; the device is loaded from it again first
        throw;
      }
      done += chunk;
      pull_from_device();
    } else {
      ++done;
      integrator_->step(system_, state_, forces_);
    }
    observables_valid_ = false;
    // By index, on a copy: a callback may add callbacks (the vector may grow under it).
    for (size_t k = 0; k < callbacks_.size(); ++k)
      if (state_.step % callbacks_[k].interval == 0) {
        const std::function<void(Simulation&)> f = callbacks_[k].function;
        f(*this);
      }
    if (stale_) prepare();
    report_due();
    if (show && done < steps && Clock::now() >= next_line) {
      progress_line(done, steps, start, t0);
      any_line = true;
      next_line = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(options_.progress_seconds));
    }
  }
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  speed_per_day_ = wall > 0 ? (state_.time - t0) / wall * 86400 : 0;
  for (Scheduled& r : reporters_) r.reporter->finish(*this);
  if (any_line) {
    std::ostream& out = options_.progress ? *options_.progress : std::cerr;
    char buf[96];
    std::snprintf(buf, sizeof buf, "sponge: %lld steps in %.3g s%s, ", (long long)done, wall,
                  interrupted_ ? " (stopped early)" : "");
    out << buf << speed_text(system_.units, speed_per_day_) << on_device() << std::endl;
  }
}

void Simulation::run_until(double time) {
  SPIRE_CHECK(std::isfinite(time), ValueError, "Simulation::run_until: time ", time, " is not finite");
  const double n = (time - state_.time) / integrator_->dt();
  if (n <= 0) return;
  const double nearest = std::round(n);
  run(int64_t(std::abs(n - nearest) <= 1e-6 ? nearest : std::ceil(n)));
}

void Simulation::save_checkpoint(const std::string& path) const {
  write_checkpoint(path, system_, state_, *integrator_, options_.seed);
}

void Simulation::restore(const std::string& path) {
  Checkpoint c = read_checkpoint(path);
  check_checkpoint_matches(c, path, system_, *integrator_, options_.seed);
  state_ = std::move(c.state);
  integrator_->load_state(c.integrator_state);
  stale_ = true;
  observables_valid_ = false;
  prepare();
  for (Scheduled& r : reporters_) r.last_step = r.reporter->resume(*this, state_.step) ? state_.step : -1;
}

}  // namespace spire::sponge
