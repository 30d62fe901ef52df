// Field output: snapshots of whole field components to HDF5 with an XDMF sidecar that ParaView
// opens as a time series of rectilinear grids (checked with VTK's XDMF reader, which ParaView uses),
// point time series, and the saved DFT data of flux monitors.
//
// Snapshot file layout (HDF5, "spire.elec.fields" version 1):
//   /                       attributes: format, format_version, spire_version, job (the job's TOML,
//                           may be empty), seed (when given), dimensions ("3d", "2d_tm", ...),
//                           resolution, dt, size_x/y/z, n_x/y/z (samples per axis), units, layout
//   /coordinates/<C>/x,y,z  component C's own staggered sample coordinates along each axis (in a;
//                           one 0 for an axis the problem lacks): each component has its own grid
//   /fields/<C>/<step>      one dataset per component per snapshot, named by the step number
//                           (8 digits), attributes time (the component's own time: t - dt/2 for H)
//                           and step; float64, or float32 with single_precision
//   /time, /step            the snapshots' step times (of the E fields) and step numbers
// Datasets are stored x fastest, as XDMF and VTK expect: shape [n_z][n_y][n_x] in 3D, [n_y][n_x]
// in 2D, [n_z][1][1] in 1D (yee.h keeps z fastest in memory; the writer transposes, and
// read_field_snapshot returns yee.h's order).
//
// The sidecar (same name, .xdmf) holds one temporal collection per component, each snapshot a
// uniform grid: 3DRectMesh/VXVYVZ (1D as a 3D grid one sample wide in x and y) or 2DRectMesh/VXVY,
// node-centred values on the component's own coordinates, Time = the step's time. It refers to the
// HDF5 file by its file name, so the two must stay side by side.
//
// Files are complete or absent: the HDF5 file is written under a temporary name and renamed when
// close() finishes it; the sidecar is written after, likewise. An exception unwinding through a
// writer that was not closed removes its temporary file.
//
// Checkpointed runs: commit() finishes the file written so far (renamed into place, the sidecar
// rewritten) and makes the next write() start a continuation file beside it, numbered by part:
// fields.h5, fields.1.h5, fields.2.h5, ... (same layout each). The one sidecar, fields.xdmf, lists
// the snapshots of every part in each component's temporal collection, so ParaView opens the
// whole run, across interruptions and resumes, as a single time series. A finished part is never
// rewritten: appending in place would break "whole or absent" (a crash mid-append leaves a broken
// file under the final name) or mean copying a file that may hold gigabytes at every checkpoint.
// save_state() records the finished parts; load_state() into a fresh writer takes them over (a
// resumed run), and its snapshots go to the next part.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "science/elec/dft.h"
#include "science/elec/flux.h"
#include "science/elec/yee.h"

namespace spire::elec {

// What produced a file (stored as attributes).
struct Provenance {
  std::string job;               // the job's TOML text, empty when the run did not come from one
  std::optional<uint64_t> seed;  // the job's seed, when it has one
};

struct FieldOutputOptions {
  std::vector<Component> components;  // empty: every component the lattice carries
  bool single_precision = false;      // float32 datasets (Meep's output_single_precision)
  Provenance provenance;
};

class FieldSnapshotWriter {
 public:
  // path: the HDF5 file (its sidecar replaces a .h5/.hdf5 extension by .xdmf, or appends .xdmf);
  // dt: the time step (> 0), to record each component's own time. IOError when the temporary file
  // cannot be created; ValueError for a component the lattice lacks or a bad dt.
  FieldSnapshotWriter(std::string path, const YeeLattice& lattice, double dt, FieldOutputOptions options = {});
  ~FieldSnapshotWriter();
  FieldSnapshotWriter(const FieldSnapshotWriter&) = delete;
  FieldSnapshotWriter& operator=(const FieldSnapshotWriter&) = delete;

  // One snapshot of the chosen components at step `step` (E fields at time t). Steps must increase.
  // Complex fields write their real parts (imag arrays are not read).
  template <class Real>
  void write(const FieldArrays<Real>& fields, double t, int64_t step);

  // Finishes the file and renames it into place, then writes the sidecar. Idempotent.
  void close();

  // Finishes the current part when it holds snapshots (renamed into place, sidecar rewritten);
  // the next write() starts the next part (header comment). Nothing happens when it holds none.
  void commit();
  // Checkpoints: the finished parts' step times and steps under prefix + "/parts" and
  // prefix + "/part<k>/time|step". ValueError when the current part holds snapshots that no
  // commit() finished (they would be missing from a resumed run's files).
  void save_state(SimulationState& out, const std::string& prefix) const;
  // Into a writer that has written nothing: takes over the saved parts (IOError naming a part file
  // that is missing) and continues in the next part; ValueError when this writer has snapshots.
  void load_state(const SimulationState& in, const std::string& prefix);

  // The first part's path (the sidecar sits beside it, named after it).
  const std::string& path() const { return path_; }
  std::string xdmf_path() const;
  // Snapshots written, in all parts.
  int64_t snapshots() const;
  // The finished part files, in order (path() first), and the path part k has.
  std::vector<std::string> parts() const;
  std::string part_path(size_t k) const;

 private:
  void open_part();
  void finish_part();
  void write_sidecar() const;
  void discard();

  struct Part {
    std::vector<double> times;
    std::vector<int64_t> steps;
  };
  std::string path_, tmp_;
  YeeLattice lattice_;
  double dt_;
  FieldOutputOptions options_;
  int64_t file_ = -1;  // hid_t of the open temporary file
  std::vector<double> times_;    // the current part's snapshots
  std::vector<int64_t> steps_;
  std::vector<Part> finished_;   // part k's file is part_path(k)
  bool closed_ = false;
  int uncaught_ = 0;
};

// The XDMF sidecar's path for an HDF5 path.
std::string xdmf_path_for(const std::string& h5_path);

// A snapshot read back, in yee.h's storage order (z fastest) over shape.
struct FieldSnapshot {
  std::array<int64_t, 3> shape{1, 1, 1};
  double time = 0;  // the component's own time
  int64_t step = 0;
  std::vector<double> values;
};
// IOError naming the file and what is missing.
FieldSnapshot read_field_snapshot(const std::string& path, Component c, int64_t step);

// Meep's save_flux / load_minus_flux across processes: the DFT data of a Flux or Near2Far
// (FluxData) to HDF5 ("spire.elec.flux_data": /frequencies, /arrays/<i> as [n][2] real and imaginary
// parts, provenance attributes) and back. Written whole or not at all; IOError naming what is wrong.
void write_flux_data(const std::string& path, const FluxData& data, const Provenance& provenance = {});
FluxData read_flux_data(const std::string& path);

// The field at one point every step (Meep's get_field_point in a step function, as Harminv uses):
// each chosen component interpolated (multilinearly, from its own staggered samples) at the point,
// at the component's own time.
class PointTimeSeries {
 public:
  PointTimeSeries(const YeeLattice& lattice, Vec3 point, std::vector<Component> components, double dt);

  template <class Real>
  void update(const FieldArrays<Real>& fields, double t);

  const std::vector<Component>& components() const { return components_; }
  // The step times (of the E fields); a component's own times are component_time(c, t, dt).
  const std::vector<double>& times() const { return times_; }
  // The values of component c (real parts, and imaginary parts for complex fields: zeros otherwise).
  const std::vector<double>& values(Component c) const;
  const std::vector<double>& imag_values(Component c) const;

  // HDF5: /time (step times), /<C> (and /<C>_imag when complex) values, /<C> attribute time_offset
  // (0 or -dt/2), root attributes point_x/y/z, dt, provenance. Written whole or not at all.
  void write(const std::string& path, const Provenance& provenance = {}) const;

  // Checkpoints: prefix + "/time", "/<C>/re", "/<C>/im", "/complex". load_state replaces the
  // samples taken so far (ValueError naming an array that is missing or inconsistent).
  void save_state(SimulationState& out, const std::string& prefix) const;
  void load_state(const SimulationState& in, const std::string& prefix);

 private:
  size_t slot(Component c, const char* who) const;

  Vec3 point_;
  double dt_;
  std::vector<Component> components_;
  // Per component: up to 8 (sample, weight) taps.
  std::vector<std::vector<std::pair<int64_t, double>>> taps_;
  std::vector<double> times_;
  std::vector<std::vector<double>> re_, im_;
  bool complex_ = false;
  std::string dims_;
};

}  // namespace spire::elec
