// Reading MD jobs (job.h): every table through data::JobSection, so an unknown key is named with the
// allowed ones and a bad value with its range; then the checks that span tables (a water box needs
// md units, charges need a Coulomb method, a barostat needs a temperature), so that a mistake
// surfaces before anything is built.
#include "science/sponge/job.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "engine/core/error.h"
#include "engine/data/job_file.h"

namespace spire::sponge {
namespace {

using data::JobSection;

constexpr double kInf = HUGE_VAL;

const std::vector<std::string> kWaterModels = {"spce", "tip3p"};

// An array of exactly three numbers, when the key is given (true then).
bool read_vec3(JobSection& t, const char* key, const std::string& where, Vec3& out) {
  const bool given = t.has(key);
  std::vector<double> v;
  t.numbers(key, v);  // also when absent: finish() then lists the key as allowed
  if (!given) return false;
  SPIRE_CHECK(v.size() == 3, ConfigError, where, ": ", t.name(), ".", key, " must be three numbers [x, y, z], got ",
              v.size());
  out = {v[0], v[1], v[2]};
  return true;
}

// An array of exactly three integers >= low, when the key is given (true then).
bool read_int3(JobSection& t, const char* key, const std::string& where, int low, std::array<int, 3>& out) {
  const bool given = t.has(key);
  std::vector<int> v;
  t.integers(key, v, low);
  if (!given) return false;
  SPIRE_CHECK(v.size() == 3, ConfigError, where, ": ", t.name(), ".", key, " must be three integers [x, y, z], got ",
              v.size());
  out = {v[0], v[1], v[2]};
  return true;
}

void read_seed(JobSection& t, const char* key, std::optional<uint64_t>& out) {
  int64_t v = -1;
  t.integer(key, v, 0);
  if (v >= 0) out = uint64_t(v);
}

void read_lattice(JobSection& system, MdJob& job) {
  LatticeSettings& l = job.system.lattice;
  JobSection t = system.table("lattice");
  t.string("kind", l.kind, {"fcc", "bcc", "sc"});
  t.number("density", l.density, 0, kInf, true);
  t.number("constant", l.constant, 0, kInf, true);
  SPIRE_CHECK((l.density > 0) != (l.constant > 0), ConfigError, job.where, ": [system.lattice] needs density (",
              job.units.name == "lj" ? "reduced" : "particles per nm^3", ", as LAMMPS's `lattice fcc 0.8442` in lj "
              "units) or constant (the cubic cell's edge), ", l.density > 0 ? "not both" : "one of them");
  SPIRE_CHECK(t.has("cells"), ConfigError, job.where, ": [system.lattice] needs cells = [nx, ny, nz], the unit "
              "cells along each axis");
  read_int3(t, "cells", job.where, 1, l.cells);
  t.number("mass", l.mass, 0, kInf, true);
  t.string("type", l.type);
  SPIRE_CHECK(!l.type.empty(), ConfigError, job.where, ": system.lattice.type must not be empty");
  t.finish();
}

void read_water(JobSection& system, MdJob& job) {
  WaterSettings& w = job.system.water;
  JobSection t = system.table("water");
  t.string("model", w.model, kWaterModels);
  t.integer("molecules", w.molecules, 1, 100000000);
  t.number("density", w.density, 0, kInf, true);
  read_seed(t, "seed", w.seed);
  t.number("clash_distance", w.clash_distance, 0, kInf);
  t.finish();
}

void read_pdb(JobSection& system, MdJob& job) {
  PdbSettings& p = job.system.pdb;
  if (system.is_table("pdb")) {
    JobSection t = system.table("pdb");
    t.string("file", p.file);
    JobSection charges = t.table("charges");
    for (const std::string& type : charges.keys()) charges.number(type.c_str(), p.charges[type], -kInf, kInf);
    charges.finish();
    t.string("water", p.water, kWaterModels);
    t.finish();
  } else {
    system.string("pdb", p.file);
  }
  SPIRE_CHECK(!p.file.empty(), ConfigError, job.where, ": system.pdb needs the file: pdb = \"file.pdb\" or pdb = "
              "{ file = \"file.pdb\", charges = { <type> = q }, water = \"spce\" }");
  const std::filesystem::path f(p.file);
  p.path = f.is_absolute() || job.directory.empty() ? p.file : (std::filesystem::path(job.directory) / f).string();
}

void read_system(JobSection& root, MdJob& job) {
  JobSection system = root.table("system");
  const std::vector<std::string> builders = {"lattice", "water", "pdb"};
  std::vector<std::string> given;
  for (const std::string& b : builders)
    if (system.has(b.c_str())) given.push_back(b);
  SPIRE_CHECK(given.size() == 1, ConfigError, job.where, ": [system] needs exactly one of lattice = {...}, water = "
              "{...} or pdb = \"file.pdb\"", given.empty() ? "" : "; it has " + detail::join(given));
  job.system.builder = given[0];
  if (given[0] == "lattice") read_lattice(system, job);
  if (given[0] == "water") read_water(system, job);
  if (given[0] == "pdb") read_pdb(system, job);
  // Marks the other builders as allowed, for finish()'s message.
  for (const std::string& b : builders)
    if (b != given[0]) system.table(b.c_str());
  system.finish();
  SPIRE_CHECK(given[0] == "lattice" || job.units.name == "md", ConfigError, job.where, ": system.", given[0],
              " builds a system in md units (nm, ps, kJ/mol); set units = \"md\"");
}

void read_lj(JobSection& forces, MdJob& job) {
  LJSettings& lj = job.forces.lj;
  JobSection t = forces.table("lj");
  lj.enabled = t.present();
  if (!lj.enabled) return;
  SPIRE_CHECK(t.has("cutoff"), ConfigError, job.where, ": [forces.lj] needs cutoff (LAMMPS's lj/cut 2.5 in lj units; "
              "about 1 nm for water)");
  t.number("cutoff", lj.cutoff, 0, kInf, true);
  t.string("mode", lj.mode, {"cut", "shifted", "force_switch"});
  if (lj.mode == "force_switch") {
    SPIRE_CHECK(t.has("switch_distance"), ConfigError, job.where, ": forces.lj.mode = \"force_switch\" needs "
                "switch_distance, where the force starts to go to zero (0 < switch_distance < cutoff)");
    t.number("switch_distance", lj.switch_distance, 0, lj.cutoff, true);
    SPIRE_CHECK(lj.switch_distance < lj.cutoff, ConfigError, job.where, ": forces.lj.switch_distance ",
                lj.switch_distance, " must be below the cutoff ", lj.cutoff);
  }
  t.boolean("tail", lj.tail);
  t.string("mixing", lj.mixing, {"lorentz_berthelot", "arithmetic", "geometric"});
  auto parameters = [&](JobSection& p) {
    LJParameters v;
    SPIRE_CHECK(p.has("epsilon") && p.has("sigma"), ConfigError, job.where, ": [", p.name(),
                "] needs epsilon and sigma");
    p.number("epsilon", v.epsilon, 0, kInf);
    p.number("sigma", v.sigma, 0, kInf);
    SPIRE_CHECK(v.sigma > 0 || v.epsilon == 0, ConfigError, job.where, ": ", p.name(),
                ".sigma must be > 0 (0 only with epsilon = 0: a type without Lennard-Jones)");
    p.finish();
    return v;
  };
  JobSection types = t.table("types");
  for (const std::string& type : types.keys()) {
    JobSection p = types.table(type.c_str());
    lj.types[type] = parameters(p);
  }
  types.finish();
  JobSection pairs = t.table("pairs");
  for (const std::string& a : pairs.keys()) {
    JobSection row = pairs.table(a.c_str());
    for (const std::string& b : row.keys()) {
      JobSection p = row.table(b.c_str());
      lj.pairs[{std::min(a, b), std::max(a, b)}] = parameters(p);
    }
    row.finish();
  }
  pairs.finish();
  t.finish();
}

void read_coulomb(JobSection& forces, MdJob& job) {
  CoulombSettings& c = job.forces.coulomb;
  JobSection t = forces.table("coulomb");
  c.enabled = t.present();
  if (!c.enabled) return;
  t.string("method", c.method, {"pme", "ewald", "reaction_field"});
  c.cutoff = job.forces.lj.cutoff;
  t.number("cutoff", c.cutoff, 0, kInf, true);
  SPIRE_CHECK(c.cutoff > 0, ConfigError, job.where, ": [forces.coulomb] needs cutoff (or a [forces.lj] cutoff to "
              "share)");
  // Keys of other methods are left unread, so finish() names them with the method's own.
  if (c.method == "pme" || c.method == "ewald") {
    t.number("tolerance", c.tolerance, 0, 0.5, true);
    SPIRE_CHECK(c.tolerance < 0.5, ConfigError, job.where, ": forces.coulomb.tolerance must be < 0.5, got ",
                c.tolerance);
    t.number("alpha", c.alpha, 0, kInf, true);
  }
  if (c.method == "pme") {
    t.integer("order", c.order, 3, 12);
    read_int3(t, "grid", job.where, 1, c.grid);
  }
  if (c.method == "ewald") {
    read_int3(t, "kmax", job.where, 1, c.kmax);
  }
  if (c.method == "reaction_field") t.number("epsilon_solvent", c.epsilon_solvent, 1, kInf);
  t.finish();
}

void read_forces(JobSection& root, MdJob& job) {
  ForceSettings& f = job.forces;
  JobSection forces = root.table("forces");
  f.skin = job.units.name == "lj" ? 0.3 : 0.1;
  forces.number("skin", f.skin, 0, kInf);
  read_lj(forces, job);
  read_coulomb(forces, job);
  JobSection field = forces.table("external_field");
  if ((f.external_field.enabled = field.present())) {
    const bool electric = read_vec3(field, "electric", job.where, f.external_field.electric);
    const bool acceleration = read_vec3(field, "acceleration", job.where, f.external_field.acceleration);
    field.finish();
    SPIRE_CHECK(electric || acceleration, ConfigError, job.where, ": [forces.external_field] needs electric = [Ex, "
                "Ey, Ez] or acceleration = [gx, gy, gz]");
  }
  JobSection restraints = forces.table("restraints");
  if ((f.restraints.enabled = restraints.present())) {
    SPIRE_CHECK(restraints.has("k"), ConfigError, job.where, ": [forces.restraints] needs k, the spring constant");
    restraints.number("k", f.restraints.k, 0, kInf, true);
    restraints.integers("particles", f.restraints.particles, 0);
    restraints.strings("types", f.restraints.types);
    restraints.finish();
    SPIRE_CHECK(f.restraints.particles.empty() != f.restraints.types.empty(), ConfigError, job.where,
                ": [forces.restraints] needs particles = [i, ...] (indices) or types = [\"name\", ...], one of them");
  }
  forces.finish();
}

void read_thermostat(JobSection& integrator, MdJob& job) {
  ThermostatSettings& th = job.integrator.thermostat;
  JobSection t = integrator.table("thermostat");
  if (!t.present()) return;
  SPIRE_CHECK(job.integrator.kind == "verlet", ConfigError, job.where, ": [integrator.thermostat] goes with kind = "
              "\"verlet\"; kind = \"", job.integrator.kind, "\" is its own thermostat (set its temperature and "
              "friction in [integrator])");
  SPIRE_CHECK(t.has("kind"), ConfigError, job.where, ": [integrator.thermostat] needs kind, one of nose_hoover, "
              "bussi, berendsen");
  t.string("kind", th.kind, {"nose_hoover", "bussi", "berendsen"});
  th.temperature = job.integrator.temperature;
  t.number("temperature", th.temperature, 0, kInf, true);
  SPIRE_CHECK(th.temperature > 0, ConfigError, job.where, ": [integrator.thermostat] needs temperature (or "
              "integrator.temperature)");
  t.number("tau", th.tau, 0, kInf, true);
  if (th.kind == "nose_hoover") {
    t.integer("chain", th.nose_hoover.chain_length, 1, 1000);
    t.integer("multiple_steps", th.nose_hoover.multiple_steps, 1, 1000);
    t.integer("suzuki_yoshida", th.nose_hoover.suzuki_yoshida, 1, 7);
    const int sy = th.nose_hoover.suzuki_yoshida;
    SPIRE_CHECK(sy == 1 || sy == 3 || sy == 5 || sy == 7, ConfigError, job.where,
                ": integrator.thermostat.suzuki_yoshida must be 1, 3, 5 or 7, got ", sy);
  }
  t.finish();
}

void read_barostat(JobSection& integrator, MdJob& job) {
  BarostatSettings& b = job.integrator.barostat;
  JobSection t = integrator.table("barostat");
  if (!t.present()) return;
  SPIRE_CHECK(t.has("kind"), ConfigError, job.where, ": [integrator.barostat] needs kind, one of monte_carlo, "
              "berendsen");
  t.string("kind", b.kind, {"monte_carlo", "berendsen"});
  SPIRE_CHECK(t.has("pressure"), ConfigError, job.where, ": [integrator.barostat] needs pressure (",
              job.units.pressure, "): a number, or [Px, Py, Pz] for anisotropic coupling");
  if (t.is_array("pressure")) {
    b.anisotropic = read_vec3(t, "pressure", job.where, b.pressure);
  } else {
    double p = 0;
    t.number("pressure", p, -kInf, kInf);
    b.pressure = {p, p, p};
  }
  t.integer("frequency", b.frequency, 1);
  t.string("scaling", b.scaling, {"molecule", "atom"});
  if (b.kind == "monte_carlo") {
    b.temperature = job.integrator.thermostat.kind.empty() ? job.integrator.temperature
                                                           : job.integrator.thermostat.temperature;
    t.number("temperature", b.temperature, 0, kInf, true);
    SPIRE_CHECK(b.temperature > 0, ConfigError, job.where, ": the monte_carlo barostat needs a temperature: "
                "integrator.barostat.temperature, or a thermostat's or langevin's temperature");
    if (b.anisotropic) {
      std::vector<std::string> axes = {"x", "y", "z"};
      t.strings("axes", axes);
      b.axes = {false, false, false};
      for (const std::string& a : axes) {
        SPIRE_CHECK(a == "x" || a == "y" || a == "z", ConfigError, job.where,
                    ": integrator.barostat.axes holds \"", a, "\"; the axes are \"x\", \"y\", \"z\"");
        b.axes[size_t(a[0] - 'x')] = true;
      }
      SPIRE_CHECK(b.axes[0] || b.axes[1] || b.axes[2], ConfigError, job.where,
                  ": integrator.barostat.axes is empty; name at least one of \"x\", \"y\", \"z\"");
    }
  } else {
    t.number("compressibility", b.compressibility, 0, kInf, true);
    t.number("tau", b.tau, 0, kInf, true);
    SPIRE_CHECK(job.units.name == "md" || (b.compressibility > 0 && b.tau > 0), ConfigError, job.where,
                ": the berendsen barostat in lj units needs compressibility and tau (the defaults are water's, "
                "in bar and ps)");
  }
  t.finish();
}

void read_integrator(JobSection& root, MdJob& job) {
  IntegratorSettings& in = job.integrator;
  JobSection t = root.table("integrator");
  t.string("kind", in.kind, {"verlet", "langevin"});
  in.dt = job.units.name == "lj" ? 0.005 : 0.001;
  t.number("dt", in.dt, 0, kInf, true);
  t.number("temperature", in.temperature, 0, kInf, true);
  if (in.kind == "langevin") {
    SPIRE_CHECK(in.temperature > 0, ConfigError, job.where, ": kind = \"langevin\" needs integrator.temperature, "
                "the bath's temperature");
    t.number("friction", in.friction, 0, kInf);
  }
  // Restraints and external fields exchange momentum with the outside: the centre of mass moves.
  in.remove_com_motion = !(job.forces.restraints.enabled || job.forces.external_field.enabled);
  t.boolean("remove_com_motion", in.remove_com_motion);
  t.number("constraint_tolerance", in.constraint_tolerance, 0, 1, true);
  read_thermostat(t, job);
  read_barostat(t, job);
  t.finish();
  if (in.thermostat.kind.size() && in.thermostat.tau == 0) in.thermostat.tau = 100 * in.dt;
}

void read_velocities(JobSection& root, MdJob& job) {
  VelocitySettings& v = job.velocities;
  JobSection t = root.table("velocities");
  if (!(v.enabled = t.present())) return;
  SPIRE_CHECK(t.has("temperature"), ConfigError, job.where, ": [velocities] needs temperature (",
              job.units.temperature, ")");
  t.number("temperature", v.temperature, 0, kInf);
  read_seed(t, "seed", v.seed);
  // As the temperature counts degrees of freedom: without the centre of mass when it is held still.
  v.zero_momentum = job.integrator.remove_com_motion;
  t.boolean("zero_momentum", v.zero_momentum);
  t.finish();
}

void read_minimize(JobSection& root, MdJob& job) {
  MinimizeSettings& m = job.minimize;
  JobSection t = root.table("minimize");
  if (!(m.enabled = t.present())) return;
  t.string("method", m.method, {"fire", "lbfgs"});
  if (job.units.name == "md") m.force_tolerance = 10;  // GROMACS's emtol, kJ/mol/nm
  SPIRE_CHECK(job.units.name == "md" || t.has("force_tolerance"), ConfigError, job.where,
              ": [minimize] needs force_tolerance in lj units (epsilon/sigma)");
  t.number("force_tolerance", m.force_tolerance, 0, kInf, true);
  t.integer("max_iterations", m.max_iterations, 1);
  t.finish();
}

void read_run(JobSection& root, MdJob& job) {
  RunSettings& r = job.run;
  JobSection t = root.table("run");
  SPIRE_CHECK(t.has("steps") != t.has("time"), ConfigError, job.where, ": [run] needs steps (a number of steps) or "
              "time (in ", job.units.time, "), ", t.has("steps") ? "not both" : "one of them");
  t.integer("steps", r.steps, 0);
  t.number("time", r.time, 0, kInf, true);
  int64_t seed = 0;
  t.integer("seed", seed, 0);
  r.seed = uint64_t(seed);
  t.number("progress", r.progress_seconds, 0, kInf);
  t.boolean("resume", r.resume);
  std::string platform = "cpu";
  t.string("platform", platform);
  try {
    r.platform = parse_platform(platform);
  } catch (const ConfigError& e) {
    throw ConfigError(detail::cat(job.where, ": run.platform: ", e.what()));
  }
  t.finish();
}

void read_output(JobSection& root, MdJob& job) {
  JobSection output = root.table("output");
  JobSection thermo = output.table("thermo");
  thermo.integer("interval", job.thermo.interval, 1);
  thermo.string("file", job.thermo.file);
  const bool normalize_given = thermo.has("normalize");
  bool normalize = false;
  thermo.boolean("normalize", normalize);
  if (normalize_given) job.thermo.normalize = normalize;
  thermo.finish();
  JobSection h5md = output.table("h5md");
  H5mdOutput& h = job.h5md;
  if ((h.enabled = h5md.present())) {
    h5md.string("file", h.file);
    SPIRE_CHECK(!h.file.empty(), ConfigError, job.where, ": output.h5md.file must not be empty");
    h5md.integer("interval", h.interval, 1);
    h5md.boolean("position", h.position);
    h5md.boolean("velocity", h.velocity);
    h5md.boolean("force", h.force);
    h5md.boolean("observables", h.observables);
    h5md.boolean("float32", h.float32);
    h5md.string("author", h.author);
    h5md.finish();
    SPIRE_CHECK(h.position || h.velocity || h.force || h.observables, ConfigError, job.where,
                ": [output.h5md] writes nothing: set one of position, velocity, force, observables to true");
  }
  JobSection checkpoint = output.table("checkpoint");
  checkpoint.string("file", job.checkpoint.file);
  SPIRE_CHECK(!job.checkpoint.file.empty(), ConfigError, job.where, ": output.checkpoint.file must not be empty");
  checkpoint.integer("interval", job.checkpoint.interval, 0);
  checkpoint.finish();
  output.finish();
}

// What only the tables together can say.
void check_job(MdJob& job) {
  const bool charged = job.system.builder == "water" ||
                       (job.system.builder == "pdb" &&
                        (!job.system.pdb.water.empty() ||
                         std::any_of(job.system.pdb.charges.begin(), job.system.pdb.charges.end(),
                                     [](auto& kv) { return kv.second != 0; })));
  SPIRE_CHECK(!charged || job.forces.coulomb.enabled, ConfigError, job.where,
              ": the system has charges but [forces] has no coulomb table; add [forces.coulomb] with method = "
              "\"pme\", \"ewald\" or \"reaction_field\"");
  SPIRE_CHECK(job.system.builder != "water" || job.forces.lj.enabled, ConfigError, job.where,
              ": a water box needs [forces.lj] with a cutoff (the oxygens' Lennard-Jones keeps the charges apart)");
  const bool rigid = job.system.builder == "water" || !job.system.pdb.water.empty();
  SPIRE_CHECK(!(job.minimize.enabled && job.minimize.method == "lbfgs" && rigid), ConfigError, job.where,
              ": minimize.method = \"lbfgs\" cannot keep rigid water rigid; use method = \"fire\" (it keeps the "
              "constraints)");
  for (const std::string& type : job.forces.restraints.types)
    SPIRE_CHECK(!type.empty(), ConfigError, job.where, ": forces.restraints.types holds an empty name");
}

}  // namespace

MdJob parse_md_job(const std::string& toml, const std::string& where, const std::string& directory) {
  MdJob job;
  job.toml = toml;
  job.where = where;
  job.directory = directory;
  JobSection root = JobSection::parse(toml, where);
  SPIRE_CHECK(root.has("units"), ConfigError, where, ": units is required: \"md\" (nm, ps, kJ/mol, amu, e, K, bar) "
              "or \"lj\" (Lennard-Jones reduced units)");
  std::string units;
  root.string("units", units, {"md", "lj"});
  job.units = Units::by_name(units);
  read_system(root, job);
  read_forces(root, job);
  read_integrator(root, job);
  read_velocities(root, job);
  read_minimize(root, job);
  read_run(root, job);
  read_output(root, job);
  root.finish();
  check_job(job);
  return job;
}

MdJob load_md_job(const std::string& path) {
  return parse_md_job(JobSection::read(path), path, std::filesystem::path(path).parent_path().string());
}

int64_t total_steps(const MdJob& job) {
  if (job.run.steps >= 0) return job.run.steps;
  const double n = job.run.time / job.integrator.dt, nearest = std::round(n);
  return int64_t(std::abs(n - nearest) <= 1e-6 ? nearest : std::ceil(n));
}

}  // namespace spire::sponge
