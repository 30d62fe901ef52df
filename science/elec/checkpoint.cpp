// Checkpoint files of a job's run (checkpoint.h).
#include "science/elec/checkpoint.h"

#include <filesystem>
#include <map>
#include <variant>

#include "engine/core/error.h"
#include "engine/core/fnv.h"
#include "engine/data/hdf5_file.h"
#include "science/elec/hdf5_files.h"

namespace spire::elec {

// Fingerprints feed a Vec3 as x, y, z (engine/core/fnv.h finds this by argument-dependent lookup).
static void fnv_feed(Fnv1a& f, const Vec3& v) { f(v.x)(v.y)(v.z); }

namespace {

constexpr const char* kFormat = "spire.elec.checkpoint";
constexpr int64_t kFormatVersion = 1;

using Fnv = Fnv1a;

void feed(Fnv& f, const ProfileSpec& p) {
  f(p.kind)(p.frequency)(p.fwidth)(p.cutoff)(p.start_time)(p.end_time)(p.width)(p.slowness);
}

void feed(Fnv& f, const Medium& m) {
  f(m.kind)(m.epsilon_diag)(m.mu_diag)(m.D_conductivity_diag)(m.B_conductivity_diag);
  f(uint64_t(m.E_susceptibilities.size()));
  for (const Susceptibility& s : m.E_susceptibilities) f(s.kind)(s.frequency)(s.gamma)(s.tau)(s.sigma_diag);
}

void feed(Fnv& f, const Shape& shape) {
  f(uint64_t(shape.index()));
  std::visit(
      [&](const auto& s) {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, Block>) f(s.center)(s.size)(s.e1)(s.e2)(s.e3);
        if constexpr (std::is_same_v<S, Sphere>) f(s.center)(s.radius);
        if constexpr (std::is_same_v<S, Cylinder>) f(s.center)(s.radius)(s.height)(s.axis);
        if constexpr (std::is_same_v<S, Prism>) {
          f(s.vertices)(s.height)(s.axis)(s.center.has_value());
          if (s.center) f(*s.center);
        }
      },
      shape);
}

void feed(Fnv& f, const FluxRegion& r) { f(r.center)(r.size)(r.weight); }

void feed(Fnv& f, const MonitorSpec& m) {
  // What decides the monitor's accumulated state; the far-field and harmonic-inversion analysis
  // settings act on results only and may change between sessions.
  f(m.kind)(m.name)(uint64_t(m.components.size()));
  for (Component c : m.components) f(c);
  f(m.center)(m.size)(uint64_t(m.regions.size()));
  for (const FluxRegion& r : m.regions) feed(f, r);
  // Files by name only: a job folder that moved with its checkpoint still resumes.
  const auto name = [](const std::string& path) { return std::filesystem::path(path).filename().string(); };
  f(m.frequencies)(m.epsilon)(m.mu)(name(m.load_minus_data))(m.fcen)(m.df)(m.start_time)(name(m.file))(m.every);
  f(m.single_precision);
}

std::string state_path(const std::string& name) { return "state/" + name; }

void write_file(hid_t file, const std::string& who, JobRun& run) {
  const SimulationState state = run.save_state();
  const Simulation& sim = run.simulation();
  const std::vector<FingerprintPart> parts = job_fingerprint(run.job());
  h5::write_format(file, kFormat, kFormatVersion, who);
  data::write_attribute(file, "job", run.job().toml, who);
  data::write_attribute(file, "steps", sim.steps(), who);
  data::write_attribute(file, "time", sim.time(), who);
  data::write_attribute(file, "dt", sim.dt(), who);
  data::write_attribute(file, "fingerprint", fingerprint_hash(parts), who);
  data::Hdf5Id fp = data::create_group(file, "fingerprint", who);
  for (const FingerprintPart& p : parts) data::write_attribute(fp, p.name.c_str(), p.hash, who);
  for (const StateArray& a : state) {
    SPIRE_CHECK(!a.name.empty() && a.name.front() != '/' && a.name.back() != '/' &&
                    a.name.find("//") == std::string::npos,
                ValueError, who, ": a state array is named '", a.name, "'; names must be paths without empty parts");
    data::write_doubles(file, state_path(a.name), a.values, who);
  }
}

}  // namespace

std::vector<FingerprintPart> job_fingerprint(const EmJob& job) {
  const Problem& p = job.problem;
  std::vector<FingerprintPart> parts;
  const auto part = [&](const char* name, auto&& fill) {
    Fnv f;
    fill(f);
    parts.push_back({name, f.h});
  };
  part("cell", [&](Fnv& f) {
    f(p.dimensions)(p.cell_size)(p.resolution)(p.courant)(p.precision);
    f(p.subpixel.subpixel)(p.subpixel.depth)(p.subpixel.tolerance);
  });
  part("boundaries", [&](Fnv& f) {
    for (int a = 0; a < 3; ++a) {
      for (Side s : {Side::low, Side::high}) {
        const BoundarySide& b = p.boundaries.side(a, s);
        f(b.kind)(b.thickness)(b.cells);
      }
      f(p.boundaries.bloch_k(a));
    }
    const PmlProfile& pp = p.boundaries.pml_profile;
    f(pp.order)(pp.reflection)(pp.kappa_max)(pp.alpha_max)(pp.alpha_order);
  });
  part("geometry", [&](Fnv& f) {
    feed(f, p.geometry.default_medium());
    f(uint64_t(p.geometry.size()));
    for (size_t i = 0; i < p.geometry.size(); ++i) {
      feed(f, p.geometry.solid(i).shape());
      feed(f, p.geometry.media()[size_t(p.geometry.medium_index(i))]);
    }
  });
  part("sources", [&](Fnv& f) {
    f(uint64_t(p.sources.size()));
    for (size_t i = 0; i < p.sources.size(); ++i) {
      const Source& s = p.sources[i];
      f(s.component)(s.center)(s.size)(s.amplitude);
      if (i < job.source_profiles.size()) feed(f, job.source_profiles[i]);
    }
  });
  part("plane_waves", [&](Fnv& f) {
    f(uint64_t(p.plane_waves.size()));
    for (size_t i = 0; i < p.plane_waves.size(); ++i) {
      const PlaneWave& w = p.plane_waves[i];
      f(w.direction)(w.polarization)(w.amplitude)(w.center)(w.size)(w.eps)(w.mu);
      if (i < job.plane_wave_profiles.size()) feed(f, job.plane_wave_profiles[i]);
    }
  });
  part("ports", [&](Fnv& f) {
    f(uint64_t(p.ports.size()));
    for (size_t i = 0; i < p.ports.size(); ++i) {
      const LumpedPort& q = p.ports[i];
      f(q.component)(q.center)(q.size)(q.resistance)(q.amplitude);
      if (i < job.ports.size()) {
        feed(f, job.ports[i].profile);
        f(job.ports[i].frequencies);
      }
    }
  });
  part("monitors", [&](Fnv& f) {
    f(uint64_t(job.monitors.size()));
    for (const MonitorSpec& m : job.monitors) feed(f, m);
  });
  return parts;
}

uint64_t fingerprint_hash(const std::vector<FingerprintPart>& parts) {
  Fnv f;
  for (const FingerprintPart& p : parts) f(p.name)(p.hash);
  return f.h;
}

void write_checkpoint(const std::string& path, JobRun& run) {
  const std::string who = "checkpoint " + path;
  data::write_hdf5_file(path, who, [&](hid_t file) { write_file(file, who, run); });
}

Checkpoint read_checkpoint(const std::string& path) {
  const std::string who = "checkpoint " + path;
  const data::Hdf5Input file(path, who);
  data::check_format(file, kFormat, kFormatVersion, "an electromagnetics checkpoint", who);
  Checkpoint c;
  const auto steps = data::read_int64_attribute(file, "steps");
  const auto time = data::read_double_attribute(file, "time");
  const auto dt = data::read_double_attribute(file, "dt");
  SPIRE_CHECK(steps && time && dt, IOError, who, ": the attributes steps, time and dt are required");
  c.steps = *steps;
  c.time = *time;
  c.dt = *dt;
  c.spire_version = data::read_string_attribute(file, "spire_version").value_or("");
  c.job = data::read_string_attribute(file, "job").value_or("");
  SPIRE_CHECK(H5Lexists(file, "fingerprint", H5P_DEFAULT) > 0 && H5Lexists(file, "state", H5P_DEFAULT) > 0, IOError,
              who, ": the groups fingerprint and state are required");
  data::Hdf5Id fp = data::open_object(file, "fingerprint", who);
  const EmJob blank;  // for the part names
  for (const FingerprintPart& p : job_fingerprint(blank)) {
    const auto hash = data::read_uint64_attribute(fp, p.name.c_str());
    SPIRE_CHECK(hash.has_value(), IOError, who, ": no fingerprint of the job's ", p.name);
    c.fingerprint.push_back({p.name, *hash});
  }
  data::Hdf5Id state = data::open_object(file, "state", who);
  for (const std::string& name : data::dataset_paths(state))
    c.state.push_back({name, data::read_doubles(state, name, who)});
  return c;
}

void check_checkpoint_matches(const Checkpoint& c, const std::string& path, const EmJob& job, double dt) {
  const std::string who = "resume from " + path;
  const std::vector<FingerprintPart> here = job_fingerprint(job);
  static const std::map<std::string, std::string> tables = {
      {"cell", "[cell]"},         {"boundaries", "[boundary]"},       {"geometry", "[[material]]/[[geometry]]/default_material"},
      {"sources", "[[source]]"},  {"plane_waves", "[[plane_wave]]"}, {"ports", "[[port]]"},
      {"monitors", "[[monitor]]"}};
  for (size_t k = 0; k < here.size() && k < c.fingerprint.size(); ++k)
    SPIRE_CHECK(here[k].hash == c.fingerprint[k].hash, ValueError, who,
                ": the checkpoint was written by another job: its ", here[k].name, " differ (",
                tables.at(here[k].name), " changed since). A resume continues the same run; only [run] until, "
                "progress and checkpoint settings, [output], the platform and the far-field and harminv analysis "
                "settings may change. Delete the checkpoint (or name another in [run] checkpoint) to start afresh");
  SPIRE_CHECK(c.dt == dt, ValueError, who, ": the checkpoint's time step is ", c.dt, "; this run's is ", dt);
}

void restore_checkpoint(const std::string& path, JobRun& run) {
  const Checkpoint c = read_checkpoint(path);
  check_checkpoint_matches(c, path, run.job(), run.simulation().dt());
  try {
    run.load_state(c.state);
  } catch (const ValueError& e) {
    throw ValueError(detail::cat("resume from ", path, ": ", e.what()));
  }
  SPIRE_CHECK(run.simulation().steps() == c.steps, ValueError, "resume from ", path, ": the state holds step ",
              run.simulation().steps(), ", the file says ", c.steps);
}

}  // namespace spire::elec
