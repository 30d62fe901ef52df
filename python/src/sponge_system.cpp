// spire._C._sponge, the System: particles with masses, charges and types as NumPy arrays, and the
// topology as lists of tuples (bonds, angles, torsions, impropers, 1-4 pairs, constraints, rigid
// waters, exclusions), read and assigned whole or added one entry at a time.
#include <cstring>
#include <optional>
#include <sstream>

#include "sponge_common.h"
#include "engine/core/error.h"

namespace spire::python::sponge_py {
namespace {

// ---- topology rows: tuples in Python, structs in C++ ----

// One entry of a topology list: a sequence of len(spec) items, 'i' an index, 'd' a number.
struct Row {
  std::vector<int> i;
  std::vector<double> d;
};

Row parse_row(py::handle item, const char* spec, const std::string& who, size_t k, const char* layout) {
  const size_t n = std::strlen(spec);
  auto bad = [&]() {
    return spire::ValueError(detail::cat(who, ": entry ", k, " is ", std::string(py::repr(item)), "; expected ",
                                         layout));
  };
  if (!py::isinstance<py::sequence>(item) || py::isinstance<py::str>(item)) throw bad();
  py::sequence s = py::reinterpret_borrow<py::sequence>(item);
  if (s.size() != n) throw bad();
  Row r;
  try {
    for (size_t c = 0; c < n; ++c) {
      py::object v = s[c];
      if (spec[c] == 'i') {
        SPIRE_CHECK(py::isinstance<py::int_>(v) || py::hasattr(v, "__index__"), ValueError, who, ": entry ", k,
                    " has ", std::string(py::repr(v)), " where ", layout, " wants an integer index");
        r.i.push_back(py::cast<int>(py::module_::import("operator").attr("index")(v)));
      } else {
        r.d.push_back(py::cast<double>(v));
      }
    }
  } catch (const py::cast_error&) {
    throw bad();
  } catch (const py::error_already_set&) {
    throw bad();
  }
  return r;
}

template <class T, class Make>
std::vector<T> parse_rows(py::handle rows, const char* spec, const std::string& who, const char* layout, Make make) {
  std::vector<T> out;
  SPIRE_CHECK(py::isinstance<py::iterable>(rows) && !py::isinstance<py::str>(rows), ValueError, who,
              ": expected a list of ", layout, ", got ", type_name(rows));
  size_t k = 0;
  for (py::handle item : rows) out.push_back(make(parse_row(item, spec, who, k++, layout)));
  return out;
}

template <class T, class Tuple>
py::list rows_list(const std::vector<T>& rows, Tuple tuple) {
  py::list out;
  for (const T& r : rows) out.append(tuple(r));
  return out;
}

// The per-particle name lists of a System: appended to when they are in use (or from the first
// particle on when given), so they stay either empty or one per particle.
void add_name(std::vector<std::string>& names, int64_t before, const std::optional<std::string>& name,
              const std::string& fallback, const char* what) {
  if (names.size() == size_t(before) && (before > 0 || name)) {
    names.push_back(name ? *name : fallback);
    return;
  }
  SPIRE_CHECK(!name, ValueError, "System.add_particle: a ", what, " for particle ", before,
              " but none for the particles before it; give one for every particle or for none");
}

py::tuple bond_tuple(const Bond& b) { return py::make_tuple(b.i, b.j, b.length, b.k); }
py::tuple angle_tuple(const Angle& a) { return py::make_tuple(a.i, a.j, a.k, a.theta0, a.k_theta); }
py::tuple torsion_tuple(const Torsion& t) { return py::make_tuple(t.i, t.j, t.k, t.l, t.n, t.phase, t.k_phi); }
py::tuple improper_tuple(const Improper& t) { return py::make_tuple(t.i, t.j, t.k, t.l, t.xi0, t.k_xi); }
py::tuple pair14_tuple(const Pair14& p) { return py::make_tuple(p.i, p.j, p.coulomb_scale, p.lj_scale); }
py::tuple constraint_tuple(const Constraint& c) { return py::make_tuple(c.i, c.j, c.length); }
py::tuple water_tuple(const RigidWater& w) { return py::make_tuple(w.o, w.h1, w.h2, w.d_oh, w.d_hh); }

constexpr const char* kBondLayout = "(i, j, length, k)";
constexpr const char* kAngleLayout = "(i, j, k, theta0, k_theta) with j the vertex, theta0 in radians";
constexpr const char* kTorsionLayout = "(i, j, k, l, periodicity, phase, k_phi)";
constexpr const char* kImproperLayout = "(i, j, k, l, xi0, k_xi)";
constexpr const char* kPair14Layout = "(i, j, coulomb_scale, lj_scale)";
constexpr const char* kConstraintLayout = "(i, j, length)";
constexpr const char* kWaterLayout = "(o, h1, h2, d_oh, d_hh)";
constexpr const char* kExclusionLayout = "(i, j)";

std::vector<Bond> bonds_of(py::handle h) {
  return parse_rows<Bond>(h, "iidd", "System.bonds", kBondLayout,
                          [](const Row& r) { return Bond{r.i[0], r.i[1], r.d[0], r.d[1]}; });
}
std::vector<Angle> angles_of(py::handle h) {
  return parse_rows<Angle>(h, "iiidd", "System.angles", kAngleLayout,
                           [](const Row& r) { return Angle{r.i[0], r.i[1], r.i[2], r.d[0], r.d[1]}; });
}
std::vector<Torsion> torsions_of(py::handle h) {
  return parse_rows<Torsion>(h, "iiiiidd", "System.torsions", kTorsionLayout, [](const Row& r) {
    return Torsion{r.i[0], r.i[1], r.i[2], r.i[3], r.i[4], r.d[0], r.d[1]};
  });
}
std::vector<Improper> impropers_of(py::handle h) {
  return parse_rows<Improper>(h, "iiiidd", "System.impropers", kImproperLayout, [](const Row& r) {
    return Improper{r.i[0], r.i[1], r.i[2], r.i[3], r.d[0], r.d[1]};
  });
}
std::vector<Pair14> pairs14_of(py::handle h) {
  return parse_rows<Pair14>(h, "iidd", "System.pairs14", kPair14Layout,
                            [](const Row& r) { return Pair14{r.i[0], r.i[1], r.d[0], r.d[1]}; });
}
std::vector<Constraint> constraints_of(py::handle h) {
  return parse_rows<Constraint>(h, "iid", "System.constraints", kConstraintLayout,
                                [](const Row& r) { return Constraint{r.i[0], r.i[1], r.d[0]}; });
}
std::vector<RigidWater> waters_of(py::handle h) {
  return parse_rows<RigidWater>(h, "iiidd", "System.waters", kWaterLayout,
                                [](const Row& r) { return RigidWater{r.i[0], r.i[1], r.i[2], r.d[0], r.d[1]}; });
}
std::vector<std::pair<int, int>> exclusions_of(py::handle h) {
  return parse_rows<std::pair<int, int>>(h, "ii", "System.exclusions", kExclusionLayout, [](const Row& r) {
    return std::pair<int, int>{std::min(r.i[0], r.i[1]), std::max(r.i[0], r.i[1])};
  });
}

// A per-particle array assigned as a whole: one value per particle.
std::vector<double> per_particle(py::handle h, const System& s, const char* who) {
  std::vector<double> v = to_doubles(h, who);
  SPIRE_CHECK(int64_t(v.size()) == s.size(), ValueError, who, ": ", v.size(), " values for ", s.size(),
              " particles (one per particle; add particles with add_particle)");
  return v;
}

// Names lists: empty, or one per particle.
std::vector<std::string> names_of(py::handle h, const System& s, const char* who) {
  auto v = h.cast<std::vector<std::string>>();
  SPIRE_CHECK(v.empty() || int64_t(v.size()) == s.size(), ValueError, who, ": ", v.size(), " names for ", s.size(),
              " particles (either none or one per particle)");
  return v;
}

std::string system_repr(const System& s) {
  const Topology& t = s.topology;
  std::ostringstream o;
  o << "System(" << s.size() << " particles, " << s.type_names.size() << " types, units " << s.units.name;
  auto part = [&](size_t n, const char* what) {
    if (n) o << ", " << n << " " << what;
  };
  part(t.bonds.size(), "bonds");
  part(t.angles.size(), "angles");
  part(t.torsions.size(), "torsions");
  part(t.impropers.size(), "impropers");
  part(t.pairs14.size(), "1-4 pairs");
  part(t.constraints.size(), "constraints");
  part(t.waters.size(), "rigid waters");
  part(t.exclusions.size(), "exclusions");
  o << ")";
  return o.str();
}

}  // namespace

void bind_sponge_system(py::module_& m) {
  py::class_<System> cls(m, "System",
                         "What is simulated: particles (mass, charge, type), the bonded topology and the unit "
                         "system. Conventions are OpenMM's and GROMACS's: bond k/2 (r - length)^2, angle k/2 "
                         "(theta - theta0)^2, torsion k (1 + cos(n phi - phase)), improper k/2 (xi - xi0)^2.");
  cls.def(py::init([](py::handle units) {
            System s;
            s.units = to_units(units);
            return s;
          }),
          py::arg("units") = "md", "An empty system in \"md\" or \"lj\" units.")
      .def(
          "add_particle",
          [](System& s, double mass, double charge, const std::string& type, std::optional<std::string> name,
             std::optional<std::string> residue, std::optional<int> residue_id) {
            SPIRE_CHECK(std::isfinite(mass) && mass >= 0, ValueError, "System.add_particle: mass ", mass,
                        "; masses must be finite and >= 0 (0 holds the particle fixed)");
            SPIRE_CHECK(std::isfinite(charge), ValueError, "System.add_particle: charge ", charge, " is not finite");
            SPIRE_CHECK(!type.empty(), ValueError, "System.add_particle: the type name is empty");
            const int64_t before = s.size();
            add_name(s.atom_name, before, name, type, "name");
            add_name(s.residue_name, before, residue, "UNK", "residue name");
            if (s.residue_id.size() == size_t(before) && (before > 0 || residue_id))
              s.residue_id.push_back(residue_id ? *residue_id : int(before) + 1);
            else
              SPIRE_CHECK(!residue_id, ValueError, "System.add_particle: a residue id for particle ", before,
                          " but none for the particles before it; give one for every particle or for none");
            return s.add_particle(mass, charge, type);
          },
          py::arg("mass"), py::arg("charge") = 0.0, py::arg("type") = "X", py::kw_only(), py::arg("name") = py::none(),
          py::arg("residue") = py::none(), py::arg("residue_id") = py::none(),
          "Appends a particle and returns its index. The type is added to type_names when new. name, residue and "
          "residue_id (for PDB and H5MD files) are given for every particle or for none.")
      .def("__len__", &System::size)
      .def_property_readonly("size", &System::size)
      .def_property(
          "units", [](const System& s) { return s.units; }, [](System& s, py::handle u) { s.units = to_units(u); })
      .def_property(
          "masses", [](const System& s) { return doubles_array(s.mass); },
          [](System& s, py::handle h) { s.mass = per_particle(h, s, "System.masses"); },
          "Per-particle masses, float64 array (a copy; assign a whole array to change them). 0 holds a particle "
          "fixed.")
      .def_property(
          "charges", [](const System& s) { return doubles_array(s.charge); },
          [](System& s, py::handle h) { s.charge = per_particle(h, s, "System.charges"); },
          "Per-particle charges, float64 array (a copy; assign a whole array to change them).")
      .def_property(
          "types",
          [](const System& s) {
            py::array_t<int64_t> a(py::ssize_t(s.type.size()));
            for (size_t i = 0; i < s.type.size(); ++i) a.mutable_at(py::ssize_t(i)) = s.type[i];
            return a;
          },
          [](System& s, py::handle h) {
            auto a = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(h);
            SPIRE_CHECK(a && a.ndim() == 1 && int64_t(a.shape(0)) == s.size(), ValueError,
                        "System.types: expected one integer type index per particle (", s.size(), ")");
            for (int64_t i = 0; i < s.size(); ++i) {
              const int64_t t = a.at(i);
              SPIRE_CHECK(t >= 0 && size_t(t) < s.type_names.size(), ValueError, "System.types: particle ", i,
                          " has type ", t, " outside [0, ", s.type_names.size(), ") (the type_names)");
              s.type[size_t(i)] = int(t);
            }
          },
          "Per-particle type indices into type_names, int64 array (a copy).")
      .def_readwrite("type_names", &System::type_names)
      .def_property(
          "atom_names", [](const System& s) { return s.atom_name; },
          [](System& s, py::handle h) { s.atom_name = names_of(h, s, "System.atom_names"); })
      .def_property(
          "residue_names", [](const System& s) { return s.residue_name; },
          [](System& s, py::handle h) { s.residue_name = names_of(h, s, "System.residue_names"); })
      .def_property(
          "residue_ids", [](const System& s) { return s.residue_id; },
          [](System& s, std::vector<int> v) {
            SPIRE_CHECK(v.empty() || int64_t(v.size()) == s.size(), ValueError, "System.residue_ids: ", v.size(),
                        " ids for ", s.size(), " particles (either none or one per particle)");
            s.residue_id = std::move(v);
          });

  // Topology lists: lists of tuples, read and assigned whole, and add_* for one entry.
  cls.def_property(
         "bonds", [](const System& s) { return rows_list(s.topology.bonds, bond_tuple); },
         [](System& s, py::handle h) { s.topology.bonds = bonds_of(h); }, "Harmonic bonds: [(i, j, length, k)].")
      .def_property(
          "angles", [](const System& s) { return rows_list(s.topology.angles, angle_tuple); },
          [](System& s, py::handle h) { s.topology.angles = angles_of(h); },
          "Harmonic angles: [(i, j, k, theta0, k_theta)], j the vertex, radians.")
      .def_property(
          "torsions", [](const System& s) { return rows_list(s.topology.torsions, torsion_tuple); },
          [](System& s, py::handle h) { s.topology.torsions = torsions_of(h); },
          "Periodic torsions: [(i, j, k, l, periodicity, phase, k_phi)].")
      .def_property(
          "impropers", [](const System& s) { return rows_list(s.topology.impropers, improper_tuple); },
          [](System& s, py::handle h) { s.topology.impropers = impropers_of(h); },
          "Harmonic impropers: [(i, j, k, l, xi0, k_xi)].")
      .def_property(
          "pairs14", [](const System& s) { return rows_list(s.topology.pairs14, pair14_tuple); },
          [](System& s, py::handle h) { s.topology.pairs14 = pairs14_of(h); },
          "1-4 pairs: [(i, j, coulomb_scale, lj_scale)]; each must also be excluded.")
      .def_property(
          "constraints", [](const System& s) { return rows_list(s.topology.constraints, constraint_tuple); },
          [](System& s, py::handle h) { s.topology.constraints = constraints_of(h); },
          "Distance constraints (SHAKE/RATTLE): [(i, j, length)].")
      .def_property(
          "waters", [](const System& s) { return rows_list(s.topology.waters, water_tuple); },
          [](System& s, py::handle h) { s.topology.waters = waters_of(h); },
          "Rigid waters (SETTLE): [(o, h1, h2, d_oh, d_hh)].")
      .def_property(
          "exclusions",
          [](const System& s) {
            py::list out;
            for (auto [i, j] : s.topology.exclusions) out.append(py::make_tuple(i, j));
            return out;
          },
          [](System& s, py::handle h) {
            s.topology.exclusions = exclusions_of(h);
            s.topology.normalize_exclusions();
          },
          "Pairs (i < j) left out of every nonbonded force: [(i, j)], kept sorted and unique.")
      .def(
          "add_bond",
          [](System& s, int i, int j, double length, double k) {
            s.topology.bonds.push_back({i, j, length, k});
            return s.topology.bonds.size() - 1;
          },
          py::arg("i"), py::arg("j"), py::arg("length"), py::arg("k"), "E = k/2 (r - length)^2; returns its index.")
      .def(
          "add_angle",
          [](System& s, int i, int j, int k, double theta0, double k_theta) {
            s.topology.angles.push_back({i, j, k, theta0, k_theta});
            return s.topology.angles.size() - 1;
          },
          py::arg("i"), py::arg("j"), py::arg("k"), py::arg("theta0"), py::arg("k_theta"),
          "E = k_theta/2 (theta - theta0)^2, j the vertex, radians; returns its index.")
      .def(
          "add_torsion",
          [](System& s, int i, int j, int k, int l, int periodicity, double phase, double k_phi) {
            s.topology.torsions.push_back({i, j, k, l, periodicity, phase, k_phi});
            return s.topology.torsions.size() - 1;
          },
          py::arg("i"), py::arg("j"), py::arg("k"), py::arg("l"), py::arg("periodicity"), py::arg("phase"),
          py::arg("k_phi"), "E = k_phi (1 + cos(n phi - phase)), phi the IUPAC dihedral; returns its index.")
      .def(
          "add_improper",
          [](System& s, int i, int j, int k, int l, double xi0, double k_xi) {
            s.topology.impropers.push_back({i, j, k, l, xi0, k_xi});
            return s.topology.impropers.size() - 1;
          },
          py::arg("i"), py::arg("j"), py::arg("k"), py::arg("l"), py::arg("xi0"), py::arg("k_xi"),
          "E = k_xi/2 (xi - xi0)^2; returns its index.")
      .def(
          "add_pair14",
          [](System& s, int i, int j, double coulomb_scale, double lj_scale) {
            s.topology.pairs14.push_back({i, j, coulomb_scale, lj_scale});
            return s.topology.pairs14.size() - 1;
          },
          py::arg("i"), py::arg("j"), py::arg("coulomb_scale"), py::arg("lj_scale"),
          "A 1-4 pair added back with scaled Coulomb and Lennard-Jones (exclude it too); returns its index.")
      .def(
          "add_constraint",
          [](System& s, int i, int j, double length) {
            s.topology.constraints.push_back({i, j, length});
            return s.topology.constraints.size() - 1;
          },
          py::arg("i"), py::arg("j"), py::arg("length"), "A fixed distance (SHAKE/RATTLE); returns its index.")
      .def(
          "add_water",
          [](System& s, int o, int h1, int h2, double d_oh, double d_hh) {
            s.topology.waters.push_back({o, h1, h2, d_oh, d_hh});
            return s.topology.waters.size() - 1;
          },
          py::arg("o"), py::arg("h1"), py::arg("h2"), py::arg("d_oh"), py::arg("d_hh"),
          "A rigid three-site water (SETTLE) over existing particles; returns its index.")
      .def(
          "add_exclusion",
          [](System& s, int i, int j) {
            SPIRE_CHECK(i != j, ValueError, "System.add_exclusion: particle ", i, " with itself");
            s.topology.exclusions.emplace_back(std::min(i, j), std::max(i, j));
            s.topology.normalize_exclusions();
          },
          py::arg("i"), py::arg("j"), "Leaves the pair out of every nonbonded force.")
      .def(
          "exclude_bonded",
          [](System& s, double coulomb14, double lj14) { s.topology.exclude_bonded(coulomb14, lj14); },
          py::arg("coulomb14"), py::arg("lj14"),
          "GROMACS's nrexcl = 3 with gen-pairs: 1-2, 1-3 and 1-4 pairs of the bond graph (bonds, constraints, "
          "rigid waters) excluded, and the 1-4 pairs added to pairs14 with these scales (AMBER: 1/1.2 and 0.5; "
          "OPLS: 0.5 and 0.5).")
      .def("is_excluded", [](const System& s, int i, int j) { return s.topology.excluded(i, j); }, py::arg("i"),
           py::arg("j"))
      .def("degrees_of_freedom", &System::degrees_of_freedom, py::arg("remove_com_motion") = true,
           "3N minus constraints (3 per rigid water) minus 3 when the centre of mass is held still.")
      .def("check", &System::check, "Raises ValueError naming the first inconsistency, if any.")
      .def("copy", [](const System& s) { return s; })
      .def("__copy__", [](const System& s) { return s; })
      .def("__deepcopy__", [](const System& s, py::handle) { return s; }, py::arg("memo"))
      .def("__repr__", &system_repr);
}

}  // namespace spire::python::sponge_py
