#include "engine/data/job_file.h"

// toml++ compiled into this file alone (header-only mode), so the engine needs no extra library.
#define TOML_HEADER_ONLY 1
#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"

namespace spire::data {

struct JobSection::Document {
  toml::table root;
};

namespace {

using detail::join;

std::string describe(const toml::node& n) {
  std::ostringstream s;
  if (n.is_string()) s << '"' << n.value<std::string>().value_or("") << '"';
  else if (n.is_table()) s << "a table";
  else if (n.is_array()) s << "an array";
  else if (n.is_boolean()) s << (*n.value<bool>() ? "true" : "false");
  else if (n.is_integer()) s << *n.value<int64_t>();
  else if (n.is_floating_point()) s << *n.value<double>();
  else s << "a date or time";
  return s.str();
}

std::string fmt(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

std::string range(double low, double high) {
  if (high >= double(INT32_MAX)) return ">= " + fmt(low);  // no upper bound worth naming
  return "in [" + fmt(low) + ", " + fmt(high) + "]";
}

const toml::node& node(const void* n) { return *static_cast<const toml::node*>(n); }

}  // namespace

JobSection JobSection::parse(const std::string& text, const std::string& where) {
  auto doc = std::make_shared<Document>();
  try {
    doc->root = toml::parse(text, where);
  } catch (const toml::parse_error& e) {
    throw ConfigError(detail::cat(where, ":", e.source().begin.line, ":", e.source().begin.column, ": ",
                                  e.description()));
  }
  const toml::table* root = &doc->root;
  return JobSection(std::move(doc), root, "", where);
}

std::string JobSection::read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  SPIRE_CHECK(f.good(), IOError, "cannot read the job file ", path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string JobSection::path(const char* key) const { return name_.empty() ? key : name_ + "." + key; }

const void* JobSection::take(const char* key) {
  known_.push_back(key);
  if (!table_) return nullptr;
  const toml::node* n = static_cast<const toml::table*>(table_)->get(key);
  if (n) taken_.push_back(key);
  return n;
}

bool JobSection::has(const char* key) const {
  return table_ && static_cast<const toml::table*>(table_)->contains(key);
}

void JobSection::integer(const char* key, int64_t& out, int64_t low, int64_t high) {
  const void* p = take(key);
  if (!p) return;
  auto v = node(p).value_exact<int64_t>();
  bool ok = v && *v >= low && *v <= high;
  SPIRE_CHECK(ok, ConfigError, where_, ": ", path(key), " must be an integer ", range(double(low), double(high)),
              ", got ", describe(node(p)));
  out = *v;
}

void JobSection::integer(const char* key, int& out, int64_t low, int64_t high) {
  int64_t v = out;
  integer(key, v, low, high);
  out = int(v);
}

void JobSection::number(const char* key, double& out, double low, double high, bool open_low) {
  const void* p = take(key);
  if (!p) return;
  const toml::node& n = node(p);
  std::optional<double> v = n.is_number() ? n.value<double>() : std::nullopt;
  bool ok = v && (open_low ? *v > low : *v >= low) && *v <= high;
  SPIRE_CHECK(ok, ConfigError, where_, ": ", path(key), " must be a number ",
              open_low ? "> " + fmt(low) + (high < 1e300 ? " and <= " + fmt(high) : "") : range(low, high), ", got ",
              describe(n));
  out = *v;
}

void JobSection::boolean(const char* key, bool& out) {
  const void* p = take(key);
  if (!p) return;
  SPIRE_CHECK(node(p).is_boolean(), ConfigError, where_, ": ", path(key), " must be true or false, got ",
              describe(node(p)));
  out = *node(p).value<bool>();
}

void JobSection::string(const char* key, std::string& out, const std::vector<std::string>& allowed) {
  const void* p = take(key);
  if (!p) return;
  const toml::node& n = node(p);
  SPIRE_CHECK(n.is_string(), ConfigError, where_, ": ", path(key), " must be a string",
              allowed.empty() ? "" : " (one of " + join(allowed) + ")", ", got ", describe(n));
  std::string v = *n.value<std::string>();
  SPIRE_CHECK(allowed.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end(), ConfigError, where_,
              ": ", path(key), " must be one of ", join(allowed), ", got \"", v, "\"");
  out = v;
}

void JobSection::integers(const char* key, std::vector<int>& out, int64_t low) {
  const void* p = take(key);
  if (!p) return;
  const toml::node& n = node(p);
  std::string want = "an array of integers >= " + std::to_string(low);
  SPIRE_CHECK(n.is_array(), ConfigError, where_, ": ", path(key), " must be ", want, ", got ", describe(n));
  std::vector<int> v;
  for (const toml::node& e : *n.as_array()) {
    auto x = e.value_exact<int64_t>();
    SPIRE_CHECK(x && *x >= low && *x <= INT32_MAX, ConfigError, where_, ": ", path(key), " must be ", want,
                ", got an element ", describe(e));
    v.push_back(int(*x));
  }
  out = v;
}

JobSection JobSection::table(const char* key) {
  const void* p = take(key);
  if (p) SPIRE_CHECK(node(p).is_table(), ConfigError, where_, ": [", path(key), "] must be a table, got ",
                     describe(node(p)));
  return JobSection(doc_, p ? node(p).as_table() : nullptr, path(key), where_);
}

void JobSection::finish() const {
  if (!table_) return;
  std::vector<std::string> unknown;
  for (auto&& [k, v] : *static_cast<const toml::table*>(table_))
    if (std::find(taken_.begin(), taken_.end(), std::string(k.str())) == taken_.end())
      unknown.push_back(std::string(k.str()));
  SPIRE_CHECK(unknown.empty(), ConfigError, where_, ": unknown key", unknown.size() > 1 ? "s " : " ", join(unknown),
              name_.empty() ? " at the top level" : " in [" + name_ + "]", "; allowed: ", join(known_));
}

void JobSection::numbers(const char* key, std::vector<double>& out, double low, double high) {
  const void* p = take(key);
  if (!p) return;
  const toml::node& n = node(p);
  std::string want = "an array of numbers" + (std::isinf(low) && std::isinf(high) ? std::string() : " " + range(low, high));
  SPIRE_CHECK(n.is_array(), ConfigError, where_, ": ", path(key), " must be ", want, ", got ", describe(n));
  std::vector<double> v;
  for (const toml::node& e : *n.as_array()) {
    std::optional<double> x = e.is_number() ? e.value<double>() : std::nullopt;
    SPIRE_CHECK(x && *x >= low && *x <= high, ConfigError, where_, ": ", path(key), " must be ", want,
                ", got an element ", describe(e));
    v.push_back(*x);
  }
  out = v;
}

void JobSection::strings(const char* key, std::vector<std::string>& out) {
  const void* p = take(key);
  if (!p) return;
  const toml::node& n = node(p);
  SPIRE_CHECK(n.is_array(), ConfigError, where_, ": ", path(key), " must be an array of strings, got ", describe(n));
  std::vector<std::string> v;
  for (const toml::node& e : *n.as_array()) {
    SPIRE_CHECK(e.is_string(), ConfigError, where_, ": ", path(key), " must be an array of strings, got an element ",
                describe(e));
    v.push_back(*e.value<std::string>());
  }
  out = v;
}

void JobSection::number_arrays(const char* key, std::vector<std::vector<double>>& out) {
  const void* p = take(key);
  if (!p) return;
  const toml::node& n = node(p);
  const char* want = "an array of arrays of numbers ([[x0, y0], [x1, y1], ...])";
  SPIRE_CHECK(n.is_array(), ConfigError, where_, ": ", path(key), " must be ", want, ", got ", describe(n));
  std::vector<std::vector<double>> v;
  for (const toml::node& row : *n.as_array()) {
    SPIRE_CHECK(row.is_array(), ConfigError, where_, ": ", path(key), " must be ", want, ", got an element ",
                describe(row));
    std::vector<double> r;
    for (const toml::node& e : *row.as_array()) {
      std::optional<double> x = e.is_number() ? e.value<double>() : std::nullopt;
      SPIRE_CHECK(x.has_value(), ConfigError, where_, ": ", path(key), " must be ", want, ", got an element ",
                  describe(e), " in row ", v.size());
      r.push_back(*x);
    }
    v.push_back(std::move(r));
  }
  out = v;
}

std::vector<JobSection> JobSection::tables(const char* key) {
  const void* p = take(key);
  std::vector<JobSection> out;
  if (!p) return out;
  const toml::node& n = node(p);
  if (n.is_array() && n.as_array()->empty()) return out;
  SPIRE_CHECK(n.is_array() && n.as_array()->is_array_of_tables(), ConfigError, where_, ": ", path(key),
              " must be an array of tables ([[", path(key), "]] sections), got ", describe(n));
  size_t i = 0;
  for (const toml::node& e : *n.as_array())
    out.push_back(JobSection(doc_, e.as_table(), path(key) + "[" + std::to_string(i++) + "]", where_));
  return out;
}

std::vector<std::string> JobSection::keys() const {
  std::vector<std::string> k;
  if (table_)
    for (auto&& [key, v] : *static_cast<const toml::table*>(table_)) k.push_back(std::string(key.str()));
  return k;
}

bool JobSection::is_table(const char* key) const {
  if (!table_) return false;
  const toml::node* n = static_cast<const toml::table*>(table_)->get(key);
  return n && n->is_table();
}

bool JobSection::is_string(const char* key) const {
  if (!table_) return false;
  const toml::node* n = static_cast<const toml::table*>(table_)->get(key);
  return n && n->is_string();
}

bool JobSection::is_array(const char* key) const {
  if (!table_) return false;
  const toml::node* n = static_cast<const toml::table*>(table_)->get(key);
  return n && n->is_array();
}

std::string toml_string(const std::string& s) {
  std::ostringstream o;
  o << toml::value<std::string>(s);  // quoted and escaped
  return o.str();
}

std::string toml_number(double x) {
  std::ostringstream o;
  o << toml::value<double>(x);
  return o.str();
}

}  // namespace spire::data
