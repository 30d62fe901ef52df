// Building what an MD job describes (job.h): the system from its builder, the force field, the
// integrator with its thermostat and barostat, the simulation, and its outputs.
#include "science/sponge/job.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <optional>

#include "engine/core/error.h"
#include "science/sponge/berendsen.h"
#include "science/sponge/berendsen_barostat.h"
#include "science/sponge/bonded.h"
#include "science/sponge/bussi.h"
#include "science/sponge/checkpoint.h"
#include "science/sponge/ewald.h"
#include "science/sponge/h5md.h"
#include "science/sponge/langevin.h"
#include "science/sponge/lattice.h"
#include "science/sponge/monte_carlo_barostat.h"
#include "science/sponge/pdb.h"
#include "science/sponge/pme.h"
#include "science/sponge/reaction_field.h"
#include "science/sponge/thermo.h"
#include "science/sponge/velocities.h"
#include "science/sponge/velocity_verlet.h"
#include "science/sponge/water.h"

namespace spire::sponge {
namespace {

bool is_water_residue(const std::string& name) { return name == "HOH" || name == "WAT" || name == "SOL"; }

// Whether atoms i, i+1, i+2 of the file are one water residue, oxygen first.
bool water_at(const PdbFile& f, size_t i) {
  if (i + 2 >= f.atoms.size() || !is_water_residue(f.atoms[i].residue_name)) return false;
  for (size_t k = 1; k < 3; ++k) {
    const PdbAtom &a = f.atoms[i], &b = f.atoms[i + k];
    if (b.residue_name != a.residue_name || b.residue_id != a.residue_id || b.chain != a.chain) return false;
  }
  auto upper = [](std::string s) {
    for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
  };
  return upper(f.atoms[i].element) == "O" && upper(f.atoms[i + 1].element) == "H" &&
         upper(f.atoms[i + 2].element) == "H";
}

BuiltSystem build_pdb(const MdJob& job) {
  const PdbSettings& p = job.system.pdb;
  const PdbFile file = read_pdb(p.path);
  BuiltSystem out;
  out.state = file.state();
  const System plain = file.system();  // masses and element types of every atom
  if (p.water.empty()) {
    out.system = plain;
  } else {
    // Water residues become the model's rigid molecules (types OW and HW, its charges, SETTLE),
    // the other atoms stay as read; the order of the particles is the file's.
    const WaterModel model = WaterModel::by_name(p.water);
    System& s = out.system;
    s.units = Units::md();
    int64_t waters = 0;
    for (size_t i = 0; i < file.atoms.size();) {
      if (water_at(file, i)) {
        add_water(s, model, file.atoms[i].residue_name, file.atoms[i].residue_id);
        i += 3, ++waters;
        continue;
      }
      s.add_particle(plain.mass[i], 0, plain.type_names[size_t(plain.type[i])]);
      s.atom_name.push_back(plain.atom_name[i]);
      s.residue_name.push_back(plain.residue_name[i]);
      s.residue_id.push_back(plain.residue_id[i]);
      ++i;
    }
    SPIRE_CHECK(waters > 0, ConfigError, job.where, ": system.pdb.water = \"", p.water, "\" but ", p.path,
                " has no water residue (HOH, WAT or SOL with atoms O, H, H in that order)");
    s.topology.normalize_exclusions();
  }
  System& s = out.system;
  for (const auto& [type, q] : p.charges) {
    auto it = std::find(s.type_names.begin(), s.type_names.end(), type);
    SPIRE_CHECK(it != s.type_names.end(), ConfigError, job.where, ": system.pdb.charges names the type ", type,
                ", which no atom of ", p.path, " has; its types: ", detail::join(s.type_names));
    SPIRE_CHECK(!p.water.empty() ? (type != kWaterOxygenType && type != kWaterHydrogenType) : true, ConfigError,
                job.where, ": system.pdb.charges sets ", type, ", a type of the water model, whose charges are the "
                "model's");
    const int t = int(it - s.type_names.begin());
    for (int64_t i = 0; i < s.size(); ++i)
      if (s.type[size_t(i)] == t) s.charge[size_t(i)] = q;
  }
  return out;
}

// Lennard-Jones parameters of the water model's types.
std::optional<WaterModel> water_model_of(const MdJob& job) {
  if (job.system.builder == "water") return WaterModel::by_name(job.system.water.model);
  if (job.system.builder == "pdb" && !job.system.pdb.water.empty()) return WaterModel::by_name(job.system.pdb.water);
  return std::nullopt;
}

ThermostatPtr make_thermostat(const MdJob& job) {
  const ThermostatSettings& t = job.integrator.thermostat;
  if (t.kind == "nose_hoover") return std::make_shared<NoseHooverChain>(t.temperature, t.tau, t.nose_hoover);
  if (t.kind == "bussi") return std::make_shared<BussiThermostat>(t.temperature, t.tau, job.run.seed);
  if (t.kind == "berendsen") return std::make_shared<BerendsenThermostat>(t.temperature, t.tau);
  return nullptr;
}

BarostatPtr make_barostat(const MdJob& job) {
  const BarostatSettings& b = job.integrator.barostat;
  const BarostatScaling scaling = b.scaling == "atom" ? BarostatScaling::atom : BarostatScaling::molecule;
  if (b.kind == "monte_carlo") {
    MonteCarloBarostatOptions o;
    if (b.frequency > 0) o.frequency = b.frequency;
    o.scaling = scaling;
    o.seed = job.run.seed;
    if (b.anisotropic) return std::make_shared<MonteCarloBarostat>(b.pressure, b.axes, b.temperature, o);
    return std::make_shared<MonteCarloBarostat>(b.pressure.x, b.temperature, o);
  }
  if (b.kind == "berendsen") {
    BerendsenBarostatOptions o;
    if (b.compressibility > 0) o.compressibility = b.compressibility;
    if (b.tau > 0) o.time_constant = b.tau;
    if (b.frequency > 0) o.frequency = b.frequency;
    o.anisotropic = b.anisotropic;
    o.scaling = scaling;
    if (b.anisotropic) return std::make_shared<BerendsenBarostat>(b.pressure, o);
    return std::make_shared<BerendsenBarostat>(b.pressure.x, o);
  }
  return nullptr;
}

// A checkpoint at the end of every run() (also one stopped early), and no other.
class FinalCheckpoint : public Reporter {
 public:
  explicit FinalCheckpoint(std::string path) : path_(std::move(path)) {}
  std::string name() const override { return "checkpoint " + path_; }
  void report(const Simulation&) override {}
  void finish(const Simulation& sim) override { sim.save_checkpoint(path_); }

 private:
  std::string path_;
};

std::string in_directory(const std::string& directory, const std::string& file) {
  return (std::filesystem::path(directory) / file).string();
}

}  // namespace

BuiltSystem build_system(const MdJob& job) {
  const std::string& b = job.system.builder;
  if (b == "lattice") {
    const LatticeSettings& l = job.system.lattice;
    const LatticeType type = lattice_type(l.kind);
    const Lattice lattice = l.density > 0 ? Lattice::with_density(type, l.density) : Lattice::with_constant(type, l.constant);
    BuiltSystem out;
    out.state = create_lattice(lattice, l.cells[0], l.cells[1], l.cells[2]);
    out.system = identical_particles(int64_t(out.state.positions.size()), l.mass, l.type, job.units);
    return out;
  }
  if (b == "water") {
    const WaterSettings& w = job.system.water;
    WaterBoxOptions o;
    o.molecules = w.molecules;
    o.density = w.density;
    o.seed = w.seed.value_or(job.run.seed);
    o.clash_distance = w.clash_distance;
    WaterBox box = water_box(WaterModel::by_name(w.model), o);
    return {std::move(box.system), std::move(box.state)};
  }
  SPIRE_CHECK(b == "pdb", ConfigError, job.where, ": unknown system builder '", b, "'");
  return build_pdb(job);
}

ForceField make_force_field(const MdJob& job, const System& system, const State& state) {
  const ForceSettings& f = job.forces;
  ForceField ff(f.skin);
  if (f.lj.enabled) {
    auto lj = std::make_shared<LennardJones>(f.lj.cutoff, lj_cutoff_mode(f.lj.mode), f.lj.switch_distance);
    lj->set_mixing(lj_mixing(f.lj.mixing));
    lj->set_tail_correction(f.lj.tail);
    if (auto model = water_model_of(job)) {
      lj->set_type(kWaterOxygenType, model->epsilon_o, model->sigma_o);
      lj->set_type(kWaterHydrogenType, 0, 0);
    }
    if (job.system.builder == "lattice" && job.units.name == "lj") lj->set_type(job.system.lattice.type, 1, 1);
    for (const auto& [type, p] : f.lj.types) lj->set_type(type, p.epsilon, p.sigma);
    for (const auto& [types, p] : f.lj.pairs) lj->set_pair(types.first, types.second, p.epsilon, p.sigma);
    // Named here, not at the first step: every type the particles use needs parameters.
    for (size_t t = 0; t < system.type_names.size(); ++t) {
      const std::string& name = system.type_names[t];
      if (std::find(system.type.begin(), system.type.end(), int(t)) == system.type.end()) continue;
      const bool from_model = water_model_of(job) && (name == kWaterOxygenType || name == kWaterHydrogenType);
      const bool lattice_default = job.system.builder == "lattice" && job.units.name == "lj";
      SPIRE_CHECK(f.lj.types.count(name) || f.lj.pairs.count({name, name}) || from_model || lattice_default,
                  ConfigError, job.where, ": [forces.lj] has no parameters for the type ", name,
                  "; add [forces.lj.types.", name, "] epsilon = ..., sigma = ...");
    }
    ff.add(lj);
  }
  if (f.coulomb.enabled) {
    const CoulombSettings& c = f.coulomb;
    if (c.method == "pme") {
      PmeOptions o;
      o.cutoff = c.cutoff, o.tolerance = c.tolerance, o.alpha = c.alpha, o.grid = c.grid, o.order = c.order;
      ff.add(std::make_shared<PmeCoulomb>(o));
    } else if (c.method == "ewald") {
      EwaldOptions o;
      o.cutoff = c.cutoff, o.tolerance = c.tolerance, o.alpha = c.alpha, o.kmax = c.kmax;
      ff.add(std::make_shared<EwaldCoulomb>(o));
    } else {
      ReactionFieldOptions o;
      o.cutoff = c.cutoff, o.epsilon_solvent = c.epsilon_solvent;
      ff.add(std::make_shared<ReactionFieldCoulomb>(o));
    }
  }
  const Topology& top = system.topology;
  if (!top.bonds.empty()) ff.add(std::make_shared<HarmonicBonds>());
  if (!top.angles.empty()) ff.add(std::make_shared<HarmonicAngles>());
  if (!top.torsions.empty()) ff.add(std::make_shared<PeriodicTorsions>());
  if (!top.impropers.empty()) ff.add(std::make_shared<HarmonicImpropers>());
  if (f.external_field.enabled)
    ff.add(std::make_shared<ExternalField>(f.external_field.electric, f.external_field.acceleration));
  if (f.restraints.enabled) {
    std::vector<PositionRestraint> r;
    for (int i : f.restraints.particles) {
      SPIRE_CHECK(i < system.size(), ConfigError, job.where, ": forces.restraints.particles holds ", i,
                  "; the system's particles are 0 to ", system.size() - 1);
      r.push_back({i, state.positions[size_t(i)], f.restraints.k});
    }
    for (const std::string& name : f.restraints.types) {
      auto it = std::find(system.type_names.begin(), system.type_names.end(), name);
      SPIRE_CHECK(it != system.type_names.end(), ConfigError, job.where, ": forces.restraints.types names ", name,
                  ", which is not a type of the system; its types: ", detail::join(system.type_names));
      const int t = int(it - system.type_names.begin());
      for (int64_t i = 0; i < system.size(); ++i)
        if (system.type[size_t(i)] == t) r.push_back({int(i), state.positions[size_t(i)], f.restraints.k});
    }
    std::sort(r.begin(), r.end(), [](auto& a, auto& b) { return a.particle < b.particle; });
    ff.add(std::make_shared<PositionRestraints>(std::move(r)));
  }
  return ff;
}

std::shared_ptr<Integrator> make_integrator(const MdJob& job) {
  const IntegratorSettings& in = job.integrator;
  DynamicsOptions d;
  d.remove_com_motion = in.remove_com_motion;
  d.constraints.tolerance = in.constraint_tolerance;
  std::shared_ptr<MdIntegrator> integrator;
  if (in.kind == "langevin")
    integrator = std::make_shared<LangevinMiddle>(in.dt, in.temperature, in.friction, job.run.seed, d);
  else
    integrator = std::make_shared<VelocityVerlet>(in.dt, make_thermostat(job), d);
  if (BarostatPtr b = make_barostat(job)) integrator->set_barostat(std::move(b));
  return integrator;
}

std::unique_ptr<Simulation> make_simulation(const MdJob& job, const MakeOptions& options) {
  BuiltSystem built = build_system(job);
  ForceField forces = make_force_field(job, built.system, built.state);
  if (options.fresh) {
    if (job.minimize.enabled) {
      forces.check(built.system, built.state);
      MinimizeResult r;
      if (job.minimize.method == "lbfgs") {
        LbfgsOptions o;
        o.force_tolerance = job.minimize.force_tolerance;
        o.max_iterations = job.minimize.max_iterations;
        r = minimize_lbfgs(built.system, built.state, forces, o);
      } else {
        FireOptions o;
        o.force_tolerance = job.minimize.force_tolerance;
        o.max_iterations = job.minimize.max_iterations;
        o.constraints.tolerance = job.integrator.constraint_tolerance;
        r = minimize_fire(built.system, built.state, forces, o);
      }
      if (options.minimization) *options.minimization = r;
    }
    if (job.velocities.enabled)
      maxwell_boltzmann(built.system, built.state, job.velocities.temperature,
                        job.velocities.seed.value_or(job.run.seed), job.velocities.zero_momentum);
  }
  SimulationOptions so;
  so.seed = job.run.seed;
  so.progress_seconds = job.run.progress_seconds;
  so.stop = options.stop;
  so.platform = job.run.platform;
  return std::make_unique<Simulation>(std::move(built.system), std::move(built.state), std::move(forces),
                                      make_integrator(job), so);
}

std::string checkpoint_path(const MdJob& job, const std::string& directory) {
  return in_directory(directory, job.checkpoint.file);
}

void add_outputs(Simulation& simulation, const MdJob& job, const std::string& directory, std::ostream* thermo) {
  if (thermo || !job.thermo.file.empty()) {
    ThermoOptions o;
    if (!job.thermo.file.empty()) o.csv_path = in_directory(directory, job.thermo.file);
    o.normalize = job.thermo.normalize;
    simulation.add_reporter(std::make_shared<ThermoLog>(thermo, o), job.thermo.interval);
  }
  if (job.h5md.enabled) {
    H5mdOptions o;
    o.path = in_directory(directory, job.h5md.file);
    o.position = job.h5md.position, o.velocity = job.h5md.velocity, o.force = job.h5md.force;
    o.observables = job.h5md.observables, o.float32 = job.h5md.float32;
    o.author = job.h5md.author;
    o.job_toml = job.toml;
    simulation.add_reporter(std::make_shared<H5mdWriter>(o), job.h5md.interval);
  }
  const std::string checkpoint = checkpoint_path(job, directory);
  if (job.checkpoint.interval > 0)
    simulation.add_reporter(std::make_shared<CheckpointWriter>(checkpoint), job.checkpoint.interval);
  else  // it records nothing per step, so its interval never splits a device's chunk of steps
    simulation.add_reporter(std::make_shared<FinalCheckpoint>(checkpoint), std::numeric_limits<int64_t>::max());
}

int64_t JobRun::remaining_steps(const MdJob& job) const {
  return std::max<int64_t>(0, total_steps(job) - simulation->state().step);
}

JobRun start_job(const MdJob& job, const std::string& directory, bool resume, std::ostream* thermo,
                 const std::atomic<bool>* stop) {
  JobRun run;
  const std::string checkpoint = checkpoint_path(job, directory);
  run.resumed = resume && std::filesystem::exists(checkpoint);
  MinimizeResult minimization;
  MakeOptions o;
  o.fresh = !run.resumed;
  o.stop = stop;
  o.minimization = &minimization;
  run.simulation = make_simulation(job, o);
  if (o.fresh && job.minimize.enabled) run.minimization = minimization;
  add_outputs(*run.simulation, job, directory, thermo);
  if (run.resumed) run.simulation->restore(checkpoint);
  return run;
}

}  // namespace spire::sponge
