// What the science/elec validations against Meep share: the verdict lines (`ok: ...` or
// `FAILED: ...` per check, a count of failures for the exit status), running a Meep peer script
// (tests/validate/peers/elec_*.py) in the interpreter that imports meep, and reading the
// whitespace-separated records it writes. Header-only: each program is built from one source.
//
// The interpreter: SPIRE_MEEP_PYTHON, else /usr/bin/python3, where Debian's python3-meep lives
// (bench/elec/install-peers.sh installs it; the pyenv python3 on PATH does not have it).
#pragma once
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace spire::elec::meep_validation {

inline int failures = 0;

inline void check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  std::fflush(stdout);
  if (!ok) ++failures;
}

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// One record of a peer file: its key and the fields after it.
struct Record {
  std::string key;
  std::vector<std::string> fields;
  double number(size_t i) const { return std::stod(fields.at(i)); }
};

[[noreturn]] inline void bad_peer_file(const std::string& program, const std::string& path, const std::string& what) {
  std::cerr << program << ": " << path << ": " << what << std::endl;
  std::exit(2);
}

// The records of a peer file, up to its closing "end" (a file without one was cut short).
inline std::vector<Record> read_records(const std::string& program, const std::string& path) {
  std::ifstream in(path);
  if (!in) bad_peer_file(program, path, "cannot open");
  std::vector<Record> records;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    Record r;
    if (!(s >> r.key) || r.key[0] == '#') continue;
    if (r.key == "end") return records;
    for (std::string f; s >> f;) r.fields.push_back(f);
    records.push_back(std::move(r));
  }
  bad_peer_file(program, path, "no closing 'end' record (truncated)");
}

// The first record called `key` with at least `fields` fields.
inline const Record& find_record(const std::vector<Record>& records, const std::string& key, size_t fields,
                                 const std::string& program, const std::string& path) {
  for (const Record& r : records)
    if (r.key == key && r.fields.size() >= fields) return r;
  bad_peer_file(program, path, "no '" + key + "' record with " + std::to_string(fields) + " fields");
}

// The peer's output file: argv[1] when given (a file the script wrote earlier), else the script
// tests/validate/peers/<script> is run now into a temporary file (removed by remove_peer_file).
inline std::string peer_file(int argc, char** argv, const std::string& program, const std::string& script,
                             const std::string& source_file) {
  if (argc > 1) return argv[1];
  namespace fs = std::filesystem;
  const fs::path path = fs::path(source_file).parent_path() / "peers" / script;
  const fs::path out = fs::temp_directory_path() / (program + "_" + std::to_string(::getpid()) + ".txt");
  const char* env = std::getenv("SPIRE_MEEP_PYTHON");
  const std::string python = env && *env ? env : "/usr/bin/python3";
  const std::string command = python + " '" + path.string() + "' '" + out.string() + "'";
  std::cout << "running " << command << std::endl;
  if (std::system(command.c_str()) != 0) {
    std::cerr << program << ": the Meep script failed (it needs Debian's python3-meep: bench/elec/install-peers.sh; "
              << "or set SPIRE_MEEP_PYTHON, or pass a file the script wrote)" << std::endl;
    std::exit(2);
  }
  return out.string();
}

inline void remove_peer_file(int argc, const std::string& path) {
  if (argc <= 1) std::filesystem::remove(path);
}

}  // namespace spire::elec::meep_validation
