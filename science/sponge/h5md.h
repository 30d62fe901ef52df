// H5MD 1.1 trajectories (de Buyl, Colberg, Hoefling, CPC 185 (2014) 1546; nongnu.org/h5md), as
// MDAnalysis, VMD's h5md plugin and LAMMPS's dump h5md read them:
//
//   h5md/                    version = [1, 1]; author (name, email); creator (name = Spire, version)
//   h5md/modules/units       version = [1, 0], system = SI (md units only)
//   particles/<group>/       group "all" by default (LAMMPS's)
//     box/                   dimension = 3, boundary = [periodic|none] x 3
//       edges/               time-dependent: step, time, value [frames][3] (orthorhombic) or
//                            [frames][3][3] (triclinic: rows a, b, c); only with a periodic box
//     position/, velocity/, force/   step [frames], time [frames], value [frames][N][3]
//     species [N]            the type index of each particle (System::type)
//     mass [N], charge [N]
//   observables/             step, time, value [frames] each:
//     potential_energy, kinetic_energy, total_energy, temperature, pressure, volume,
//     pressure_tensor (value [frames][3][3]), energies/<term> per force term, conserved_energy
//     (the integrator's conserved quantity, when it has one)
//   parameters/              attribute units (md or lj); dataset job (the job's TOML) when given
//   /                        attribute complete (see below)
//
// Every time-dependent element records the same frames, so they share one step and one time dataset
// (hard links, as H5MD allows). Units: an attribute unit on each value and time dataset in md units
// ("nm", "ps", "nm ps-1", "kJ mol-1 nm-1", "kJ mol-1", "K", "bar", "nm3", "u", "e"); lj files
// carry none (reduced units; read them with MDAnalysis's convert_units=False). H5MD's other string
// attributes are fixed-length ASCII as the specification says; unit is variable-length ASCII, the
// kind MDAnalysis can look up (it refuses the bytes h5py returns for fixed-length strings).
// Positions are written as the State holds them (wrapped or not, as the integrator keeps them).
//
// The box is a time-dependent element even at constant volume: H5MD allows a fixed edges dataset
// there, but MDAnalysis reads box/edges/value per frame and fails on one; 9 numbers per frame are
// the price of files every reader opens.
//
// Whole or marked otherwise. A trajectory grows as the run goes and a restarted run appends to it,
// so it is written under its final name (never a temporary one: a restart must find it there) and
// kept valid on disk: every frame is flushed when written, and the root attribute complete is 0
// while a run writes the file and set to 1 when run() ends and closes it (the next run() reopens it
// and appends). A file with complete = 0 is one whose run stopped (a crash, a kill): its frames up
// to the last flush are whole, and a restart from a checkpoint drops those after the checkpoint's
// step and appends from there (frames of a step are appended in element order, so a frame cut
// short by a crash is dropped as well). While a run writes the file, HDF5's file lock keeps other programs
// from opening it; readers that want a look at a running trajectory set HDF5_USE_FILE_LOCKING=FALSE.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "science/sponge/simulation.h"

namespace spire::sponge {

struct H5mdOptions {
  std::string path;
  std::string group = "all";  // particles/<group>
  bool position = true, velocity = true, force = false;
  bool observables = true;
  bool float32 = false;       // position, velocity and force values stored as float32
  std::string author;         // H5MD requires one: "" takes $USER (else "unknown")
  std::string author_email;   // optional
  std::string job_toml;       // stored as parameters/job when non-empty
};

class H5mdWriter : public Reporter {
 public:
  // ValueError when the path or group is empty or no element is selected.
  explicit H5mdWriter(H5mdOptions options);
  ~H5mdWriter() override;  // closes the file (complete = 1) when open
  std::string name() const override { return "h5md " + options_.path; }
  void report(const Simulation& sim) override;
  // Opens the existing file and drops frames of steps > step (a fresh file when there is none).
  bool resume(const Simulation& sim, int64_t step) override;
  void finish(const Simulation& sim) override;  // closes: complete = 1

  // A frame from these parts (what report() does): the file is created by the first frame,
  // reopened and appended to after close().
  void write_frame(const System& system, const State& state, const ForceResult& forces, const Observables& obs);
  void close();
  bool is_open() const { return file_ >= 0; }
  int64_t frames() const { return frames_; }
  const H5mdOptions& options() const { return options_; }

 private:
  void create(const System& system, const State& state, const ForceResult& forces, const Observables& obs);
  void reopen(const System& system, const State& state, const ForceResult& forces, const Observables& obs,
              int64_t keep_through_step);

  H5mdOptions options_;
  int64_t file_ = -1;  // hid_t
  int64_t frames_ = 0;
  int64_t last_step_ = -1;  // the step of the last frame
  bool created_ = false;  // this writer created the file (or appended to it): later opens append
  std::vector<std::string> terms_;  // the energy terms under observables/energies
  bool triclinic_ = false, periodic_ = false, conserved_ = false;
  int64_t particles_ = 0;
};

}  // namespace spire::sponge
