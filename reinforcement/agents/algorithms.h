// The algorithms `spire rl train` and spire.rl know by name ("ppo", "a2c", "dqn"); users add
// their own with register_algorithm, from C++ or Python.
#pragma once
#include <string>
#include <vector>

#include "reinforcement/dataflow/fragment.h"

namespace spire::rl::agents {

void register_algorithm(const std::string& name, dataflow::AlgorithmFactory factory);
// ConfigError naming the registered algorithms when `name` is not one.
std::unique_ptr<dataflow::Algorithm> make_algorithm(const std::string& name, data::JobSection& section,
                                                    const dataflow::RunSettings& run);
std::vector<std::string> registered_algorithms();

}  // namespace spire::rl::agents
