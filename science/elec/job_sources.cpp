// Reading the job's [[source]], [[plane_wave]], [[port]] and [[monitor]] tables (job.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "engine/core/error.h"
#include "science/elec/job_read.h"

namespace spire::elec::job_read {

namespace {

constexpr double kInf = HUGE_VAL;

void read_source(JobSection& t, const Context& cx, EmJob& job) {
  Source s;
  s.component = component(t, "component", cx);
  s.center = required_vec3(t, "center", cx, "where the source is, in a");
  vec3(t, "size", cx, s.size, true);
  s.amplitude = amplitude(t, "amplitude", cx);
  const ProfileSpec p = profile(t, cx, true);
  s.profile = p.make();
  t.finish();
  job.problem.sources.push_back(s);
  job.source_profiles.push_back(p);
}

void read_plane_wave(JobSection& t, const Context& cx, EmJob& job) {
  PlaneWave w;
  w.direction = required_vec3(t, "direction", cx, "the direction of propagation");
  w.polarization = required_vec3(t, "polarization", cx, "the direction of E, orthogonal to direction");
  w.center = required_vec3(t, "center", cx, "the centre of the total-field box");
  w.size = required_vec3(t, "size", cx, "the total-field box's extent", true);
  w.amplitude = amplitude(t, "amplitude", cx);
  t.number("epsilon", w.eps, 0, kInf, true);
  t.number("mu", w.mu, 0, kInf, true);
  const ProfileSpec p = profile(t, cx, true);
  w.profile = p.make();
  t.finish();
  const double dot = w.direction.x * w.polarization.x + w.direction.y * w.polarization.y +
                     w.direction.z * w.polarization.z;
  const double nd = std::sqrt(w.direction.x * w.direction.x + w.direction.y * w.direction.y +
                              w.direction.z * w.direction.z);
  const double np = std::sqrt(w.polarization.x * w.polarization.x + w.polarization.y * w.polarization.y +
                              w.polarization.z * w.polarization.z);
  SPIRE_CHECK(nd > 0 && np > 0, ConfigError, cx.where, ": [", t.name(),
              "] direction and polarization must be nonzero vectors");
  SPIRE_CHECK(std::abs(dot) <= 1e-9 * nd * np, ConfigError, cx.where, ": [", t.name(),
              "] polarization must be orthogonal to direction (E is transverse); their dot product is ", dot);
  job.problem.plane_waves.push_back(w);
  job.plane_wave_profiles.push_back(p);
}

void read_port(JobSection& t, const Context& cx, EmJob& job) {
  LumpedPort port;
  PortSpec spec;
  port.component = component(t, "component", cx);
  SPIRE_CHECK(is_electric(port.component), ConfigError, cx.where, ": ", t.name(),
              ".component must be Ex, Ey or Ez (the direction of the gap), got ", to_string(port.component));
  port.center = required_vec3(t, "center", cx, "the centre of the gap");
  port.size = required_vec3(t, "size", cx, "the gap's length along the component's axis and width across it", true);
  t.number("resistance", port.resistance, 0, kInf, true);
  port.amplitude = amplitude(t, "amplitude", cx);
  spec.profile = profile(t, cx, false);
  port.profile = spec.profile.make();
  spec.frequencies = frequencies(t, cx, false);
  t.finish();
  job.problem.ports.push_back(port);
  job.ports.push_back(spec);
}

// [[monitor.region]] tables or box = { center, size }.
void read_regions(JobSection& t, const Context& cx, MonitorSpec& m) {
  const bool tables = t.has("region"), box = t.has("box");
  SPIRE_CHECK(tables != box, ConfigError, cx.where, ": [", t.name(), "] needs ",
              tables ? "[[" + t.name() + ".region]] tables or box = { center, size }, not both"
                     : "its surface: [[monitor.region]] tables (center, size, weight) or box = { center, size }");
  for (JobSection& r : t.tables("region")) {
    FluxRegion region;
    region.center = required_vec3(r, "center", cx, "the plane's centre");
    region.size = required_vec3(r, "size", cx, "the plane's extent, 0 along its normal", true);
    r.number("weight", region.weight, -kInf, kInf);
    SPIRE_CHECK(std::isfinite(region.weight), ConfigError, cx.where, ": ", r.name(), ".weight must be finite");
    r.finish();
    m.regions.push_back(region);
  }
  JobSection b = t.table("box");
  if (b.present()) {
    FluxRegion faces;  // center and size of the box, expanded below (the lattice is not built yet)
    faces.center = required_vec3(b, "center", cx, "the box's centre");
    faces.size = required_vec3(b, "size", cx, "the box's extent along each axis", true);
    b.finish();
    for (int a = 0; a < 3; ++a) {
      if (!cx.has_axis[size_t(a)]) continue;
      SPIRE_CHECK(faces.size[a] > 0 && std::isfinite(faces.size[a]), ConfigError, cx.where, ": ", b.name(),
                  ".size along ", "xyz"[a], " must be finite and > 0, got ", faces.size[a]);
      for (int side : {-1, 1}) {
        FluxRegion r;
        r.center = faces.center;
        r.center[a] += side * faces.size[a] / 2;
        for (int c = 0; c < 3; ++c) r.size[c] = (c == a || !cx.has_axis[size_t(c)]) ? 0 : faces.size[c];
        r.weight = side;
        m.regions.push_back(r);
      }
    }
  }
}

// Degrees from `from` to `to` every `step` (both ends included).
std::vector<double> degrees(double from, double to, double step) {
  std::vector<double> out;
  for (int i = 0; from + i * step <= to + 1e-9; ++i) out.push_back(from + i * step);
  return out;
}

void read_far_field(JobSection& t, const Context& cx, MonitorSpec& m) {
  JobSection f = t.table("far_field");
  if (!f.present()) return;
  FarFieldSpec& ff = m.far_field;
  ff.radius = required_number(f, "radius", cx, 0, kInf, true, "the distance of the far-field points from center");
  vec3(f, "center", cx, ff.center);
  const bool three = cx.has_axis[2] && cx.has_axis[0];
  if (three) {
    ff.theta = degrees(0, 180, 10);
    f.numbers("theta", ff.theta, 0, 180);
    ff.phi = {0, 90};
  } else {
    ff.theta = {90};
    ff.phi = degrees(0, 350, 10);
  }
  f.numbers("phi", ff.phi, -360, 360);
  f.boolean("radiated_power", ff.radiated_power);
  SPIRE_CHECK(!ff.theta.empty() && !ff.phi.empty(), ConfigError, cx.where, ": [", f.name(),
              "] theta and phi must not be empty");
  f.finish();
}

bool good_name(const std::string& n) {
  return !n.empty() && std::all_of(n.begin(), n.end(), [](unsigned char ch) {
    return std::isalnum(ch) || ch == '_' || ch == '-' || ch == '.';
  });
}

MonitorSpec read_monitor(JobSection& t, const Context& cx, std::vector<int>& counts) {
  MonitorSpec m;
  SPIRE_CHECK(t.has("kind"), ConfigError, cx.where, ": [", t.name(),
              "] needs kind: dft_fields, flux, near2far, point, harminv or snapshots");
  std::string kind;
  t.string("kind", kind, {"dft_fields", "flux", "near2far", "point", "harminv", "snapshots"});
  const std::vector<std::string> kinds = {"dft_fields", "flux", "near2far", "point", "harminv", "snapshots"};
  const int k = int(std::find(kinds.begin(), kinds.end(), kind) - kinds.begin());
  m.kind = MonitorKind(k);
  m.name = kind + std::to_string(counts[size_t(k)]++);
  t.string("name", m.name);
  SPIRE_CHECK(good_name(m.name), ConfigError, cx.where, ": ", t.name(), ".name \"", m.name,
              "\" must be letters, digits, _, - or . (it names the monitor's group in the results file)");
  switch (m.kind) {
    case MonitorKind::dft_fields:
      SPIRE_CHECK(t.has("components"), ConfigError, cx.where, ": [", t.name(),
                  "] needs components = [\"Ez\", ...]");
      m.components = components(t, "components", cx);
      SPIRE_CHECK(!m.components.empty(), ConfigError, cx.where, ": ", t.name(), ".components is empty");
      m.center = required_vec3(t, "center", cx, "the region's centre");
      vec3(t, "size", cx, m.size, true);
      m.frequencies = frequencies(t, cx, true);
      break;
    case MonitorKind::flux:
    case MonitorKind::near2far: {
      read_regions(t, cx, m);
      m.frequencies = frequencies(t, cx, true);
      std::string save, load;
      t.string("save_data", save);
      t.string("load_minus_data", load);
      if (!save.empty()) m.save_data = resolve_path(cx, save);
      if (!load.empty()) m.load_minus_data = resolve_path(cx, load);
      if (m.kind == MonitorKind::near2far) {
        SPIRE_CHECK(!cx.one_d, ConfigError, cx.where, ": [", t.name(), "] a 1d problem has no far field");
        t.number("epsilon", m.epsilon, 0, kInf, true);
        t.number("mu", m.mu, 0, kInf, true);
        read_far_field(t, cx, m);
      }
      break;
    }
    case MonitorKind::point:
      m.center = required_vec3(t, "center", cx, "the point");
      m.components = components(t, "components", cx);
      break;
    case MonitorKind::harminv:
      m.components = {component(t, "component", cx)};
      m.center = required_vec3(t, "center", cx, "the point whose ring-down is analysed");
      m.fcen = required_number(t, "fcen", cx, 0, kInf, true, "the band's centre in c/a");
      m.df = required_number(t, "df", cx, 0, kInf, true, "the band's width in c/a");
      SPIRE_CHECK(m.fcen - m.df / 2 >= 0, ConfigError, cx.where, ": [", t.name(), "] the band fcen +- df/2 = [",
                  m.fcen - m.df / 2, ", ", m.fcen + m.df / 2, "] must not reach below 0");
      t.number("start_time", m.start_time, 0, kInf);
      t.number("min_q", m.harminv.min_q, 0, kInf);
      t.number("max_error", m.harminv.max_error, 0, kInf, true);
      t.integer("max_modes", m.harminv.max_modes, 1, 100000);
      break;
    case MonitorKind::snapshots: {
      std::string file;
      t.string("file", file);
      SPIRE_CHECK(!file.empty(), ConfigError, cx.where, ": [", t.name(), "] needs file (the HDF5 file; its .xdmf "
                  "sidecar is written beside it)");
      m.file = resolve_path(cx, file);
      SPIRE_CHECK(t.has("every") != t.has("interval"), ConfigError, cx.where, ": [", t.name(),
                  "] needs every (steps) or interval (time in a/c), ", t.has("every") ? "not both" : "one of them");
      t.integer("every", m.every, 1);
      double interval = 0;
      t.number("interval", interval, 0, kInf, true);
      // dt = courant / resolution (simulation.h), known from [cell] already.
      if (interval > 0) m.every = std::max<int64_t>(1, std::llround(interval / cx.dt));
      m.components = components(t, "components", cx);
      t.boolean("single_precision", m.single_precision);
      break;
    }
  }
  t.finish();
  return m;
}

}  // namespace

void read_sources(JobSection& root, const Context& cx, EmJob& job) {
  for (JobSection& t : root.tables("source")) read_source(t, cx, job);
  for (JobSection& t : root.tables("plane_wave")) read_plane_wave(t, cx, job);
  for (JobSection& t : root.tables("port")) read_port(t, cx, job);
}

void read_monitors(JobSection& root, const Context& cx, EmJob& job) {
  std::vector<int> counts(6, 0);
  std::set<std::string> names;
  for (JobSection& t : root.tables("monitor")) {
    MonitorSpec m = read_monitor(t, cx, counts);
    SPIRE_CHECK(names.insert(m.name).second, ConfigError, cx.where, ": two monitors are named \"", m.name,
                "\"; names must differ (each is a group of the results file)");
    job.monitors.push_back(std::move(m));
  }
  // Two snapshot monitors writing one file would clobber each other.
  std::set<std::string> files;
  for (const MonitorSpec& m : job.monitors)
    if (m.kind == MonitorKind::snapshots)
      SPIRE_CHECK(files.insert(m.file).second, ConfigError, cx.where, ": two snapshot monitors write ", m.file);
}

}  // namespace spire::elec::job_read
