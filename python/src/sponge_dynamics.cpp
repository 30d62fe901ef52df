// spire._C._sponge, dynamics: thermostats (Bussi, Berendsen, Nose-Hoover chains), barostats (Monte
// Carlo, Berendsen), the integrators that use them (VelocityVerlet, LangevinMiddle) and the
// minimisers (FIRE, L-BFGS), which run without the GIL.
#include <cmath>
#include <sstream>

#include "sponge_common.h"
#include "engine/core/error.h"
#include "science/sponge/berendsen.h"
#include "science/sponge/berendsen_barostat.h"
#include "science/sponge/bussi.h"
#include "science/sponge/langevin.h"
#include "science/sponge/minimize.h"
#include "science/sponge/monte_carlo_barostat.h"
#include "science/sponge/nose_hoover.h"
#include "science/sponge/velocity_verlet.h"

namespace spire::python::sponge_py {
namespace {

BarostatScaling scaling_of(const std::string& s, const char* who) {
  if (s == "molecule") return BarostatScaling::molecule;
  if (s == "atom") return BarostatScaling::atom;
  throw ConfigError(detail::cat(who, ": unknown scaling '", s,
                                "'; allowed: molecule (each molecule's centre follows the box), atom (each atom; "
                                "constrained groups move as one)"));
}

const char* scaling_name(BarostatScaling s) { return s == BarostatScaling::molecule ? "molecule" : "atom"; }

DynamicsOptions dynamics_options(bool remove_com_motion, double tolerance, int iterations) {
  DynamicsOptions o;
  o.remove_com_motion = remove_com_motion;
  o.constraints.tolerance = tolerance;
  o.constraints.max_iterations = iterations;
  return o;
}

BarostatPtr barostat_of(py::handle h, const char* who) {
  if (h.is_none()) return nullptr;
  SPIRE_CHECK(py::isinstance<Barostat>(h), ValueError, who,
              ": expected a barostat (MonteCarloBarostat, BerendsenBarostat) or None, got ", type_name(h));
  return h.cast<BarostatPtr>();
}

py::dict integrator_state_dict(const IntegratorState& s) {
  py::dict d;
  for (const auto& [k, v] : s) d[py::str(k)] = doubles_array(v);
  return d;
}

IntegratorState integrator_state_of(py::handle h) {
  IntegratorState s;
  for (auto [k, v] : h.cast<py::dict>()) {
    const std::string key = k.cast<std::string>();
    s[key] = to_doubles(v, "load_state: " + key);
  }
  return s;
}

void bind_thermostats(py::module_& m) {
  py::class_<Thermostat, std::shared_ptr<Thermostat>>(
      m, "Thermostat",
      "A thermostat that rescales every velocity by one factor (Bussi, Berendsen, Nose-Hoover chains), applied "
      "by VelocityVerlet at both ends of each step.")
      .def_property_readonly("name", &Thermostat::name)
      .def_property_readonly("temperature", &Thermostat::temperature)
      .def_property_readonly("time_constant", &Thermostat::time_constant)
      .def_property_readonly("degrees_of_freedom", &Thermostat::degrees_of_freedom)
      .def_property_readonly("conserved_energy", &Thermostat::conserved_energy,
                             "Its term in the integrator's conserved quantity.")
      .def("__repr__", [](py::handle self) {
        const auto& t = self.cast<const Thermostat&>();
        return type_name(self) + "(temperature=" + number(t.temperature()) + ", time_constant=" +
               number(t.time_constant()) + ")";
      });
  py::class_<BussiThermostat, Thermostat, std::shared_ptr<BussiThermostat>>(
      m, "BussiThermostat",
      "Stochastic velocity rescaling (Bussi, Donadio, Parrinello 2007; GROMACS's v-rescale): the canonical "
      "ensemble for any time constant.")
      .def(py::init<double, double, uint64_t>(), py::arg("temperature"), py::arg("time_constant"),
           py::arg("seed") = 0)
      .def_property_readonly("seed", &BussiThermostat::seed)
      .def_property_readonly("heat", &BussiThermostat::heat, "The energy it has put into the system.");
  py::class_<BerendsenThermostat, Thermostat, std::shared_ptr<BerendsenThermostat>>(
      m, "BerendsenThermostat", "Berendsen's weak coupling: relaxes T with time_constant; not canonical.")
      .def(py::init<double, double>(), py::arg("temperature"), py::arg("time_constant"))
      .def_property_readonly("heat", &BerendsenThermostat::heat);
  py::class_<NoseHooverChain, Thermostat, std::shared_ptr<NoseHooverChain>>(
      m, "NoseHooverChain",
      "Nose-Hoover chains propagated as Martyna-Tuckerman-Tobias-Klein (LAMMPS's fix nvt masses, period = "
      "Tdamp).")
      .def(py::init([](double temperature, double period, int chain_length, int multiple_steps, int suzuki_yoshida) {
             NoseHooverOptions o;
             o.chain_length = chain_length;
             o.multiple_steps = multiple_steps;
             o.suzuki_yoshida = suzuki_yoshida;
             return std::make_shared<NoseHooverChain>(temperature, period, o);
           }),
           py::arg("temperature"), py::arg("period"), py::arg("chain_length") = 3, py::arg("multiple_steps") = 1,
           py::arg("suzuki_yoshida") = 3)
      .def_property_readonly("xi", [](const NoseHooverChain& c) { return doubles_array(c.xi()); })
      .def_property_readonly("v_xi", [](const NoseHooverChain& c) { return doubles_array(c.v_xi()); })
      .def_property_readonly("masses", [](const NoseHooverChain& c) { return doubles_array(c.masses()); });
}

void bind_barostats(py::module_& m) {
  py::class_<Barostat, std::shared_ptr<Barostat>>(
      m, "Barostat",
      "A barostat applied by the integrator every `frequency` steps; pressures in display units (bar in md).")
      .def_property_readonly("name", &Barostat::name)
      .def_property_readonly("frequency", &Barostat::frequency)
      .def_property_readonly("scaling", [](const Barostat& b) { return scaling_name(b.scaling()); })
      .def_property_readonly("work", &Barostat::work, "The energy its moves have put into the system.")
      .def_property_readonly("group_count", &Barostat::group_count)
      .def("__repr__", [](py::handle self) {
        const auto& b = self.cast<const Barostat&>();
        return type_name(self) + "(" + b.name() + ", frequency=" + std::to_string(b.frequency()) + ", scaling='" +
               scaling_name(b.scaling()) + "')";
      });
  py::class_<MonteCarloBarostat, Barostat, std::shared_ptr<MonteCarloBarostat>>(
      m, "MonteCarloBarostat",
      "OpenMM's MonteCarloBarostat (isotropic) and MonteCarloAnisotropicBarostat: volume moves accepted by "
      "Metropolis; samples the isothermal-isobaric ensemble.")
      .def(py::init([](py::handle pressure, double temperature, int64_t frequency, const std::string& scaling,
                       uint64_t seed, py::handle scale_axes) {
             MonteCarloBarostatOptions o;
             o.frequency = frequency;
             o.scaling = scaling_of(scaling, "MonteCarloBarostat");
             o.seed = seed;
             const bool scalar = py::isinstance<py::float_>(pressure) || py::isinstance<py::int_>(pressure);
             if (scalar && scale_axes.is_none())
               return std::make_shared<MonteCarloBarostat>(pressure.cast<double>(), temperature, o);
             const Vec3 p = scalar ? Vec3{pressure.cast<double>(), pressure.cast<double>(), pressure.cast<double>()}
                                   : to_vec3(pressure, "MonteCarloBarostat: pressure");
             std::array<bool, 3> axes{true, true, true};
             if (!scale_axes.is_none()) {
               auto v = scale_axes.cast<std::vector<bool>>();
               SPIRE_CHECK(v.size() == 3, ValueError,
                           "MonteCarloBarostat: scale_axes must be three booleans (x, y, z)");
               axes = {v[0], v[1], v[2]};
             }
             return std::make_shared<MonteCarloBarostat>(p, axes, temperature, o);
           }),
           py::arg("pressure"), py::arg("temperature"), py::arg("frequency") = 25, py::arg("scaling") = "molecule",
           py::arg("seed") = 0, py::arg("scale_axes") = py::none(),
           "pressure: a number (isotropic) or three (anisotropic, one axis per move); scale_axes: which axes move "
           "(anisotropic). temperature: the thermostat's.")
      .def_property_readonly("anisotropic", &MonteCarloBarostat::anisotropic)
      .def_property_readonly("attempts", &MonteCarloBarostat::attempts)
      .def_property_readonly("accepted", &MonteCarloBarostat::accepted)
      .def_property_readonly("volume_scale", [](const MonteCarloBarostat& b) {
        return py::make_tuple(b.volume_scale()[0], b.volume_scale()[1], b.volume_scale()[2]);
      });
  py::class_<BerendsenBarostat, Barostat, std::shared_ptr<BerendsenBarostat>>(
      m, "BerendsenBarostat",
      "Berendsen's weak-coupling barostat: relaxes the pressure with time_constant; for equilibration, not "
      "for sampling.")
      .def(py::init([](py::handle pressure, double compressibility, double time_constant, int64_t frequency,
                       bool anisotropic, const std::string& scaling) {
             BerendsenBarostatOptions o;
             o.compressibility = compressibility;
             o.time_constant = time_constant;
             o.frequency = frequency;
             o.anisotropic = anisotropic;
             o.scaling = scaling_of(scaling, "BerendsenBarostat");
             if (py::isinstance<py::float_>(pressure) || py::isinstance<py::int_>(pressure))
               return std::make_shared<BerendsenBarostat>(pressure.cast<double>(), o);
             return std::make_shared<BerendsenBarostat>(to_vec3(pressure, "BerendsenBarostat: pressure"), o);
           }),
           py::arg("pressure"), py::arg("compressibility") = 4.5e-5, py::arg("time_constant") = 1.0,
           py::arg("frequency") = 1, py::arg("anisotropic") = false, py::arg("scaling") = "molecule",
           "pressure: a number, or three (one per axis: anisotropic). compressibility in 1/display pressure unit.")
      .def_property_readonly("last_scaling", [](const BerendsenBarostat& b) { return mat3_array(b.last_scaling()); });
}

void bind_integrators(py::module_& m) {
  py::class_<Integrator, std::shared_ptr<Integrator>>(m, "Integrator", "Advances a state by one time step.")
      .def_property_readonly("name", &Integrator::name)
      .def_property_readonly("dt", &Integrator::dt)
      .def_property_readonly("removes_com_motion", &Integrator::removes_com_motion)
      .def_property_readonly("constraint_virial", [](const Integrator& i) { return mat3_array(i.constraint_virial()); },
                             "The constraint forces' virial over the latest step (3x3).")
      .def("save_state", [](const Integrator& i) { return integrator_state_dict(i.save_state()); },
           "Thermostat and barostat variables as {name: array} (what checkpoints hold).")
      .def("load_state", [](Integrator& i, py::handle d) { i.load_state(integrator_state_of(d)); }, py::arg("state"))
      .def("__repr__", [](py::handle self) {
        const auto& i = self.cast<const Integrator&>();
        return type_name(self) + "(" + i.name() + ", dt=" + number(i.dt()) + ")";
      });

  py::class_<MdIntegrator, Integrator, std::shared_ptr<MdIntegrator>>(
      m, "MdIntegrator",
      "What VelocityVerlet and LangevinMiddle share: constraints (SHAKE/RATTLE, SETTLE), centre-of-mass motion "
      "removal, an optional barostat, the conserved quantity.")
      .def_property(
          "barostat", [](const MdIntegrator& i) { return i.barostat(); },
          [](MdIntegrator& i, py::handle b) { i.set_barostat(barostat_of(b, "barostat")); },
          "The barostat applied every its frequency steps, or None.")
      .def_property_readonly("degrees_of_freedom", &MdIntegrator::degrees_of_freedom, "Valid once a run started.")
      .def_property_readonly("heat", &MdIntegrator::heat,
                             "Energy the integrator put in (Langevin friction and noise, centre-of-mass removal).")
      .def_property_readonly("constraint_tolerance",
                             [](const MdIntegrator& i) { return i.options().constraints.tolerance; });

  py::class_<VelocityVerlet, MdIntegrator, std::shared_ptr<VelocityVerlet>>(
      m, "VelocityVerlet",
      "Velocity Verlet (NVE; LAMMPS's fix nve), or NVT with a thermostat at both ends of the step (Bussi, "
      "Berendsen, Nose-Hoover chains), NPT with a barostat.")
      .def(py::init([](double dt, py::handle thermostat, py::handle barostat, bool remove_com_motion,
                       double constraint_tolerance, int constraint_iterations) {
             ThermostatPtr t;
             if (!thermostat.is_none()) {
               SPIRE_CHECK(py::isinstance<Thermostat>(thermostat), ValueError,
                           "VelocityVerlet: thermostat must be BussiThermostat, BerendsenThermostat, NoseHooverChain "
                           "or None, got ", type_name(thermostat));
               t = thermostat.cast<ThermostatPtr>();
             }
             auto vv = std::make_shared<VelocityVerlet>(
                 dt, t, dynamics_options(remove_com_motion, constraint_tolerance, constraint_iterations));
             vv->set_barostat(barostat_of(barostat, "VelocityVerlet"));
             return vv;
           }),
           py::arg("dt"), py::arg("thermostat") = py::none(), py::kw_only(), py::arg("barostat") = py::none(),
           py::arg("remove_com_motion") = true, py::arg("constraint_tolerance") = 1e-10,
           py::arg("constraint_iterations") = 1000,
           "dt in the system's time unit (ps in md). remove_com_motion: subtract the centre-of-mass velocity every "
           "step (turn off with restraints, external fields or fixed particles).")
      .def_property_readonly("thermostat", &VelocityVerlet::thermostat);

  py::class_<LangevinMiddle, MdIntegrator, std::shared_ptr<LangevinMiddle>>(
      m, "LangevinMiddle",
      "Langevin dynamics by BAOAB (OpenMM's LangevinMiddleIntegrator): friction in 1/time (1/ps in md).")
      .def(py::init([](double dt, double temperature, double friction, uint64_t seed, py::handle barostat,
                       bool remove_com_motion, double constraint_tolerance, int constraint_iterations) {
             auto l = std::make_shared<LangevinMiddle>(
                 dt, temperature, friction, seed,
                 dynamics_options(remove_com_motion, constraint_tolerance, constraint_iterations));
             l->set_barostat(barostat_of(barostat, "LangevinMiddle"));
             return l;
           }),
           py::arg("dt"), py::arg("temperature"), py::arg("friction"), py::arg("seed") = 0, py::kw_only(),
           py::arg("barostat") = py::none(), py::arg("remove_com_motion") = true,
           py::arg("constraint_tolerance") = 1e-10, py::arg("constraint_iterations") = 1000)
      .def_property_readonly("temperature", &LangevinMiddle::temperature)
      .def_property_readonly("friction", &LangevinMiddle::friction)
      .def_property_readonly("seed", &LangevinMiddle::seed)
      .def_property_readonly("middle_kinetic_energy", &LangevinMiddle::middle_kinetic_energy,
                             "Kinetic energy just after the latest O update (OpenMM reports these velocities).");
}

void bind_minimizers(py::module_& m) {
  py::class_<MinimizeResult>(m, "MinimizeResult", "How an energy minimisation ended.")
      .def_readonly("converged", &MinimizeResult::converged)
      .def_readonly("iterations", &MinimizeResult::iterations)
      .def_readonly("evaluations", &MinimizeResult::evaluations)
      .def_readonly("energy", &MinimizeResult::energy)
      .def_readonly("max_force", &MinimizeResult::max_force)
      .def_readonly("stop_reason", &MinimizeResult::stop_reason)
      .def("__bool__", [](const MinimizeResult& r) { return r.converged; })
      .def("__repr__", [](const MinimizeResult& r) {
        std::ostringstream s;
        s.precision(10);
        s << "MinimizeResult(converged=" << (r.converged ? "True" : "False") << ", iterations=" << r.iterations
          << ", energy=" << r.energy << ", max_force=" << r.max_force << ", stop_reason='" << r.stop_reason << "')";
        return s.str();
      });
  m.def(
      "minimize_fire",
      [](const System& system, State& state, ForceField& forces, double force_tolerance, int64_t max_iterations,
         double dt, double max_step) {
        SPIRE_CHECK(int64_t(state.positions.size()) == system.size(), ValueError, "minimize_fire: the state has ",
                    state.positions.size(), " positions for a system of ", system.size(), " particles");
        FireOptions o;
        o.force_tolerance = force_tolerance;
        o.max_iterations = max_iterations;
        o.dt = dt;
        o.max_step = max_step;
        system.check();
        forces.check(system, state);
        py::gil_scoped_release release;
        return minimize_fire(system, state, forces, o);
      },
      py::arg("system"), py::arg("state"), py::arg("force_field"), py::arg("force_tolerance"),
      py::arg("max_iterations") = 10000, py::arg("dt") = 0.0, py::arg("max_step") = 0.0,
      "FIRE 2.0 until every |F_i| <= force_tolerance (energy/length); moves state.positions in place, keeps "
      "constraints. dt and max_step 0: the units' defaults.");
  m.def(
      "minimize_lbfgs",
      [](const System& system, State& state, ForceField& forces, double force_tolerance, int64_t max_iterations,
         int memory, double max_step) {
        SPIRE_CHECK(int64_t(state.positions.size()) == system.size(), ValueError, "minimize_lbfgs: the state has ",
                    state.positions.size(), " positions for a system of ", system.size(), " particles");
        LbfgsOptions o;
        o.force_tolerance = force_tolerance;
        o.max_iterations = max_iterations;
        o.memory = memory;
        o.max_step = max_step;
        system.check();
        forces.check(system, state);
        py::gil_scoped_release release;
        return minimize_lbfgs(system, state, forces, o);
      },
      py::arg("system"), py::arg("state"), py::arg("force_field"), py::arg("force_tolerance"),
      py::arg("max_iterations") = 10000, py::arg("memory") = 10, py::arg("max_step") = 0.0,
      "L-BFGS with a backtracking line search until every |F_i| <= force_tolerance; moves state.positions in "
      "place. Refuses constraints and rigid waters (use FIRE).");
}

}  // namespace

void bind_sponge_dynamics(py::module_& m) {
  bind_thermostats(m);
  bind_barostats(m);
  bind_integrators(m);
  bind_minimizers(m);
}

}  // namespace spire::python::sponge_py
