// Reading TOML job files (`spire <package> <verb> job.toml`) with the errors Spire promises: every
// key is read once by a typed getter that checks its type and range, and whatever a table holds
// beyond the keys read is an error naming the unknown keys and the allowed ones. A syntax error
// names the file, line and column.
//
//   JobSection root = JobSection::parse(text, "job.toml");
//   root.integer("seed", seed, 0);
//   JobSection env = root.table("env");   // empty (every getter keeps its default) when absent
//   env.string("id", id);
//   env.finish();                         // unknown keys in [env]
//   root.finish();
//
// toml++ is compiled into job_file.cpp alone; this header does not expose it.
#pragma once
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spire::data {

class JobSection {
 public:
  // The top level of a job file; ConfigError "<where>:<line>:<column>: ..." on a syntax error.
  static JobSection parse(const std::string& text, const std::string& where);
  // The file's text; IOError naming the path when it cannot be read.
  static std::string read(const std::string& path);

  // Each getter leaves `out` alone when the key is absent, and raises ConfigError naming the key
  // ("ppo.lr"), the value it got and what is allowed otherwise.
  void integer(const char* key, int64_t& out, int64_t low, int64_t high = INT64_MAX);
  void integer(const char* key, int& out, int64_t low, int64_t high = INT32_MAX);
  // open_low: the value must be > low (else >= low).
  void number(const char* key, double& out, double low, double high, bool open_low = false);
  void boolean(const char* key, bool& out);
  // allowed empty: any string.
  void string(const char* key, std::string& out, const std::vector<std::string>& allowed = {});
  void integers(const char* key, std::vector<int>& out, int64_t low);
  // An array of numbers (integers are taken as numbers), each in [low, high].
  void numbers(const char* key, std::vector<double>& out, double low = -HUGE_VAL, double high = HUGE_VAL);
  void strings(const char* key, std::vector<std::string>& out);
  // An array of arrays of numbers ([[x0, y0], [x1, y1]]: polygon vertices, lists of points).
  void number_arrays(const char* key, std::vector<std::vector<double>>& out);
  // An array of tables ([[key]] headers, or key = [{...}, {...}]): one section per element, named
  // "key[i]" in messages; empty when absent. ConfigError when the key holds anything else.
  std::vector<JobSection> tables(const char* key);
  // The keys this table holds, for tables keyed by names the user chooses (a PDE's parameters, its
  // fields); reading them with the getters marks them known as usual.
  std::vector<std::string> keys() const;
  bool is_table(const char* key) const;
  bool is_array(const char* key) const;
  bool is_string(const char* key) const;
  // A sub-table, or an empty section when absent; a non-table under the key is a ConfigError.
  JobSection table(const char* key);
  bool has(const char* key) const;
  // Whether this section is a table in the file (false for an absent table).
  bool present() const { return table_ != nullptr; }
  // ConfigError naming the keys no getter read, and the allowed ones.
  void finish() const;

  const std::string& name() const { return name_; }    // "" at the top level, else the dotted path
  const std::string& where() const { return where_; }  // the file, for messages

 private:
  struct Document;
  JobSection(std::shared_ptr<const Document> doc, const void* table, std::string name, std::string where)
      : doc_(std::move(doc)), table_(table), name_(std::move(name)), where_(std::move(where)) {}
  const void* take(const char* key);  // a toml::node*, or null when absent
  std::string path(const char* key) const;

  std::shared_ptr<const Document> doc_;  // keeps the parsed file alive for sub-sections
  const void* table_ = nullptr;          // a const toml::table*
  std::string name_, where_;
  std::vector<std::string> taken_, known_;
};

// A string or number as TOML writes it (quoted and escaped; shortest exact decimal), for a
// configuration's to_toml().
std::string toml_string(const std::string& s);
std::string toml_number(double x);

}  // namespace spire::data
