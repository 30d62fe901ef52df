// Shared readers of the job's tables (job_read.h).
#include "science/elec/job_read.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "engine/core/error.h"
#include "science/elec/dft.h"

namespace spire::elec::job_read {

namespace {

constexpr double kInf = HUGE_VAL;

std::string key_path(const JobSection& t, const char* key) { return t.name().empty() ? key : t.name() + "." + key; }

}  // namespace

bool vec3(JobSection& t, const char* key, const Context& cx, Vec3& out, bool nonnegative) {
  const bool given = t.has(key);
  const double low = nonnegative ? 0 : -kInf;
  if (given && !t.is_array(key)) {
    // One number: a z coordinate in 1D, an error elsewhere (which axis would it be?).
    double z = 0;
    t.number(key, z, low, kInf);
    SPIRE_CHECK(cx.one_d, ConfigError, cx.where, ": ", key_path(t, key), " must be an array [x, y] or [x, y, z], got ",
                z, " (a single number is a z coordinate only in 1d problems)");
    out = {0, 0, z};
    return true;
  }
  std::vector<double> v;
  t.numbers(key, v, low, kInf);  // also when absent: finish() then lists the key as allowed
  if (!given) return false;
  SPIRE_CHECK(!v.empty() && v.size() <= 3, ConfigError, cx.where, ": ", key_path(t, key),
              " must be an array of one to three numbers [x, y, z]", nonnegative ? " (each >= 0)" : "", ", got ",
              v.size(), " numbers");
  for (double x : v)
    SPIRE_CHECK(!std::isnan(x), ConfigError, cx.where, ": ", key_path(t, key), " holds nan");
  if (cx.one_d && v.size() == 1) {
    out = {0, 0, v[0]};
    return true;
  }
  out = {v[0], v.size() > 1 ? v[1] : 0.0, v.size() > 2 ? v[2] : 0.0};
  return true;
}

Vec3 required_vec3(JobSection& t, const char* key, const Context& cx, const std::string& what, bool nonnegative) {
  SPIRE_CHECK(t.has(key), ConfigError, cx.where, ": [", t.name(), "] needs ", key, " (", what, ")");
  Vec3 v;
  vec3(t, key, cx, v, nonnegative);
  return v;
}

double required_number(JobSection& t, const char* key, const Context& cx, double low, double high, bool open_low,
                       const std::string& what) {
  SPIRE_CHECK(t.has(key), ConfigError, cx.where, ": [", t.name(), "] needs ", key, " (", what, ")");
  double v = 0;
  t.number(key, v, low, high, open_low);
  return v;
}

Component parse_component(const std::string& text, const std::string& key, const Context& cx) {
  static const char* names[] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
  for (int c = 0; c < 6; ++c) {
    std::string lower = names[c];
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
    if (text == names[c] || text == lower) return Component(c);
  }
  throw ConfigError(detail::cat(cx.where, ": ", key, " must be one of Ex, Ey, Ez, Hx, Hy, Hz, got \"", text, "\""));
}

Component component(JobSection& t, const char* key, const Context& cx, bool required, Component fallback) {
  SPIRE_CHECK(!required || t.has(key), ConfigError, cx.where, ": [", t.name(), "] needs ", key,
              " (a field component: Ex, Ey, Ez, Hx, Hy or Hz)");
  std::string text;
  t.string(key, text);
  if (text.empty() && !t.has(key)) return fallback;
  return parse_component(text, key_path(t, key), cx);
}

std::vector<Component> components(JobSection& t, const char* key, const Context& cx) {
  std::vector<std::string> names;
  t.strings(key, names);
  std::vector<Component> out;
  for (const std::string& n : names) {
    const Component c = parse_component(n, key_path(t, key), cx);
    SPIRE_CHECK(std::find(out.begin(), out.end(), c) == out.end(), ConfigError, cx.where, ": ", key_path(t, key),
                " names ", n, " twice");
    out.push_back(c);
  }
  return out;
}

std::complex<double> amplitude(JobSection& t, const char* key, const Context& cx) {
  if (!t.is_array(key)) {
    double a = 1;
    t.number(key, a, -kInf, kInf);
    SPIRE_CHECK(std::isfinite(a), ConfigError, cx.where, ": ", key_path(t, key), " must be finite, got ", a);
    return a;
  }
  std::vector<double> v;
  t.numbers(key, v);
  SPIRE_CHECK(v.size() == 2 && std::isfinite(v[0]) && std::isfinite(v[1]), ConfigError, cx.where, ": ",
              key_path(t, key), " must be a number or [re, im] (two finite numbers: a complex amplitude)");
  return {v[0], v[1]};
}

std::vector<double> frequencies(JobSection& t, const Context& cx, bool required) {
  const bool list = t.has("frequencies");
  const bool meep = t.has("fcen") || t.has("df") || t.has("nfreq");
  SPIRE_CHECK(!(list && meep), ConfigError, cx.where, ": [", t.name(),
              "] gives both frequencies and fcen/df/nfreq; give one of them");
  std::vector<double> out;
  t.numbers("frequencies", out, 0, kInf);
  double fcen = 0, df = 0;
  int64_t nfreq = 0;
  t.number("fcen", fcen, 0, kInf, true);
  t.number("df", df, 0, kInf);
  t.integer("nfreq", nfreq, 1, 100000000);
  if (list) {
    SPIRE_CHECK(!out.empty(), ConfigError, cx.where, ": ", key_path(t, "frequencies"), " is empty");
    for (double f : out)
      SPIRE_CHECK(std::isfinite(f) && f > 0, ConfigError, cx.where, ": ", key_path(t, "frequencies"),
                  " must hold finite frequencies > 0 (c/a), got ", f);
    return out;
  }
  if (meep) {
    SPIRE_CHECK(t.has("fcen") && t.has("nfreq"), ConfigError, cx.where, ": [", t.name(),
                "] needs fcen and nfreq (and df, when nfreq > 1): Meep's evenly spaced frequencies");
    SPIRE_CHECK(nfreq == 1 || t.has("df"), ConfigError, cx.where, ": [", t.name(), "] needs df for nfreq = ", nfreq);
    SPIRE_CHECK(fcen - df / 2 > 0, ConfigError, cx.where, ": [", t.name(), "] fcen - df/2 = ", fcen - df / 2,
                " must be > 0 (fcen ", fcen, ", df ", df, ")");
    return frequency_list(fcen, df, int(nfreq));
  }
  SPIRE_CHECK(!required, ConfigError, cx.where, ": [", t.name(),
              "] needs frequencies = [f, ...] or fcen, df, nfreq (in c/a)");
  return out;
}

ProfileSpec profile(JobSection& parent, const Context& cx, bool required) {
  ProfileSpec p;
  SPIRE_CHECK(!required || parent.has("profile"), ConfigError, cx.where, ": [", parent.name(),
              "] needs a [", parent.name(), ".profile] table: kind = \"gaussian\" (frequency, fwidth) or "
              "\"continuous\" (frequency)");
  JobSection t = parent.table("profile");
  if (!t.present()) return p;
  SPIRE_CHECK(t.has("kind"), ConfigError, cx.where, ": [", t.name(),
              "] needs kind: \"gaussian\" (frequency, fwidth) or \"continuous\" (frequency)");
  t.string("kind", p.kind, {"gaussian", "continuous"});
  p.frequency = required_number(t, "frequency", cx, 0, kInf, true, "the centre frequency in c/a");
  t.number("start_time", p.start_time, -kInf, kInf);
  if (p.kind == "gaussian") {
    p.fwidth = required_number(t, "fwidth", cx, 0, kInf, true, "the spectral width in c/a, Meep's fwidth");
    t.number("cutoff", p.cutoff, 0, kInf, true);
  } else {
    t.number("end_time", p.end_time, -kInf, kInf);
    t.number("width", p.width, 0, kInf);
    t.number("slowness", p.slowness, 0, kInf);
    SPIRE_CHECK(p.end_time > p.start_time, ConfigError, cx.where, ": ", t.name(), ".end_time ", p.end_time,
                " must be after start_time ", p.start_time);
  }
  for (double v : {p.frequency, p.fwidth, p.cutoff, p.start_time, p.width, p.slowness})
    SPIRE_CHECK(std::isfinite(v), ConfigError, cx.where, ": [", t.name(), "] holds a value that is not finite");
  t.finish();
  return p;
}

std::string resolve_path(const Context& cx, const std::string& file) {
  const std::filesystem::path f(file);
  if (f.is_absolute() || cx.directory.empty()) return file;
  return (std::filesystem::path(cx.directory) / f).string();
}

int axis(const std::string& name, const std::string& key, const Context& cx) {
  const int a = name == "x" ? 0 : name == "y" ? 1 : name == "z" ? 2 : -1;
  std::string have;
  for (int b = 0; b < 3; ++b)
    if (cx.has_axis[size_t(b)]) have += std::string(have.empty() ? "" : ", ") + "xyz"[b];
  SPIRE_CHECK(a >= 0 && cx.has_axis[size_t(a)], ConfigError, cx.where, ": ", key, " names the axis \"", name,
              "\"; a ", cx.dims_text, " problem has ", have);
  return a;
}

}  // namespace spire::elec::job_read
