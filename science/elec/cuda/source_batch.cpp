// Source entries of the cuda platform (source_batch.h).
#include "science/elec/cuda/source_batch.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "engine/core/error.h"

namespace spire::elec::cuda {

void SourceBatch::rebuild(const std::vector<SourceSamples>& sources, bool electric,
                          const std::function<double(Component, int64_t)>& source_factor) {
  sources_ = sources.size();
  slots_ = 0;
  members_.clear();
  struct Raw {
    int64_t index;
    double factor;
    int32_t slot, source;
    int8_t component;
  };
  std::vector<Raw> raw;
  for (size_t si = 0; si < sources.size(); ++si) {
    const SourceSamples& s = sources[si];
    if (is_electric(s.component) != electric) continue;
    const int8_t c = int8_t(int(s.component));
    const size_t n = s.index.size();
    SPIRE_CHECK(int64_t(slots_) + int64_t(n) < (int64_t(1) << 31), ValueError, "platform cuda: source ", si, " has ",
                n, " samples; the sources of one kind may have at most 2^31 - 1 in all");
    const bool real_weights = !s.distributed && std::all_of(s.weight.begin(), s.weight.end(),
                                                            [](const std::complex<double>& w) { return w.imag() == 0; });
    Member m{si, slots_, real_weights, {}};
    for (size_t i = 0; i < n; ++i) {
      const double sf = source_factor(s.component, s.index[i]);
      if (real_weights) {
        raw.push_back({s.index[i], sf * s.weight[i].real(), slots_, int32_t(si), c});
      } else {
        m.source_factor.push_back(sf);
        raw.push_back({s.index[i], 1.0, slots_ + int32_t(i), int32_t(si), c});
      }
    }
    slots_ += real_weights ? 1 : int32_t(n);
    members_.push_back(std::move(m));
  }
  // Layer of each entry: how many earlier entries hit the same sample of the same component.
  std::unordered_map<int64_t, int64_t> hits;
  std::vector<int64_t> layer(raw.size());
  int64_t layers = 0;
  for (size_t e = 0; e < raw.size(); ++e) {
    layer[e] = hits[raw[e].index * 8 + raw[e].component]++;
    layers = std::max(layers, layer[e] + 1);
  }
  std::vector<size_t> order(raw.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return layer[a] < layer[b]; });
  index.clear(), factor.clear(), slot.clear(), source.clear(), component.clear();
  layer_begin.assign(size_t(layers) + 1, int64_t(raw.size()));
  for (size_t k = 0; k < order.size(); ++k) {
    const Raw& r = raw[order[k]];
    const int64_t l = layer[order[k]];
    if (layer_begin[size_t(l)] == int64_t(raw.size())) layer_begin[size_t(l)] = int64_t(k);
    index.push_back(r.index);
    factor.push_back(r.factor);
    slot.push_back(r.slot);
    source.push_back(r.source);
    component.push_back(r.component);
  }
}

bool SourceBatch::fill(const std::vector<SourceSamples>& sources, SourceCurrents& currents, double t_mid, double dt,
                       std::vector<double>& upload) const {
  upload.assign(upload_size(), 0.0);
  double* on = upload.data();
  double* values = upload.data() + sources_;
  bool any = false;
  // In source order, as the CPU asks them: distributed currents may share state.
  for (const Member& m : members_) {
    const SourceSamples& s = sources[m.source];
    if (!currents.evaluate(s, m.source, t_mid, dt)) continue;
    on[m.source] = 1;
    any = true;
    if (m.scalar) {
      values[m.first_slot] = currents.current(s, m.source, 0).real();
      continue;
    }
    for (size_t i = 0; i < s.index.size(); ++i) {
      // simulation.cpp's add_source_sample, expression for expression.
      const std::complex<double> v = m.source_factor[i] * s.weight[i] * currents.current(s, m.source, i);
      values[size_t(m.first_slot) + i] = v.real();
    }
  }
  return any;
}

}  // namespace spire::elec::cuda
