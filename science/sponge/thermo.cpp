// The thermodynamic log (thermo.h).
#include "science/sponge/thermo.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <sstream>

#include "engine/core/error.h"
#include "engine/data/atomic_file.h"

namespace spire::sponge {
namespace {

constexpr int kStepWidth = 10;
constexpr int kValueWidth = 16;  // "%.8g" takes at most 15 characters ("-6.7733681e-100")

std::string csv_line(const std::vector<std::string>& fields) {
  std::string s;
  for (size_t i = 0; i < fields.size(); ++i) s += (i ? "," : "") + fields[i];
  return s;
}

bool normalized(const ThermoOptions& o, const System& s) { return o.normalize.value_or(s.units.name == "lj"); }

}  // namespace

bool is_molecular_term(const std::string& name) {
  static const char* names[] = {"bond",      "bonds",     "angle",    "angles",       "torsion", "torsions",
                                "dihedral",  "dihedrals", "improper", "impropers",    "urey_bradley",
                                "cmap"};
  return std::any_of(std::begin(names), std::end(names), [&](const char* n) { return name == n; });
}

ThermoLog::ThermoLog(std::ostream* out, ThermoOptions options) : out_(out), options_(std::move(options)) {}

ThermoLog::~ThermoLog() = default;

void ThermoLog::set_columns(const System& system, const State& state, const ForceResult& forces,
                            const Observables& obs) {
  if (!columns_.empty()) return;
  columns_ = {"Step", "Temp", "E_pair", "E_mol", "TotEng"};
  conserved_ = std::isfinite(obs.conserved_energy);
  if (conserved_) columns_.push_back("Econserve");
  if (state.box.periodic()) columns_.insert(columns_.end(), {"Press", "Volume"});
  if (options_.per_term)
    for (const auto& [term, e] : forces.energies) {
      terms_.push_back(term);
      columns_.push_back("E_" + term);
    }
  widths_.clear();
  for (size_t c = 0; c < columns_.size(); ++c)
    widths_.push_back(std::max<int>(c == 0 ? kStepWidth : kValueWidth, int(columns_[c].size()) + 1));
}

void ThermoLog::open_csv(bool append) {
  csv_.open(options_.csv_path, append ? std::ios::app : std::ios::trunc);
  SPIRE_CHECK(csv_.good(), IOError, "thermo: cannot open ", options_.csv_path, " for writing");
}

bool ThermoLog::resume(const Simulation& sim, int64_t step) {
  set_columns(sim.system(), sim.state(), sim.forces(), sim.observables());
  if (options_.csv_path.empty()) return false;
  const std::string& path = options_.csv_path;
  if (csv_.is_open()) csv_.close();
  std::ifstream in(path);
  if (!in) {  // nothing written before: start a new file
    open_csv(false);
    return false;
  }
  std::string header;
  std::getline(in, header);
  SPIRE_CHECK(header == csv_line(columns_), IOError, "thermo: ", path, " has the columns '", header,
              "' but this run writes '", csv_line(columns_), "'; it cannot be appended to");
  // Keep whole rows of earlier steps; a partial last line (a crash mid-write) has no newline.
  std::ostringstream kept;
  kept << header << '\n';
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t at = 0;
  bool has_step = false;
  while (at < content.size()) {
    const size_t end = content.find('\n', at);
    if (end == std::string::npos) break;
    const std::string line = content.substr(at, end - at);
    at = end + 1;
    char* stop = nullptr;
    const long long row_step = std::strtoll(line.c_str(), &stop, 10);
    if (stop == line.c_str() || *stop != ',') continue;
    if (row_step > step) continue;
    kept << line << '\n';
    has_step = row_step == step;
  }
  in.close();
  data::write_atomically(path, "thermo", [&](const std::string& tmp) {
    std::ofstream o(tmp, std::ios::trunc);
    o << kept.str();
    o.close();
    SPIRE_CHECK(o.good(), IOError, "thermo: cannot write ", tmp);
  });
  open_csv(true);
  csv_resumed_ = true;
  return has_step;
}

void ThermoLog::write(const System& system, const State& state, const ForceResult& forces, const Observables& obs) {
  set_columns(system, state, forces, obs);
  const double scale = normalized(options_, system) && system.size() > 0 ? 1.0 / double(system.size()) : 1.0;
  double e_mol = 0, e_pair = 0;
  for (const auto& [term, e] : forces.energies) (is_molecular_term(term) ? e_mol : e_pair) += e;
  std::vector<double> values = {obs.temperature, e_pair * scale, e_mol * scale, obs.total_energy() * scale};
  if (conserved_) values.push_back(obs.conserved_energy * scale);
  if (state.box.periodic()) values.insert(values.end(), {obs.pressure, obs.volume});
  for (const std::string& term : terms_) values.push_back(forces.energy_of(term) * scale);

  if (out_) {
    std::string line;
    char buf[64];
    if (!header_written_) {
      for (size_t c = 0; c < columns_.size(); ++c) {
        std::snprintf(buf, sizeof buf, "%*s", widths_[c], columns_[c].c_str());
        line += buf;
      }
      *out_ << line << '\n';
      line.clear();
    }
    std::snprintf(buf, sizeof buf, "%*lld", widths_[0], (long long)state.step);
    line += buf;
    for (size_t k = 0; k < values.size(); ++k) {
      std::snprintf(buf, sizeof buf, "%*.8g", widths_[k + 1], values[k]);
      line += buf;
    }
    *out_ << line << std::endl;
  }
  if (!options_.csv_path.empty()) {
    if (!csv_.is_open()) open_csv(false);
    if (!header_written_ && !csv_resumed_) csv_ << csv_line(columns_) << '\n';
    std::vector<std::string> fields = {std::to_string(state.step)};
    char buf[40];
    for (double v : values) {
      std::snprintf(buf, sizeof buf, "%.17g", v);
      fields.push_back(buf);
    }
    csv_ << csv_line(fields) << '\n';
    csv_.flush();
    SPIRE_CHECK(csv_.good(), IOError, "thermo: cannot write to ", options_.csv_path);
  }
  header_written_ = true;
}

void ThermoLog::report(const Simulation& sim) {
  write(sim.system(), sim.state(), sim.forces(), sim.observables());
}

void ThermoLog::finish(const Simulation&) {
  if (out_) out_->flush();
  if (csv_.is_open()) csv_.flush();
}

}  // namespace spire::sponge
