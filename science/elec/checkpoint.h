// Checkpoints of a job's run (`spire em run --resume`): everything the run needs to continue bit
// for bit as the uninterrupted run would have, in one HDF5 file written atomically (under a
// temporary name, renamed when whole: a crash while writing leaves the previous checkpoint).
//
//   /                   format = "spire.elec.checkpoint", format_version, spire_version, job (the
//                       TOML text), steps, time, dt, fingerprint (64-bit hash of the parts below)
//   /fingerprint        attributes <part> = the 64-bit hash of each part of the job that decides
//                       the run: cell, boundaries, geometry, sources, plane_waves, ports, monitors
//   /state/<name>       float64 arrays: JobRun::save_state() (the Simulation's fields, CPML and
//                       polarisation state, distributed sources; every monitor's accumulators; the
//                       port monitors'), each name a path ("simulation/E/Ez/re")
//
// The fingerprint leaves out what a resumed run may change: the run's length ([run] until, so a
// finished run can be continued further), the checkpoint and progress settings, the output file,
// the platform (a checkpoint written on one platform resumes on another), and the far-field and
// harmonic-inversion analysis settings, which act on the results only. Float32 runs store their
// fields as float64, which converts back exactly.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "science/elec/job.h"
#include "science/elec/job_run.h"

namespace spire::elec {

struct FingerprintPart {
  std::string name;
  uint64_t hash = 0;
};
// The parts in a fixed order: cell, boundaries, geometry, sources, plane_waves, ports, monitors.
std::vector<FingerprintPart> job_fingerprint(const EmJob& job);
uint64_t fingerprint_hash(const std::vector<FingerprintPart>& parts);

// Writes the run's state (JobRun::save_state, which commits the snapshot files) atomically.
void write_checkpoint(const std::string& path, JobRun& run);

struct Checkpoint {
  int64_t steps = 0;
  double time = 0, dt = 0;
  std::string spire_version, job;
  std::vector<FingerprintPart> fingerprint;
  SimulationState state;
};
// IOError naming the path when it is missing, not HDF5, or not an elec checkpoint.
Checkpoint read_checkpoint(const std::string& path);
// ValueError naming the first part of the job that differs from the one that wrote the checkpoint,
// or a time step that differs.
void check_checkpoint_matches(const Checkpoint& checkpoint, const std::string& path, const EmJob& job, double dt);
// read_checkpoint, check_checkpoint_matches, JobRun::load_state.
void restore_checkpoint(const std::string& path, JobRun& run);

}  // namespace spire::elec
