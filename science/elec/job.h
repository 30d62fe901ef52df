// An electromagnetics job: the TOML file of `spire em run` and `spire em check` (cli/em.cpp), in
// Meep's vocabulary and normalised units (yee.h: lengths in a, times in a/c, frequencies in c/a).
// Every table is read with data::JobSection, so an unknown key, a wrong type or a bad value is a
// ConfigError naming the key with its table path ("source[1].profile.fwidth") and what is allowed.
//
// Vectors are arrays of up to three numbers [x, y, z] (missing trailing ones are 0); in a 1D
// problem, whose one axis is z, a single number is a z coordinate. TOML writes infinity as `inf`.
// Frequency lists are `frequencies = [f, ...]`, or Meep's `fcen`, `df`, `nfreq` (nfreq evenly
// spaced from fcen - df/2 to fcen + df/2). Paths are relative to the job file's folder.
//
//   default_material = "vacuum"   the medium wherever no object is (a [[material]] name or a built-in)
//   [cell]       size (required), resolution (cells per a; required), dimensions = "1d" | "2d" |
//                "2d_tm" | "2d_te" | "3d" (default: "3d" when size has three nonzero extents, else
//                "2d"; "2d" is TM (Ez, Hx, Hy) or TE (Hz, Ex, Ey) as the sources' components say),
//                courant = 0.5, precision = "float64" | "float32", platform = "cpu" ("cuda",
//                "cuda:1": a registered platform), subpixel = true (Meep's eps_averaging),
//                subpixel_depth = 3, subpixel_tolerance = 1e-5 (subpixel.h)
//   [boundary]   every wall not named here is pec (Meep's metallic default)
//                pml = t | { x = t | [t_low, t_high], y = ..., z = ... }   thickness in a (0: none)
//                pml_cells = n | { x = n | [n_low, n_high], ... }           thickness in cells
//                periodic = ["x", ...], bloch = { x = kx, ... } (k in 1/a, Meep's k_point),
//                pec = ["x", ...], pmc = ["y", ...]
//     [boundary.pml_profile]  order = 3, reflection = 1e-8, kappa_max = 1, alpha_max = 0.05,
//                alpha_order = 1 (boundary.h's CPML grading)
//   [[material]] name (required; not a built-in: "vacuum", "air", "pec", "metal", "pmc"),
//                epsilon = e | [ex, ey, ez] or index = n, mu = m | [mx, my, mz], conductivity
//                (sigma of J = sigma E), D_conductivity, B_conductivity (Meep's), kind = "medium" |
//                "pec" | "pmc"
//     [[material.susceptibility]]  kind = "lorentzian" | "drude": frequency, gamma, sigma = s |
//                [sx, sy, sz]; kind = "debye": tau, delta_epsilon = d | [dx, dy, dz] (medium.h)
//   [[geometry]] shape, material (a name), and per shape (geometry.h; later objects win):
//                "block": center, size, e1, e2, e3 | "sphere": center, radius | "cylinder": center,
//                radius, height = inf, axis = [0, 0, 1] | "prism": vertices = [[x, y, z], ...],
//                height, axis = [0, 0, 1], center (optional: the vertices are the bottom face)
//   [[source]]   component ("Ex" .. "Hz"), center, size = 0 (zero extent: a point dipole; else a
//                current sheet or volume), amplitude = a | [re, im]
//     [source.profile]  kind = "gaussian": frequency, fwidth, start_time = 0, cutoff = 5 |
//                kind = "continuous": frequency, start_time = 0, end_time = inf, width = 0,
//                slowness = 3 (time_profile.h)
//   [[plane_wave]]  direction, polarization, center, size (the total-field box), amplitude,
//                epsilon = 1, mu = 1 (the background), [plane_wave.profile] (plane_wave.h)
//   [[port]]     component ("Ex" | "Ey" | "Ez"), center, size, resistance = 50 (ohms), amplitude,
//                [port.profile] (absent: a passive port, the reference load); with frequencies
//                (or fcen, df, nfreq) its V, I, Z and power waves are recorded (port.h)
//   [[monitor]]  kind, name (default: kind and its index among that kind; letters, digits, _ - .),
//                and per kind (monitors.h):
//     "dft_fields"  components = ["Ez", ...], center, size, frequencies
//     "flux"        regions as [[monitor.region]] center, size, weight = 1, or box = { center,
//                   size } (its outward faces); frequencies; save_data = "file.h5" (the DFTs, for
//                   another run's load_minus_data), load_minus_data = "file.h5" (Meep's two-run
//                   normalisation: the flux is then the scattered flux)
//     "near2far"    regions or box as flux, epsilon = 1, mu = 1 (the medium outside), frequencies,
//                   save_data, load_minus_data; [monitor.far_field] radius (required), center =
//                   0, theta = [0, 10, ..., 180] (degrees from z; 3D), phi = [0, 90] in 3D,
//                   [0, 10, ..., 350] in 2D (degrees from x), radiated_power = true
//     "point"       center, components = [] (every component carried)
//     "harminv"     component, center, fcen, df, start_time (default: when the sources end),
//                   min_q = 50, max_error = 0.01, max_modes = 100 (harmonic_inversion.h)
//     "snapshots"   file (HDF5; its .xdmf sidecar beside it), every (steps) or interval (time,
//                   rounded to whole steps), components = [] (all), single_precision = false
//   [run]        until (time) or until_after_sources (time after the last source ends), one of them;
//                checkpoint = "file.h5" (default: the results file's name + ".checkpoint.h5"),
//                checkpoint_every = steps (an integer) or wall time ("90 s", "30 min", "2 h");
//                default: only at the end and when stopped; progress = 5 (seconds between
//                progress lines; 0: none)
//   [output]     file (the HDF5 results; default: the job file's name with .h5)
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "science/elec/flux.h"
#include "science/elec/harmonic_inversion.h"
#include "science/elec/problem.h"
#include "science/elec/time_profile.h"

namespace spire::elec {

// A source's time profile as the job gives it (the parameters are kept for the checkpoint's
// fingerprint and for reports; make() builds the TimeProfile).
struct ProfileSpec {
  std::string kind;  // "gaussian" or "continuous"
  double frequency = 0;
  double fwidth = 0, cutoff = 5;                                                           // gaussian
  double start_time = 0;                                                                   // both
  double end_time = std::numeric_limits<double>::infinity(), width = 0, slowness = 3;    // continuous
  std::shared_ptr<const TimeProfile> make() const;
};

enum class MonitorKind { dft_fields, flux, near2far, point, harminv, snapshots };
std::string to_string(MonitorKind kind);

struct FarFieldSpec {
  double radius = 0;  // 0: no far fields
  Vec3 center;
  std::vector<double> theta, phi;  // degrees
  bool radiated_power = true;
};

struct MonitorSpec {
  MonitorKind kind = MonitorKind::dft_fields;
  std::string name;
  std::vector<Component> components;  // dft_fields, point, snapshots; harminv: one
  Vec3 center, size;                  // dft_fields region; point and harminv: center
  std::vector<FluxRegion> regions;    // flux, near2far (a box is expanded to its faces)
  std::vector<double> frequencies;    // dft_fields, flux, near2far
  double epsilon = 1, mu = 1;         // near2far
  FarFieldSpec far_field;             // near2far
  std::string save_data, load_minus_data;  // flux, near2far: resolved paths ("" for none)
  double fcen = 0, df = 0, start_time = -1;  // harminv (start_time < 0: when the sources end)
  HarmonicInversionOptions harminv;
  std::string file;                   // snapshots: resolved path
  int64_t every = 0;                  // snapshots: steps (from every, or interval / dt)
  bool single_precision = false;
};

struct PortSpec {
  ProfileSpec profile;               // kind "" for a passive port
  std::vector<double> frequencies;   // empty: no port monitor
};

struct RunSpec {
  double until = -1;                  // time, when given
  double until_after_sources = -1;    // time after the sources end, when given
  std::string checkpoint;             // resolved path
  bool checkpoint_named = false;      // the job names it (else it follows the output file)
  int64_t checkpoint_steps = 0;       // 0: not by steps
  double checkpoint_seconds = 0;      // 0: not by wall time
  double progress_seconds = 5;
};

struct EmJob {
  Problem problem;
  std::vector<std::string> material_names;  // the [[material]] names, in order
  std::vector<ProfileSpec> source_profiles;      // one per problem.sources entry
  std::vector<ProfileSpec> plane_wave_profiles;  // one per problem.plane_waves entry
  std::vector<PortSpec> ports;                   // one per problem.ports entry
  std::vector<MonitorSpec> monitors;
  RunSpec run;
  std::string output;     // the results file, resolved
  std::string toml;       // the job's text, stored in the files the run writes
  std::string where;      // the job file's name, for messages
  std::string directory;  // the job file's folder: relative paths are taken from it
};

// ConfigError naming the key (with its table path) and what is allowed for anything wrong or
// unknown. `directory` resolves relative paths; `where` names the file in messages and gives the
// default output name.
EmJob parse_em_job(const std::string& toml, const std::string& where, const std::string& directory = "");
// IOError naming the path when it cannot be read.
EmJob load_em_job(const std::string& path);

// Points the output at `path` (and the checkpoint, unless the job names its own, beside it).
void set_output(EmJob& job, const std::string& path);

}  // namespace spire::elec
