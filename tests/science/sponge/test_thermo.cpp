// The thermo log: columns and values against energies computed by hand from the positions, fixed
// widths, LAMMPS's per-particle normalisation in lj units, the CSV's full precision and its resume.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"
#include "science/sponge/thermo.h"
#include "tests/common/temp_dir.h"
#include "tests/science/sponge/support_io_doubles.h"

namespace spire::sponge {
namespace {

using testing::quiet;
using fixtures::read_all;
using testing::NoisyVerlet;
using testing::Toy;
using testing::toy;

std::vector<std::string> split_ws(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// sum k/2 (|r_ij| - r0)^2 written out with the coordinates (no minimum image needed: the toy's
// particles are close together).
double spring_energy(const State& st, const std::vector<testing::Spring>& springs) {
  double e = 0;
  for (const auto& s : springs) {
    const double dx = st.positions[s.i].x - st.positions[s.j].x, dy = st.positions[s.i].y - st.positions[s.j].y,
                 dz = st.positions[s.i].z - st.positions[s.j].z;
    const double r = std::sqrt(dx * dx + dy * dy + dz * dz);
    e += s.k / 2 * (r - s.r0) * (r - s.r0);
  }
  return e;
}

double kinetic_by_hand(const System& s, const State& st) {
  double k = 0;
  for (size_t i = 0; i < st.velocities.size(); ++i)
    k += 0.5 * s.mass[i] *
         (st.velocities[i].x * st.velocities[i].x + st.velocities[i].y * st.velocities[i].y +
          st.velocities[i].z * st.velocities[i].z);
  return k;
}

TEST(SpongeThermo, ColumnsAndValuesAgainstEnergiesByHand) {
  Toy t = toy(Units::md());
  ForceField ff = t.forces();
  const ForceResult& r = ff.compute(t.system, t.state);
  const Observables o = compute_observables(t.system, t.state, r, true);
  std::ostringstream out;
  ThermoLog log(&out);
  log.write(t.system, t.state, r, o);
  State later = t.state;
  later.step = 1234567;
  log.write(t.system, later, r, o);

  const std::vector<std::string> lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 3u);  // the header once
  EXPECT_EQ(split_ws(lines[0]), (std::vector<std::string>{"Step", "Temp", "E_pair", "E_mol", "TotEng", "Press",
                                                          "Volume", "E_bonds", "E_springs"}));
  EXPECT_EQ(lines[0].size(), lines[1].size());
  EXPECT_EQ(lines[1].size(), lines[2].size());
  const std::vector<std::string> v = split_ws(lines[1]);
  ASSERT_EQ(v.size(), 9u);
  EXPECT_EQ(v[0], "0");
  EXPECT_EQ(split_ws(lines[2])[0], "1234567");
  const double e_mol = spring_energy(t.state, t.bonds), e_pair = spring_energy(t.state, t.springs);
  const double kinetic = kinetic_by_hand(t.system, t.state);
  auto near8 = [](const std::string& text, double expected) {  // printed with 8 significant digits
    EXPECT_NEAR(std::stod(text), expected, 5e-8 * std::abs(expected)) << text << " vs " << expected;
  };
  near8(v[1], 2 * kinetic / ((3 * 4 - 3) * (1.380649e-23 * 6.02214076e23 / 1e3)));
  near8(v[2], e_pair);
  near8(v[3], e_mol);
  near8(v[4], kinetic + e_pair + e_mol);
  near8(v[5], o.pressure);
  near8(v[6], 3.0 * 3.2 * 3.4);
  near8(v[7], e_mol);
  near8(v[8], e_pair);
}

TEST(SpongeThermo, EnergiesPerParticleInLjUnitsAsLammps) {
  Toy t = toy(Units::lj(), false);
  ForceField ff = t.forces();
  const ForceResult& r = ff.compute(t.system, t.state);
  const Observables o = compute_observables(t.system, t.state, r, true);
  std::ostringstream out, raw;
  ThermoLog(&out).write(t.system, t.state, r, o);
  ThermoOptions totals;
  totals.normalize = false;
  ThermoLog(&raw, totals).write(t.system, t.state, r, o);
  const std::vector<std::string> lines = lines_of(out.str()), raw_lines = lines_of(raw.str());
  // No box: no Press, no Volume.
  EXPECT_EQ(split_ws(lines[0]),
            (std::vector<std::string>{"Step", "Temp", "E_pair", "E_mol", "TotEng", "E_bonds", "E_springs"}));
  const std::vector<std::string> v = split_ws(lines[1]), w = split_ws(raw_lines[1]);
  EXPECT_NEAR(std::stod(v[1]), 2 * kinetic_by_hand(t.system, t.state) / 9, 1e-7);  // k_B = 1, not normalized
  EXPECT_NEAR(std::stod(v[2]), spring_energy(t.state, t.springs) / 4, 1e-7 * std::abs(std::stod(v[2])));
  EXPECT_NEAR(std::stod(w[2]), spring_energy(t.state, t.springs), 1e-7 * std::abs(std::stod(w[2])));
  EXPECT_EQ(v[1], w[1]);
}

// A scratch directory named after the test.
struct TempDir : fixtures::TempDir {
  TempDir() : fixtures::TempDir("sponge_io_thermo_") {}
};

TEST(SpongeThermo, CsvHoldsFullPrecisionAndResumesAfterTheRestartStep) {
  TempDir dir;
  const std::string csv = dir.file("thermo.csv");
  Toy t = toy();
  ThermoOptions opts;
  opts.csv_path = csv;
  {
    Simulation sim(t.system, t.state, t.forces(), std::make_shared<NoisyVerlet>(0.001, 1.0, 2.5, 3), quiet(3));
    sim.add_reporter(std::make_shared<ThermoLog>(nullptr, opts), 2);
    sim.run(10);
    // Full precision: the last row's TotEng reads back as the very double.
    const std::vector<std::string> rows = lines_of(read_all(csv));
    ASSERT_EQ(rows.size(), 7u);  // header + steps 0, 2, ..., 10
    EXPECT_EQ(rows[0], "Step,Temp,E_pair,E_mol,TotEng,Press,Volume,E_bonds,E_springs");
    std::vector<std::string> f;
    std::stringstream row(rows.back());
    for (std::string x; std::getline(row, x, ',');) f.push_back(x);
    EXPECT_EQ(f[0], "10");
    EXPECT_EQ(std::stod(f[4]), sim.observables().total_energy());
    EXPECT_EQ(std::stod(f[5]), sim.observables().pressure);
  }
  // A run killed after step 10 leaves a cut line; a restart from step 6 keeps rows 0..6.
  { std::ofstream(csv, std::ios::app) << "12,1.5,2."; }
  Simulation again(t.system, t.state, t.forces(), std::make_shared<NoisyVerlet>(0.001, 1.0, 2.5, 3), quiet(3));
  again.modify_state().step = 6;
  again.prepare();
  ThermoLog log(nullptr, opts);
  EXPECT_TRUE(log.resume(again, 6));  // the row of step 6 is kept
  EXPECT_FALSE(ThermoLog(nullptr, opts).resume(again, 5));
  std::vector<std::string> rows = lines_of(read_all(csv));
  ASSERT_EQ(rows.size(), 4u);  // header + 0, 2, 4 (the second resume at 5 dropped 6)
  EXPECT_EQ(rows.back().substr(0, 2), "4,");
  EXPECT_FALSE(std::filesystem::exists(csv + ".tmp"));
}

TEST(SpongeThermo, ResumeRefusesAnotherRunsColumns) {
  TempDir dir;
  const std::string csv = dir.file("other.csv");
  { std::ofstream(csv) << "Step,Temp,E_pair\n0,1,2\n"; }
  Toy t = toy();
  Simulation sim(t.system, t.state, t.forces(), std::make_shared<NoisyVerlet>(0.001, 1.0, 2.5, 3), quiet(3));
  sim.prepare();
  ThermoOptions opts;
  opts.csv_path = csv;
  ThermoLog log(nullptr, opts);
  try {
    log.resume(sim, 0);
    FAIL();
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be appended to"), std::string::npos) << e.what();
  }
}

TEST(SpongeThermo, MolecularTermsAreTheBondedOnes) {
  for (const char* n : {"bonds", "angles", "torsions", "impropers", "dihedrals", "bond"})
    EXPECT_TRUE(is_molecular_term(n)) << n;
  for (const char* n : {"lj", "coulomb", "pme", "ewald", "restraints", "external_field", "bonds14"})
    EXPECT_FALSE(is_molecular_term(n)) << n;
}

}  // namespace
}  // namespace spire::sponge
