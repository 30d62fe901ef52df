// Top-level commands of `spire`. Each lives in its own file and registers itself, so a package
// adds `spire pde ...` or `spire md ...` without touching main.cpp.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace spire::cli {

// Adds a subcommand to `app` and returns what to run when it is the one chosen (its exit code).
using CommandSetup = std::function<std::function<int()>(CLI::App& app)>;

struct Command {
  int order;  // position in `spire --help`
  CommandSetup setup;
};
std::vector<Command>& commands();

struct CommandRegistrar {
  CommandRegistrar(int order, CommandSetup setup) { commands().push_back({order, std::move(setup)}); }
};

#define SPIRE_CLI_CAT_(a, b) a##b
#define SPIRE_CLI_CAT(a, b) SPIRE_CLI_CAT_(a, b)
#define SPIRE_CLI_COMMAND(order, setup) \
  static ::spire::cli::CommandRegistrar SPIRE_CLI_CAT(spire_cli_command_, __COUNTER__)(order, setup)

// "spire 0.1.0" plus one line per backend (whether built, devices found).
std::string version_text();

}  // namespace spire::cli
