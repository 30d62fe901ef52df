// Compulsory memory traffic of an FDTD step (traffic.h).
#include "science/elec/cuda/traffic.h"

#include <array>

#include "science/elec/cuda/update_plan.h"
#include "science/elec/fdtd_update.h"

namespace spire::elec::cuda {

StepTraffic step_traffic(const YeeLattice& lattice, const ResolvedBoundaries& bc, const MaterialArrays& materials,
                         double dt, Precision precision) {
  const double n = double(lattice.samples());
  const double word = precision == Precision::float32 ? 4 : 8;
  // Which components keep per-sample decay and scale: the updates' own decision.
  const UpdateCoefficients<float> co = make_update_coefficients<float>(materials, lattice, dt, false);
  std::array<bool, 6> differentiated{};
  double words = 0;
  for (Component c : lattice.components()) {
    // The curl terms as update_plan.cpp resolves them: E from H, H from E.
    const int own = axis_of(c), a = (own + 1) % 3, b = (own + 2) % 3;
    const int base = is_electric(c) ? 3 : 0;
    const int terms[2][2] = {{a, b}, {b, a}};
    int count = 0;
    for (const auto& t : terms) {
      const Component src = Component(base + t[1]);
      if (!lattice.has_axis(t[0]) || !lattice.has(src)) continue;
      ++count;
      differentiated[size_t(int(src))] = true;
      if (has_psi(lattice, bc, c, t[0])) words += 2 * double(psi_length(lattice, bc, t[0]));
    }
    if (count == 0) continue;
    const size_t ci = size_t(int(c));
    words += 2 * n + (co.decay[ci].empty() ? 0 : n) + (co.scale[ci].empty() ? 0 : n);
  }
  for (Component c : lattice.components())
    if (differentiated[size_t(int(c))]) words += n;
  StepTraffic t;
  t.bytes_per_step = words * word;
  t.bytes_per_cell_update = t.bytes_per_step / n;
  return t;
}

}  // namespace spire::elec::cuda
