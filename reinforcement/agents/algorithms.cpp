#include "reinforcement/agents/algorithms.h"

#include "reinforcement/agents/a2c.h"
#include "reinforcement/agents/dqn.h"
#include "reinforcement/agents/ppo.h"
#include "reinforcement/common/named_registry.h"

namespace spire::rl::agents {
namespace {

NamedRegistry<dataflow::AlgorithmFactory>& registry() {
  static NamedRegistry<dataflow::AlgorithmFactory> r("algorithm",
                                                     {{"ppo", make_ppo}, {"a2c", make_a2c}, {"dqn", make_dqn}});
  return r;
}

}  // namespace

void register_algorithm(const std::string& name, dataflow::AlgorithmFactory factory) {
  registry().add(name, std::move(factory));
}

std::vector<std::string> registered_algorithms() { return registry().names(); }

std::unique_ptr<dataflow::Algorithm> make_algorithm(const std::string& name, data::JobSection& section,
                                                    const dataflow::RunSettings& run) {
  dataflow::AlgorithmFactory factory;
  try {
    factory = registry().find(name);
  } catch (const ValueError& e) {
    throw ConfigError(detail::cat(section.where(), ": ", e.what()));
  }
  return factory(section, run);
}

}  // namespace spire::rl::agents
