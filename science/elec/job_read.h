// Pieces of the job reader (job.h) that several of its tables share: vectors, field components,
// amplitudes, frequency lists, time profiles and paths, each read through data::JobSection so that
// an error names the key with its table path. Internal to job*.cpp.
#pragma once
#include <array>
#include <complex>
#include <string>
#include <vector>

#include "engine/data/job_file.h"
#include "science/elec/job.h"

namespace spire::elec::job_read {

using data::JobSection;

// What the readers need to know of the job while its tables are read.
struct Context {
  std::string where;      // the file, for messages
  std::string directory;  // relative paths start here
  bool one_d = false;     // a single number (or a one-number array) is a z coordinate
  std::array<bool, 3> has_axis{true, true, true};
  std::string dims_text = "3d";  // for messages
  double dt = 0;                 // the time step, courant / resolution
};

// A vector (job.h: up to three numbers, or one number in 1D); true when the key is given.
// `nonnegative`: every entry >= 0 (sizes).
bool vec3(JobSection& t, const char* key, const Context& cx, Vec3& out, bool nonnegative = false);
// The same, required: ConfigError naming the key when absent.
Vec3 required_vec3(JobSection& t, const char* key, const Context& cx, const std::string& what,
                   bool nonnegative = false);
// A number that must be given.
double required_number(JobSection& t, const char* key, const Context& cx, double low, double high,
                       bool open_low, const std::string& what);

// "Ex" .. "Hz" (also lower case); ConfigError naming the key and the six names otherwise.
Component component(JobSection& t, const char* key, const Context& cx, bool required = true,
                    Component fallback = Component::Ez);
std::vector<Component> components(JobSection& t, const char* key, const Context& cx);
Component parse_component(const std::string& text, const std::string& key, const Context& cx);

// a (a number) or [re, im]; 1 when absent.
std::complex<double> amplitude(JobSection& t, const char* key, const Context& cx);

// frequencies = [...] or fcen, df, nfreq; ConfigError when both or (if required) neither.
std::vector<double> frequencies(JobSection& t, const Context& cx, bool required);

// A [<parent>.profile] table; kind "" (and nothing read) when absent and not required.
ProfileSpec profile(JobSection& parent, const Context& cx, bool required);

// A file named in the job, relative to the job's folder.
std::string resolve_path(const Context& cx, const std::string& file);

// Axis names: "x", "y", "z" -> 0, 1, 2 for the axes the problem has; ConfigError naming the key
// and the problem's axes otherwise.
int axis(const std::string& name, const std::string& key, const Context& cx);

}  // namespace spire::elec::job_read
