// Update plans (update_plan.h): the CPU kernels' layout and curl terms (curl_terms.h) over any arrays.
#include "science/elec/cuda/update_plan.h"

#include "science/elec/curl_terms.h"

namespace spire::elec::cuda {

bool has_psi(const YeeLattice& lattice, const ResolvedBoundaries& boundaries, Component c, int axis) {
  const AxisBoundary& ab = boundaries.axis[size_t(axis)];
  return lattice.has(c) && axis != axis_of(c) && lattice.has_axis(axis) && ab.active &&
         ab.pml_low + ab.pml_high > 0;
}

int64_t psi_length(const YeeLattice& lattice, const ResolvedBoundaries& boundaries, int axis) {
  const AxisBoundary& ab = boundaries.axis[size_t(axis)];
  return lattice.samples() / lattice.n(axis) * (ab.pml_low + ab.pml_high);
}

template <class T>
StepPlan<T> make_step_plan(const YeeLattice& lattice, const ResolvedBoundaries& bc, const ArrayPointers<T>& arrays,
                           bool magnetic) {
  const fdtd::Layout L = fdtd::make_layout(lattice);
  StepPlan<T> plan;
  for (int m = 0; m < 3; ++m) {
    plan.n[m] = L.n[size_t(m)];
    plan.stride[m] = L.stride[size_t(m)];
  }
  const int kind = magnetic ? 1 : 0;  // the CPML tables: H differentiates at half-integer positions
  for (Component c : lattice.components()) {
    if (is_electric(c) == magnetic) continue;
    const size_t ci = size_t(int(c));
    ComponentPlan<T> u;
    u.out = arrays.field[ci];
    u.decay = arrays.decay[ci];
    u.scale = arrays.scale[ci];
    u.scale_uniform = arrays.scale_uniform[ci];
    const fdtd::CurlTerms terms = fdtd::curl_terms(lattice, c);
    for (int t = 0; t < terms.count; ++t) {
      const int axis = terms.term[t].axis;
      TermPlan<T>& tm = u.term[u.terms++];
      tm.src = arrays.field[size_t(int(terms.term[t].source))];
      tm.l = L.logical[size_t(axis)];
      tm.negative = terms.term[t].negative;
      const AxisBoundary& ab = bc.axis[size_t(axis)];
      if (ab.active && ab.pml_low + ab.pml_high > 0) {
        tm.b = arrays.pml_b[size_t(axis)][size_t(kind)];
        tm.c = arrays.pml_c[size_t(axis)][size_t(kind)];
        tm.kappa_term = arrays.pml_kappa_term[size_t(axis)][size_t(kind)];
        tm.psi = arrays.psi[ci][size_t(axis)];
        tm.pml_low = arrays.pml_low[size_t(axis)];
        tm.pml_high = arrays.pml_high[size_t(axis)];
      }
    }
    if (u.terms > 0) plan.component[plan.components++] = u;
  }
  return plan;
}

template StepPlan<float> make_step_plan<float>(const YeeLattice&, const ResolvedBoundaries&,
                                               const ArrayPointers<float>&, bool);
template StepPlan<double> make_step_plan<double>(const YeeLattice&, const ResolvedBoundaries&,
                                                 const ArrayPointers<double>&, bool);

}  // namespace spire::elec::cuda
