// PDB files: the record examples of the wwPDB format v3.3 document (ATOM with alternate
// locations, HETATM with an element and charge, CRYST1) parsed field by field; CRYST1 cells
// against the triclinic volume formula and lattice equivalence after reduction; the written
// columns checked against the format's column table; round trips; errors naming the line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <sstream>

#include "engine/core/error.h"
#include "science/sponge/lattice.h"
#include "science/sponge/pdb.h"
#include "science/sponge/water.h"

namespace spire::sponge {
namespace {

PdbFile parse(const std::string& text) {
  std::istringstream in(text);
  return parse_pdb(in, "test.pdb");
}

std::string parse_error(const std::string& text) {
  try {
    parse(text);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "(no ParseError)";
}

// Examples from the format document (ATOM: 1CRN-style lines with alternate locations; HETATM:
// the heme iron; CRYST1: the orthorhombic example cell).
const char* kSpecExample =
    "CRYST1  117.000   15.000   39.000  90.00  90.00  90.00 P 21 21 21    8\n"
    "ATOM     32  N  AARG A  -3      11.281  86.699  94.383  0.50 35.88           N  \n"
    "ATOM     33  N  BARG A  -3      11.296  86.721  94.521  0.50 35.60           N  \n"
    "ATOM     34  CA AARG A  -3      12.353  85.696  94.456  0.50 36.67           C  \n"
    "ATOM     35  CA BARG A  -3      12.333  85.662  94.582  0.50 36.57           C  \n"
    "HETATM 3835 FE   HEM A   1      17.140   3.115  15.066  1.00 14.14          FE3+\n"
    "CONECT   32   34\n"
    "END\n";

TEST(Pdb, SpecExamples) {
  PdbFile pdb = parse(kSpecExample);
  ASSERT_EQ(pdb.atoms.size(), 3u);  // the B locations are left out
  const PdbAtom& n = pdb.atoms[0];
  EXPECT_FALSE(n.hetero);
  EXPECT_EQ(n.serial, 32);
  EXPECT_EQ(n.name, "N");
  EXPECT_EQ(n.alt_loc, 'A');
  EXPECT_EQ(n.residue_name, "ARG");
  EXPECT_EQ(n.chain, 'A');
  EXPECT_EQ(n.residue_id, -3);
  EXPECT_NEAR(n.position.x, 1.1281, 1e-15);
  EXPECT_NEAR(n.position.y, 8.6699, 1e-15);
  EXPECT_NEAR(n.position.z, 9.4383, 1e-15);
  EXPECT_EQ(n.occupancy, 0.5);
  EXPECT_EQ(n.b_factor, 35.88);
  EXPECT_EQ(n.element, "N");
  EXPECT_EQ(pdb.atoms[1].name, "CA");
  EXPECT_EQ(pdb.atoms[1].element, "C");
  const PdbAtom& fe = pdb.atoms[2];
  EXPECT_TRUE(fe.hetero);
  EXPECT_EQ(fe.serial, 3835);
  EXPECT_EQ(fe.name, "FE");
  EXPECT_EQ(fe.residue_name, "HEM");
  EXPECT_EQ(fe.element, "Fe");
  EXPECT_EQ(fe.formal_charge, 3);
  EXPECT_EQ(pdb.bonds, (std::vector<std::pair<int, int>>{{0, 1}}));
  ASSERT_TRUE(pdb.box.periodic());
  EXPECT_TRUE(pdb.box.orthorhombic());
  EXPECT_NEAR(pdb.box.a().x, 11.7, 1e-14);
  EXPECT_NEAR(pdb.box.b().y, 1.5, 1e-15);
  EXPECT_NEAR(pdb.box.c().z, 3.9, 1e-15);
  System sys = pdb.system();
  EXPECT_EQ(sys.mass[0], 14.00672);
  EXPECT_EQ(sys.mass[2], 55.8452);
  EXPECT_EQ(sys.type_names, (std::vector<std::string>{"N", "C", "Fe"}));
  EXPECT_EQ(sys.residue_id[2], 1);
}

TEST(Pdb, ElementFromNameColumns) {
  // Columns 77-78 blank: " CA " is an alpha carbon, "CA  " calcium (the format's alignment rule).
  PdbFile pdb = parse(
      "ATOM      1  CA  ALA A   1       0.000   0.000   0.000\n"
      "HETATM    2 CA    CA A   2       1.000   0.000   0.000\n"
      "HETATM    3  OW  HOH     3       2.000   0.000   0.000\n"
      "HETATM    4 HW1  HOH     3       3.000   0.000   0.000\n");
  EXPECT_EQ(pdb.atoms[0].element, "C");
  EXPECT_EQ(pdb.atoms[1].element, "Ca");
  EXPECT_EQ(pdb.atoms[2].element, "O");
  EXPECT_EQ(pdb.atoms[3].element, "H");
  EXPECT_EQ(pdb.atoms[0].occupancy, 1.0);  // blank: the default
  EXPECT_FALSE(pdb.box.periodic());
}

// The volume of a cell from its lengths and angles (the standard triclinic formula).
double cell_volume(double a, double b, double c, double al, double be, double ga) {
  auto cs = [](double d) { return std::cos(d * std::numbers::pi / 180); };
  return a * b * c * std::sqrt(1 - cs(al) * cs(al) - cs(be) * cs(be) - cs(ga) * cs(ga) + 2 * cs(al) * cs(be) * cs(ga));
}

TEST(Pdb, TriclinicCells) {
  // A truncated-octahedron-like cell (GROMACS's, angles 70.53 109.47 70.53) and a skew one that
  // needs reducing (gamma 30: b's x part exceeds a/2).
  struct Cell {
    double a, b, c, al, be, ga;
  };
  for (Cell cell : {Cell{5, 5, 5, 70.5288, 109.4712, 70.5288}, Cell{3, 4, 5, 80, 75, 30}, Cell{4, 4, 4, 60, 60, 90}}) {
    Box box = box_from_lengths_angles(cell.a, cell.b, cell.c, cell.al, cell.be, cell.ga);
    EXPECT_NEAR(box.volume(), cell_volume(cell.a, cell.b, cell.c, cell.al, cell.be, cell.ga), 1e-12);
    // The unreduced vectors are integer combinations of the reduced ones: the same lattice.
    double cg = std::cos(cell.ga * std::numbers::pi / 180), cb = std::cos(cell.be * std::numbers::pi / 180),
           ca = std::cos(cell.al * std::numbers::pi / 180), sg = std::sin(cell.ga * std::numbers::pi / 180);
    Vec3 b{cell.b * cg, cell.b * sg, 0};
    Vec3 c{cell.c * cb, cell.c * (ca - cb * cg) / sg, 0};
    c.z = std::sqrt(cell.c * cell.c - c.x * c.x - c.y * c.y);
    for (const Vec3& v : {Vec3{cell.a, 0, 0}, b, c}) {
      Vec3 s = box.to_fractional(v);
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(s[k], std::round(s[k]), 1e-12);
    }
  }
  // OpenMM 8.6's computePeriodicBoxVectors(3, 4, 5, 80, 75, 30 degrees), run side by side:
  Box skew = box_from_lengths_angles(3, 4, 5, 80, 75, 30);
  const Vec3 openmm[3] = {{3, 0, 0}, {0.46410161513775483, 1.9999999999999998, 0},
                          {1.2940952255126037, -0.5049569037508298, 4.803158968081304}};
  EXPECT_LT(norm(skew.a() - openmm[0]), 1e-14);
  EXPECT_LT(norm(skew.b() - openmm[1]), 1e-14);
  EXPECT_LT(norm(skew.c() - openmm[2]), 1e-14);
  // Without reduction the lengths and angles come back.
  Box box = box_from_lengths_angles(2, 3, 4, 80, 85, 75);
  auto [len, ang] = lengths_angles(box);
  EXPECT_NEAR(len.x, 2, 1e-14);
  EXPECT_NEAR(len.y, 3, 1e-14);
  EXPECT_NEAR(len.z, 4, 1e-14);
  EXPECT_NEAR(ang.x, 80, 1e-12);
  EXPECT_NEAR(ang.y, 85, 1e-12);
  EXPECT_NEAR(ang.z, 75, 1e-12);
  EXPECT_THROW(box_from_lengths_angles(1, 1, 1, 10, 10, 100), ValueError);
}

TEST(Pdb, WrittenColumns) {
  WaterBoxOptions opt;
  opt.molecules = 8;
  WaterBox w = water_box(WaterModel::spce(), opt);
  std::ostringstream out;
  PdbWriteOptions options;
  options.conect = true;
  options.title = "eight waters";
  write_pdb(out, w.system, w.state, options);
  std::istringstream lines(out.str());
  std::string title, cryst, atom, h1;
  std::getline(lines, title);
  std::getline(lines, cryst);
  std::getline(lines, atom);
  std::getline(lines, h1);
  EXPECT_EQ(title, "TITLE     eight waters");
  // CRYST1: a in 7-15 (9.3), alpha in 34-40 (7.2), space group in 56-66, z in 67-70.
  EXPECT_EQ(cryst.substr(0, 6), "CRYST1");
  EXPECT_NEAR(std::stod(cryst.substr(6, 9)), w.state.box.a().x * 10, 5e-4);
  EXPECT_EQ(cryst.substr(33, 7), "  90.00");
  EXPECT_EQ(cryst.substr(55, 11), "P 1        ");
  EXPECT_EQ(cryst.substr(66, 4), "   1");
  ASSERT_EQ(atom.size(), 80u);
  EXPECT_EQ(atom.substr(0, 6), "HETATM");
  EXPECT_EQ(atom.substr(6, 5), "    1");
  EXPECT_EQ(atom.substr(12, 4), " OW ");
  EXPECT_EQ(atom.substr(17, 3), "HOH");
  EXPECT_EQ(atom.substr(22, 4), "   1");
  EXPECT_NEAR(std::stod(atom.substr(30, 8)), w.state.positions[0].x * 10, 5e-4);
  EXPECT_NEAR(std::stod(atom.substr(46, 8)), w.state.positions[0].z * 10, 5e-4);
  EXPECT_EQ(atom.substr(76, 2), " O");
  EXPECT_EQ(h1.substr(12, 4), " HW1");
  EXPECT_EQ(h1.substr(76, 2), " H");
  EXPECT_NE(out.str().find("CONECT    1    2    3\n"), std::string::npos);
  EXPECT_EQ(out.str().substr(out.str().size() - 4), "END\n");
}

TEST(Pdb, RoundTripThroughAFile) {
  WaterBoxOptions opt;
  opt.molecules = 27;
  WaterBox w = water_box(WaterModel::tip3p(), opt);
  w.state.box = box_from_lengths_angles(2.5, 2.6, 2.7, 80, 95, 100);
  std::string path = testing::TempDir() + "/sponge_roundtrip.pdb";
  PdbWriteOptions options;
  options.conect = true;
  write_pdb(path, w.system, w.state, options);
  PdbFile pdb = read_pdb(path);
  std::remove(path.c_str());
  ASSERT_EQ(pdb.atoms.size(), size_t(w.system.size()));
  for (size_t i = 0; i < pdb.atoms.size(); ++i) {
    EXPECT_NEAR(norm(pdb.atoms[i].position - w.state.positions[i]), 0, 1e-4);  // 0.0005 A per coordinate
    EXPECT_EQ(pdb.atoms[i].name, w.system.atom_name[i]);
    EXPECT_EQ(pdb.atoms[i].residue_id, w.system.residue_id[i]);
  }
  for (const Vec3& v : {pdb.box.a() - w.state.box.a(), pdb.box.b() - w.state.box.b(), pdb.box.c() - w.state.box.c()})
    EXPECT_LT(norm(v), 1e-4);
  EXPECT_EQ(pdb.bonds.size(), 2 * 27u);
  System sys = pdb.system();
  EXPECT_NEAR(sys.mass[0], WaterModel::tip3p().mass_o, 1e-12);  // OpenMM's oxygen, as tip3p.xml
  EXPECT_NEAR(sys.mass[1], WaterModel::tip3p().mass_h, 1e-12);
}

TEST(Pdb, LatticeWithoutNames) {
  State s = create_lattice(Lattice::with_constant(LatticeType::sc, 0.34), 2, 1, 1);
  System sys = identical_particles(2, 39.948, "Ar", Units::md());
  std::ostringstream out;
  write_pdb(out, sys, s);
  PdbFile pdb = parse(out.str());
  EXPECT_EQ(pdb.atoms[1].name, "Ar");
  EXPECT_EQ(pdb.atoms[1].element, "Ar");
  EXPECT_EQ(pdb.atoms[1].residue_name, "UNK");
  EXPECT_EQ(pdb.atoms[1].residue_id, 2);
  EXPECT_NEAR(pdb.atoms[1].position.x, 0.34, 1e-12);
  // A box-less state writes no CRYST1.
  s.box = Box::none();
  std::ostringstream none;
  write_pdb(none, sys, s);
  EXPECT_EQ(none.str().find("CRYST1"), std::string::npos);
  s.positions[0].x = 1e3;  // 10000 A: past the columns
  EXPECT_THROW(write_pdb(none, sys, s), ValueError);
}

TEST(Pdb, FirstModelAndTheNonCrystalUnitCell) {
  PdbFile pdb = parse(
      "CRYST1    1.000    1.000    1.000  90.00  90.00  90.00 P 1           1\n"
      "MODEL        1\n"
      "ATOM      1  C   UNK     1       0.000   0.000   0.000\n"
      "ENDMDL\n"
      "MODEL        2\n"
      "ATOM      1  C   UNK     1       9.000   0.000   0.000\n"
      "ENDMDL\n");
  EXPECT_EQ(pdb.atoms.size(), 1u);
  EXPECT_FALSE(pdb.box.periodic());
}

TEST(Pdb, ErrorsNameTheLine) {
  std::string m = parse_error(
      "REMARK hello\n"
      "ATOM      1  C   UNK     1       0.000   0.0x0   0.000\n");
  EXPECT_NE(m.find("test.pdb:2:"), std::string::npos) << m;
  EXPECT_NE(m.find("y (columns 39-46)"), std::string::npos) << m;
  m = parse_error("HETATM    1  C   UNK     1       0.000   0.000\n");
  EXPECT_NE(m.find("test.pdb:1: HETATM record is 46 characters long"), std::string::npos) << m;
  m = parse_error(
      "ATOM      1  C   UNK     1       0.000   0.000   0.000\n"
      "CONECT    1    7\n");
  EXPECT_NE(m.find("test.pdb:2: CONECT names atom serial 7, which no atom has"), std::string::npos) << m;
  m = parse_error("CRYST1   10.000   10.000   10.000  10.00  10.00 100.00 P 1           1\n");
  EXPECT_NE(m.find("test.pdb:1: CRYST1:"), std::string::npos) << m;
  EXPECT_THROW(read_pdb("/nonexistent/file.pdb"), IOError);
  PdbFile unknown = parse("HETATM    1 XX    XX     1       0.000   0.000   0.000                      XX\n");
  EXPECT_THROW(unknown.system(), ValueError);
}

}  // namespace
}  // namespace spire::sponge
