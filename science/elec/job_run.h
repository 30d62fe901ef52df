// Running an electromagnetics job (job.h): the problem built into a Simulation, the job's monitors
// and port monitors attached, stepped to the job's end with progress reports, checkpoints (every N
// steps or T seconds of wall time, at the end, and when stopped: checkpoint.h) and a clean stop on
// request, and the results written to one HDF5 file.
//
// Results file (write_results; written under a temporary name and renamed when whole):
//   /                     format = "spire.elec.results", format_version, spire_version, job (the
//                         TOML), units, dft_convention, dimensions, resolution, courant, dt, steps,
//                         time, size_x/y/z, n_x/y/z, precision
//   /monitors/<name>      attribute kind, and per kind:
//     dft_fields          frequencies [F]; <C>/values complex [F][n_x][n_y][n_z] (x slowest),
//                         <C>/x, y, z the points' coordinates (one 0 along axes the problem lacks)
//     flux                frequencies [F], flux [F]; region_center, region_size [R][3], region_weight [R]
//     near2far            frequencies, region_*; far_field/theta, phi (degrees), points [P][3],
//                         E, H complex [F][P][3]; radiated_power [F] (attribute radius)
//     point               time [N] (the step times), <C> [N] (and <C>_imag for complex fields),
//                         attribute time_offset per component (0 for E, -dt/2 for H)
//     harminv             frequency, decay, q, error [M], amplitude complex [M]; attributes
//                         component, point, fcen, df, start_time, samples (and error when the
//                         analysis could not run, e.g. too few samples)
//     snapshots           attributes file, xdmf (the sidecar) and parts (the part files)
//   /ports/<i>            frequencies, voltage, current, impedance, incident, reflected (complex
//                         [F]); attribute resistance (ohms)
// Complex values are the compound {r, i} that h5py reads as complex128. DFT normalisation as
// monitors.h: sum_n f(t_n) e^{i 2 pi f t_n} dt (Meep's DFTs are these / sqrt(2 pi), its fluxes / 2 pi).
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "science/elec/job.h"
#include "science/elec/monitors.h"
#include "science/elec/port.h"

namespace spire::elec {

// The objects one [[monitor]] made (the one its kind makes; dft_fields one per component).
struct MonitorObjects {
  const MonitorSpec* spec = nullptr;
  std::vector<DftFields*> dfts;
  Flux* flux = nullptr;
  Near2Far* near2far = nullptr;
  PointTimeSeries* point = nullptr;
  HarmonicPoint* harminv = nullptr;
  FieldSnapshotWriter* snapshots = nullptr;
};

class JobRun {
 public:
  // Builds the job's problem (problem.h's build(); `platform` replaces the job's when not empty)
  // and attaches its monitors, in the job's order, loading load_minus_data files. The errors of
  // the parts, prefixed with the monitor or port they concern.
  explicit JobRun(const EmJob& job, const std::string& platform = "");
  ~JobRun();
  JobRun(const JobRun&) = delete;
  JobRun& operator=(const JobRun&) = delete;

  const EmJob& job() const { return job_; }
  Simulation& simulation() { return *sim_; }
  const Simulation& simulation() const { return *sim_; }
  Monitors& monitors() { return *monitors_; }
  const std::vector<MonitorObjects>& monitor_objects() const { return objects_; }
  // ValueError naming the monitors there are when `name` is not one of them.
  const MonitorObjects& monitor(const std::string& name) const;
  // One per [[port]]; null where the port records nothing (no frequencies).
  const std::vector<std::unique_ptr<PortMonitor>>& port_monitors() const { return ports_; }

  // Where the run ends: [run] until, or until_after_sources after the last source ends, as the
  // number of steps Simulation::run(until) takes from 0. ValueError for until_after_sources with a
  // source that never ends.
  double end_time() const;
  int64_t total_steps() const;

  // The run's state for checkpoints: the Simulation's arrays under "simulation/", the monitors'
  // under "monitors/", each port monitor's under "ports/<i>/". Saving commits the snapshot files
  // (Monitors::save_state). load_state restores all of it (ValueError naming what does not fit).
  SimulationState save_state();
  void load_state(const SimulationState& state);

  // After the last step: writes the flux and near2far save_data files and closes the snapshot
  // files. Idempotent.
  void finish();

 private:
  const EmJob& job_;
  std::unique_ptr<Simulation> sim_;
  std::unique_ptr<Monitors> monitors_;
  std::vector<MonitorObjects> objects_;
  std::vector<std::unique_ptr<PortMonitor>> ports_;
  bool finished_ = false;
};

// Progress of a run, as run_job reports it.
struct RunProgress {
  int64_t step = 0, total_steps = 0;
  double time = 0, end_time = 0;
  double seconds = 0;                  // wall time since this session started stepping
  double cell_updates_per_second = 0;  // lattice cells x steps of this session / seconds
  double eta_seconds = 0;              // at this session's speed
};

struct RunControl {
  std::string checkpoint;           // where checkpoints go ("" for none)
  int64_t checkpoint_steps = 0;     // every this many steps (0: not by steps)
  double checkpoint_seconds = 0;    // every this many seconds of wall time (0: not by time)
  double progress_seconds = 0;      // between progress calls (0: none)
  std::function<void(const RunProgress&)> progress;
  std::function<void(const std::string& path, int64_t step)> checkpoint_written;
  const std::atomic<bool>* stop = nullptr;  // read before every step: true ends the run early
};
// The job's [run] settings (checkpoint path and schedule, progress interval).
RunControl run_control(const EmJob& job);

struct RunOutcome {
  bool completed = false;  // reached total_steps (false: stopped)
  int64_t steps = 0;       // taken in this session
  double seconds = 0;
  int checkpoints = 0;     // written in this session
  RunProgress last;
};
// Steps the run from its current step to total_steps(), with progress calls, checkpoints on the
// schedule and one at the end (also when stopped early), when control.checkpoint is set.
RunOutcome run_job(JobRun& run, const RunControl& control);

// The results file (header comment); written whole or not at all.
void write_results(const std::string& path, const JobRun& run);

// An estimate of the memory a run of this job holds (fields, material arrays, CPML, DFTs), in
// bytes, from its lattice and monitors, without building it.
double estimate_memory_bytes(const JobRun& run);

}  // namespace spire::elec
