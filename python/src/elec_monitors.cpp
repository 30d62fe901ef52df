// spire._C._elec monitors (monitors.h): Poynting flux with Meep's two-run normalisation, DFT
// fields, the near-to-far transform, harmonic inversion, point time series and HDF5 snapshots
// (the ports' monitors are in elec_ports.cpp).
//
// A monitor belongs to its Simulation (the Monitors object it holds, which updates every monitor
// after each step); the Python handle keeps the Simulation alive. Monitors are added between runs
// (not from a step callback), and accumulate from the next step on. Results are NumPy arrays over
// frequencies (Meep's get_fluxes), with Spire's DFT scale (monitors.h: Meep's times sqrt(2 pi);
// ratios are the same).
#include <cstring>

#include "elec_common.h"
#include "engine/core/error.h"

namespace spire::python::elec_py {

using namespace spire::elec;

namespace {

// The DFTs of several components over one region (Meep's add_dft_fields returns one object for a
// list of components).
struct DftGroup {
  std::vector<Component> components;
  std::vector<DftFields*> parts;
  Vec3 size;
  const YeeLattice* lattice = nullptr;

  const DftFields& part(py::handle c) const {
    const Component comp = to_component(c, "DftFields");
    for (size_t i = 0; i < components.size(); ++i)
      if (components[i] == comp) return *parts[i];
    std::string have;
    for (Component x : components) have += (have.empty() ? "" : ", ") + to_string(x);
    throw spire::ValueError(detail::cat("DftFields: no ", to_string(comp), " in this monitor (it has ", have, ")"));
  }
  // The region's axes: those the problem has along which the region has extent (Meep drops the others).
  std::vector<int> axes() const {
    std::vector<int> a;
    for (int ax = 0; ax < 3; ++ax)
      if (lattice->has_axis(ax) && size[ax] > 0) a.push_back(ax);
    return a;
  }
};

struct PointSeries {
  PointTimeSeries* series = nullptr;
  bool complex_fields = false;
};

py::array_t<std::complex<double>> phasor_array(const std::vector<PhasorFields>& fields,
                                               std::vector<py::ssize_t> shape) {
  std::vector<std::complex<double>> flat;
  flat.reserve(fields.size() * 6);
  for (const PhasorFields& f : fields) {
    for (const auto& e : f.E) flat.push_back(e);
    for (const auto& h : f.H) flat.push_back(h);
  }
  shape.push_back(6);
  return complex_array(flat, shape);
}

std::vector<double> vector_of(py::handle h, const std::string& who) {
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(h);
  SPIRE_CHECK(a && a.ndim() == 1, ValueError, who, ": expected a 1-D array of numbers");
  return std::vector<double>(a.data(), a.data() + a.size());
}

FluxData flux_data_of(py::handle frequencies, py::handle arrays) {
  FluxData d;
  d.frequencies = vector_of(frequencies, "FluxData: frequencies");
  for (py::handle a : arrays) {
    auto c = py::array_t<std::complex<double>, py::array::c_style | py::array::forcecast>::ensure(a);
    SPIRE_CHECK(c && c.ndim() == 1, ValueError, "FluxData: arrays must be 1-D complex arrays");
    d.arrays.emplace_back(c.data(), c.data() + c.size());
  }
  return d;
}

py::list arrays_of(const FluxData& d) {
  py::list out;
  for (const auto& a : d.arrays) out.append(complex_array(a, {py::ssize_t(a.size())}));
  return out;
}

HarmonicInversionOptions harminv_options(double min_q, double max_error, double min_amplitude,
                                         double min_relative_amplitude, int max_modes) {
  HarmonicInversionOptions o;
  o.min_q = min_q, o.max_error = max_error, o.min_amplitude = min_amplitude;
  o.min_relative_amplitude = min_relative_amplitude, o.max_modes = max_modes;
  return o;
}

void bind_monitor_classes(py::module_& m) {
  py::class_<FluxData>(m, "FluxData",
                       "The accumulated DFTs of a flux or near-to-far monitor (Meep's get_flux_data): frequencies "
                       "and one complex array per region and tangential component.")
      .def(py::init(&flux_data_of), py::arg("frequencies"), py::arg("arrays"))
      .def_property_readonly("frequencies", [](const FluxData& d) { return doubles_array(d.frequencies); })
      .def_property_readonly("arrays", &arrays_of)
      .def(
          "save", [](const FluxData& d, py::handle path) { write_flux_data(fspath_of(path), d); }, py::arg("path"),
          "Writes the data to HDF5 (Meep's save_flux), whole or not at all.")
      .def(py::pickle([](const FluxData& d) { return py::make_tuple(doubles_array(d.frequencies), arrays_of(d)); },
                      [](py::tuple t) { return flux_data_of(t[0], t[1]); }));
  m.def(
      "load_flux_data", [](py::handle path) { return read_flux_data(fspath_of(path)); }, py::arg("path"),
      "FluxData from a file FluxData.save wrote (Meep's load_flux).");

  py::class_<Flux>(m, "Flux", "Poynting flux through planes (Meep's add_flux); flux() per frequency.")
      .def_property_readonly("frequencies", [](const Flux& f) { return doubles_array(f.frequencies()); })
      .def(
          "flux", [](const Flux& f) { return doubles_array(f.flux()); },
          "The flux spectrum summed over the regions (Meep's get_fluxes; Spire's DFT scale, monitors.h).")
      .def("data", &Flux::data, "The accumulated DFTs (Meep's get_flux_data).")
      .def("load_data", &Flux::load_data, py::arg("data"))
      .def("load_minus_data", &Flux::load_minus_data, py::arg("data"),
           "Starts the DFTs from minus an earlier run's (before the first step): flux() is then the scattered flux.")
      .def("scale_dfts", &Flux::scale_dfts, py::arg("factor"));

  py::class_<DftGroup>(m, "DftFields", "DFTs of field components over a region (Meep's add_dft_fields).")
      .def_property_readonly("components",
                             [](const DftGroup& g) {
                               std::vector<std::string> names;
                               for (Component c : g.components) names.push_back(to_string(c));
                               return names;
                             })
      .def_property_readonly("frequencies", [](const DftGroup& g) { return doubles_array(g.parts[0]->frequencies()); })
      .def(
          "array",
          [](const DftGroup& g, py::handle c, size_t f) {
            const DftFields& d = g.part(c);
            SPIRE_CHECK(f < d.frequencies().size(), ValueError, "DftFields.array: frequency index ", f, " of ",
                        d.frequencies().size());
            std::vector<py::ssize_t> shape;
            for (int ax : g.axes()) shape.push_back(py::ssize_t(d.shape()[size_t(ax)]));
            return complex_array(d.values(f), shape);
          },
          py::arg("component"), py::arg("index") = 0,
          "The DFT of a component at frequency index `index` over the region, shaped by its axes (Meep's "
          "get_dft_array; axes where the region has no extent are dropped).")
      .def(
          "coordinates",
          [](const DftGroup& g, py::handle c) {
            const DftFields& d = g.part(c);
            py::list out;
            for (int ax : g.axes()) out.append(doubles_array(d.positions()[size_t(ax)]));
            return py::tuple(out);
          },
          py::arg("component"), "The points' positions along the region's axes.");

  py::class_<Near2Far>(m, "Near2Far", "Near-to-far-field transform from a surface (Meep's add_near2far).")
      .def_property_readonly("frequencies", [](const Near2Far& n) { return doubles_array(n.frequencies()); })
      .def(
          "farfield",
          [](const Near2Far& n, py::handle points) {
            auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(points);
            SPIRE_CHECK(a && (a.ndim() == 1 || a.ndim() == 2), ValueError,
                        "Near2Far.farfield: expected a point or an (N, 2 or 3) array of points");
            const py::ssize_t nf = py::ssize_t(n.frequencies().size());
            if (a.ndim() == 1) return phasor_array(n.far_field(to_vec3(points, "Near2Far.farfield: point")), {nf});
            std::vector<Vec3> pts;
            for (py::ssize_t i = 0; i < a.shape(0); ++i) {
              SPIRE_CHECK(a.shape(1) >= 1 && a.shape(1) <= 3, ValueError,
                          "Near2Far.farfield: points must have 1 to 3 columns");
              Vec3 p;
              for (py::ssize_t k = 0; k < a.shape(1); ++k) p[int(k)] = a.at(i, k);
              pts.push_back(p);
            }
            std::vector<PhasorFields> out;
            {
              py::gil_scoped_release release;
              out = n.far_fields(pts);
            }
            return phasor_array(out, {py::ssize_t(pts.size()), nf});
          },
          py::arg("points"),
          "E and H at a point, (n_freq, 6) complex [Ex, Ey, Ez, Hx, Hy, Hz] (Meep's get_farfield, reshaped), or at "
          "N points, (N, n_freq, 6).")
      .def(
          "radiated_power",
          [](const Near2Far& n, double radius, py::handle center, int n_theta) {
            return doubles_array(n.radiated_power(radius, to_vec3(center, "Near2Far.radiated_power: center"), n_theta));
          },
          py::arg("radius"), py::arg("center") = py::make_tuple(0.0, 0.0, 0.0), py::arg("n_theta") = 0,
          "Power per frequency through a sphere (3D) or circle (2D) enclosing the surface.")
      .def("data", &Near2Far::data)
      .def("load_data", &Near2Far::load_data, py::arg("data"))
      .def("load_minus_data", &Near2Far::load_minus_data, py::arg("data"));

  py::class_<HarmonicPoint>(m, "Harminv", "Harmonic inversion of one component at a point (Meep's Harminv).")
      .def(
          "modes", [](const HarmonicPoint& h) { return modes_list(h.modes()); },
          "The modes in the band: Mode(freq, decay, Q, amp, err) named tuples (also .frequency, .amplitude, .error), "
          "sorted by frequency.")
      .def_property_readonly("times", [](const HarmonicPoint& h) { return doubles_array(h.series().times()); })
      .def_property_readonly("samples", [](const HarmonicPoint& h) { return h.series().times().size(); });

  py::class_<PointSeries>(m, "PointSeries",
                          "Components at a point every step (Meep's get_field_point in a step function).")
      .def_property_readonly(
          "times", [](const PointSeries& p) { return doubles_array(p.series->times()); },
          "The step times (E's; an H component's own times are dt/2 earlier).")
      .def(
          "values",
          [](const PointSeries& p, py::handle c) -> py::object {
            const Component comp = to_component(c, "PointSeries.values");
            const std::vector<double>& re = p.series->values(comp);
            if (!p.complex_fields) return doubles_array(re);
            const std::vector<double>& im = p.series->imag_values(comp);
            std::vector<std::complex<double>> z(re.size());
            for (size_t i = 0; i < re.size(); ++i) z[i] = {re[i], im[i]};
            return complex_array(z, {py::ssize_t(z.size())});
          },
          py::arg("component"))
      .def(
          "write", [](const PointSeries& p, py::handle path) { p.series->write(fspath_of(path)); }, py::arg("path"),
          "Writes the series to HDF5 (field_output.h), whole or not at all.");

  py::class_<FieldSnapshotWriter>(m, "Snapshots", "HDF5 field snapshots with an XDMF sidecar (ParaView).")
      .def_property_readonly("path", &FieldSnapshotWriter::path)
      .def_property_readonly("xdmf_path", &FieldSnapshotWriter::xdmf_path)
      .def_property_readonly("snapshots", &FieldSnapshotWriter::snapshots);
}

}  // namespace

void bind_elec_monitors(py::module_& m, py::class_<ElecSimulation>& cls) {
  bind_monitor_classes(m);
  const auto internal = py::return_value_policy::reference_internal;

  cls.def(
         "add_flux",
         [](ElecSimulation& s, py::handle frequencies, py::handle regions) -> Flux& {
           s.check_idle("Simulation.add_flux");
           return s.monitors->add_flux(to_flux_regions(regions, "Simulation.add_flux: regions"),
                                       to_frequencies(frequencies, "Simulation.add_flux: frequencies"));
         },
         py::arg("frequencies"), py::arg("regions"), internal)
      .def(
          "add_dft_fields",
          [](ElecSimulation& s, py::handle components, py::handle frequencies, py::handle center, py::handle size) {
            s.check_idle("Simulation.add_dft_fields");
            DftGroup g;
            g.components = to_components(components, "Simulation.add_dft_fields: components");
            g.size = to_vec3(size, "Simulation.add_dft_fields: size");
            g.lattice = &s.sim.lattice();
            const Vec3 c = to_vec3(center, "Simulation.add_dft_fields: center");
            const std::vector<double> f = to_frequencies(frequencies, "Simulation.add_dft_fields: frequencies");
            for (Component comp : g.components) check_carried(s.sim.lattice(), comp, "Simulation.add_dft_fields");
            for (Component comp : g.components) g.parts.push_back(&s.monitors->add_dft_fields(comp, c, g.size, f));
            return g;
          },
          py::arg("components"), py::arg("frequencies"), py::arg("center"), py::arg("size"), py::keep_alive<0, 1>())
      .def(
          "add_near2far",
          [](ElecSimulation& s, py::handle frequencies, py::handle regions, double eps, double mu) -> Near2Far& {
            s.check_idle("Simulation.add_near2far");
            return s.monitors->add_near2far(to_flux_regions(regions, "Simulation.add_near2far: regions"),
                                            to_frequencies(frequencies, "Simulation.add_near2far: frequencies"), eps,
                                            mu);
          },
          py::arg("frequencies"), py::arg("regions"), py::arg("eps") = 1.0, py::arg("mu") = 1.0, internal)
      .def(
          "add_harminv",
          [](ElecSimulation& s, py::handle c, py::handle point, double fcen, double df, py::object start_time,
             double min_q, double max_error, double min_amplitude, double min_relative_amplitude,
             int max_modes) -> HarmonicPoint& {
            s.check_idle("Simulation.add_harminv");
            const Component comp = to_component(c, "Simulation.add_harminv");
            check_carried(s.sim.lattice(), comp, "Simulation.add_harminv");
            const double start =
                start_time.is_none() ? -1 : to_double(start_time, "Simulation.add_harminv: start_time");
            return s.monitors->add_harmonic_inversion(
                comp, to_vec3(point, "Simulation.add_harminv: point"), fcen, df, start,
                harminv_options(min_q, max_error, min_amplitude, min_relative_amplitude, max_modes));
          },
          py::arg("component"), py::arg("point"), py::arg("fcen"), py::arg("df"), py::kw_only(),
          py::arg("start_time") = py::none(), py::arg("min_q") = 50.0, py::arg("max_error") = 0.01,
          py::arg("min_amplitude") = -1.0, py::arg("min_relative_amplitude") = -1.0, py::arg("max_modes") = 100,
          internal,
          "Meep's Harminv(c, pt, fcen, df): samples from start_time (default: when the last source ends), analysed "
          "by modes().")
      .def(
          "add_point_series",
          [](ElecSimulation& s, py::handle point, py::object components) {
            s.check_idle("Simulation.add_point_series");
            std::vector<Component> cs;
            if (!components.is_none()) cs = to_components(components, "Simulation.add_point_series: components");
            for (Component c : cs) check_carried(s.sim.lattice(), c, "Simulation.add_point_series");
            PointSeries p;
            p.series = &s.monitors->add_point_series(to_vec3(point, "Simulation.add_point_series: point"), cs);
            p.complex_fields = s.sim.complex_fields();
            return p;
          },
          py::arg("point"), py::arg("components") = py::none(), py::keep_alive<0, 1>())
      .def(
          "add_snapshots",
          [](ElecSimulation& s, py::handle path, int64_t every, py::object components,
             bool single_precision) -> FieldSnapshotWriter& {
            s.check_idle("Simulation.add_snapshots");
            FieldOutputOptions o;
            if (!components.is_none()) o.components = to_components(components, "Simulation.add_snapshots: components");
            for (Component c : o.components) check_carried(s.sim.lattice(), c, "Simulation.add_snapshots");
            o.single_precision = single_precision;
            return s.monitors->add_snapshots(fspath_of(path), every, o);
          },
          py::arg("path"), py::arg("every"), py::arg("components") = py::none(), py::arg("single_precision") = false,
          internal,
          "Field snapshots every `every` steps to an HDF5 file with an XDMF sidecar (ParaView); written whole when "
          "close_snapshots() is called or the Simulation is deleted.")
      .def(
          "close_snapshots", [](ElecSimulation& s) { s.monitors->finish(); },
          "Finishes the snapshot files (renamed into place, sidecars written).")
      .def(
          "flux_box",
          [](const ElecSimulation& s, py::handle center, py::handle size) {
            py::list out;
            for (const FluxRegion& r : box_regions(s.sim.lattice(), to_vec3(center, "Simulation.flux_box: center"),
                                                   to_vec3(size, "Simulation.flux_box: size")))
              out.append(py::make_tuple(vector3(r.center), vector3(r.size), r.weight));
            return out;
          },
          py::arg("center"), py::arg("size"),
          "The outward faces of a box as (center, size, weight) (spire.elec wraps them in FluxRegions).");
}

}  // namespace spire::python::elec_py
