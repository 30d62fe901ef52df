// Compulsory memory traffic of an FDTD step (traffic.h).
#include "science/elec/cuda/traffic.h"

#include <array>

#include "science/elec/cuda/update_plan.h"
#include "science/elec/curl_terms.h"
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
    // The curl terms every update takes (curl_terms.h): E from H, H from E.
    const fdtd::CurlTerms terms = fdtd::curl_terms(lattice, c);
    for (int t = 0; t < terms.count; ++t) {
      const fdtd::CurlTerm& term = terms.term[t];
      differentiated[size_t(int(term.source))] = true;
      if (has_psi(lattice, bc, c, term.axis)) words += 2 * double(psi_length(lattice, bc, term.axis));
    }
    if (terms.count == 0) continue;
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
