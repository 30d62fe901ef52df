// spire._C._elec lumped ports (port.h): a port's V, I, impedance and power waves during a run
// (Simulation.add_port_monitor), and the S-parameter runs of a problem's ports (s_parameters.h),
// as NumPy arrays over frequencies. Impedances in ohms; S[i, j, f] = b_i / a_j.
#include <cmath>

#include "elec_common.h"
#include "engine/core/error.h"
#include "science/elec/s_parameters.h"

namespace spire::python::elec_py {

using namespace spire::elec;

namespace {

py::array_t<std::complex<double>> complex_vector(const std::vector<std::complex<double>>& v) {
  return complex_array(v, {py::ssize_t(v.size())});
}

py::dict s_parameter_dict(const SParameterResult& r) {
  const size_t n = r.reference_impedance.size(), nf = r.frequencies.size();
  std::vector<std::complex<double>> s(n * n * nf, std::complex<double>(NAN, NAN));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      for (size_t f = 0; f < nf && f < r.s[i][j].size(); ++f) s[(i * n + j) * nf + f] = r.s[i][j][f];
  std::vector<std::complex<double>> z(n * nf, std::complex<double>(NAN, NAN));
  for (size_t j = 0; j < n; ++j)
    for (size_t f = 0; f < nf && f < r.input_impedance[j].size(); ++f) z[j * nf + f] = r.input_impedance[j][f];
  py::dict d;
  d["frequencies"] = doubles_array(r.frequencies);
  d["S"] = complex_array(s, {py::ssize_t(n), py::ssize_t(n), py::ssize_t(nf)});
  d["input_impedance"] = complex_array(z, {py::ssize_t(n), py::ssize_t(nf)});
  d["reference_impedance"] = doubles_array(r.reference_impedance);
  d["excited"] = r.excited;
  d["stop_time"] = doubles_array(r.stop_time);
  d["decayed"] = std::vector<bool>(r.decayed.begin(), r.decayed.end());
  return d;
}

}  // namespace

void bind_elec_ports(py::module_& m, py::class_<ElecSimulation>& cls) {
  const auto internal = py::return_value_policy::reference_internal;

  py::class_<PortMonitor>(m, "PortMonitor", "V, I and power waves of a lumped port (port.h), per frequency.")
      .def_property_readonly("frequencies", [](const PortMonitor& p) { return doubles_array(p.frequencies()); })
      .def_property_readonly("resistance", &PortMonitor::resistance)
      .def("voltage", [](const PortMonitor& p) { return complex_vector(p.voltage()); })
      .def("current", [](const PortMonitor& p) { return complex_vector(p.current()); })
      .def(
          "impedance", [](const PortMonitor& p) { return complex_vector(p.impedance()); }, "V / I in ohms.")
      .def(
          "incident_wave", [](const PortMonitor& p, double z0) { return complex_vector(p.incident_wave(z0)); },
          py::arg("z0") = 0.0, "a = (V + Z0 I) / (2 sqrt(Re Z0)); z0 <= 0: the port's resistance.")
      .def(
          "reflected_wave", [](const PortMonitor& p, double z0) { return complex_vector(p.reflected_wave(z0)); },
          py::arg("z0") = 0.0, "b = (V - Z0 I) / (2 sqrt(Re Z0)).");

  cls.def(
      "add_port_monitor",
      [](ElecSimulation& s, py::handle port, py::handle frequencies) -> PortMonitor& {
        s.check_idle("Simulation.add_port_monitor");
        LumpedPort p;
        if (PyLong_Check(port.ptr())) {
          const long i = port.cast<long>();
          SPIRE_CHECK(i >= 0 && size_t(i) < s.problem.ports.size(), ValueError, "Simulation.add_port_monitor: port ", i,
                      " of ", s.problem.ports.size(), " ports");
          p = s.problem.ports[size_t(i)];
        } else {
          p = to_port(port, "Simulation.add_port_monitor: port");
        }
        s.port_monitors.push_back(std::make_unique<PortMonitor>(
            s.sim, p, to_frequencies(frequencies, "Simulation.add_port_monitor: frequencies")));
        return *s.port_monitors.back();
      },
      py::arg("port"), py::arg("frequencies"), internal,
      "V, I and power waves of a port: an index into the problem's ports, or a LumpedPort.");

  m.def(
      "s_parameters",
      [](const Problem& problem, py::handle frequencies, double until, std::vector<int> excite, double decay_by,
         double decay_interval) {
        SParameterOptions o;
        o.excite = std::move(excite), o.decay_by = decay_by, o.decay_interval = decay_interval;
        const std::vector<double> f = to_frequencies(frequencies, "s_parameters: frequencies");
        SParameterResult r;
        {
          py::gil_scoped_release release;
          r = s_parameters(problem, f, until, o);
        }
        return s_parameter_dict(r);
      },
      py::arg("problem"), py::arg("frequencies"), py::arg("until"), py::arg("excite") = std::vector<int>{},
      py::arg("decay_by") = 0.0, py::arg("decay_interval") = 50.0);
}

}  // namespace spire::python::elec_py
