// spire._C._sponge, forces: force terms (Lennard-Jones, Coulomb by PME, Ewald and reaction field,
// bonded terms, restraints, external fields), the ForceField that sums them, and its results.
// Evaluations run without the GIL.
#include <cmath>
#include <sstream>

#include "sponge_common.h"
#include "engine/core/error.h"
#include "science/sponge/bonded.h"
#include "science/sponge/ewald.h"
#include "science/sponge/force_field.h"
#include "science/sponge/lennard_jones.h"
#include "science/sponge/pme.h"
#include "science/sponge/reaction_field.h"

namespace spire::python::sponge_py {
namespace {

py::tuple int3_tuple(const std::array<int, 3>& v) { return py::make_tuple(v[0], v[1], v[2]); }

std::array<int, 3> int3_of(py::handle h, const char* who) {
  if (h.is_none()) return {0, 0, 0};
  std::vector<int> v;
  if (py::isinstance<py::int_>(h))
    v.assign(3, h.cast<int>());
  else
    v = h.cast<std::vector<int>>();
  SPIRE_CHECK(v.size() == 3 && v[0] >= 0 && v[1] >= 0 && v[2] >= 0, ValueError, who,
              ": expected three integers >= 0 (0: chosen from the tolerance), or one for all three axes");
  return {v[0], v[1], v[2]};
}

// The result of ForceField.compute, as a copy that outlives the next evaluation.
void bind_result(py::module_& m) {
  py::class_<ForceResult>(m, "ForceResult",
                          "An evaluation: energies per term, forces (N, 3) and the virial W = sum r_ij f_ij^T "
                          "(3x3; the pressure tensor is (sum m v v^T + W) / V).")
      .def_property_readonly("energy", &ForceResult::energy, "The total potential energy.")
      .def_property_readonly("energies", &energies_dict, "{term: energy} in the order the terms were added.")
      .def_property_readonly("forces", [](const ForceResult& r) { return vec3_array(r.forces); })
      .def_property_readonly("virial", [](const ForceResult& r) { return mat3_array(r.virial); })
      .def("energy_of", &ForceResult::energy_of, py::arg("term"), "One term's energy (0 when absent).")
      .def("__repr__", [](const ForceResult& r) {
        std::string s = "ForceResult(energy=" + number(r.energy());
        for (const auto& [t, e] : r.energies) s += ", " + t + "=" + number(e);
        return s + ")";
      });
}

void bind_lennard_jones(py::module_& m) {
  py::class_<LennardJones, Force, std::shared_ptr<LennardJones>>(
      m, "LennardJones",
      "U = 4 eps ((sigma/r)^12 - (sigma/r)^6) over the neighbour list, with per-type parameters mixed by "
      "Lorentz-Berthelot or geometric rules, explicit pair overrides, cutoff modes \"cut\" (LAMMPS's lj/cut), "
      "\"shifted\" (zero at the cutoff) and \"force_switch\" (GROMACS's, from switch_distance to the cutoff), "
      "and optional long-range tail corrections to energy and pressure. Exclusions are left out; 1-4 pairs "
      "are added with epsilon scaled by their lj_scale.")
      .def(py::init([](double cutoff, const std::string& mode, double switch_distance, const std::string& mixing,
                       bool tail_correction, py::handle types) {
             auto lj = std::make_shared<LennardJones>(cutoff, lj_cutoff_mode(mode), switch_distance);
             lj->set_mixing(lj_mixing(mixing));
             lj->set_tail_correction(tail_correction);
             if (!types.is_none())
               for (auto [name, p] : types.cast<py::dict>()) {
                 auto eps_sigma = p.cast<std::pair<double, double>>();
                 lj->set_type(name.cast<std::string>(), eps_sigma.first, eps_sigma.second);
               }
             return lj;
           }),
           py::arg("cutoff"), py::arg("mode") = "cut", py::arg("switch_distance") = 0.0,
           py::arg("mixing") = "lorentz_berthelot", py::arg("tail_correction") = false, py::arg("types") = py::none(),
           "types: {type name: (epsilon, sigma)}, or call set_type for each.")
      .def("set_type", &LennardJones::set_type, py::arg("type"), py::arg("epsilon"), py::arg("sigma"),
           "Parameters of a particle type (epsilon >= 0, sigma > 0; sigma may be 0 when epsilon is).")
      .def("set_pair", &LennardJones::set_pair, py::arg("type_a"), py::arg("type_b"), py::arg("epsilon"),
           py::arg("sigma"), "An explicit pair, used instead of the mixing rule.")
      .def(
          "parameters",
          [](const LennardJones& lj, const std::string& a, const std::string& b) {
            LJParameters p = lj.parameters(a, b);
            return py::make_tuple(p.epsilon, p.sigma);
          },
          py::arg("type_a"), py::arg("type_b"), "(epsilon, sigma) of a pair of types: the explicit pair, or mixed.")
      .def(
          "pair_energy",
          [](const LennardJones& lj, double epsilon, double sigma, py::handle r) {
            std::vector<double> rs = to_doubles(py::module_::import("numpy").attr("atleast_1d")(r), "pair_energy: r");
            for (double& x : rs) x = lj.pair_energy({epsilon, sigma}, x);
            return doubles_array(rs);
          },
          py::arg("epsilon"), py::arg("sigma"), py::arg("r"),
          "The pair energy at distances r (array) as the kernel computes it (0 beyond the cutoff).")
      .def(
          "pair_force",
          [](const LennardJones& lj, double epsilon, double sigma, py::handle r) {
            std::vector<double> rs = to_doubles(py::module_::import("numpy").attr("atleast_1d")(r), "pair_force: r");
            for (double& x : rs) x = lj.pair_force({epsilon, sigma}, x);
            return doubles_array(rs);
          },
          py::arg("epsilon"), py::arg("sigma"), py::arg("r"), "-dU/dr at distances r (array), as the kernel.")
      .def_property_readonly("mode", [](const LennardJones& lj) { return to_string(lj.mode()); })
      .def_property(
          "mixing", [](const LennardJones& lj) { return to_string(lj.mixing()); },
          [](LennardJones& lj, const std::string& s) { lj.set_mixing(lj_mixing(s)); })
      .def_property("tail_correction", &LennardJones::tail_correction, &LennardJones::set_tail_correction)
      .def_property_readonly("switch_distance", &LennardJones::switch_distance)
      .def("__repr__", [](const LennardJones& lj) {
        std::string s = "LennardJones(cutoff=" + number(lj.cutoff()) + ", mode='" + to_string(lj.mode()) + "'";
        if (lj.mode() == LJCutoffMode::force_switch) s += ", switch_distance=" + number(lj.switch_distance());
        return s + ", mixing='" + to_string(lj.mixing()) + "', tail_correction=" +
               (lj.tail_correction() ? "True" : "False") + ")";
      });
}

void bind_coulomb(py::module_& m) {
  py::class_<CoulombForce, Force, std::shared_ptr<CoulombForce>>(
      m, "CoulombForce",
      "Base of the Coulomb terms (energy key \"coulomb\"): exclusions left out, 1-4 pairs added as "
      "coulomb_scale k q_i q_j / r.");

  py::class_<PmeCoulomb, CoulombForce, std::shared_ptr<PmeCoulomb>>(
      m, "PmeCoulomb",
      "Smooth particle-mesh Ewald (Essmann 1995) with OpenMM's parameters: alpha = sqrt(-ln(2 tol)) / cutoff, "
      "B-splines of order 5, mesh from the tolerance (OpenMM's CPU platform's sizes), FFTW.")
      .def(py::init([](double cutoff, double tolerance, double alpha, py::handle grid, int order) {
             PmeOptions o;
             o.cutoff = cutoff;
             o.tolerance = tolerance;
             o.alpha = alpha;
             o.grid = int3_of(grid, "PmeCoulomb: grid");
             o.order = order;
             return std::make_shared<PmeCoulomb>(o);
           }),
           py::arg("cutoff") = 1.0, py::arg("tolerance") = 5e-4, py::arg("alpha") = 0.0, py::arg("grid") = py::none(),
           py::arg("order") = 5,
           "tolerance is OpenMM's ewaldErrorTolerance; alpha 0 and grid None are chosen from it (the grid at the "
           "first evaluation).")
      .def_property_readonly("alpha", &PmeCoulomb::alpha)
      .def_property_readonly("order", &PmeCoulomb::order)
      .def_property_readonly("grid", [](const PmeCoulomb& p) { return int3_tuple(p.grid()); },
                             "The mesh in use ((0, 0, 0) before the first evaluation chooses it).")
      .def("__repr__", [](const PmeCoulomb& p) {
        return "PmeCoulomb(cutoff=" + number(p.cutoff()) + ", alpha=" + number(p.alpha()) +
               ", order=" + std::to_string(p.order()) + ")";
      });

  py::class_<EwaldCoulomb, CoulombForce, std::shared_ptr<EwaldCoulomb>>(
      m, "EwaldCoulomb", "Ewald summation (a reference for PME and small cells), OpenMM's parameters.")
      .def(py::init([](double cutoff, double tolerance, double alpha, py::handle kmax) {
             EwaldOptions o;
             o.cutoff = cutoff;
             o.tolerance = tolerance;
             o.alpha = alpha;
             o.kmax = int3_of(kmax, "EwaldCoulomb: kmax");
             return std::make_shared<EwaldCoulomb>(o);
           }),
           py::arg("cutoff") = 1.0, py::arg("tolerance") = 5e-4, py::arg("alpha") = 0.0, py::arg("kmax") = py::none(),
           "Wave vectors |n_d| < kmax_d per reciprocal axis; None: from the tolerance at the first evaluation.")
      .def_property_readonly("alpha", &EwaldCoulomb::alpha)
      .def_property_readonly("kmax", [](const EwaldCoulomb& e) { return int3_tuple(e.kmax()); })
      .def("__repr__", [](const EwaldCoulomb& e) {
        return "EwaldCoulomb(cutoff=" + number(e.cutoff()) + ", alpha=" + number(e.alpha()) + ")";
      });

  py::class_<ReactionFieldCoulomb, CoulombForce, std::shared_ptr<ReactionFieldCoulomb>>(
      m, "ReactionFieldCoulomb",
      "Coulomb with a reaction field beyond the cutoff (OpenMM's CutoffPeriodic/CutoffNonPeriodic): "
      "k q_i q_j (1/r + k_rf r^2 - c_rf) for pairs closer than the cutoff.")
      .def(py::init([](double cutoff, double epsilon_solvent) {
             ReactionFieldOptions o;
             o.cutoff = cutoff;
             o.epsilon_solvent = epsilon_solvent;
             return std::make_shared<ReactionFieldCoulomb>(o);
           }),
           py::arg("cutoff") = 1.0, py::arg("epsilon_solvent") = 78.3)
      .def_property_readonly("k_rf", &ReactionFieldCoulomb::k_rf)
      .def_property_readonly("c_rf", &ReactionFieldCoulomb::c_rf)
      .def("__repr__",
           [](const ReactionFieldCoulomb& r) { return "ReactionFieldCoulomb(cutoff=" + number(r.cutoff()) + ")"; });

  m.def("ewald_alpha", &ewald_alpha, py::arg("cutoff"), py::arg("tolerance"),
        "OpenMM's splitting parameter sqrt(-ln(2 tol)) / cutoff.");
  m.def(
      "pme_grid",
      [](const Box& box, double alpha, double tolerance) { return int3_tuple(pme_grid(box, alpha, tolerance)); },
      py::arg("box"), py::arg("alpha"), py::arg("tolerance"), "OpenMM's PME mesh for the box, FFT-friendly sizes.");
}

template <class T>
void bind_plain_term(py::module_& m, const char* name, const char* doc) {
  py::class_<T, Force, std::shared_ptr<T>>(m, name, doc)
      .def(py::init([]() { return std::make_shared<T>(); }))
      .def("__repr__", [name](const T&) { return std::string(name) + "()"; });
}

void bind_bonded(py::module_& m) {
  bind_plain_term<HarmonicBonds>(m, "HarmonicBonds", "E = k/2 (r - length)^2 over System.bonds (term \"bonds\").");
  bind_plain_term<HarmonicAngles>(m, "HarmonicAngles",
                                  "E = k/2 (theta - theta0)^2 over System.angles (term \"angles\").");
  bind_plain_term<PeriodicTorsions>(m, "PeriodicTorsions",
                                    "E = k (1 + cos(n phi - phase)) over System.torsions (term \"torsions\").");
  bind_plain_term<HarmonicImpropers>(m, "HarmonicImpropers",
                                     "E = k/2 (xi - xi0)^2 over System.impropers (term \"impropers\").");

  py::class_<PositionRestraints, Force, std::shared_ptr<PositionRestraints>>(
      m, "PositionRestraints",
      "E = k/2 |r_i - r0_i|^2 (minimum image) for the given particles (term \"restraints\"); the references move "
      "with the box for the virial. Turn off remove_com_motion in the integrator: restraints exchange momentum "
      "with the outside.")
      .def(py::init([](const std::vector<int>& particles, py::handle references, py::handle k) {
             const std::vector<Vec3> r0 =
                 to_vec3_list(references, "PositionRestraints: references", int64_t(particles.size()));
             std::vector<double> ks;
             if (py::isinstance<py::float_>(k) || py::isinstance<py::int_>(k))
               ks.assign(particles.size(), k.cast<double>());
             else
               ks = to_doubles(k, "PositionRestraints: k");
             SPIRE_CHECK(ks.size() == particles.size(), ValueError, "PositionRestraints: ", ks.size(),
                         " force constants for ", particles.size(), " particles (one number, or one per particle)");
             std::vector<PositionRestraint> rs;
             for (size_t i = 0; i < particles.size(); ++i) rs.push_back({particles[i], r0[i], ks[i]});
             return std::make_shared<PositionRestraints>(std::move(rs));
           }),
           py::arg("particles"), py::arg("references"), py::arg("k"),
           "particles: indices; references: (M, 3) positions; k: one force constant or one per particle.")
      .def_property_readonly("particles",
                             [](const PositionRestraints& p) {
                               std::vector<int> v;
                               for (auto& r : p.restraints()) v.push_back(r.particle);
                               return v;
                             })
      .def_property_readonly("references",
                             [](const PositionRestraints& p) {
                               std::vector<Vec3> v;
                               for (auto& r : p.restraints()) v.push_back(r.reference);
                               return vec3_array(v);
                             })
      .def_property_readonly("k",
                             [](const PositionRestraints& p) {
                               std::vector<double> v;
                               for (auto& r : p.restraints()) v.push_back(r.k);
                               return doubles_array(v);
                             })
      .def("__repr__", [](const PositionRestraints& p) {
        return "PositionRestraints(" + std::to_string(p.restraints().size()) + " particles)";
      });

  py::class_<ExternalField, Force, std::shared_ptr<ExternalField>>(
      m, "ExternalField",
      "A uniform field: force q E on every charge (E in energy / (charge length): kJ/mol/(nm e) in md units, "
      "1 V/nm = 96.485) and m g on every mass (g an acceleration). Energy -sum f . r; no virial "
      "(term \"external_field\").")
      .def(py::init([](py::handle e, py::handle g) {
             return std::make_shared<ExternalField>(to_vec3(e, "ExternalField: electric_field"),
                                                    to_vec3(g, "ExternalField: acceleration"));
           }),
           py::arg("electric_field") = py::make_tuple(0.0, 0.0, 0.0),
           py::arg("acceleration") = py::make_tuple(0.0, 0.0, 0.0))
      .def_property_readonly("electric_field", [](const ExternalField& f) { return vec3_1d(f.electric_field()); })
      .def_property_readonly("acceleration", [](const ExternalField& f) { return vec3_1d(f.acceleration()); })
      .def("__repr__", [](const ExternalField&) { return std::string("ExternalField(...)"); });
}

void check_sizes(const System& system, const State& state, const char* who) {
  SPIRE_CHECK(int64_t(state.positions.size()) == system.size(), ValueError, who, ": the state has ",
              state.positions.size(), " positions for a system of ", system.size(), " particles");
}

void bind_force_field(py::module_& m) {
  py::class_<ForceField, std::shared_ptr<ForceField>>(
      m, "ForceField",
      "The sum of force terms, sharing one neighbour list (the largest cutoff plus the skin, rebuilt when any "
      "particle has moved more than skin/2). A Simulation made from it shares its terms.")
      .def(py::init([](py::handle forces, double skin) {
             SPIRE_CHECK(std::isfinite(skin) && skin >= 0, ValueError, "ForceField: skin ", skin,
                         " must be >= 0 (a length in the system's units)");
             auto ff = std::make_shared<ForceField>(skin);
             if (!forces.is_none())
               for (py::handle f : forces) {
                 SPIRE_CHECK(py::isinstance<Force>(f), ValueError, "ForceField: expected force terms "
                             "(LennardJones, PmeCoulomb, HarmonicBonds, ...), got ", type_name(f));
                 ff->add(f.cast<ForcePtr>());
               }
             return ff;
           }),
           py::arg("forces") = py::none(), py::arg("skin") = 0.1,
           "forces: a list of terms (or add them one by one); skin: the neighbour list's buffer, in the system's "
           "lengths (0.1 nm in md; about 0.3 sigma suits lj).")
      .def(
          "add",
          [](ForceField& ff, py::handle f) {
            SPIRE_CHECK(py::isinstance<Force>(f), ValueError, "ForceField.add: expected a force term (LennardJones, "
                        "PmeCoulomb, HarmonicBonds, ...), got ", type_name(f));
            ff.add(f.cast<ForcePtr>());
            return py::reinterpret_borrow<py::object>(f);
          },
          py::arg("force"), "Adds a term; returns it.")
      .def_property_readonly("terms", [](const ForceField& ff) { return ff.terms(); })
      .def_property_readonly("skin", &ForceField::skin)
      .def("__len__", [](const ForceField& ff) { return ff.terms().size(); })
      .def_property_readonly("neighbor_list_builds",
                             [](const ForceField& ff) { return ff.neighbors() ? ff.neighbors()->builds() : 0; })
      .def(
          "check",
          [](const ForceField& ff, const System& system, const State& state) {
            check_sizes(system, state, "ForceField.check");
            system.check();
            ff.check(system, state);
          },
          py::arg("system"), py::arg("state"),
          "Raises ValueError/ConfigError naming what is wrong (missing parameters, a cutoff too long for the box).")
      .def(
          "compute",
          [](ForceField& ff, const System& system, const State& state) {
            check_sizes(system, state, "ForceField.compute");
            system.check();
            ff.check(system, state);
            py::gil_scoped_release release;
            return ForceResult(ff.compute(system, state));
          },
          py::arg("system"), py::arg("state"),
          "Energies per term, forces and virial at the state (checked first; runs without the GIL).")
      .def("__repr__", [](const ForceField& ff) {
        std::string s = "ForceField([";
        for (size_t k = 0; k < ff.terms().size(); ++k) s += (k ? ", " : "") + ff.terms()[k]->name();
        return s + "], skin=" + number(ff.skin()) + ")";
      });
}

}  // namespace

void bind_sponge_forces(py::module_& m) {
  py::class_<Force, std::shared_ptr<Force>>(m, "Force",
                                            "A force term: its energy (under name), forces and virial.")
      .def_property_readonly("name", &Force::name, "The key of its energy: \"lj\", \"coulomb\", \"bonds\", ...")
      .def_property_readonly("cutoff", &Force::cutoff, "The range of its pair interactions (0: none).");
  bind_result(m);
  bind_lennard_jones(m);
  bind_coulomb(m);
  bind_bonded(m);
  bind_force_field(m);
}

}  // namespace spire::python::sponge_py
