// Runs the demo steps in order, shows their output, and writes the figures under <out>/demo/.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>
#include <unistd.h>

#include "cli/command.h"
#include "cli/demo/demo.h"
#include "engine/core/error.h"
#include "engine/core/op.h"

namespace spire::cli::demo {

std::vector<Step>& steps() {
  static std::vector<Step> all;
  return all;
}

void Context::figure(const std::string& quantity, double value, const std::string& unit) {
  figures_.push_back({step_, quantity, value, NAN, NAN, unit});
  std::ostringstream s;  // formatted apart so the step's own stream settings are left alone
  s << "  " << std::left << std::setw(44) << quantity << " " << std::setprecision(6) << value
    << (unit.empty() ? "" : " " + unit) << "\n";
  out << s.str();
}

bool Context::check(const std::string& quantity, double value, double expected, double tolerance) {
  Figure f{step_, quantity, value, expected, tolerance, ""};
  figures_.push_back(f);
  bool ok = f.ok();
  failures_ += !ok;
  std::ostringstream s;
  s << "  " << std::left << std::setw(44) << quantity << " " << std::setprecision(10) << value
    << "  (expected " << expected << ", error " << std::setprecision(2) << std::abs(value - expected)
    << (ok ? ")" : ", tolerance " + std::to_string(tolerance) + ")  <-- MISMATCH") << "\n";
  out << s.str();
  return ok;
}

bool Context::needs_ops(std::initializer_list<const char*> ops) {
  for (const char* op : ops)
    if (!OpRegistry::get().find(op)) {
      out << "  (skipped: op '" << op << "' is not in this build's registry yet)\n";
      skipped_ = true;
      return false;
    }
  return true;
}

namespace {

// Writes `text` to `path` through a temporary name and a rename: a reader never sees half a file.
void write_atomically(const std::filesystem::path& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  SPIRE_CHECK(!ec, IOError, "demo: cannot create ", path.parent_path().string(), ": ", ec.message());
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    f.flush();
    SPIRE_CHECK(f.good(), IOError, "demo: cannot write ", tmp.string());
  }
  std::filesystem::rename(tmp, path, ec);
  SPIRE_CHECK(!ec, IOError, "demo: cannot rename ", tmp.string(), " to ", path.string(), ": ", ec.message());
}

// The shortest text that reads back as the same double.
std::string csv_number(double v) {
  if (std::isnan(v)) return "";
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

// Sends what a step prints both to the terminal and into the report.
class TeeBuf : public std::streambuf {
 public:
  TeeBuf(std::streambuf* a, std::streambuf* b) : a_(a), b_(b) {}

 protected:
  int overflow(int c) override {
    if (c == EOF) return !EOF;
    return a_->sputc(char(c)) == EOF || b_->sputc(char(c)) == EOF ? EOF : c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    a_->sputn(s, n);
    return b_->sputn(s, n);
  }
  int sync() override { return a_->pubsync() | b_->pubsync(); }

 private:
  std::streambuf *a_, *b_;
};

int run_demo(const std::string& out_dir, const std::vector<std::string>& only, bool list) {
  auto& all = steps();
  std::stable_sort(all.begin(), all.end(), [](auto& a, auto& b) { return a.order < b.order; });
  if (list) {
    for (auto& s : all) std::cout << std::left << std::setw(12) << s.name << s.title << "\n";
    return 0;
  }
  std::set<std::string> wanted(only.begin(), only.end());
  for (auto& w : wanted) {
    bool known = std::any_of(all.begin(), all.end(), [&](auto& s) { return s.name == w; });
    SPIRE_CHECK(known, ConfigError, "demo: unknown step '", w, "' (see spire demo --list)");
  }

  std::ostringstream report;
  TeeBuf tee(std::cout.rdbuf(), report.rdbuf());
  std::ostream out(&tee);
  std::vector<Figure> figures;
  int ran = 0, skipped = 0, failed = 0, number = 0;
  auto t_start = std::chrono::steady_clock::now();
  for (auto& step : all) {
    if (!wanted.empty() && !wanted.count(step.name)) continue;
    out << "\n== " << ++number << ". " << step.title << " ==\n";
    Context ctx(out, step.name);
    ctx.dir = (std::filesystem::path(out_dir) / "demo").string();
    std::filesystem::create_directories(ctx.dir);
    auto t0 = std::chrono::steady_clock::now();
    bool threw = false;
    try {
      step.run(ctx);
    } catch (const std::exception& e) {
      out << "  FAILED: " << e.what() << "\n";
      threw = true;
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    figures.insert(figures.end(), ctx.figures().begin(), ctx.figures().end());
    if (threw || ctx.failures()) ++failed;
    else if (ctx.skipped()) ++skipped;
    else ++ran;
    std::ostringstream line;
    line << "  [" << step.name << ": " << (threw || ctx.failures() ? "FAILED" : ctx.skipped() ? "skipped" : "ok")
         << ", " << std::fixed << std::setprecision(2) << secs << " s]\n";
    out << line.str();
  }
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();

  std::ostringstream csv;
  csv << "step,quantity,value,expected,abs_error,tolerance,unit,status\n";
  for (auto& f : figures)
    csv << f.step << ",\"" << f.quantity << "\"," << csv_number(f.value) << "," << csv_number(f.expected)
        << "," << csv_number(std::isnan(f.expected) ? NAN : std::abs(f.value - f.expected)) << ","
        << csv_number(f.tolerance) << "," << f.unit << ","
        << (std::isnan(f.expected) ? "info" : f.ok() ? "ok" : "mismatch") << "\n";
  std::filesystem::path dir = std::filesystem::path(out_dir) / "demo";
  write_atomically(dir / "summary.csv", csv.str());
  out << "\ndemo: " << number << (number == 1 ? " step: " : " steps: ") << ran << " ok, " << skipped
      << " skipped, " << failed << " failed (" << std::fixed << std::setprecision(1) << total
      << " s); figures in " << (dir / "summary.csv").string() << ", transcript in "
      << (dir / "report.txt").string() << "\n";
  write_atomically(dir / "report.txt", report.str());
  return failed ? 1 : 0;
}

SPIRE_CLI_COMMAND(10, [](CLI::App& app) -> std::function<int()> {
  auto* cmd = app.add_subcommand("demo", "a short tour: tensors, gradients, Hessians, FFT, matmul, random numbers");
  auto out = std::make_shared<std::string>("out");
  auto only = std::make_shared<std::vector<std::string>>();
  auto list = std::make_shared<bool>(false);
  cmd->add_option("--out", *out, "folder for the summary (written to <out>/demo/)")->capture_default_str();
  cmd->add_option("--only", *only, "run only these steps (names from --list)")->delimiter(',');
  cmd->add_flag("--list", *list, "list the steps and exit");
  return [=] { return run_demo(*out, *only, *list); };
});

}  // namespace
}  // namespace spire::cli::demo
