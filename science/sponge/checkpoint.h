// Checkpoints: everything a run needs to continue bit for bit, in one HDF5 file written atomically
// (under a temporary name, renamed when whole: a crash while writing leaves the previous checkpoint).
//
//   /                       format = "spire.sponge.checkpoint", format_version, spire_version,
//                           step, time, seed, integrator (its name), dt, units
//   /state/positions        float64 [N][3]   exact bits of the State
//   /state/velocities       float64 [N][3]
//   /state/box              float64 [3][3]   rows a, b, c; attribute periodic (0/1)
//   /integrator/<key>       float64 [n]      Integrator::save_state(), keys may hold '/'
//   /system                 attributes hash and <part>_hash, <part>_count for units, mass,
//                           charge, type, type_names and each topology list; datasets mass and
//                           charge, so that a restore into another system names the difference
//
// Random numbers need no saved generator: Philox is keyed by the seed and counted by step and
// particle (integrator.h), so the seed and the step continue the stream.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "science/sponge/simulation.h"

namespace spire::sponge {

// One part of a System's fingerprint: a 64-bit FNV-1a hash of its contents and its length.
struct SystemPart {
  std::string name;
  uint64_t hash = 0;
  int64_t count = 0;
};

// The parts in a fixed order: units, mass, charge, type, type_names, bonds, angles, torsions,
// impropers, pairs14, constraints, waters, exclusions.
std::vector<SystemPart> system_fingerprint(const System& system);
// One hash of the whole fingerprint.
uint64_t system_hash(const System& system);

struct Checkpoint {
  State state;
  std::string integrator;
  double dt = 0;
  IntegratorState integrator_state;
  uint64_t seed = 0;
  std::string units;
  std::string spire_version;
  uint64_t system_hash = 0;
  std::vector<SystemPart> system_parts;
  std::vector<double> mass, charge;
};

void write_checkpoint(const std::string& path, const System& system, const State& state, const Integrator& integrator,
                      uint64_t seed);
// IOError naming the path when it is missing or not a checkpoint.
Checkpoint read_checkpoint(const std::string& path);
// ValueError naming the first difference between the checkpoint and what it is restored into:
// the system (particle count, the first particle whose mass or charge differs, the topology list
// that differs), the integrator's name, the time step, the seed.
void check_checkpoint_matches(const Checkpoint& checkpoint, const std::string& path, const System& system,
                              const Integrator& integrator, uint64_t seed);

// A reporter writing a checkpoint every `interval` steps to one path (replaced each time), and at
// the end of each run() unless that step was just written.
class CheckpointWriter : public Reporter {
 public:
  explicit CheckpointWriter(std::string path);
  std::string name() const override { return "checkpoint " + path_; }
  void report(const Simulation& sim) override;
  void finish(const Simulation& sim) override;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int64_t last_step_ = -1;
};

}  // namespace spire::sponge
