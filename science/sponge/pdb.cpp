// PDB reading and writing (pdb.h). Column numbers in comments are the format's, 1-based.
#include "science/sponge/pdb.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <istream>
#include <map>
#include <numbers>
#include <ostream>
#include <set>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/data/atomic_file.h"

namespace spire::sponge {

namespace {

constexpr double kPerAngstrom = constants::kAngstrom;  // nm per angstrom

// OpenMM 8's element masses (openmm/app/element.py), so that systems built from a PDB here and
// there agree.
const std::map<std::string, double>& element_table() {
  static const std::map<std::string, double> table = {
      {"H", 1.007947},      {"He", 4.003},        {"Li", 6.9412},      {"B", 10.8117},      {"C", 12.01078},
      {"N", 14.00672},      {"O", 15.99943},      {"F", 18.99840325},  {"Ne", 20.17976},    {"Na", 22.989769282},
      {"Mg", 24.30506},     {"Si", 28.08553},     {"P", 30.9737622},   {"S", 32.0655},      {"Cl", 35.4532},
      {"Ar", 39.9481},      {"K", 39.09831},      {"Ca", 40.0784},     {"Mn", 54.9380455},  {"Fe", 55.8452},
      {"Cu", 63.5463},      {"Zn", 65.4094},      {"Se", 78.963},      {"Br", 79.9041},     {"Kr", 83.7982},
      {"Rb", 85.46783},     {"I", 126.904473},    {"Xe", 131.2936},    {"Cs", 132.90545192}};
  return table;
}

// "CL", "cl", "Cl" -> "Cl"; "" when not an element of the table.
std::string element_symbol(std::string s) {
  if (s.empty() || s.size() > 2) return "";
  s[0] = char(std::toupper((unsigned char)s[0]));
  if (s.size() == 2) s[1] = char(std::tolower((unsigned char)s[1]));
  return element_table().count(s) ? s : "";
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Columns first..last (1-based, inclusive) of a line, padded with spaces where the line is short
// (trailing blanks are often stripped).
std::string columns(const std::string& line, size_t first, size_t last) {
  std::string s = first - 1 < line.size() ? line.substr(first - 1, last - first + 1) : "";
  s.resize(last - first + 1, ' ');
  return s;
}

struct Where {
  const std::string& source;
  int line;
};

[[noreturn]] void fail(const Where& w, const std::string& what) {
  throw ParseError(detail::cat(w.source, ":", w.line, ": ", what));
}

double parse_real(const Where& w, const std::string& line, size_t first, size_t last, const char* field) {
  std::string text = trim(columns(line, first, last));
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    fail(w, detail::cat(field, " (columns ", first, "-", last, ") is '", columns(line, first, last),
                        "', not a number"));
  return v;
}

double parse_real_or(const Where& w, const std::string& line, size_t first, size_t last, const char* field,
                     double fallback) {
  return trim(columns(line, first, last)).empty() ? fallback : parse_real(w, line, first, last, field);
}

// Serial and residue numbers: decimal, or hexadecimal as OpenMM writes numbers that overflow the
// columns; `ok` false for anything else ("*****" from VMD).
int parse_index(const std::string& text, bool& ok) {
  std::string t = trim(text);
  int v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (!t.empty() && ec == std::errc() && end == t.data() + t.size()) {
    ok = true;
    return v;
  }
  auto [end16, ec16] = std::from_chars(t.data(), t.data() + t.size(), v, 16);
  ok = !t.empty() && ec16 == std::errc() && end16 == t.data() + t.size();
  return ok ? v : 0;
}

// The element of an atom whose columns 77-78 are blank: by the format's alignment rule, a
// one-letter element's name starts in column 14, a two-letter one's in column 13.
std::string element_from_name(const std::string& name4) {
  if (name4[0] == ' ' || std::isdigit((unsigned char)name4[0])) return element_symbol(name4.substr(1, 1));
  std::string two = element_symbol(name4.substr(0, 2));
  return two.empty() ? element_symbol(name4.substr(0, 1)) : two;
}

double cos_degrees(double angle) { return angle == 90 ? 0.0 : std::cos(angle * std::numbers::pi / 180); }

bool standard_residue(const std::string& name) {
  static const std::set<std::string> names = {
      "ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE", "LEU", "LYS", "MET", "PHE",
      "PRO", "SER", "THR", "TRP", "TYR", "VAL", "HID", "HIE", "HIP", "CYX", "ASH", "GLH", "LYN", "ACE",
      "NME", "A",   "C",   "G",   "U",   "DA",  "DC",  "DG",  "DT"};
  return names.count(name) > 0;
}

}  // namespace

double element_mass(const std::string& symbol) {
  std::string s = element_symbol(symbol);
  return s.empty() ? 0 : element_table().at(s);
}

Box box_from_lengths_angles(double a, double b, double c, double alpha, double beta, double gamma) {
  SPIRE_CHECK(a > 0 && b > 0 && c > 0 && std::isfinite(a) && std::isfinite(b) && std::isfinite(c), ValueError,
              "cell: edge lengths must be finite and > 0, got ", a, " ", b, " ", c);
  for (double angle : {alpha, beta, gamma})
    SPIRE_CHECK(angle > 0 && angle < 180, ValueError, "cell: angles must be in (0, 180) degrees, got ", alpha, " ",
                beta, " ", gamma);
  const double cg = cos_degrees(gamma), sg = std::sqrt(1 - cg * cg);
  const double cb = cos_degrees(beta), ca = cos_degrees(alpha);
  Vec3 va{a, 0, 0}, vb{b * cg, b * sg, 0};
  double cx = c * cb, cy = c * (ca - cb * cg) / sg;
  double cz2 = c * c - cx * cx - cy * cy;
  SPIRE_CHECK(cz2 > 0, ValueError, "cell: angles ", alpha, " ", beta, " ", gamma,
              " do not make a cell of non-zero volume");
  Vec3 vc{cx, cy, std::sqrt(cz2)};
  // Into reduced form: each vector less the nearest multiple of the ones before it (c by b, then
  // by a; b by a), which keeps the lattice and the volume.
  vc -= std::round(vc.y / vb.y) * vb;
  vc -= std::round(vc.x / va.x) * va;
  vb -= std::round(vb.x / va.x) * va;
  return Box::triclinic(va, vb, vc);
}

std::pair<Vec3, Vec3> lengths_angles(const Box& box) {
  SPIRE_CHECK(box.periodic(), ValueError, "cell: a non-periodic box has no lengths and angles");
  auto angle = [](const Vec3& u, const Vec3& v) {
    double c = std::clamp(dot(u, v) / (norm(u) * norm(v)), -1.0, 1.0);
    return c == 0 ? 90.0 : std::acos(c) * 180 / std::numbers::pi;
  };
  return {{norm(box.a()), norm(box.b()), norm(box.c())},
          {angle(box.b(), box.c()), angle(box.a(), box.c()), angle(box.a(), box.b())}};
}

PdbFile parse_pdb(std::istream& in, const std::string& source) {
  PdbFile pdb;
  std::string line;
  int number = 0;
  bool first_model_done = false;
  std::vector<std::pair<int, std::pair<int, int>>> conect;  // (line, (serial, serial))
  std::unordered_map<int, int> index_of_serial;
  std::set<int> repeated_serials;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const Where w{source, number};
    const std::string record = columns(line, 1, 6);
    if (record == "ENDMDL") {
      first_model_done = true;
    } else if ((record == "ATOM  " || record == "HETATM") && !first_model_done) {
      PdbAtom atom;
      atom.hetero = record == "HETATM";
      atom.alt_loc = columns(line, 17, 17)[0];
      if (atom.alt_loc != ' ' && atom.alt_loc != 'A') continue;
      if (line.size() < 54)
        fail(w, detail::cat(trim(record), " record is ", line.size(),
                            " characters long; coordinates need columns 31-54"));
      bool ok = false;
      atom.serial = parse_index(columns(line, 7, 11), ok);
      if (!ok) atom.serial = -1;
      const std::string name4 = columns(line, 13, 16);
      atom.name = trim(name4);
      atom.residue_name = trim(columns(line, 18, 21));
      atom.chain = columns(line, 22, 22)[0];
      atom.residue_id = parse_index(columns(line, 23, 26), ok);
      if (!ok && !trim(columns(line, 23, 26)).empty())
        fail(w, detail::cat("residue number (columns 23-26) is '", columns(line, 23, 26), "', not a number"));
      atom.insertion = columns(line, 27, 27)[0];
      atom.position = Vec3{parse_real(w, line, 31, 38, "x"), parse_real(w, line, 39, 46, "y"),
                           parse_real(w, line, 47, 54, "z")} *
                      kPerAngstrom;
      atom.occupancy = parse_real_or(w, line, 55, 60, "occupancy", 1.0);
      atom.b_factor = parse_real_or(w, line, 61, 66, "temperature factor", 0.0);
      std::string element = trim(columns(line, 77, 78));
      atom.element = element.empty() ? element_from_name(name4) : element_symbol(element);
      if (!element.empty() && atom.element.empty()) atom.element = element;  // kept as written
      std::string charge = trim(columns(line, 79, 80));
      if (!charge.empty()) {
        bool valid = charge.size() == 2 && std::isdigit((unsigned char)charge[0]) && (charge[1] == '+' || charge[1] == '-');
        if (!valid) fail(w, detail::cat("charge (columns 79-80) is '", columns(line, 79, 80), "', not like 2+ or 1-"));
        atom.formal_charge = (charge[0] - '0') * (charge[1] == '-' ? -1 : 1);
      }
      if (atom.serial >= 0 && !index_of_serial.emplace(atom.serial, int(pdb.atoms.size())).second)
        repeated_serials.insert(atom.serial);
      pdb.atoms.push_back(std::move(atom));
    } else if (record == "CRYST1") {
      double a = parse_real(w, line, 7, 15, "cell length a"), b = parse_real(w, line, 16, 24, "cell length b");
      double c = parse_real(w, line, 25, 33, "cell length c");
      double alpha = parse_real(w, line, 34, 40, "cell angle alpha"), beta = parse_real(w, line, 41, 47, "cell angle beta");
      double gamma = parse_real(w, line, 48, 54, "cell angle gamma");
      // The format's stand-in for "no crystal cell".
      if (a == 1 && b == 1 && c == 1 && alpha == 90 && beta == 90 && gamma == 90) continue;
      try {
        pdb.box = box_from_lengths_angles(a * kPerAngstrom, b * kPerAngstrom, c * kPerAngstrom, alpha, beta, gamma);
      } catch (const ValueError& e) {
        fail(w, detail::cat("CRYST1: ", e.what()));
      }
    } else if (record == "CONECT") {
      bool ok = false;
      int from = parse_index(columns(line, 7, 11), ok);
      if (!ok) fail(w, detail::cat("CONECT atom serial (columns 7-11) is '", columns(line, 7, 11), "', not a number"));
      for (size_t first : {12, 17, 22, 27}) {
        std::string field = columns(line, first, first + 4);
        if (trim(field).empty()) continue;
        int to = parse_index(field, ok);
        if (!ok)
          fail(w, detail::cat("CONECT bonded serial (columns ", first, "-", first + 4, ") is '", field, "', not a number"));
        conect.push_back({number, {from, to}});
      }
    }
  }
  std::set<std::pair<int, int>> bonds;
  for (const auto& [at, pair] : conect) {
    const Where w{source, at};
    for (int serial : {pair.first, pair.second}) {
      if (repeated_serials.count(serial))
        fail(w, detail::cat("CONECT names atom serial ", serial, ", which more than one atom has"));
      if (!index_of_serial.count(serial)) fail(w, detail::cat("CONECT names atom serial ", serial, ", which no atom has"));
    }
    int i = index_of_serial[pair.first], j = index_of_serial[pair.second];
    if (i != j) bonds.insert(std::minmax(i, j));
  }
  pdb.bonds.assign(bonds.begin(), bonds.end());
  return pdb;
}

PdbFile read_pdb(const std::string& path) {
  std::ifstream in(path);
  SPIRE_CHECK(in.good(), IOError, "read_pdb: cannot open '", path, "'");
  return parse_pdb(in, path);
}

State PdbFile::state() const {
  State s;
  s.box = box;
  for (const PdbAtom& a : atoms) s.positions.push_back(a.position);
  s.velocities.assign(s.positions.size(), Vec3{});
  return s;
}

System PdbFile::system() const {
  System s;
  s.units = Units::md();
  for (size_t i = 0; i < atoms.size(); ++i) {
    const PdbAtom& a = atoms[i];
    double mass = element_mass(a.element);
    SPIRE_CHECK(mass > 0, ValueError, "PdbFile::system: atom ", i, " (serial ", a.serial, ", name '", a.name,
                "', residue ", a.residue_name, " ", a.residue_id, ") has element '", a.element,
                "', which has no mass in the element table; set the System's masses yourself");
    s.add_particle(mass, 0, a.element.empty() ? a.name : a.element);
    s.atom_name.push_back(a.name);
    s.residue_name.push_back(a.residue_name);
    s.residue_id.push_back(a.residue_id);
  }
  return s;
}

void write_pdb(std::ostream& out, const System& system, const State& state, const PdbWriteOptions& options) {
  system.check();
  const int64_t n = system.size();
  SPIRE_CHECK(int64_t(state.positions.size()) == n, ValueError, "write_pdb: ", state.positions.size(),
              " positions for ", n, " particles");
  char buf[128];
  if (!options.title.empty()) out << "TITLE     " << options.title.substr(0, 70) << "\n";
  if (state.box.periodic()) {
    auto [len, ang] = lengths_angles(state.box);
    std::snprintf(buf, sizeof buf, "CRYST1%9.3f%9.3f%9.3f%7.2f%7.2f%7.2f %-11s%4d\n", len.x / kPerAngstrom,
                  len.y / kPerAngstrom, len.z / kPerAngstrom, ang.x, ang.y, ang.z, "P 1", 1);
    out << buf;
  }
  for (int64_t i = 0; i < n; ++i) {
    const std::string& type = system.type_names[system.type[i]];
    std::string name = system.atom_name.empty() ? type : system.atom_name[i];
    std::string residue = system.residue_name.empty() ? "UNK" : system.residue_name[i];
    int residue_id = system.residue_id.empty() ? int((i + 1) % 10000) : system.residue_id[i] % 10000;
    // The type when it is spelled as an element symbol ("Na", "Cl", "C"), else the name's first
    // letter when that is one ("OW" -> O), else blank (a Lennard-Jones "A").
    std::string element = element_symbol(type) == type ? type : element_symbol(name.substr(0, 1));
    std::string upper = element;
    for (char& c : upper) c = char(std::toupper((unsigned char)c));
    // A one-letter element's name starts in column 14, anything else in column 13.
    name = name.substr(0, 4);
    std::string field = name.size() < 4 && element.size() <= 1 ? " " + name : name;
    Vec3 p = state.positions[i] / kPerAngstrom;
    for (int k = 0; k < 3; ++k)
      SPIRE_CHECK(p[k] > -999.9995 && p[k] < 9999.9995, ValueError, "write_pdb: particle ", i, " at ", p[k],
                  " A does not fit PDB's coordinate columns (-999.999 to 9999.999 A); wrap the positions or write H5MD");
    std::snprintf(buf, sizeof buf, "%-6s%5d %-4s %-4s %4d    %8.3f%8.3f%8.3f%6.2f%6.2f          %2s  \n",
                  standard_residue(residue) ? "ATOM" : "HETATM", int((i + 1) % 100000), field.c_str(),
                  residue.substr(0, 4).c_str(), residue_id, p.x, p.y, p.z, 1.0, 0.0, upper.c_str());
    out << buf;
  }
  if (options.conect) {
    SPIRE_CHECK(n < 100000, ValueError, "write_pdb: CONECT records need serial numbers below 100000; ", n,
                " particles");
    std::vector<std::vector<int>> bonded(static_cast<size_t>(n));
    auto bond = [&](int i, int j) {
      bonded[i].push_back(j);
      bonded[j].push_back(i);
    };
    for (const Bond& b : system.topology.bonds) bond(b.i, b.j);
    for (const Constraint& c : system.topology.constraints) bond(c.i, c.j);
    for (const RigidWater& w : system.topology.waters) bond(w.o, w.h1), bond(w.o, w.h2);
    for (int64_t i = 0; i < n; ++i) {
      auto& list = bonded[i];
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
      for (size_t k = 0; k < list.size(); k += 4) {
        out << detail::cat("CONECT", std::string(5 - std::to_string(i + 1).size(), ' '), i + 1);
        for (size_t m = k; m < std::min(list.size(), k + 4); ++m) {
          std::snprintf(buf, sizeof buf, "%5d", list[m] + 1);
          out << buf;
        }
        out << "\n";
      }
    }
  }
  out << "END\n";
}

void write_pdb(const std::string& path, const System& system, const State& state, const PdbWriteOptions& options) {
  data::write_atomically(path, "write_pdb", [&](const std::string& tmp) {
    std::ofstream out(tmp);
    SPIRE_CHECK(out.good(), IOError, "write_pdb: cannot open '", tmp, "' for writing");
    write_pdb(out, system, state, options);
    out.close();
    SPIRE_CHECK(!out.fail(), IOError, "write_pdb: writing '", tmp, "' failed");
  });
}

}  // namespace spire::sponge
