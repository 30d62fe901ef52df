// SourceCurrents (source_currents.h).
#include "science/elec/source_currents.h"

#include <string>

#include "engine/core/error.h"

namespace spire::elec {

void SourceCurrents::add() {
  currents_.emplace_back();
  asked_at_.push_back(kNever);
}

bool SourceCurrents::evaluate(const SourceSamples& s, size_t si, double t_mid, double dt) {
  if (t_mid + dt < s.start_time() || t_mid - dt > s.end_time()) return false;
  std::vector<std::complex<double>>& out = currents_[si];
  if (!s.distributed) {
    out.assign(1, s.profile->current(t_mid, dt));
    return out[0] != std::complex<double>(0.0);
  }
  if (asked_at_[si] != t_mid) {
    out.resize(s.index.size());
    s.distributed->currents(t_mid, dt, out.data());
    asked_at_[si] = t_mid;
  }
  return true;
}

void SourceCurrents::save_state(const std::vector<SourceSamples>& sources, SimulationState& out) const {
  for (size_t si = 0; si < sources.size(); ++si) {
    if (!sources[si].distributed) continue;
    const std::string name = "source/" + std::to_string(si);
    out.push_back({name, sources[si].distributed->save_state()});
    std::vector<double> asked{asked_at_[si]};
    if (asked_at_[si] != kNever)
      for (const std::complex<double>& j : currents_[si]) asked.insert(asked.end(), {j.real(), j.imag()});
    out.push_back({name + "/asked", std::move(asked)});
  }
}

void SourceCurrents::load_state(const std::vector<SourceSamples>& sources, const SimulationState& in) {
  for (size_t si = 0; si < sources.size(); ++si) {
    if (!sources[si].distributed) continue;
    const std::string name = "source/" + std::to_string(si);
    sources[si].distributed->load_state(find_state(in, name).values);
    const std::vector<double>& asked = find_state(in, name + "/asked").values;
    const size_t n = sources[si].index.size();
    SPIRE_CHECK(asked.size() == 1 || asked.size() == 1 + 2 * n, ValueError, "simulation state: array '", name,
                "/asked' has ", asked.size(), " values, this run needs 1 or ", 1 + 2 * n);
    asked_at_[si] = asked.size() == 1 ? kNever : asked[0];
    currents_[si].resize(asked.size() == 1 ? 0 : n);
    for (size_t i = 0; i < currents_[si].size(); ++i) currents_[si][i] = {asked[1 + 2 * i], asked[2 + 2 * i]};
  }
}

}  // namespace spire::elec
