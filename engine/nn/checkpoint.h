// Training checkpoints in one HDF5 file: a model's state_dict, an optimizer's and a scheduler's
// state_dict, the state of random generators, the epoch and step, and user metadata strings, so that
// a run stopped and resumed from the file continues bit for bit.
//
// Layout (readable with h5py; groups keep their entries' insertion order, tracked by creation order):
//   /                 attributes: format = "spire.checkpoint", version = 1, epoch, step (int64)
//   /model/<key>      one dataset per state_dict entry ("0.weight"), in the tensor's dtype
//   /optimizer/<key>  tensors as datasets; numbers ("lr", "state.0.step") as scalar datasets of
//   /scheduler/<key>  float64 or int64; each dataset has an attribute kind = "tensor" | "float" | "int"
//   /rng/<name>       one group per generator ("default" is the process-wide default generator),
//                     with scalar uint64 datasets seed, stream, offset
//   /meta/<key>       user metadata: scalar variable-length UTF-8 string datasets
//   /state/<name>/<key>  named state dicts of whatever else a run needs to resume (a replay
//                     buffer, counters), stored as the optimizer's entries are
// Every tensor dataset carries an attribute dtype = spire's dtype name. bool is stored as uint8;
// complex64 / complex128 as float32 / float64 with a trailing axis of 2 (real, imaginary), so
// h5py reads it as shape (..., 2) and `a[..., 0] + 1j * a[..., 1]` rebuilds it.
// A group is absent when nothing was saved into it (no optimizer, no scheduler).
//
// The file is written to "<path>.tmp-<pid>" and renamed over `path` only once complete and closed:
// a crash mid-write leaves the previous checkpoint intact. Every HDF5 call holds
// spire::data::hdf5_mutex() (Debian's HDF5 is not thread-safe).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/nn/module.h"
#include "engine/ops/random.h"
#include "engine/optim/optimizer.h"
#include "engine/optim/scheduler.h"
#include "engine/optim/state_dict.h"

namespace spire::nn {

struct GeneratorState {
  uint64_t seed = 0, stream = 0, offset = 0;
};

// What a checkpoint file holds, as plain values (the Python bindings use this form).
struct CheckpointData {
  std::optional<StateDict> model;
  std::optional<optim::StateDict> optimizer, scheduler;
  std::vector<std::pair<std::string, GeneratorState>> rng;  // name -> state, in order
  int64_t epoch = 0, step = 0;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<std::pair<std::string, optim::StateDict>> state;  // name -> entries, in order
};

// Writes atomically (temp file then rename). Tensors on other devices are copied to the CPU.
// IOError when the file cannot be created or renamed; ValueError for a key HDF5 cannot name
// (empty, or containing '/').
void write_checkpoint(const std::string& path, const CheckpointData& data);
// Reads a whole checkpoint. IOError naming the path when it is missing, not HDF5, or not a
// Spire checkpoint (no format attribute), or when an entry cannot be read.
CheckpointData read_checkpoint(const std::string& path);

// The live objects a checkpoint is taken from and restored into; any may be null / empty.
struct CheckpointTargets {
  Module* model = nullptr;
  optim::Optimizer* optimizer = nullptr;
  optim::LRScheduler* scheduler = nullptr;
  std::vector<std::pair<std::string, Generator*>> generators;  // named; "default" is reserved
  bool default_generator = true;  // save / restore spire::default_generator() as "default"
};

struct CheckpointInfo {
  int64_t epoch = 0, step = 0;
  std::vector<std::pair<std::string, std::string>> metadata;
};

void save_checkpoint(const std::string& path, const CheckpointTargets& targets, int64_t epoch = 0,
                     int64_t step = 0, const std::vector<std::pair<std::string, std::string>>& metadata = {});
// Restores into the existing objects (module.load_state_dict(strict), optimizer.load_state_dict,
// scheduler.load_state_dict, generators). A target whose part is absent from the file is a
// ValueError naming the part and the path; mismatched keys, shapes or dtypes are reported by the
// objects' own load_state_dict. Returns the epoch, step and metadata.
CheckpointInfo load_checkpoint(const std::string& path, const CheckpointTargets& targets, bool strict = true);

}  // namespace spire::nn
