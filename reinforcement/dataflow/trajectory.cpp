#include "reinforcement/dataflow/trajectory.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/ops/shape.h"

namespace spire::rl::dataflow {

void Episodes::append(const Episodes& other) {
  returns.insert(returns.end(), other.returns.begin(), other.returns.end());
  lengths.insert(lengths.end(), other.lengths.begin(), other.lengths.end());
}

bool Trajectory::has(const std::string& name) const {
  return std::any_of(fields.begin(), fields.end(), [&](const Field& f) { return f.name == name; });
}

const Tensor& Trajectory::operator[](const std::string& name) const {
  for (const Field& f : fields)
    if (f.name == name) return f.value;
  std::vector<std::string> names;
  for (const Field& f : fields) names.push_back(f.name);
  throw ValueError(detail::cat("trajectory: no field \"", name, "\"; it has ", detail::join(names)));
}

Trajectory join(std::vector<Trajectory> parts) {
  SPIRE_CHECK(!parts.empty(), ValueError, "join: no trajectories");
  if (parts.size() == 1) return std::move(parts[0]);
  Trajectory out;
  out.actor = parts[0].actor;
  out.version = parts[0].version;
  for (const Trajectory& p : parts) {
    SPIRE_CHECK(p.fields.size() == parts[0].fields.size(), ValueError, "join: actor ", p.actor, "'s trajectory has ",
                p.fields.size(), " fields, actor ", parts[0].actor, "'s ", parts[0].fields.size());
    out.version = std::min(out.version, p.version);
    out.env_steps += p.env_steps;
    out.episodes.append(p.episodes);
  }
  for (size_t i = 0; i < parts[0].fields.size(); ++i) {
    const Field& first = parts[0].fields[i];
    std::vector<Tensor> values;
    for (const Trajectory& p : parts) {
      const Field& f = p.fields[i];
      SPIRE_CHECK(f.name == first.name && f.env_axis == first.env_axis, ValueError, "join: field ", i, " is \"",
                  f.name, "\" (env axis ", f.env_axis, ") in actor ", p.actor, "'s trajectory but \"", first.name,
                  "\" (env axis ", first.env_axis, ") in actor ", parts[0].actor, "'s");
      values.push_back(f.value);
    }
    out.fields.push_back({first.name, concat(values, first.env_axis), first.env_axis});
  }
  return out;
}

}  // namespace spire::rl::dataflow
