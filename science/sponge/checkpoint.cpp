// Checkpoint files (checkpoint.h).
#include "science/sponge/checkpoint.h"

#include "engine/core/error.h"
#include "engine/core/fnv.h"
#include "engine/data/hdf5_file.h"
#include "science/sponge/hdf5_io.h"

namespace spire::sponge {
namespace {

using data::Hdf5Id;

constexpr const char* kFormat = "spire.sponge.checkpoint";
constexpr int64_t kFormatVersion = 1;

using Fnv = Fnv1a;

template <class T, class Feed>
SystemPart part(const std::string& name, const std::vector<T>& items, Feed feed) {
  Fnv f;
  for (const T& x : items) feed(f, x);
  return {name, f.h, int64_t(items.size())};
}

std::vector<double> flatten(const std::vector<Vec3>& v) {
  std::vector<double> out(3 * v.size());
  for (size_t i = 0; i < v.size(); ++i) out[3 * i] = v[i].x, out[3 * i + 1] = v[i].y, out[3 * i + 2] = v[i].z;
  return out;
}

std::vector<Vec3> unflatten(const std::vector<double>& v) {
  std::vector<Vec3> out(v.size() / 3);
  for (size_t i = 0; i < out.size(); ++i) out[i] = {v[3 * i], v[3 * i + 1], v[3 * i + 2]};
  return out;
}

void write_file(hid_t file, const std::string& who, const System& system, const State& state,
                const Integrator& integrator, uint64_t seed) {
  h5::write_fixed_string(file, "format", kFormat, who);
  data::write_attribute(file, "format_version", kFormatVersion, who);
  h5::write_fixed_string(file, "spire_version", SPIRE_VERSION, who);
  data::write_attribute(file, "step", int64_t(state.step), who);
  data::write_attribute(file, "time", state.time, who);
  data::write_attribute(file, "seed", seed, who);
  h5::write_fixed_string(file, "integrator", integrator.name(), who);
  data::write_attribute(file, "dt", integrator.dt(), who);
  h5::write_fixed_string(file, "units", system.units.name, who);

  const hsize_t n = state.positions.size();
  data::write_doubles(file, "state/positions", {n, 3}, flatten(state.positions).data(), who);
  data::write_doubles(file, "state/velocities", {hsize_t(state.velocities.size()), 3},
                      flatten(state.velocities).data(), who);
  const std::vector<double> box = flatten({state.box.a(), state.box.b(), state.box.c()});
  Hdf5Id box_ds = data::write_doubles(file, "state/box", {3, 3}, box.data(), who);
  data::write_attribute(box_ds, "periodic", int64_t(state.box.periodic() ? 1 : 0), who);

  Hdf5Id integ = data::create_group(file, "integrator", who);
  for (const auto& [key, values] : integrator.save_state()) {
    SPIRE_CHECK(!key.empty() && key.front() != '/' && key.back() != '/' && key.find("//") == std::string::npos,
                ValueError, who, ": integrator ", integrator.name(), " saved a variable named '", key,
                "'; names must be non-empty paths without empty parts");
    data::write_doubles(integ, key, values, who);
  }

  Hdf5Id sys = data::create_group(file, "system", who);
  data::write_attribute(sys, "hash", system_hash(system), who);
  for (const SystemPart& p : system_fingerprint(system)) {
    data::write_attribute(sys, (p.name + "_hash").c_str(), p.hash, who);
    data::write_attribute(sys, (p.name + "_count").c_str(), p.count, who);
  }
  data::write_doubles(sys, "mass", system.mass, who);
  data::write_doubles(sys, "charge", system.charge, who);
}

}  // namespace

std::vector<SystemPart> system_fingerprint(const System& s) {
  std::vector<SystemPart> parts;
  {
    Fnv f;
    f(s.units.name);
    parts.push_back({"units", f.h, 1});
  }
  parts.push_back(part("mass", s.mass, [](Fnv& f, double x) { f(x); }));
  parts.push_back(part("charge", s.charge, [](Fnv& f, double x) { f(x); }));
  parts.push_back(part("type", s.type, [](Fnv& f, int x) { f(int64_t(x)); }));
  parts.push_back(part("type_names", s.type_names, [](Fnv& f, const std::string& x) { f(x); }));
  const Topology& t = s.topology;
  parts.push_back(part("bonds", t.bonds, [](Fnv& f, const Bond& b) { f(b.i), f(b.j), f(b.length), f(b.k); }));
  parts.push_back(part("angles", t.angles,
                       [](Fnv& f, const Angle& a) { f(a.i), f(a.j), f(a.k), f(a.theta0), f(a.k_theta); }));
  parts.push_back(part("torsions", t.torsions, [](Fnv& f, const Torsion& a) {
    f(a.i), f(a.j), f(a.k), f(a.l), f(a.n), f(a.phase), f(a.k_phi);
  }));
  parts.push_back(part("impropers", t.impropers,
                       [](Fnv& f, const Improper& a) { f(a.i), f(a.j), f(a.k), f(a.l), f(a.xi0), f(a.k_xi); }));
  parts.push_back(part("pairs14", t.pairs14,
                       [](Fnv& f, const Pair14& p) { f(p.i), f(p.j), f(p.coulomb_scale), f(p.lj_scale); }));
  parts.push_back(
      part("constraints", t.constraints, [](Fnv& f, const Constraint& c) { f(c.i), f(c.j), f(c.length); }));
  parts.push_back(part("waters", t.waters,
                       [](Fnv& f, const RigidWater& w) { f(w.o), f(w.h1), f(w.h2), f(w.d_oh), f(w.d_hh); }));
  parts.push_back(part("exclusions", t.exclusions, [](Fnv& f, const std::pair<int, int>& e) { f(e.first), f(e.second); }));
  return parts;
}

uint64_t system_hash(const System& system) {
  Fnv f;
  for (const SystemPart& p : system_fingerprint(system)) f(p.name), f(p.hash), f(p.count);
  return f.h;
}

void write_checkpoint(const std::string& path, const System& system, const State& state, const Integrator& integrator,
                      uint64_t seed) {
  const std::string who = "checkpoint " + path;
  SPIRE_CHECK(int64_t(state.positions.size()) == system.size() && state.velocities.size() == state.positions.size(),
              ValueError, who, ": the state has ", state.positions.size(), " positions and ", state.velocities.size(),
              " velocities for a system of ", system.size(), " particles");
  data::write_hdf5_file(path, who, [&](hid_t file) { write_file(file, who, system, state, integrator, seed); });
}

Checkpoint read_checkpoint(const std::string& path) {
  const std::string who = "checkpoint " + path;
  const data::Hdf5Input file(path, who);
  data::check_format(file, kFormat, kFormatVersion, "a sponge checkpoint", who);

  Checkpoint c;
  auto need_i64 = [&](const char* name) {
    auto v = data::read_int64_attribute(file, name);
    SPIRE_CHECK(v.has_value(), IOError, who, ": no attribute ", name);
    return *v;
  };
  auto need_f64 = [&](const char* name) {
    auto v = data::read_double_attribute(file, name);
    SPIRE_CHECK(v.has_value(), IOError, who, ": no attribute ", name);
    return *v;
  };
  c.state.step = need_i64("step");
  c.state.time = need_f64("time");
  c.dt = need_f64("dt");
  auto seed = data::read_uint64_attribute(file, "seed");
  SPIRE_CHECK(seed.has_value(), IOError, who, ": no attribute seed");
  c.seed = *seed;
  c.integrator = data::read_string_attribute(file, "integrator").value_or("");
  c.units = data::read_string_attribute(file, "units").value_or("");
  c.spire_version = data::read_string_attribute(file, "spire_version").value_or("");

  std::vector<hsize_t> dims;
  const std::vector<double> x = data::read_doubles(file, "state/positions", dims, who);
  SPIRE_CHECK(dims.size() == 2 && dims[1] == 3, IOError, who, ": state/positions is not [N][3]");
  const std::vector<double> v = data::read_doubles(file, "state/velocities", dims, who);
  SPIRE_CHECK(dims.size() == 2 && dims[1] == 3 && v.size() == x.size(), IOError, who,
              ": state/velocities is not [N][3] with N as for the positions");
  c.state.positions = unflatten(x);
  c.state.velocities = unflatten(v);
  const std::vector<double> b = data::read_doubles(file, "state/box", dims, who);
  SPIRE_CHECK(b.size() == 9, IOError, who, ": state/box is not [3][3]");
  const int64_t periodic =
      data::read_int64_attribute(data::open_object(file, "state/box", who), "periodic").value_or(0);
  if (periodic) c.state.box = Box::triclinic({b[0], b[1], b[2]}, {b[3], b[4], b[5]}, {b[6], b[7], b[8]});

  Hdf5Id integ = data::open_group(file, "integrator", who);
  for (const std::string& key : data::dataset_paths(integ))
    c.integrator_state[key] = data::read_doubles(integ, key, dims, who);

  Hdf5Id sys = data::open_group(file, "system", who);
  auto hash = data::read_uint64_attribute(sys, "hash");
  SPIRE_CHECK(hash.has_value(), IOError, who, ": no attribute system/hash");
  c.system_hash = *hash;
  for (const SystemPart& p : system_fingerprint(System{})) {
    SystemPart q{p.name, data::read_uint64_attribute(sys, (p.name + "_hash").c_str()).value_or(0),
                 data::read_int64_attribute(sys, (p.name + "_count").c_str()).value_or(-1)};
    c.system_parts.push_back(q);
  }
  c.mass = data::read_doubles(sys, "mass", dims, who);
  c.charge = data::read_doubles(sys, "charge", dims, who);
  return c;
}

void check_checkpoint_matches(const Checkpoint& c, const std::string& path, const System& system,
                              const Integrator& integrator, uint64_t seed) {
  const std::string who = "restore from " + path;
  const int64_t n = int64_t(c.state.positions.size());
  SPIRE_CHECK(n == system.size(), ValueError, who, ": the checkpoint holds ", n,
              " particles; this simulation's system has ", system.size());
  SPIRE_CHECK(c.units == system.units.name, ValueError, who, ": the checkpoint is in ", c.units,
              " units; this simulation's system is in ", system.units.name, " units");
  if (c.system_hash != system_hash(system)) {
    for (int64_t i = 0; i < n && i < int64_t(c.mass.size()); ++i)
      SPIRE_CHECK(c.mass[size_t(i)] == system.mass[size_t(i)], ValueError, who,
                  ": the checkpoint was written for another system: the mass of particle ", i, " is ",
                  c.mass[size_t(i)], " in the checkpoint and ", system.mass[size_t(i)], " here");
    for (int64_t i = 0; i < n && i < int64_t(c.charge.size()); ++i)
      SPIRE_CHECK(c.charge[size_t(i)] == system.charge[size_t(i)], ValueError, who,
                  ": the checkpoint was written for another system: the charge of particle ", i, " is ",
                  c.charge[size_t(i)], " in the checkpoint and ", system.charge[size_t(i)], " here");
    const std::vector<SystemPart> here = system_fingerprint(system);
    for (size_t k = 0; k < here.size() && k < c.system_parts.size(); ++k) {
      const SystemPart &a = c.system_parts[k], &b = here[k];
      SPIRE_CHECK(a.count == b.count, ValueError, who, ": the checkpoint was written for another system: ", b.name,
                  " has ", a.count, " entries in the checkpoint and ", b.count, " here");
      SPIRE_CHECK(a.hash == b.hash, ValueError, who, ": the checkpoint was written for another system: the ", b.name,
                  " differ (", b.count, " entries in both, with other contents)");
    }
    throw ValueError(detail::cat(who, ": the checkpoint was written for another system (its hash differs)"));
  }
  SPIRE_CHECK(c.integrator == integrator.name(), ValueError, who, ": the checkpoint was written by the integrator ",
              c.integrator, "; this simulation's is ", integrator.name(),
              ". A restore continues the same run; to start another run from the checkpoint's coordinates, "
              "take read_checkpoint(path).state");
  SPIRE_CHECK(c.dt == integrator.dt(), ValueError, who, ": the checkpoint's time step is ", c.dt,
              "; this simulation's is ", integrator.dt(), ". A restore continues the same run with the same step");
  SPIRE_CHECK(c.seed == seed, ValueError, who, ": the checkpoint's seed is ", c.seed, "; this simulation's is ", seed,
              ". A restore continues the same random stream: construct the simulation with seed ", c.seed);
}

CheckpointWriter::CheckpointWriter(std::string path) : path_(std::move(path)) {
  SPIRE_CHECK(!path_.empty(), ValueError, "CheckpointWriter: empty path");
}

void CheckpointWriter::report(const Simulation& sim) {
  sim.save_checkpoint(path_);
  last_step_ = sim.state().step;
}

void CheckpointWriter::finish(const Simulation& sim) {
  if (last_step_ != sim.state().step) report(sim);
}

}  // namespace spire::sponge
