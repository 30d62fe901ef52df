// An MD job: the TOML file of `spire md run` (cli/md.cpp). Key names are the interface (docs/sponge.md
// lists them with examples); every table is read with data::JobSection, so an unknown key or a bad
// value is a ConfigError naming it and what is allowed.
//
//   units          "md" (nm, ps, kJ/mol, amu, e, K, bar) or "lj" (reduced); required
//   [system]       exactly one builder:
//     lattice = { kind = "fcc"|"bcc"|"sc", density = rho | constant = a, cells = [nx, ny, nz],
//                 mass = 1, type = "A" }                  (lattice.h; identical particles)
//     water = { model = "spce"|"tip3p", molecules = 216, density = 0.997 (g/cm^3), seed,
//               clash_distance = 0.18 }                     (water.h; md units; rigid, SETTLE)
//     pdb = "file.pdb" | { file = "...", charges = { <type> = q, ... }, water = "spce"|"tip3p" }
//                 (pdb.h; md units; types are elements; residues HOH/WAT/SOL of O, H, H become
//                 the named rigid water model; other bonded topology is not read)
//   [forces]       skin (neighbour list; default 0.3 in lj, 0.1 nm in md)
//     [forces.lj]  cutoff (required), mode = "cut"|"shifted"|"force_switch", switch_distance
//                  (force_switch only), tail = false, mixing = "lorentz_berthelot"|"geometric",
//                  [forces.lj.types.<type>] epsilon, sigma (water types come from the model, a
//                  lattice type in lj units defaults to 1, 1), [forces.lj.pairs.<a>.<b>] epsilon, sigma
//     [forces.coulomb]  method = "pme"|"ewald"|"reaction_field", cutoff (default: lj's),
//                  tolerance = 5e-4, alpha (0: from the tolerance); pme: order = 5, grid = [k1, k2, k3];
//                  ewald: kmax = [k1, k2, k3]; reaction_field: epsilon_solvent = 78.3.
//                  Required when any particle is charged.
//     [forces.external_field]  electric = [Ex, Ey, Ez], acceleration = [gx, gy, gz]
//     [forces.restraints]      k, particles = [i, ...] or types = ["OW", ...]: held at their
//                  starting positions (before minimisation)
//     Bonded terms (bonds, angles, torsions, impropers) come from the system's topology.
//   [integrator]   kind = "verlet"|"langevin", dt (default 0.005 tau in lj, 0.001 ps in md),
//                  temperature (langevin's bath; the default of the thermostat's and barostat's),
//                  friction = 1 (langevin, 1/time), remove_com_motion (default true, false with
//                  restraints or an external field),
//                  constraint_tolerance = 1e-10
//     [integrator.thermostat]  (verlet only) kind = "nose_hoover"|"bussi"|"berendsen",
//                  temperature, tau (default 100 dt); nose_hoover: chain = 3, multiple_steps = 1,
//                  suzuki_yoshida = 3
//     [integrator.barostat]    kind = "monte_carlo"|"berendsen", pressure = P or [Px, Py, Pz]
//                  (anisotropic), frequency, scaling = "molecule"|"atom"; monte_carlo: temperature,
//                  axes = ["x", "y", "z"] (anisotropic); berendsen: compressibility, tau
//   [velocities]   temperature, seed (default: the run's), zero_momentum (default: as
//                  remove_com_motion, so the log's first temperature is the one asked); absent: zero
//   [minimize]     method = "fire"|"lbfgs", force_tolerance (default 10 kJ/mol/nm in md; required
//                  in lj), max_iterations = 10000; before the first step of a fresh run
//   [run]          steps | time (the run's total; a resumed run continues to it), seed = 0,
//                  progress = 5 (seconds between progress lines; 0: none), resume = false,
//                  platform = "cpu" | "cuda" | "cuda:1" (platform.h; the platforms this build has)
//   [output]       [output.thermo] interval = 100, file = "thermo.csv" ("" for none), normalize
//                  [output.h5md] file = "trajectory.h5", interval = 1000, position = true,
//                  velocity = true, force = false, observables = true, float32 = false, author
//                  [output.checkpoint] file = "checkpoint.h5", interval = 0 (0: at the end of the
//                  run and when it is stopped early)
// Files under [output] are relative to the run's output folder; the pdb file to the job file's.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "science/sponge/lennard_jones.h"
#include "science/sponge/minimize.h"
#include "science/sponge/nose_hoover.h"
#include "science/sponge/platform.h"
#include "science/sponge/simulation.h"

namespace spire::sponge {

struct LatticeSettings {
  std::string kind = "fcc";
  double density = 0, constant = 0;  // one of them > 0
  std::array<int, 3> cells{0, 0, 0};
  double mass = 1;
  std::string type = "A";
};

struct WaterSettings {
  std::string model = "spce";
  int64_t molecules = 216;
  double density = 0.997;  // g/cm^3
  std::optional<uint64_t> seed;  // unset: the run's
  double clash_distance = 0.18;  // nm
};

struct PdbSettings {
  std::string file;                        // as written in the job
  std::string path;                        // resolved against the job file's folder
  std::map<std::string, double> charges;   // per type (element)
  std::string water;                       // "" or a water model for residues HOH, WAT, SOL
};

struct SystemSettings {
  std::string builder;  // "lattice", "water" or "pdb"
  LatticeSettings lattice;
  WaterSettings water;
  PdbSettings pdb;
};

struct LJSettings {
  bool enabled = false;
  double cutoff = 0;
  std::string mode = "cut";
  double switch_distance = 0;
  bool tail = false;
  std::string mixing = "lorentz_berthelot";
  std::map<std::string, LJParameters> types;
  std::map<std::pair<std::string, std::string>, LJParameters> pairs;
};

struct CoulombSettings {
  bool enabled = false;
  std::string method = "pme";
  double cutoff = 0;  // 0: the Lennard-Jones cutoff
  double tolerance = 5e-4;
  double alpha = 0;
  int order = 5;
  std::array<int, 3> grid{0, 0, 0};
  std::array<int, 3> kmax{0, 0, 0};
  double epsilon_solvent = 78.3;
};

struct ExternalFieldSettings {
  bool enabled = false;
  Vec3 electric, acceleration;
};

struct RestraintSettings {
  bool enabled = false;
  double k = 0;
  std::vector<int> particles;
  std::vector<std::string> types;
};

struct ForceSettings {
  double skin = 0;  // 0 until parsed: the units' default
  LJSettings lj;
  CoulombSettings coulomb;
  ExternalFieldSettings external_field;
  RestraintSettings restraints;
};

struct ThermostatSettings {
  std::string kind;  // "" for none
  double temperature = 0, tau = 0;
  NoseHooverOptions nose_hoover;
};

struct BarostatSettings {
  std::string kind;  // "" for none
  Vec3 pressure;
  bool anisotropic = false;
  std::array<bool, 3> axes{true, true, true};
  int64_t frequency = 0;  // 0: the barostat's default (25 Monte Carlo, 1 Berendsen)
  std::string scaling = "molecule";
  double temperature = 0;      // monte_carlo; 0: the integrator's
  double compressibility = 0;  // berendsen; 0: 4.5e-5 / bar in md
  double tau = 0;              // berendsen; 0: 1 ps in md
};

struct IntegratorSettings {
  std::string kind = "verlet";
  double dt = 0;
  double temperature = 0;
  double friction = 1;
  bool remove_com_motion = true;
  double constraint_tolerance = 1e-10;
  ThermostatSettings thermostat;
  BarostatSettings barostat;
};

struct VelocitySettings {
  bool enabled = false;
  double temperature = 0;
  std::optional<uint64_t> seed;
  bool zero_momentum = true;  // default: integrator.remove_com_motion
};

struct MinimizeSettings {
  bool enabled = false;
  std::string method = "fire";
  double force_tolerance = 0;
  int64_t max_iterations = 10000;
};

struct RunSettings {
  int64_t steps = -1;  // -1 when given as time
  double time = 0;
  uint64_t seed = 0;
  double progress_seconds = 5;
  bool resume = false;
  PlatformChoice platform;  // "cpu" unless the job names another
};

struct ThermoOutput {
  int64_t interval = 100;
  std::string file = "thermo.csv";
  std::optional<bool> normalize;
};

struct H5mdOutput {
  bool enabled = false;
  std::string file = "trajectory.h5";
  int64_t interval = 1000;
  bool position = true, velocity = true, force = false, observables = true, float32 = false;
  std::string author;
};

struct CheckpointOutput {
  std::string file = "checkpoint.h5";
  int64_t interval = 0;
};

struct MdJob {
  Units units;
  SystemSettings system;
  ForceSettings forces;
  IntegratorSettings integrator;
  VelocitySettings velocities;
  MinimizeSettings minimize;
  RunSettings run;
  ThermoOutput thermo;
  H5mdOutput h5md;
  CheckpointOutput checkpoint;
  std::string toml;       // the job's text, stored in the H5MD file's parameters group
  std::string where;      // the file name, for messages
  std::string directory;  // the job file's folder: relative input paths are taken from it
};

// ConfigError naming the key and the allowed values for anything wrong or unknown.
MdJob parse_md_job(const std::string& toml, const std::string& where, const std::string& directory = "");
MdJob load_md_job(const std::string& path);

// The number of steps the job's run has in all: [run] steps, or time / dt (rounded to the nearest
// step when within 1e-6 of one, else up, as Simulation::run_until).
int64_t total_steps(const MdJob& job);

// The pieces of the job, each built as the job says (for tools and tests; make_simulation uses them).
struct BuiltSystem {
  System system;
  State state;  // positions and box as built; zero velocities
};
BuiltSystem build_system(const MdJob& job);
ForceField make_force_field(const MdJob& job, const System& system, const State& state);
std::shared_ptr<Integrator> make_integrator(const MdJob& job);

struct MakeOptions {
  // A new run: minimise (when the job says) and draw velocities. false when a checkpoint is about to
  // be restored into the simulation, which replaces the state anyway.
  bool fresh = true;
  const std::atomic<bool>* stop = nullptr;  // SimulationOptions::stop
  MinimizeResult* minimization = nullptr;   // filled when the job minimises
};

// The job's System, State (built, minimised, velocities drawn), force field and integrator in a
// Simulation seeded with [run] seed; no reporters (add_outputs adds them).
std::unique_ptr<Simulation> make_simulation(const MdJob& job, const MakeOptions& options = {});

// The job's thermo log (to `thermo`, when not null, and its CSV), H5MD trajectory and checkpoints,
// their files in `directory` (which must exist).
void add_outputs(Simulation& simulation, const MdJob& job, const std::string& directory, std::ostream* thermo);
// Where the job's checkpoint goes in `directory`.
std::string checkpoint_path(const MdJob& job, const std::string& directory);

// A job made ready to run in `directory`: the simulation with its outputs, restored from the
// checkpoint there when `resume` and the checkpoint exists (the files are then appended to), else a
// fresh run (minimised and given velocities as the job says).
struct JobRun {
  std::unique_ptr<Simulation> simulation;
  bool resumed = false;
  std::optional<MinimizeResult> minimization;  // a fresh run's, when the job minimises
  // The steps left to the job's total (total_steps - the current step; 0 when past it).
  int64_t remaining_steps(const MdJob& job) const;
};
JobRun start_job(const MdJob& job, const std::string& directory, bool resume, std::ostream* thermo,
                 const std::atomic<bool>* stop = nullptr);

}  // namespace spire::sponge
