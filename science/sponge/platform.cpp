// The platform registry and the "cpu" / "name:device" choice (platform.h).
//
// The registry is a function-local static, so a platform library's static initialiser may
// register before anything in this library has run (the order in which shared libraries
// initialise is the loader's). A mutex guards it: Python may list platforms from one thread while
// another builds a Simulation.
#include "science/sponge/platform.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>

#include "engine/core/error.h"

namespace spire::sponge {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, DeviceDynamicsFactory> factories;  // by name, so listed in name order
};

Registry& registry() {
  static Registry r;
  return r;
}

std::string platform_list() { return detail::join(platforms()); }

}  // namespace

void register_platform(const std::string& name, DeviceDynamicsFactory factory) {
  const bool plain = std::all_of(name.begin(), name.end(),
                                 [](unsigned char c) { return std::islower(c) || std::isdigit(c) || c == '_'; });
  SPIRE_CHECK(!name.empty() && plain, ValueError, "register_platform: the name '", name,
              "' must be lower-case letters, digits and underscores (a device index follows a ':')");
  SPIRE_CHECK(name != "cpu", ValueError,
              "register_platform: 'cpu' is this library's own platform and cannot be registered");
  SPIRE_CHECK(factory != nullptr, ValueError, "register_platform: platform '", name, "' has no factory");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.factories[name] = std::move(factory);
}

std::vector<std::string> platforms() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> out{"cpu"};
  for (const auto& entry : r.factories) out.push_back(entry.first);
  return out;
}

PlatformChoice parse_platform(const std::string& text) {
  const size_t colon = text.find(':');
  PlatformChoice choice;
  choice.name = text.substr(0, colon);
  const std::vector<std::string> known = platforms();
  SPIRE_CHECK(std::find(known.begin(), known.end(), choice.name) != known.end(), ConfigError, "unknown platform '",
              text, "'; this build has: ", detail::join(known),
              " (a device platform takes an optional device index, as in cuda:1)");
  if (colon == std::string::npos) return choice;
  SPIRE_CHECK(choice.name != "cpu", ConfigError, "platform '", text,
              "': cpu takes no device index (it runs on this process's threads)");
  const std::string index = text.substr(colon + 1);
  // Digits only (no sign, no spaces): std::stoi would take "1x" or " 1".
  const bool digits = !index.empty() && index.size() <= 6 &&
                      std::all_of(index.begin(), index.end(), [](unsigned char c) { return std::isdigit(c); });
  SPIRE_CHECK(digits, ConfigError, "platform '", text, "': the device index must be an integer >= 0, as in ",
              choice.name, ":0 or ", choice.name, ":1");
  choice.device = std::stoi(index);
  return choice;
}

std::unique_ptr<DeviceDynamics> make_device_dynamics(const PlatformChoice& platform, const System& system,
                                                     const ForceField& forces, const Integrator& integrator,
                                                     uint64_t seed) {
  SPIRE_CHECK(platform.name != "cpu", ConfigError,
              "make_device_dynamics: the cpu platform has no device dynamics (the Simulation steps its own "
              "integrator)");
  SPIRE_CHECK(platform.device >= 0, ConfigError, "platform ", platform.name, ":", platform.device,
              ": the device index must be >= 0");
  DeviceDynamicsFactory factory;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.factories.find(platform.name);
    if (it != r.factories.end()) factory = it->second;
  }
  SPIRE_CHECK(factory != nullptr, ConfigError, "unknown platform '", platform.name, "'; this build has: ",
              platform_list());
  std::unique_ptr<DeviceDynamics> dynamics = factory(system, forces, integrator, seed, platform.device);
  SPIRE_CHECK(dynamics != nullptr, ConfigError, "platform '", platform.name, "' made no dynamics");
  return dynamics;
}

}  // namespace spire::sponge
