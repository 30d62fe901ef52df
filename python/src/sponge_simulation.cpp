// spire._C._sponge, running: reporters (thermo log, H5MD trajectory, checkpoints, or any Python
// object with report()) and the Simulation (OpenMM's Simulation: run(steps), reporters, step
// callbacks, observables, checkpoints, minimisation).
//
// The GIL. run(), run_until(), minimisation and force evaluations go without it; everything that
// calls back into Python takes it for the call: step callbacks, Python reporters, the thermo log
// and progress lines written to a Python file (sys.stdout in a notebook), and a check for pending
// signals a few times a second, so Ctrl-C stops a long run between two steps (KeyboardInterrupt;
// the simulation stays usable at the step it reached). The look is SimulationOptions::poll, not a
// step callback, so that a run on a device platform is not cut into one-step chunks by it.
//
// Platforms. Simulation(..., platform="cuda") runs the steps on a registered platform's device
// (science/sponge/platform.h); spire.sponge.platforms() lists the ones this build has.
//
// Identity. A Simulation made here is a PySimulation: callbacks and Python reporters receive the
// very Python object the user made (pybind11 finds the registered instance), so they can set its
// positions and velocities (copied in; the forces are recomputed before the next step).
#include <chrono>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>

#include "sponge_common.h"
#include "engine/core/error.h"
#include "science/sponge/checkpoint.h"
#include "science/sponge/h5md.h"
#include "science/sponge/minimize.h"
#include "science/sponge/platform.h"
#include "science/sponge/simulation.h"
#include "science/sponge/thermo.h"
#include "science/sponge/velocities.h"

namespace spire::python::sponge_py {
namespace {

// ---- reporters ----

// Base-from-member holders: the stream must exist before the C++ object that writes to it and
// outlive it, so it sits in a base constructed first and destroyed last.
struct StreamOwner {
  std::unique_ptr<std::ostream> stream;
};

class PyThermoLog : private StreamOwner, public ThermoLog {
 public:
  PyThermoLog(std::unique_ptr<std::ostream> out, ThermoOptions options)
      : StreamOwner{std::move(out)}, ThermoLog(stream.get(), std::move(options)) {}
};

class PySimulation;
py::object python_simulation(const Simulation& sim);

// A Python object with report(simulation), and optionally finish(simulation) and
// resume(simulation, step) -> bool, as a Reporter.
class PyReporter : public Reporter {
 public:
  explicit PyReporter(py::object obj) : name_(type_name(obj)), obj_(hold(std::move(obj))) {}
  std::string name() const override { return name_; }
  void report(const Simulation& sim) override {
    py::gil_scoped_acquire gil;
    obj_->attr("report")(python_simulation(sim));
  }
  bool resume(const Simulation& sim, int64_t step) override {
    py::gil_scoped_acquire gil;
    if (!py::hasattr(*obj_, "resume")) return false;
    return py::bool_(obj_->attr("resume")(python_simulation(sim), step));
  }
  void finish(const Simulation& sim) override {
    py::gil_scoped_acquire gil;
    if (py::hasattr(*obj_, "finish")) obj_->attr("finish")(python_simulation(sim));
  }

 private:
  std::string name_;
  std::shared_ptr<py::object> obj_;
};

void bind_reporters(py::module_& m) {
  py::class_<Reporter, std::shared_ptr<Reporter>>(
      m, "Reporter",
      "Written as a run goes, every `interval` steps given to Simulation.add_reporter (including the step a run "
      "starts from). Any Python object with report(simulation) (and optionally finish(simulation)) can be added "
      "as a reporter too.")
      .def_property_readonly("name", &Reporter::name);

  py::class_<PyThermoLog, Reporter, std::shared_ptr<PyThermoLog>>(
      m, "ThermoLog",
      "A thermodynamic log like LAMMPS's thermo output: Step Temp E_pair E_mol TotEng Econserve Press Volume "
      "and E_<term> per force term, in the system's units (per particle in lj units by default, as LAMMPS).")
      .def(py::init([](py::handle file, py::handle csv, std::optional<bool> normalize, bool per_term) {
             ThermoOptions o;
             if (!csv.is_none()) o.csv_path = fspath(csv);
             o.normalize = normalize;
             o.per_term = per_term;
             SPIRE_CHECK(!file.is_none() || !o.csv_path.empty(), ValueError,
                         "ThermoLog: nothing to write; give file (\"stdout\", a path or a file object) or csv");
             std::unique_ptr<std::ostream> out;
             if (!file.is_none()) out = python_text_stream(file, "spire.sponge.ThermoLog");
             return std::make_shared<PyThermoLog>(std::move(out), std::move(o));
           }),
           py::arg("file") = "stdout", py::kw_only(), py::arg("csv") = py::none(), py::arg("normalize") = py::none(),
           py::arg("per_term") = true,
           "file: \"stdout\" (sys.stdout at each write), \"stderr\", a path, a file object, or None (CSV only); "
           "csv: a path for the same rows at full precision; normalize: energies per particle (None: yes in lj "
           "units).")
      .def_property_readonly("columns", &ThermoLog::columns, "The column names (fixed by the first row).");

  py::class_<H5mdWriter, Reporter, std::shared_ptr<H5mdWriter>>(
      m, "H5mdWriter",
      "An H5MD 1.1 trajectory (MDAnalysis, VMD): particles/<group>/{position,velocity,force,box}, species, mass, "
      "charge; observables/ (energies per term, temperature, pressure, volume...); units attributes in md units. "
      "The root attribute complete is 1 once a run has finished writing it.")
      .def(py::init([](py::handle path, const std::string& group, bool position, bool velocity, bool force,
                       bool observables, bool float32, const std::string& author, const std::string& author_email,
                       const std::string& job_toml) {
             H5mdOptions o;
             o.path = fspath(path);
             o.group = group;
             o.position = position, o.velocity = velocity, o.force = force, o.observables = observables;
             o.float32 = float32;
             o.author = author, o.author_email = author_email, o.job_toml = job_toml;
             return std::make_shared<H5mdWriter>(o);
           }),
           py::arg("path"), py::kw_only(), py::arg("group") = "all", py::arg("position") = true,
           py::arg("velocity") = true, py::arg("force") = false, py::arg("observables") = true,
           py::arg("float32") = false, py::arg("author") = "", py::arg("author_email") = "", py::arg("job_toml") = "")
      .def_property_readonly("path", [](const H5mdWriter& w) { return w.options().path; })
      .def_property_readonly("frames", &H5mdWriter::frames)
      .def_property_readonly("is_open", &H5mdWriter::is_open)
      .def("close", &H5mdWriter::close, "Closes the file (complete = 1); a later frame reopens and appends.");

  py::class_<CheckpointWriter, Reporter, std::shared_ptr<CheckpointWriter>>(
      m, "CheckpointWriter",
      "Writes a checkpoint (atomically, one file replaced each time) every interval steps and at the end of "
      "each run; Simulation.restore continues from it bit for bit.")
      .def(py::init([](py::handle path) { return std::make_shared<CheckpointWriter>(fspath(path)); }),
           py::arg("path"))
      .def_property_readonly("path", &CheckpointWriter::path);

  m.def("platforms", &platforms,
        "The platforms this build can run a Simulation on: \"cpu\" first, then those a platform library "
        "registered (\"cuda\" when built with CUDA), for Simulation(..., platform=...) and [run] platform.");
  m.def("is_molecular_term", &is_molecular_term, py::arg("name"),
        "Whether a term's energy counts as E_mol (bonds, angles, torsions, impropers) in the thermo log.");
}

// ---- the simulation ----

struct ProgressOwner {
  std::unique_ptr<std::ostream> progress;
};

// The options with the Python side's progress stream and its Ctrl-C check.
SimulationOptions python_options(SimulationOptions o, std::ostream* out) {
  o.progress = out;
  if (!out) o.progress_seconds = 0;
  // Ctrl-C between steps (or a device's chunks of steps): a look at pending signals a few times a
  // second.
  auto last = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
  o.poll = [last]() {
    const auto now = std::chrono::steady_clock::now();
    if (now - *last < std::chrono::milliseconds(200)) return;
    *last = now;
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  };
  return o;
}

// Integrators driving a Simulation: one each (their thermostat, barostat and constraint state belong to
// one run). Touched with the GIL held only (construction and deallocation of Python objects).
std::set<const Integrator*>& bound_integrators() {
  static std::set<const Integrator*> bound;
  return bound;
}

class PySimulation : private ProgressOwner, public Simulation {
 public:
  PySimulation(System system, State state, ForceField forces, std::shared_ptr<Integrator> integrator,
               SimulationOptions options, std::unique_ptr<std::ostream> progress)
      : ProgressOwner{std::move(progress)},
        Simulation(std::move(system), std::move(state), std::move(forces), integrator,
                   python_options(options, ProgressOwner::progress.get())),
        integrator_(integrator) {
    SPIRE_CHECK(!bound_integrators().count(integrator_.get()), ValueError,
                "Simulation: this integrator already drives another Simulation; make one integrator per "
                "simulation (its thermostat, barostat and constraint state belong to one run)");
    bound_integrators().insert(integrator_.get());
  }
  ~PySimulation() { bound_integrators().erase(integrator_.get()); }

  // Forces and observables at the current state (computed without the GIL when stale).
  void ready() {
    py::gil_scoped_release release;
    prepare();
  }
  const std::shared_ptr<Integrator>& integrator_ptr() const { return integrator_; }

 private:
  std::shared_ptr<Integrator> integrator_;
};

py::object python_simulation(const Simulation& sim) {
  return py::cast(static_cast<const PySimulation*>(&sim), py::return_value_policy::reference);
}

const Observables& observables_of(PySimulation& s) {
  s.ready();
  return s.observables();
}

void check_size(const PySimulation& s, size_t n, const char* who) {
  SPIRE_CHECK(int64_t(n) == s.system().size(), ValueError, who, ": ", n, " rows for a system of ", s.system().size(),
              " particles");
}

ForceField copy_terms(const ForceField& from) {
  ForceField ff(from.skin());
  for (const ForcePtr& t : from.terms()) ff.add(t);
  return ff;
}

void bind_simulation(py::module_& m) {
  py::class_<PySimulation> cls(
      m, "Simulation",
      "A System, its State, a ForceField and an Integrator, with reporters and step callbacks (OpenMM's "
      "Simulation). The system and state are copied in; the force terms and the integrator are shared. "
      "Observables (temperature, pressure, energies...) are those of the current step; positions and velocities "
      "are (N, 3) arrays that copy in and out.");
  cls.def(py::init([](const System& system, const State& state, py::handle force_field,
                      std::shared_ptr<Integrator> integrator, uint64_t seed, std::optional<bool> remove_com_motion,
                      py::handle progress, double progress_seconds, const std::string& platform) {
            SPIRE_CHECK(integrator != nullptr, ValueError, "Simulation: integrator is None");
            ForceField ff(0.1);
            if (py::isinstance<ForceField>(force_field)) {
              ff = copy_terms(force_field.cast<const ForceField&>());
            } else {
              SPIRE_CHECK(py::isinstance<py::iterable>(force_field), ValueError,
                          "Simulation: force_field must be a ForceField or a list of force terms, got ",
                          type_name(force_field));
              for (py::handle f : force_field) {
                SPIRE_CHECK(py::isinstance<Force>(f), ValueError, "Simulation: expected force terms, got ",
                            type_name(f));
                ff.add(f.cast<ForcePtr>());
              }
            }
            SimulationOptions o;
            o.seed = seed;
            o.remove_com_motion = remove_com_motion;
            o.progress_seconds = progress_seconds;
            o.platform = parse_platform(platform);
            std::unique_ptr<std::ostream> out;
            if (!progress.is_none() && progress_seconds > 0)
              out = python_text_stream(progress, "spire.sponge.Simulation progress");
            auto sim = std::make_unique<PySimulation>(system, state, std::move(ff), std::move(integrator), o,
                                                      std::move(out));
            sim->ready();  // errors in the setup (parameters, cutoffs, box) surface here, not mid-run
            return sim;
          }),
          py::arg("system"), py::arg("state"), py::arg("force_field"), py::arg("integrator"), py::kw_only(),
          py::arg("seed") = 0, py::arg("remove_com_motion") = py::none(), py::arg("progress") = "stderr",
          py::arg("progress_seconds") = 5.0, py::arg("platform") = "cpu",
          "force_field: a ForceField or a list of terms. seed: the run's seed (checkpoints require the same). "
          "remove_com_motion: whether the temperature leaves out the centre of mass's 3 degrees of freedom (None: "
          "as the integrator does). progress: where a line with the speed (ns/day) goes every progress_seconds "
          "during run() (\"stderr\", \"stdout\", a file object, or None for none). platform: where the steps "
          "run, \"cpu\" or one of platforms() with an optional device index (\"cuda\", \"cuda:1\"); observables, "
          "reporters and checkpoints are the same on every platform.");

  cls.def(
         "run",
         [](PySimulation& s, int64_t steps) {
           py::gil_scoped_release release;
           s.run(steps);
         },
         py::arg("steps"),
         "Integrates `steps` steps (without the GIL; callbacks and Python reporters take it). Reporters write at "
         "every multiple of their interval, including the starting step.")
      .def(
          "run_until",
          [](PySimulation& s, double time) {
            py::gil_scoped_release release;
            s.run_until(time);
          },
          py::arg("time"), "Runs until state time reaches `time` (in the system's time unit).")
      .def(
          "add_reporter",
          [](PySimulation& s, py::handle reporter, int64_t interval) {
            if (py::isinstance<Reporter>(reporter))
              s.add_reporter(reporter.cast<ReporterPtr>(), interval);
            else if (py::hasattr(reporter, "report"))
              s.add_reporter(std::make_shared<PyReporter>(py::reinterpret_borrow<py::object>(reporter)), interval);
            else
              throw spire::ValueError(detail::cat(
                  "Simulation.add_reporter: expected a ThermoLog, H5mdWriter, CheckpointWriter or an object with a "
                  "report(simulation) method, got ", type_name(reporter)));
            return py::reinterpret_borrow<py::object>(reporter);
          },
          py::arg("reporter"), py::arg("interval"), "Adds a reporter written every `interval` steps; returns it.")
      .def(
          "add_callback",
          [](PySimulation& s, py::object function, int64_t interval) {
            SPIRE_CHECK(PyCallable_Check(function.ptr()), ValueError,
                        "Simulation.add_callback: expected a function of the simulation, got ", type_name(function));
            auto f = hold(std::move(function));
            s.add_callback(interval, [f](Simulation& sim) {
              py::gil_scoped_acquire gil;
              (*f)(python_simulation(sim));
            });
          },
          py::arg("function"), py::arg("interval") = 1,
          "Calls function(simulation) after every `interval`-th step, before that step's reporters. It may read "
          "observables and set positions, velocities or the box (the forces are then recomputed); an exception "
          "stops the run and propagates.")
      .def(
          "minimize",
          [](PySimulation& s, double force_tolerance, const std::string& method, int64_t max_iterations) {
            SPIRE_CHECK(method == "fire" || method == "lbfgs", ConfigError, "Simulation.minimize: unknown method '",
                        method, "'; allowed: fire, lbfgs");
            ForceField ff = copy_terms(s.force_field());
            State state = s.state();
            MinimizeResult r;
            {
              py::gil_scoped_release release;
              if (method == "fire") {
                FireOptions o;
                o.force_tolerance = force_tolerance;
                o.max_iterations = max_iterations;
                r = minimize_fire(s.system(), state, ff, o);
              } else {
                LbfgsOptions o;
                o.force_tolerance = force_tolerance;
                o.max_iterations = max_iterations;
                r = minimize_lbfgs(s.system(), state, ff, o);
              }
            }
            s.modify_state().positions = std::move(state.positions);
            return r;
          },
          py::arg("force_tolerance"), py::arg("method") = "fire", py::arg("max_iterations") = 10000,
          "Minimises the potential energy (OpenMM's minimizeEnergy) until every |F_i| <= force_tolerance "
          "(energy/length: kJ/mol/nm in md); positions only.")
      .def(
          "set_velocities_to_temperature",
          [](PySimulation& s, double temperature, uint64_t seed) {
            State& st = s.modify_state();
            maxwell_boltzmann(s.system(), st, temperature, seed, s.removes_com_motion());
          },
          py::arg("temperature"), py::arg("seed") = 0,
          "Maxwell-Boltzmann velocities scaled to exactly this temperature (maxwell_boltzmann).")
      .def(
          "save_checkpoint",
          [](PySimulation& s, py::handle path) {
            const std::string p = fspath(path);
            s.ready();
            py::gil_scoped_release release;
            s.save_checkpoint(p);
          },
          py::arg("path"), "Writes a checkpoint of the current step, atomically.")
      .def(
          "restore",
          [](PySimulation& s, py::handle path) {
            const std::string p = fspath(path);
            py::gil_scoped_release release;
            s.restore(p);
          },
          py::arg("path"),
          "Continues a checkpointed run: state, step, time and integrator variables; reporters resume at its "
          "step. ValueError naming the difference when it was written for another system, integrator or seed.");

  // The state, copied in and out.
  cls.def_property(
         "state", [](const PySimulation& s) { return s.state(); },
         [](PySimulation& s, const State& st) {
           check_size(s, st.positions.size(), "Simulation.state: positions");
           State copy = st;
           if (copy.velocities.empty()) copy.velocities.assign(copy.positions.size(), Vec3{});
           check_size(s, copy.velocities.size(), "Simulation.state: velocities");
           s.modify_state() = std::move(copy);
         },
         "A copy of the current State; assigning one replaces positions, velocities, box, time and step.")
      .def_property(
          "positions", [](const PySimulation& s) { return vec3_array(s.state().positions); },
          [](PySimulation& s, py::handle h) {
            std::vector<Vec3> r = to_vec3_list(h, "Simulation.positions", s.system().size());
            s.modify_state().positions = std::move(r);
          },
          "(N, 3) float64 copy; assign an array to move the particles (forces are recomputed).")
      .def_property(
          "velocities", [](const PySimulation& s) { return vec3_array(s.state().velocities); },
          [](PySimulation& s, py::handle h) {
            std::vector<Vec3> v = to_vec3_list(h, "Simulation.velocities", s.system().size());
            s.modify_state().velocities = std::move(v);
          },
          "(N, 3) float64 copy; assign an array to change the velocities.")
      .def_property(
          "box", [](const PySimulation& s) { return s.state().box; },
          [](PySimulation& s, const Box& b) { s.modify_state().box = b; })
      .def_property_readonly("time", [](const PySimulation& s) { return s.state().time; })
      .def_property_readonly("step", [](const PySimulation& s) { return s.state().step; })
      .def_property_readonly("system", [](const PySimulation& s) { return s.system(); }, "A copy of the System.")
      .def_property_readonly("integrator", &PySimulation::integrator_ptr)
      .def_property_readonly("force_terms", [](const PySimulation& s) { return s.force_field().terms(); })
      .def_property_readonly("neighbor_list_builds",
                             [](const PySimulation& s) {
                               return s.force_field().neighbors() ? s.force_field().neighbors()->builds() : 0;
                             })
      .def_property_readonly("seed", &PySimulation::seed)
      .def_property_readonly("platform", [](const PySimulation& s) { return s.options().platform.name; },
                             "The platform the steps run on: \"cpu\", \"cuda\", ...")
      .def_property_readonly("device", &PySimulation::device,
                             "Where the steps run, in words: \"cpu\" or e.g. \"cuda:0 (NVIDIA H100 80GB HBM3)\".")
      .def_property_readonly("removes_com_motion", &PySimulation::removes_com_motion)
      .def_property_readonly("speed_per_day", &PySimulation::speed_per_day,
                             "Simulated time per wall-clock day of the latest run (ps/day in md: /1000 for ns/day).");

  // Observables of the current step.
  cls.def_property_readonly("energies", [](PySimulation& s) { return (s.ready(), energies_dict(s.forces())); },
                            "{term: energy} at the current step.")
      .def_property_readonly("forces", [](PySimulation& s) { return (s.ready(), vec3_array(s.forces().forces)); },
                             "(N, 3) forces at the current step.")
      .def_property_readonly("virial", [](PySimulation& s) { return (s.ready(), mat3_array(s.forces().virial)); },
                             "The force terms' virial (3x3); the pressure adds the constraint virial.")
      .def_property_readonly("potential_energy", [](PySimulation& s) { return observables_of(s).potential_energy; })
      .def_property_readonly("kinetic_energy", [](PySimulation& s) { return observables_of(s).kinetic_energy; })
      .def_property_readonly("total_energy", [](PySimulation& s) { return observables_of(s).total_energy(); })
      .def_property_readonly("temperature", [](PySimulation& s) { return observables_of(s).temperature; },
                             "2 K / (N_dof k_B).")
      .def_property_readonly("degrees_of_freedom",
                             [](PySimulation& s) { return observables_of(s).degrees_of_freedom; })
      .def_property_readonly("pressure", [](PySimulation& s) { return observables_of(s).pressure; },
                             "(2 K + tr W) / (3 V) in display units (bar in md); NaN without a box.")
      .def_property_readonly("pressure_tensor",
                             [](PySimulation& s) { return mat3_array(observables_of(s).pressure_tensor); },
                             "(sum m v v^T + W) / V, 3x3, display units.")
      .def_property_readonly("kinetic_tensor",
                             [](PySimulation& s) { return mat3_array(observables_of(s).kinetic_tensor); },
                             "sum m v v^T (twice the kinetic-energy tensor).")
      .def_property_readonly("volume", [](PySimulation& s) { return observables_of(s).volume; })
      .def_property_readonly("conserved_energy", [](PySimulation& s) { return observables_of(s).conserved_energy; },
                             "K + U + thermostat and barostat terms - heat: constant up to the integration error.")
      .def("__repr__", [](const PySimulation& s) {
        std::ostringstream o;
        o << "Simulation(" << s.system().size() << " particles, " << s.integrator().name() << ", step "
          << s.state().step;
        if (s.options().platform.name != "cpu") o << ", on " << s.device();
        o << ")";
        return o.str();
      });
}

}  // namespace

void bind_sponge_simulation(py::module_& m) {
  bind_reporters(m);
  bind_simulation(m);
}

}  // namespace spire::python::sponge_py
