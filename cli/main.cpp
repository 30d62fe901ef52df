// spire: the command line. Parsing only; every command's work lives in the engine or a package.
#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "cli/command.h"
#include "engine/core/error.h"
#include "engine/core/transfer.h"
#include "engine/parallel/runtime.h"

namespace spire::cli {

std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}

std::string version_text() {
  std::string s = std::string("spire ") + SPIRE_VERSION + "\nbackends: cpu";
  if (!backend_loaded(DeviceKind::CUDA)) return s + "; cuda not built (SPIRE_CUDA=OFF)";
  int n = cuda_device_count();
  if (n == 0) return s + "; cuda built, " + unavailable_reason(DeviceKind::CUDA);
  return s + ", cuda (" + std::to_string(n) + " device" + (n == 1 ? ")" : "s)");
}

// Under mpirun, returning from one rank would leave the others waiting in their next collective
// (and its exit would run MPI_Finalize, itself collective): a failing rank ends the whole job,
// naming itself.
[[noreturn]] void fail(const std::string& message, int code) {
  if (parallel::is_initialized() && parallel::size() > 1) parallel::abort_job(message, code);
  std::cerr << "spire: " << message << "\n";
  std::exit(code);
}

}  // namespace spire::cli

int main(int argc, char** argv) {
  using namespace spire::cli;
  CLI::App app{"Spire: differentiable scientific computing", "spire"};
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "print the version and the backends built, then exit");

  auto& cmds = commands();
  std::stable_sort(cmds.begin(), cmds.end(), [](auto& a, auto& b) { return a.order < b.order; });
  std::vector<std::pair<CLI::App*, std::function<int()>>> runners;
  for (auto& c : cmds) {
    size_t before = app.get_subcommands({}).size();
    auto run = c.setup(app);
    auto subs = app.get_subcommands({});
    if (subs.size() > before) runners.emplace_back(subs.back(), std::move(run));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (version) {
    std::cout << version_text() << "\n";
    return 0;
  }
  try {
    for (auto& [sub, run] : runners)
      if (sub->parsed()) return run();
  } catch (const spire::Error& e) {
    fail(std::string("error: ") + e.what(), 1);
  } catch (const std::exception& e) {
    fail(std::string("internal error: ") + e.what(), 2);
  }
  std::cout << app.help();
  return 0;
}
