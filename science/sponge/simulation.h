// A simulation: the System, its State, the ForceField and the Integrator, with the outputs written
// as the run goes (OpenMM's Simulation and reporters; LAMMPS's thermo, dump and restart).
//
//   Simulation sim(system, state, std::move(force_field), integrator, {.seed = 42});
//   sim.add_reporter(std::make_shared<ThermoLog>(std::cout), 100);     // thermo.h
//   sim.add_reporter(std::make_shared<H5mdWriter>(opts), 1000);        // h5md.h
//   sim.add_reporter(std::make_shared<CheckpointWriter>("run.chk"), 10000);  // checkpoint.h
//   sim.run(100000);
//
// Reporting. A reporter with interval n reports at every step that is a multiple of n, including
// the step a run starts from (LAMMPS's thermo prints step 0), but never twice for one step: two
// consecutive run() calls give the same records as one run of their total length.
//
// Restart. restore(checkpoint) puts back the state, the integrator's variables and the step, then
// tells every reporter to resume at that step: records of later steps (written by the run being
// restarted after its last checkpoint) are dropped and the files are appended to; a record of the
// checkpoint's step itself is kept (it is not written again). Running N steps, checkpointing,
// restoring into a fresh Simulation and running N more gives the same bits and the same files as
// one run of 2N steps.
//
// Callbacks (for Python and for hooks such as a barostat applied every n steps) run after the
// integrator's step and before the reporters of that step. A callback that changes positions,
// velocities or the box does so through modify_state(); the forces are then recomputed before the
// reporters and the next step (Integrator::prepare).
//
// Stopping early. SimulationOptions::stop, when set to true while run() goes (by a SIGINT handler,
// another thread or a callback), ends the run after the step in progress, as if it were the last:
// the reporters finish (so the checkpoint writer writes a checkpoint of that step) and
// interrupted() is true until the next run().
//
// Progress. While run() goes, a line on the progress stream (stderr by default) every
// progress_seconds: step, simulated time, speed (ns/day in md units, tau/day in lj), the device
// when the steps run on one, and the time left; and a summary at the end when any progress line
// was written.
//
// Platforms (platform.h). SimulationOptions::platform other than "cpu" makes the platform's
// DeviceDynamics at the first prepare() (or run(), or restore()), which takes the state and the
// integrator's variables and runs whole steps on its device, in chunks that end exactly at every
// step where a reporter or a callback is due, at the end of run() and at most kDeviceChunk steps
// apart (the stop flag is read between chunks, so a stop is honoured within one chunk). After a
// chunk the device's state, forces, energies, integrator variables and constraint virial come
// back into this object, so observables, reporters, callbacks and checkpoints are this host code
// on every platform, and a checkpoint written on one platform restarts on another. A state
// changed by a callback (modify_state()) or by restore() is uploaded before the next step. The
// host integrator only keeps the variables (save_state()) and sets itself up; it never steps.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "science/sponge/integrator.h"
#include "science/sponge/observables.h"
#include "science/sponge/platform.h"

namespace spire::sponge {

class Simulation;

// Something written as the run goes: a thermo log, a trajectory, checkpoints.
class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual std::string name() const = 0;
  // A record of the simulation's current step (its forces and observables are up to date).
  virtual void report(const Simulation& sim) = 0;
  // Before a restored run continues from `step`: drop records of steps > step and append after.
  // Returns whether a record of `step` itself is kept (then it is not reported again).
  virtual bool resume(const Simulation& sim, int64_t step) { return false; }
  // End of run(): flush, and leave the output whole (readable by other programs until the next run).
  virtual void finish(const Simulation& sim) {}
};

using ReporterPtr = std::shared_ptr<Reporter>;

struct SimulationOptions {
  uint64_t seed = 0;  // the run's seed; a checkpoint holds it and restore() requires the same
  // Whether the temperature's degrees of freedom leave out the 3 of the centre of mass. Unset: the
  // integrator's removes_com_motion().
  std::optional<bool> remove_com_motion;
  double progress_seconds = 5;       // <= 0: no progress lines
  std::ostream* progress = nullptr;  // null: std::cerr
  // Read before every step; true ends run() after the step in progress (see above). Lock-free, so a
  // signal handler may set it.
  const std::atomic<bool>* stop = nullptr;
  // Called where the stop flag is read (before every step on the cpu, between chunks on a device);
  // it may throw to abandon the run, leaving the simulation at the step it reached (the Python
  // module checks for Ctrl-C here without making every step a chunk boundary).
  std::function<void()> poll;
  // Where the steps run: "cpu" (this library's kernels) or a registered platform (parse_platform).
  PlatformChoice platform;
};

class Simulation {
 public:
  // ValueError when the system fails System::check() or the state's sizes disagree with it (empty
  // velocities are taken as zero).
  Simulation(System system, State state, ForceField forces, std::shared_ptr<Integrator> integrator,
             SimulationOptions options = {});
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // interval >= 1; ValueError otherwise.
  void add_reporter(ReporterPtr reporter, int64_t interval);
  void add_callback(int64_t interval, std::function<void(Simulation&)> callback);

  // steps >= 0 integration steps; reporters at the start (when due) and after each due step.
  void run(int64_t steps);
  // Runs until state().time reaches `time` (the number of steps rounded to the nearest whole step
  // when within 1e-6 of one, else up).
  void run_until(double time);

  // Forces (and observables) at the current state, recomputed when the state was modified.
  void prepare();

  const System& system() const { return system_; }
  const State& state() const { return state_; }
  // The state, to change (positions, velocities, box): the forces are recomputed before use.
  State& modify_state();
  const ForceField& force_field() const { return forces_; }
  const Integrator& integrator() const { return *integrator_; }
  const SimulationOptions& options() const { return options_; }
  uint64_t seed() const { return options_.seed; }
  // The latest force evaluation: forces, energies per term, virial (at the current state after
  // prepare(), run() or restore()).
  const ForceResult& forces() const { return forces_.result(); }
  // Kinetic energy, temperature, pressure at the current state (computed once per step), with the
  // integrator's constraint virial and conserved energy.
  const Observables& observables() const;
  bool removes_com_motion() const;
  // Where the steps run, for logs: "cpu", or the platform's device ("cuda:0 (NVIDIA H100 80GB HBM3)")
  // once prepare() has made it.
  std::string device() const;

  // The most steps a device runs between two looks at the stop flag.
  static constexpr int64_t kDeviceChunk = 100;

  // Writes a checkpoint of the current step (checkpoint.h): atomic, whole or not at all.
  void save_checkpoint(const std::string& path) const;
  // Continues the run of a checkpoint: state, step, time, integrator variables. IOError when the
  // file is not a checkpoint; ValueError naming the difference when it was written for another
  // system, integrator, time step or seed.
  void restore(const std::string& path);

  // Speed of the latest run(): simulated time per wall-clock day in the system's time unit
  // (ps/day / 1000 = ns/day in md units; tau/day in lj). 0 before any run.
  double speed_per_day() const { return speed_per_day_; }
  // Whether the latest run() ended early because options().stop was set.
  bool interrupted() const { return interrupted_; }

 private:
  struct Scheduled {
    ReporterPtr reporter;
    int64_t interval;
    int64_t last_step = -1;  // the step of its latest record
  };
  struct Callback {
    int64_t interval;
    std::function<void(Simulation&)> function;
  };
  void report_due();
  void progress_line(int64_t done, int64_t total, std::chrono::steady_clock::time_point start, double t0);
  // The steps (1 .. limit) from the current one to the next where a reporter or callback is due.
  int64_t steps_to_next_due(int64_t limit) const;
  // The device's state, forces, integrator variables and constraint virial into this object.
  void pull_from_device();
  // " on <device>" for progress lines when the steps run on a device; "" on the cpu.
  std::string on_device() const { return device_ ? " on " + device_->device() : std::string(); }

  System system_;
  State state_;
  ForceField forces_;
  std::shared_ptr<Integrator> integrator_;
  SimulationOptions options_;
  // Set when options_.platform is not "cpu": runs the steps; forces_ then only holds its results.
  std::unique_ptr<DeviceDynamics> device_;
  Mat3 device_constraint_virial_;
  // The integrator's prepare() on the host with a device: its setup (constraints, degrees of
  // freedom, thermostat) without a force evaluation the device makes anyway.
  ForceField no_forces_;
  std::vector<Scheduled> reporters_;
  std::vector<Callback> callbacks_;
  bool checked_ = false;
  bool stale_ = true;  // forces not computed at the current state
  mutable bool observables_valid_ = false;
  mutable Observables observables_;
  double speed_per_day_ = 0;
  bool interrupted_ = false;
};

}  // namespace spire::sponge
