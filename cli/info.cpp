// What this build and this machine offer:
//   spire ops      the op registry as a table (name, inputs, differentiability, backends with kernels)
//   spire devices  the devices this process can use, and why a backend has none
// (One file for both: every file that includes CLI11 costs seconds of compiling.)
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"

namespace spire::cli {
namespace {

std::string inputs_text(const OpDef& op) {
  std::ostringstream s;  // (string += literal trips GCC 12's false -Wrestrict alarm, PR 105329)
  if (op.num_inputs < 0) s << "any";
  else s << op.num_inputs;
  if (!op.nondiff_inputs.empty()) {
    s << " (index:";
    for (int i : op.nondiff_inputs) s << " " << i;
    s << ")";
  }
  return s.str();
}

std::string backends_text(const OpDef& op) {
  if (op.view) return "view (any device)";
  std::string s;
  const char* names[kNumDeviceKinds] = {"cpu", "cuda"};
  for (int k = 0; k < kNumDeviceKinds; ++k)
    if (op.kernels[k]) s += (s.empty() ? "" : " ") + std::string(names[k]);
  return s.empty() ? "-" : s;
}

int list_ops(const std::string& filter, const std::string& backend) {
  std::vector<const OpDef*> shown;
  for (const OpDef* op : OpRegistry::get().all()) {
    if (!filter.empty() && op->name.find(filter) == std::string::npos) continue;
    if (!backend.empty() && !op->has_kernel(backend == "cuda" ? DeviceKind::CUDA : DeviceKind::CPU))
      continue;
    shown.push_back(op);
  }
  size_t w = 2;
  for (auto* op : shown) w = std::max(w, op->name.size());
  std::cout << std::left << std::setw(int(w) + 2) << "op" << std::setw(14) << "inputs" << std::setw(16)
            << "differentiable" << "kernels\n";
  int diff = 0, cuda = 0, samples = 0;
  for (auto* op : shown) {
    std::string d = !op->differentiable ? "no" : (op->vjp && op->jvp) ? "yes" : op->vjp ? "reverse only" : "MISSING";
    std::cout << std::setw(int(w) + 2) << op->name << std::setw(14) << inputs_text(*op) << std::setw(16) << d
              << backends_text(*op) << (op->samples ? "" : "  [no samples]") << "\n";
    diff += op->differentiable;
    cuda += op->has_kernel(DeviceKind::CUDA);
    samples += bool(op->samples);
  }
  std::cout << shown.size() << " ops: " << diff << " differentiable, " << cuda << " run on cuda, "
            << samples << " with registry-test samples\n";
  return 0;
}

SPIRE_CLI_COMMAND(20, [](CLI::App& app) -> std::function<int()> {
  auto* cmd = app.add_subcommand("ops", "list the primitive ops and the backends that run them");
  auto filter = std::make_shared<std::string>();
  auto backend = std::make_shared<std::string>();
  cmd->add_option("filter", *filter, "show only ops whose name contains this");
  cmd->add_option("--backend", *backend, "show only ops with a kernel for this backend")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  return [=] { return list_ops(*filter, *backend); };
});

int list_devices() {
  std::cout << "cpu\n";
  int n = cuda_device_count();
  for (int i = 0; i < n; ++i) std::cout << device_description(Device{DeviceKind::CUDA, i}) << "\n";
  if (n == 0) std::cout << "(" << unavailable_reason(DeviceKind::CUDA) << ")\n";
  return 0;
}

SPIRE_CLI_COMMAND(30, [](CLI::App& app) -> std::function<int()> {
  app.add_subcommand("devices", "list the devices Spire can use here (one per line)");
  return list_devices;
});

}  // namespace
}  // namespace spire::cli
