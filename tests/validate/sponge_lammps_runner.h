// Running LAMMPS (Debian's lmp) beside Spire in the validation programs, and reading the thermo
// tables of its log. Header-only: each validation program is built from its one source.
#pragma once
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace spire::sponge::validate {

// The LAMMPS binary: $SPIRE_LMP, or lmp on the PATH.
inline std::string lmp() {
  const char* v = std::getenv("SPIRE_LMP");
  return v && *v ? v : "lmp";
}

// Runs lmp on the input file `in` (a path in `dir`, which it runs in, so stray files such as
// log.cite stay there) on one thread, its log to `log` and nothing to the screen. False when lmp
// failed.
inline bool run_lmp(const std::string& dir, const std::string& in, const std::string& log) {
  const std::string cmd =
      "cd " + dir + " && OMP_NUM_THREADS=1 " + lmp() + " -in " + in + " -log " + log + " -screen none > /dev/null";
  return std::system(cmd.c_str()) == 0;
}

// One thermo table of a log (one per `run`): the header's column names as LAMMPS prints them
// (Step, Temp, E_pair, PotEng, Press, ...) and the rows that follow it.
struct ThermoTable {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;

  // The value of column `name` in row `row`; std::out_of_range when there is no such column.
  double at(size_t row, const std::string& name) const {
    for (size_t c = 0; c < columns.size(); ++c)
      if (columns[c] == name) return rows.at(row).at(c);
    throw std::out_of_range("LAMMPS thermo has no column " + name);
  }
};

// The thermo tables of a LAMMPS log, in order. A table starts at a header line whose first word is
// Step and ends at "Loop time"; lines in between that are not a full row of numbers (warnings) are
// skipped.
inline std::vector<ThermoTable> read_thermo_log(const std::string& path) {
  std::vector<ThermoTable> tables;
  std::ifstream file(path);
  bool in_table = false;
  for (std::string line; std::getline(file, line);) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.empty()) continue;
    if (w[0] == "Step") {
      tables.push_back({w, {}});
      in_table = true;
      continue;
    }
    if (w[0] == "Loop") in_table = false;
    if (!in_table || w.size() != tables.back().columns.size()) continue;
    std::vector<double> row;
    for (const std::string& x : w) {
      char* end = nullptr;
      const double v = std::strtod(x.c_str(), &end);
      if (end == x.c_str() || *end) break;
      row.push_back(v);
    }
    if (row.size() == w.size()) tables.back().rows.push_back(std::move(row));
  }
  return tables;
}

}  // namespace spire::sponge::validate
