// Reading electromagnetics jobs (job.h): the cell, boundaries and run settings here; materials and
// geometry in job_geometry.cpp; sources, plane waves, ports and monitors in job_sources.cpp; the
// checks that span tables at the end, so that a mistake surfaces, named, before anything is built.
#include "science/elec/job.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "engine/core/error.h"
#include "science/elec/job_read.h"

namespace spire::elec {

namespace job_read {
void read_materials_and_geometry(JobSection& root, const Context& cx, EmJob& job);  // job_geometry.cpp
void read_sources(JobSection& root, const Context& cx, EmJob& job);                 // job_sources.cpp
void read_monitors(JobSection& root, const Context& cx, EmJob& job);
}  // namespace job_read

namespace {

using namespace job_read;
constexpr double kInf = HUGE_VAL;

// [cell]: the lattice, Courant number, precision, platform, subpixel averaging. Fills cx.
void read_cell(JobSection& root, Context& cx, EmJob& job, bool& two_d_open) {
  Problem& p = job.problem;
  JobSection t = root.table("cell");
  SPIRE_CHECK(t.present(), ConfigError, job.where, ": a [cell] table is required (size, resolution)");
  SPIRE_CHECK(t.has("size"), ConfigError, job.where, ": [cell] needs size = [sx, sy] or [sx, sy, sz] (in a)");
  std::vector<double> size;
  t.numbers("size", size, 0, kInf);
  SPIRE_CHECK(!size.empty() && size.size() <= 3, ConfigError, job.where,
              ": cell.size must be one to three numbers [sx, sy, sz] (in a), got ", size.size());
  p.resolution = required_number(t, "resolution", cx, 0, kInf, true, "cells per a");
  std::string dims;
  t.string("dimensions", dims, {"1d", "2d", "2d_tm", "2d_te", "3d"});
  if (dims.empty()) dims = size.size() == 3 && size[2] > 0 ? "3d" : "2d";
  two_d_open = dims == "2d";
  p.dimensions = two_d_open ? Dimensions::two_tm : parse_dimensions(dims);
  cx.one_d = dims == "1d";
  cx.dims_text = dims;
  if (cx.one_d) {
    SPIRE_CHECK(size.size() == 1 || (size.size() == 3 && size[0] == 0 && size[1] == 0), ConfigError, job.where,
                ": cell.size of a 1d problem (along z) is [sz] or [0, 0, sz]");
    p.cell_size = {0, 0, size.back()};
    cx.has_axis = {false, false, true};
  } else {
    p.cell_size = {size[0], size.size() > 1 ? size[1] : 0.0, size.size() > 2 ? size[2] : 0.0};
    const bool three = dims == "3d";
    SPIRE_CHECK(three || p.cell_size.z == 0, ConfigError, job.where, ": cell.size has a z extent ", p.cell_size.z,
                " but the problem is ", dims, " (axes x, y): give [sx, sy]");
    cx.has_axis = {true, true, three};
  }
  for (int a = 0; a < 3; ++a)
    SPIRE_CHECK(!cx.has_axis[size_t(a)] || (std::isfinite(p.cell_size[a]) && p.cell_size[a] > 0), ConfigError,
                job.where, ": cell.size along ", "xyz"[a], " must be finite and > 0 for a ", dims, " problem, got ",
                p.cell_size[a]);
  t.number("courant", p.courant, 0, 1, true);
  std::string precision = "float64";
  t.string("precision", precision, {"float64", "float32", "double", "single", "f64", "f32"});
  p.precision = parse_precision(precision);
  t.string("platform", p.platform);
  SPIRE_CHECK(!p.platform.empty(), ConfigError, job.where, ": cell.platform must not be empty (\"cpu\", \"cuda\")");
  t.boolean("subpixel", p.subpixel.subpixel);
  cx.dt = p.courant / p.resolution;
  t.integer("subpixel_depth", p.subpixel.depth, 0, 12);
  t.number("subpixel_tolerance", p.subpixel.tolerance, 0, kInf);
  t.finish();
}

// One number per side, or [low, high]; the axes of a table, or every axis for a plain value.
template <class T>
void read_per_side(JobSection& b, const char* key, const Context& cx, std::array<std::array<T, 2>, 3>& out,
                   double high) {
  const auto side_values = [&](JobSection& t, const char* k, std::array<T, 2>& v) {
    if (t.is_array(k)) {
      std::vector<double> x;
      t.numbers(k, x, 0, high);
      SPIRE_CHECK(x.size() == 2, ConfigError, cx.where, ": ", t.name(), ".", k,
                  " must be a thickness or [low, high], got ", x.size(), " numbers");
      for (int s = 0; s < 2; ++s) {
        SPIRE_CHECK(std::is_floating_point_v<T> || x[size_t(s)] == std::floor(x[size_t(s)]), ConfigError, cx.where,
                    ": ", t.name(), ".", k, " must hold whole numbers of cells");
        v[size_t(s)] = T(x[size_t(s)]);
      }
    } else {
      double x = 0;
      t.number(k, x, 0, high);
      SPIRE_CHECK(std::is_floating_point_v<T> || x == std::floor(x), ConfigError, cx.where, ": ", t.name(), ".", k,
                  " must be a whole number of cells, got ", x);
      v = {T(x), T(x)};
    }
  };
  if (b.is_table(key)) {
    JobSection t = b.table(key);
    for (const std::string& name : t.keys()) axis(name, b.name() + "." + key, cx);
    for (int a = 0; a < 3; ++a)
      if (cx.has_axis[size_t(a)]) side_values(t, std::string(1, "xyz"[a]).c_str(), out[size_t(a)]);
    t.finish();
  } else if (b.has(key)) {
    std::array<T, 2> v{};
    side_values(b, key, v);
    for (int a = 0; a < 3; ++a)
      if (cx.has_axis[size_t(a)]) out[size_t(a)] = v;
  }
}

void read_boundary(JobSection& root, const Context& cx, EmJob& job) {
  Boundaries& bd = job.problem.boundaries;
  JobSection t = root.table("boundary");
  std::array<int, 3> claimed{-1, -1, -1};  // which key set each axis, for conflicts
  const char* keys[] = {"periodic", "bloch", "pec", "pmc"};
  const auto claim = [&](int a, int key) {
    SPIRE_CHECK(claimed[size_t(a)] < 0 || claimed[size_t(a)] == key, ConfigError, cx.where, ": [boundary] names the ",
                "xyz"[a], " axis in both ", keys[std::max(0, claimed[size_t(a)])], " and ", keys[key],
                "; an axis has one kind of wall");
    claimed[size_t(a)] = key;
  };
  const auto axis_list = [&](const char* key, int k) {
    std::vector<std::string> names;
    t.strings(key, names);
    std::vector<int> out;
    for (const std::string& n : names) {
      const int a = axis(n, "boundary." + std::string(key), cx);
      claim(a, k);
      out.push_back(a);
    }
    return out;
  };
  for (int a : axis_list("pec", 2)) bd.set_pec(a);
  for (int a : axis_list("pmc", 3)) bd.set_pmc(a);
  for (int a : axis_list("periodic", 0)) bd.set_periodic(a);
  JobSection bloch = t.table("bloch");
  for (const std::string& n : bloch.keys()) {
    const int a = axis(n, "boundary.bloch", cx);
    claim(a, 1);
    double k = 0;
    bloch.number(n.c_str(), k, -kInf, kInf);
    SPIRE_CHECK(std::isfinite(k), ConfigError, cx.where, ": boundary.bloch.", n, " must be finite");
    bd.set_bloch(a, k);
  }
  bloch.finish();
  SPIRE_CHECK(!(t.has("pml") && t.has("pml_cells")), ConfigError, cx.where,
              ": [boundary] gives both pml (thickness in a) and pml_cells (in cells); give one of them");
  std::array<std::array<double, 2>, 3> thickness{};
  std::array<std::array<int, 2>, 3> cells{};
  read_per_side(t, "pml", cx, thickness, kInf);
  read_per_side(t, "pml_cells", cx, cells, 1e6);
  for (int a = 0; a < 3; ++a) {
    const auto has_pml = [&](int s) { return thickness[size_t(a)][size_t(s)] > 0 || cells[size_t(a)][size_t(s)] > 0; };
    SPIRE_CHECK(!(claimed[size_t(a)] >= 2 && has_pml(0) && has_pml(1)), ConfigError, cx.where,
                ": [boundary] names the ", "xyz"[a], " axis in ", keys[std::max(0, claimed[size_t(a)])],
                " and puts a pml on both its sides, which leaves no ", keys[std::max(0, claimed[size_t(a)])],
                " wall; a pml on one side leaves the other side to it");
    for (int s = 0; s < 2; ++s) {
      const double th = thickness[size_t(a)][size_t(s)];
      const int n = cells[size_t(a)][size_t(s)];
      if (th <= 0 && n <= 0) continue;
      SPIRE_CHECK(claimed[size_t(a)] != 0 && claimed[size_t(a)] != 1, ConfigError, cx.where,
                  ": [boundary] puts a pml on the ", "xyz"[a], " axis, which is also ", keys[claimed[size_t(a)]],
                  "; a periodic axis has no walls to absorb at");
      BoundarySide side;
      side.kind = BoundaryKind::pml;
      side.thickness = th;
      side.cells = n;
      bd.set(a, Side(s), side);
    }
  }
  JobSection prof = t.table("pml_profile");
  PmlProfile& pp = bd.pml_profile;
  prof.integer("order", pp.order, 0, 20);
  prof.number("reflection", pp.reflection, 0, 1, true);
  prof.number("kappa_max", pp.kappa_max, 1, kInf);
  prof.number("alpha_max", pp.alpha_max, 0, kInf);
  prof.integer("alpha_order", pp.alpha_order, 0, 20);
  prof.finish();
  t.finish();
}

// "90 s", "30 min", "2 h" (also "1.5h", "45 minutes").
double parse_wall_time(const std::string& text, const Context& cx) {
  size_t used = 0;
  double v = -1;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  unit.erase(std::remove(unit.begin(), unit.end(), ' '), unit.end());
  const std::map<std::string, double> units = {{"s", 1},      {"sec", 1},       {"seconds", 1}, {"second", 1},
                                               {"min", 60},   {"minutes", 60},  {"minute", 60}, {"h", 3600},
                                               {"hours", 3600}, {"hour", 3600}};
  const auto it = units.find(unit);
  SPIRE_CHECK(used > 0 && it != units.end() && std::isfinite(v) && v > 0, ConfigError, cx.where,
              ": run.checkpoint_every must be a number of steps (an integer) or a wall time such as \"90 s\", "
              "\"30 min\", \"2 h\"; got \"", text, "\"");
  return v * it->second;
}

void read_run(JobSection& root, const Context& cx, EmJob& job) {
  RunSpec& r = job.run;
  JobSection t = root.table("run");
  SPIRE_CHECK(t.has("until") != t.has("until_after_sources"), ConfigError, cx.where,
              ": [run] needs until (a time in a/c) or until_after_sources (the time to run on after the last "
              "source ends), ", t.has("until") ? "not both" : "one of them");
  t.number("until", r.until, 0, kInf);
  t.number("until_after_sources", r.until_after_sources, 0, kInf);
  SPIRE_CHECK(std::isfinite(r.until) && std::isfinite(r.until_after_sources), ConfigError, cx.where,
              ": run.until and run.until_after_sources must be finite");
  std::string checkpoint;
  t.string("checkpoint", checkpoint);
  if (!checkpoint.empty()) r.checkpoint = resolve_path(cx, checkpoint), r.checkpoint_named = true;
  if (t.is_string("checkpoint_every")) {
    std::string every;
    t.string("checkpoint_every", every);
    r.checkpoint_seconds = parse_wall_time(every, cx);
  } else {
    t.integer("checkpoint_every", r.checkpoint_steps, 1);
  }
  t.number("progress", r.progress_seconds, 0, kInf);
  t.finish();
}

void read_output(JobSection& root, const Context& cx, EmJob& job) {
  JobSection t = root.table("output");
  std::string file = std::filesystem::path(job.where).stem().string() + ".h5";
  t.string("file", file);
  SPIRE_CHECK(!file.empty(), ConfigError, cx.where, ": output.file must not be empty");
  t.finish();
  set_output(job, resolve_path(cx, file));
}

bool is_tm(Component c) { return c == Component::Ez || c == Component::Hx || c == Component::Hy; }

// dimensions = "2d": TM or TE from what the sources drive.
void settle_two_d(EmJob& job, const Context& cx) {
  std::vector<std::string> tm, te;
  const auto note = [&](bool m, const std::string& what) { (m ? tm : te).push_back(what); };
  for (size_t i = 0; i < job.problem.sources.size(); ++i)
    note(is_tm(job.problem.sources[i].component), detail::cat("source[", i, "] (", to_string(job.problem.sources[i].component), ")"));
  for (size_t i = 0; i < job.problem.ports.size(); ++i)
    note(job.problem.ports[i].component == Component::Ez, detail::cat("port[", i, "]"));
  for (size_t i = 0; i < job.problem.plane_waves.size(); ++i) {
    const Vec3& p = job.problem.plane_waves[i].polarization;
    note(p.x == 0 && p.y == 0, detail::cat("plane_wave[", i, "]"));
  }
  SPIRE_CHECK(!tm.empty() || !te.empty(), ConfigError, cx.where, ": dimensions = \"2d\" takes TM (Ez, Hx, Hy) or TE "
              "(Hz, Ex, Ey) from the sources' components, and there are none; write \"2d_tm\" or \"2d_te\"");
  SPIRE_CHECK(tm.empty() || te.empty(), ConfigError, cx.where, ": dimensions = \"2d\": ", detail::join(tm),
              " drive TM fields (Ez, Hx, Hy) and ", detail::join(te), " TE fields (Hz, Ex, Ey); a 2d run carries one "
              "of the two: choose \"2d_tm\" or \"2d_te\"");
  job.problem.dimensions = tm.empty() ? Dimensions::two_te : Dimensions::two_tm;
}

// Every component the job names must be one the problem carries.
void check_components(const EmJob& job, const Context& cx) {
  const YeeLattice probe(job.problem.dimensions, {1, 1, 1}, 1);
  const auto check = [&](Component c, const std::string& who) {
    std::string carried;
    for (Component k : probe.components()) carried += (carried.empty() ? "" : ", ") + to_string(k);
    SPIRE_CHECK(probe.has(c), ConfigError, cx.where, ": ", who, " names ", to_string(c), ", which a ",
                to_string(job.problem.dimensions), " problem does not carry (it has ", carried, ")");
  };
  for (size_t i = 0; i < job.problem.sources.size(); ++i)
    check(job.problem.sources[i].component, detail::cat("source[", i, "].component"));
  for (size_t i = 0; i < job.problem.ports.size(); ++i)
    check(job.problem.ports[i].component, detail::cat("port[", i, "].component"));
  for (const MonitorSpec& m : job.monitors)
    for (Component c : m.components) check(c, "monitor \"" + m.name + "\"");
}

}  // namespace

std::shared_ptr<const TimeProfile> ProfileSpec::make() const {
  if (kind == "gaussian") return std::make_shared<GaussianSource>(frequency, fwidth, start_time, cutoff);
  if (kind == "continuous") return std::make_shared<ContinuousSource>(frequency, start_time, end_time, width, slowness);
  return nullptr;
}

std::string to_string(MonitorKind kind) {
  switch (kind) {
    case MonitorKind::dft_fields: return "dft_fields";
    case MonitorKind::flux: return "flux";
    case MonitorKind::near2far: return "near2far";
    case MonitorKind::point: return "point";
    case MonitorKind::harminv: return "harminv";
    default: return "snapshots";
  }
}

void set_output(EmJob& job, const std::string& path) {
  job.output = path;
  if (!job.run.checkpoint_named) {
    std::filesystem::path p(path);
    job.run.checkpoint = p.replace_extension("").string() + ".checkpoint.h5";
  }
}

EmJob parse_em_job(const std::string& toml, const std::string& where, const std::string& directory) {
  EmJob job;
  job.toml = toml;
  job.where = where;
  job.directory = directory;
  Context cx;
  cx.where = where;
  cx.directory = directory;
  JobSection root = JobSection::parse(toml, where);
  bool two_d_open = false;
  read_cell(root, cx, job, two_d_open);
  read_boundary(root, cx, job);
  read_materials_and_geometry(root, cx, job);
  read_sources(root, cx, job);
  if (two_d_open) settle_two_d(job, cx);
  read_monitors(root, cx, job);
  read_run(root, cx, job);
  read_output(root, cx, job);
  root.finish();
  check_components(job, cx);
  // What the parts check themselves (the lattice, the boundaries against it), as ConfigErrors
  // naming the job, before anything is allocated.
  int axes = 0;
  for (bool h : cx.has_axis) axes += h ? 1 : 0;
  SPIRE_CHECK(job.problem.courant <= 1 / std::sqrt(double(axes)) * (1 + 1e-12), ConfigError, where,
              ": cell.courant = ", job.problem.courant, " is above the stability limit 1/sqrt(", axes, ") = ",
              1 / std::sqrt(double(axes)), " of a ", cx.dims_text, " problem");
  try {
    const YeeLattice lattice(job.problem.dimensions, job.problem.cell_size, job.problem.resolution);
    resolve(job.problem.boundaries, lattice);
    validate(job.problem.boundaries.pml_profile);
  } catch (const ConfigError& e) {
    throw ConfigError(detail::cat(where, ": [boundary]/[cell]: ", e.what()));
  } catch (const ValueError& e) {
    throw ConfigError(detail::cat(where, ": [boundary]/[cell]: ", e.what()));
  }
  return job;
}

EmJob load_em_job(const std::string& path) {
  return parse_em_job(data::JobSection::read(path), path, std::filesystem::path(path).parent_path().string());
}

}  // namespace spire::elec
