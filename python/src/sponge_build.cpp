// spire._C._sponge, builders and files: cubic lattices and systems of identical particles, water
// models and water boxes, Maxwell-Boltzmann velocities, PDB files read and written.
#include <optional>

#include "sponge_common.h"
#include "engine/core/error.h"
#include "science/sponge/lattice.h"
#include "science/sponge/pdb.h"
#include "science/sponge/velocities.h"
#include "science/sponge/water.h"

namespace spire::python::sponge_py {
namespace {

WaterModel water_model_of(py::handle h) {
  if (py::isinstance<WaterModel>(h)) return h.cast<WaterModel>();
  SPIRE_CHECK(py::isinstance<py::str>(h), ConfigError,
              "water model: expected \"spce\", \"tip3p\" or a WaterModel, got ", type_name(h));
  return WaterModel::by_name(h.cast<std::string>());
}

void bind_builders(py::module_& m) {
  m.def(
      "lattice",
      [](const std::string& kind, py::handle cells, std::optional<double> density, std::optional<double> constant) {
        SPIRE_CHECK(density.has_value() != constant.has_value(), ValueError,
                    "lattice: give exactly one of density (particles per unit volume, LAMMPS's `lattice fcc 0.8442` "
                    "in lj units) and constant (the cubic cell's edge)");
        std::vector<int> n;
        if (py::isinstance<py::int_>(cells))
          n.assign(3, cells.cast<int>());
        else
          n = cells.cast<std::vector<int>>();
        SPIRE_CHECK(n.size() == 3 && n[0] > 0 && n[1] > 0 && n[2] > 0, ValueError,
                    "lattice: cells must be a positive integer or three of them (nx, ny, nz)");
        const LatticeType type = lattice_type(kind);
        const Lattice l = density ? Lattice::with_density(type, *density) : Lattice::with_constant(type, *constant);
        return create_lattice(l, n[0], n[1], n[2]);
      },
      py::arg("kind"), py::arg("cells"), py::kw_only(), py::arg("density") = py::none(),
      py::arg("constant") = py::none(),
      "The State of a cubic lattice (\"sc\", \"bcc\", \"fcc\") of cells = n or (nx, ny, nz) cells filling an "
      "orthorhombic box from the origin, in LAMMPS's order (lattice + region block + create_atoms): "
      "lattice(\"fcc\", 20, density=0.8442) is in.lj's 32000 atoms. Zero velocities.");
  m.def(
      "identical_particles",
      [](int64_t n, double mass, const std::string& type, py::handle units) {
        SPIRE_CHECK(n >= 0, ValueError, "identical_particles: n = ", n, " must be >= 0");
        return identical_particles(n, mass, type, to_units(units));
      },
      py::arg("n"), py::arg("mass") = 1.0, py::arg("type") = "A", py::arg("units") = "lj",
      "A System of n particles of one type, uncharged, no topology (the system of a lattice).");

  py::class_<WaterModel>(m, "WaterModel", "A rigid three-site water model (md units: nm, e, kJ/mol, amu, radians).")
      .def_static("spce", &WaterModel::spce, "SPC/E as GROMACS distributes it.")
      .def_static("tip3p", &WaterModel::tip3p, "TIP3P as OpenMM's tip3p.xml.")
      .def_static("by_name", &WaterModel::by_name, py::arg("name"), "\"spce\" or \"tip3p\".")
      .def_readonly("name", &WaterModel::name)
      .def_readonly("charge_o", &WaterModel::charge_o)
      .def_readonly("charge_h", &WaterModel::charge_h)
      .def_readonly("sigma_o", &WaterModel::sigma_o)
      .def_readonly("epsilon_o", &WaterModel::epsilon_o)
      .def_readonly("mass_o", &WaterModel::mass_o)
      .def_readonly("mass_h", &WaterModel::mass_h)
      .def_readonly("r_oh", &WaterModel::r_oh)
      .def_readonly("theta_hoh", &WaterModel::theta_hoh)
      .def_property_readonly("d_hh", &WaterModel::d_hh)
      .def_property_readonly("molar_mass", &WaterModel::molar_mass)
      .def_property_readonly("dipole", &WaterModel::dipole, "|mu| in e nm.")
      .def("__repr__", [](const WaterModel& w) { return "WaterModel." + w.name + "()"; });
  m.attr("WATER_OXYGEN_TYPE") = kWaterOxygenType;
  m.attr("WATER_HYDROGEN_TYPE") = kWaterHydrogenType;

  m.def(
      "water_box",
      [](py::handle model, int64_t molecules, double density, uint64_t seed, const std::string& residue_name,
         double clash_distance) {
        WaterBoxOptions o;
        o.molecules = molecules;
        o.density = density;
        o.seed = seed;
        o.residue_name = residue_name;
        o.clash_distance = clash_distance;
        const WaterModel w = water_model_of(model);
        WaterBox box;
        {
          py::gil_scoped_release release;
          box = water_box(w, o);
        }
        return py::make_tuple(std::move(box.system), std::move(box.state));
      },
      py::arg("model") = "spce", py::arg("molecules") = 216, py::arg("density") = 0.997, py::arg("seed") = 1,
      py::arg("residue_name") = "HOH", py::arg("clash_distance") = 0.18,
      "(System, State) of a cubic box of rigid waters (types OW and HW, SETTLE entries, intramolecular "
      "exclusions) at the mass density in g/cm^3, orientations from the seed. A starting point: minimise "
      "before dynamics.");
  m.def(
      "add_water",
      [](System& s, py::handle model, const std::string& residue_name, int residue_id) {
        return add_water(s, water_model_of(model), residue_name, residue_id);
      },
      py::arg("system"), py::arg("model") = "spce", py::arg("residue_name") = "HOH", py::arg("residue_id") = 1,
      "Appends one water (O, H1, H2) with its rigid-water entry and exclusions; returns the oxygen's index.");

  m.def(
      "maxwell_boltzmann",
      [](const System& system, State& state, double temperature, uint64_t seed, bool zero_momentum) {
        SPIRE_CHECK(int64_t(state.positions.size()) == system.size(), ValueError, "maxwell_boltzmann: the state has ",
                    state.positions.size(), " positions for a system of ", system.size(), " particles");
        maxwell_boltzmann(system, state, temperature, seed, zero_momentum);
      },
      py::arg("system"), py::arg("state"), py::arg("temperature"), py::arg("seed") = 0,
      py::arg("zero_momentum") = true,
      "Sets state.velocities in place, as LAMMPS's `velocity all create T seed`: Maxwell-Boltzmann draws "
      "(Philox, by seed and particle), zero total momentum, constrained velocities projected, then scaled so "
      "the temperature (N_dof = 3N - constraints - 3) is exactly T.");
  m.def(
      "kinetic_energy",
      [](const System& system, py::handle velocities) {
        return kinetic_energy(system, to_vec3_list(velocities, "kinetic_energy: velocities", system.size()));
      },
      py::arg("system"), py::arg("velocities"), "1/2 sum m v^2.");
  m.def(
      "kinetic_temperature",
      [](const System& system, py::handle velocities, bool com_removed) {
        return kinetic_temperature(system, to_vec3_list(velocities, "kinetic_temperature: velocities", system.size()),
                                   com_removed);
      },
      py::arg("system"), py::arg("velocities"), py::arg("com_removed") = true,
      "2 K / (N_dof k_B) with N_dof = system.degrees_of_freedom(com_removed).");
}

void bind_pdb(py::module_& m) {
  py::class_<PdbFile>(m, "PdbFile",
                      "A PDB file's first model: atoms (positions in nm), the CRYST1 box and CONECT bonds.")
      .def("__len__", [](const PdbFile& f) { return f.atoms.size(); })
      .def_property_readonly("positions",
                             [](const PdbFile& f) {
                               std::vector<Vec3> r;
                               for (const PdbAtom& a : f.atoms) r.push_back(a.position);
                               return vec3_array(r);
                             })
      .def_readonly("box", &PdbFile::box)
      .def_property_readonly("bonds",
                             [](const PdbFile& f) {
                               py::list out;
                               for (auto [i, j] : f.bonds) out.append(py::make_tuple(i, j));
                               return out;
                             })
      .def_property_readonly("atom_names",
                             [](const PdbFile& f) {
                               std::vector<std::string> v;
                               for (const PdbAtom& a : f.atoms) v.push_back(a.name);
                               return v;
                             })
      .def_property_readonly("residue_names",
                             [](const PdbFile& f) {
                               std::vector<std::string> v;
                               for (const PdbAtom& a : f.atoms) v.push_back(a.residue_name);
                               return v;
                             })
      .def_property_readonly("residue_ids",
                             [](const PdbFile& f) {
                               std::vector<int> v;
                               for (const PdbAtom& a : f.atoms) v.push_back(a.residue_id);
                               return v;
                             })
      .def_property_readonly("elements",
                             [](const PdbFile& f) {
                               std::vector<std::string> v;
                               for (const PdbAtom& a : f.atoms) v.push_back(a.element);
                               return v;
                             })
      .def_property_readonly("chains",
                             [](const PdbFile& f) {
                               std::vector<std::string> v;
                               for (const PdbAtom& a : f.atoms) v.emplace_back(1, a.chain);
                               return v;
                             })
      .def("system", &PdbFile::system,
           "A System in md units: type = element, element masses, charge 0, names kept, no bonded topology.")
      .def("state", &PdbFile::state, "Positions and box, zero velocities.")
      .def("__repr__", [](const PdbFile& f) {
        return "PdbFile(" + std::to_string(f.atoms.size()) + " atoms, " + box_repr(f.box) + ", " +
               std::to_string(f.bonds.size()) + " CONECT bonds)";
      });
  m.def(
      "read_pdb", [](py::handle path) { return read_pdb(fspath(path)); }, py::arg("path"),
      "Reads a PDB file (ATOM/HETATM, CRYST1, CONECT; angstrom converted to nm).");
  m.def(
      "write_pdb",
      [](py::handle path, const System& system, const State& state, bool conect, const std::string& title) {
        SPIRE_CHECK(int64_t(state.positions.size()) == system.size(), ValueError, "write_pdb: the state has ",
                    state.positions.size(), " positions for a system of ", system.size(), " particles");
        PdbWriteOptions o;
        o.conect = conect;
        o.title = title;
        write_pdb(fspath(path), system, state, o);
      },
      py::arg("path"), py::arg("system"), py::arg("state"), py::arg("conect") = false, py::arg("title") = "",
      "Writes CRYST1 (periodic boxes), ATOM/HETATM records and optionally CONECT; atomically.");
}
}  // namespace

void bind_sponge_builders(py::module_& m) {
  bind_builders(m);
  bind_pdb(m);
}

}  // namespace spire::python::sponge_py
