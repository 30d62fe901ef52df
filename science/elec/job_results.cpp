// The results file of a job's run (job_run.h's header comment gives the layout).
#include <cmath>
#include <filesystem>
#include <numbers>

#include "engine/core/error.h"
#include "engine/data/hdf5_file.h"
#include "science/elec/hdf5_files.h"
#include "science/elec/job_run.h"

namespace spire::elec {

namespace {

using data::Hdf5Id;
constexpr const char* kDft =
    "sum_n f(t_n) exp(+i 2 pi f t_n) dt over the run, H at t_n - dt/2; Meep's DFT fields are these / sqrt(2 pi) "
    "and its fluxes these / (2 pi); ratios agree";

constexpr const char* kFlux =
    "sum over the regions of weight * sum_points Re(conj(E_t) x H_t) . n dA of the DFT fields, positive along "
    "+n (flux.h); Meep's get_fluxes gives this / (2 pi)";

// A string attribute on the dataset `name` of group g.
void annotate(hid_t g, const char* name, const char* attribute, const std::string& text, const std::string& who) {
  Hdf5Id ds = data::open_object(g, name, who);
  data::write_attribute(ds, attribute, text, who);
}

void write_regions(hid_t g, const std::vector<FluxRegion>& regions, const std::string& who) {
  std::vector<double> centers, sizes, weights;
  for (const FluxRegion& r : regions) {
    for (int a = 0; a < 3; ++a) centers.push_back(r.center[a]), sizes.push_back(r.size[a]);
    weights.push_back(r.weight);
  }
  data::write_doubles(g, "region_center", {hsize_t(regions.size()), 3}, centers.data(), who);
  data::write_doubles(g, "region_size", {hsize_t(regions.size()), 3}, sizes.data(), who);
  data::write_doubles(g, "region_weight", weights, who);
}

void write_dft(hid_t g, const DftFields& d, const std::string& who) {
  const std::string c = to_string(d.component());
  const auto shape = d.shape();
  std::vector<std::complex<double>> all;
  for (size_t f = 0; f < d.frequencies().size(); ++f) {
    const std::vector<std::complex<double>> v = d.values(f);
    all.insert(all.end(), v.begin(), v.end());
  }
  h5::write_complex(g, c + "/values",
                    {hsize_t(d.frequencies().size()), hsize_t(shape[0]), hsize_t(shape[1]), hsize_t(shape[2])},
                    all.data(), who);
  for (int a = 0; a < 3; ++a) data::write_doubles(g, c + "/" + "xyz"[a], d.positions()[size_t(a)], who);
}

void write_far_field(hid_t g, const MonitorSpec& m, const Near2Far& n2f, int dims, const std::string& who) {
  const FarFieldSpec& ff = m.far_field;
  if (ff.radius <= 0) return;
  constexpr double deg = std::numbers::pi / 180;
  std::vector<Vec3> points;
  std::vector<double> flat;
  for (double theta : ff.theta)
    for (double phi : ff.phi) {
      const double st = dims == 3 ? std::sin(theta * deg) : 1, ct = dims == 3 ? std::cos(theta * deg) : 0;
      const Vec3 p{ff.center.x + ff.radius * st * std::cos(phi * deg), ff.center.y + ff.radius * st * std::sin(phi * deg),
                   ff.center.z + ff.radius * ct};
      points.push_back(p);
      flat.insert(flat.end(), {p.x, p.y, p.z});
    }
  const std::vector<PhasorFields> fields = n2f.far_fields(points);
  const size_t nf = n2f.frequencies().size(), np = points.size();
  std::vector<std::complex<double>> e(nf * np * 3), h(nf * np * 3);
  for (size_t p = 0; p < np; ++p)
    for (size_t f = 0; f < nf; ++f)
      for (size_t c = 0; c < 3; ++c) {
        e[(f * np + p) * 3 + c] = fields[p * nf + f].E[c];
        h[(f * np + p) * 3 + c] = fields[p * nf + f].H[c];
      }
  Hdf5Id far = data::create_group(g, "far_field", who);
  data::write_attribute(far, "radius", ff.radius, who);
  data::write_attribute(far, "center", std::vector<double>{ff.center.x, ff.center.y, ff.center.z}, who);
  data::write_attribute(far, "angles",
                        std::string(dims == 3 ? "points at center + radius (sin theta cos phi, sin theta sin phi, "
                                                "cos theta), theta-major"
                                              : "points at center + radius (cos phi, sin phi, 0)"),
                        who);
  data::write_doubles(far, "theta", dims == 3 ? ff.theta : std::vector<double>{90.0}, who);
  data::write_doubles(far, "phi", ff.phi, who);
  data::write_doubles(far, "points", {hsize_t(np), 3}, flat.data(), who);
  h5::write_complex(far, "E", {hsize_t(nf), hsize_t(np), 3}, e.data(), who);
  h5::write_complex(far, "H", {hsize_t(nf), hsize_t(np), 3}, h.data(), who);
  if (ff.radiated_power) {
    data::write_doubles(g, "radiated_power", n2f.radiated_power(ff.radius, ff.center), who);
    Hdf5Id ds = data::open_object(g, "radiated_power", who);
    data::write_attribute(ds, "radius", ff.radius, who);
  }
}

void write_point(hid_t g, const PointTimeSeries& p, double dt, const std::string& who) {
  data::write_doubles(g, "time", p.times(), who);
  annotate(g, "time", "units", "a/c; the step times (of E); a component's own time adds its time_offset", who);
  bool complex_values = false;
  for (Component c : p.components())
    for (double v : p.imag_values(c)) complex_values = complex_values || v != 0;
  for (Component c : p.components()) {
    const std::string name = to_string(c);
    data::write_doubles(g, name, p.values(c), who);
    Hdf5Id ds = data::open_object(g, name, who);
    data::write_attribute(ds, "time_offset", component_time(c, 0.0, dt), who);
    if (complex_values) data::write_doubles(g, name + "_imag", p.imag_values(c), who);
  }
}

void write_harminv(hid_t g, const HarmonicPoint& h, const MonitorSpec& m, const std::string& who) {
  std::vector<HarmonicMode> modes;
  try {
    modes = h.modes();
  } catch (const ValueError& e) {
    data::write_attribute(g, "error", std::string(e.what()), who);  // too few samples: no modes, and why
  }
  std::vector<double> f, decay, q, err;
  std::vector<std::complex<double>> amp;
  for (const HarmonicMode& mode : modes) {
    f.push_back(mode.frequency), decay.push_back(mode.decay), q.push_back(mode.q), err.push_back(mode.error);
    amp.push_back(mode.amplitude);
  }
  data::write_doubles(g, "frequency", f, who);
  data::write_doubles(g, "decay", decay, who);
  data::write_doubles(g, "q", q, who);
  data::write_doubles(g, "error", err, who);
  h5::write_complex(g, "amplitude", {hsize_t(amp.size())}, amp.data(), who);
  data::write_attribute(g, "component", to_string(h.component()), who);
  data::write_attribute(g, "point", std::vector<double>{m.center.x, m.center.y, m.center.z}, who);
  data::write_attribute(g, "fcen", h.fcen(), who);
  data::write_attribute(g, "df", h.df(), who);
  data::write_attribute(g, "start_time", h.start_time(), who);
  data::write_attribute(g, "samples", int64_t(h.series().times().size()), who);
}

void write_file(hid_t file, const std::string& who, const JobRun& run) {
  const Simulation& sim = run.simulation();
  const YeeLattice& lat = sim.lattice();
  const EmJob& job = run.job();
  h5::write_format(file, "spire.elec.results", 1, who);
  h5::write_provenance(file, Provenance{job.toml, std::nullopt}, who);
  data::write_attribute(file, "dft_convention", std::string(kDft), who);
  data::write_attribute(file, "dimensions", to_string(lat.dimensions()), who);
  data::write_attribute(file, "precision", to_string(sim.precision()), who);
  data::write_attribute(file, "resolution", lat.resolution(), who);
  data::write_attribute(file, "courant", sim.courant(), who);
  data::write_attribute(file, "dt", sim.dt(), who);
  data::write_attribute(file, "steps", sim.steps(), who);
  data::write_attribute(file, "time", sim.time(), who);
  const Vec3 size = lat.size();
  for (int a = 0; a < 3; ++a) {
    data::write_attribute(file, (std::string("size_") + "xyz"[a]).c_str(), size[a], who);
    data::write_attribute(file, (std::string("n_") + "xyz"[a]).c_str(), lat.n(a), who);
  }
  const int dims = lat.dimensions() == Dimensions::three ? 3 : lat.dimensions() == Dimensions::one ? 1 : 2;
  Hdf5Id monitors = data::create_group(file, "monitors", who);
  for (const MonitorObjects& o : run.monitor_objects()) {
    const MonitorSpec& m = *o.spec;
    Hdf5Id g = data::create_group(monitors, m.name, who);
    data::write_attribute(g, "kind", to_string(m.kind), who);
    if (!m.frequencies.empty()) {
      data::write_doubles(g, "frequencies", m.frequencies, who);
      annotate(g, "frequencies", "units", "c/a (Meep's frequency: 1 / vacuum wavelength in a)", who);
    }
    switch (m.kind) {
      case MonitorKind::dft_fields:
        for (const DftFields* d : o.dfts) write_dft(g, *d, who);
        break;
      case MonitorKind::flux:
        data::write_doubles(g, "flux", o.flux->flux(), who);
        annotate(g, "flux", "convention", kFlux, who);
        write_regions(g, m.regions, who);
        break;
      case MonitorKind::near2far:
        write_regions(g, m.regions, who);
        data::write_attribute(g, "epsilon", m.epsilon, who);
        data::write_attribute(g, "mu", m.mu, who);
        write_far_field(g, m, *o.near2far, dims, who);
        break;
      case MonitorKind::point:
        write_point(g, *o.point, sim.dt(), who);
        data::write_attribute(g, "point", std::vector<double>{m.center.x, m.center.y, m.center.z}, who);
        break;
      case MonitorKind::harminv:
        write_harminv(g, *o.harminv, m, who);
        break;
      case MonitorKind::snapshots: {
        data::write_attribute(g, "file", o.snapshots->path(), who);
        data::write_attribute(g, "xdmf", o.snapshots->xdmf_path(), who);
        std::string parts;
        for (const std::string& p : o.snapshots->parts()) parts += (parts.empty() ? "" : "\n") + p;
        data::write_attribute(g, "parts", parts, who);
        data::write_attribute(g, "every", m.every, who);
        break;
      }
    }
  }
  Hdf5Id ports = data::create_group(file, "ports", who);
  for (size_t i = 0; i < run.port_monitors().size(); ++i) {
    const PortMonitor* p = run.port_monitors()[i].get();
    if (!p) continue;
    Hdf5Id g = data::create_group(ports, std::to_string(i), who);
    data::write_attribute(g, "resistance", job.problem.ports[i].resistance, who);
    data::write_doubles(g, "frequencies", p->frequencies(), who);
    const auto put = [&](const char* name, const std::vector<std::complex<double>>& v) {
      h5::write_complex(g, name, {hsize_t(v.size())}, v.data(), who);
    };
    put("voltage", p->voltage());
    put("current", p->current());
    put("impedance", p->impedance());
    put("incident", p->incident_wave());
    put("reflected", p->reflected_wave());
  }
}

}  // namespace

void write_results(const std::string& path, const JobRun& run) {
  const std::string who = "results " + path;
  data::write_hdf5_file(path, who, [&](hid_t file) { write_file(file, who, run); });
}

}  // namespace spire::elec
