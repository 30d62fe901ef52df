// `spire demo`: a short tour of what Spire does, one step per file in cli/demo/. A step registers
// itself with SPIRE_DEMO_STEP, prints what it shows, and records its figures (and checks against
// independent values) in the Context; the runner writes them to <out>/demo/summary.csv.
#pragma once
#include <cmath>
#include <functional>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

namespace spire::cli::demo {

struct Figure {
  std::string step, quantity;
  double value;
  double expected = NAN;   // the independent reference, NaN when the figure is informative only
  double tolerance = NAN;  // allowed |value - expected|
  std::string unit;
  bool ok() const { return std::isnan(expected) || std::abs(value - expected) <= tolerance; }
};

class Context {
 public:
  Context(std::ostream& out, std::string step) : out(out), step_(std::move(step)) {}

  std::ostream& out;
  std::string dir;  // <out>/demo, where a step writes its files (it exists)

  // A measured figure (a timing, a rate) with no reference.
  void figure(const std::string& quantity, double value, const std::string& unit = "");
  // A value checked against an independent reference (analytic, hand-computed): printed with its
  // error, recorded, and counted as a failure if off by more than `tolerance`.
  bool check(const std::string& quantity, double value, double expected, double tolerance);
  // False (after printing why) if an op this step needs is not in this build's registry.
  bool needs_ops(std::initializer_list<const char*> ops);

  bool skipped() const { return skipped_; }
  int failures() const { return failures_; }
  const std::vector<Figure>& figures() const { return figures_; }

 private:
  std::string step_;
  std::vector<Figure> figures_;
  bool skipped_ = false;
  int failures_ = 0;
};

struct Step {
  int order;
  std::string name;   // for --only
  std::string title;
  std::function<void(Context&)> run;
};
std::vector<Step>& steps();

struct StepRegistrar {
  StepRegistrar(int order, const char* name, const char* title, std::function<void(Context&)> run) {
    steps().push_back({order, name, title, std::move(run)});
  }
};

#define SPIRE_DEMO_CAT_(a, b) a##b
#define SPIRE_DEMO_CAT(a, b) SPIRE_DEMO_CAT_(a, b)
// SPIRE_DEMO_STEP(40, "fft", "Fourier transforms", [](Context& c) { ... });
#define SPIRE_DEMO_STEP(order, name, title, ...) \
  static ::spire::cli::demo::StepRegistrar SPIRE_DEMO_CAT(spire_demo_step_, __COUNTER__)(order, name, title, __VA_ARGS__)

}  // namespace spire::cli::demo
