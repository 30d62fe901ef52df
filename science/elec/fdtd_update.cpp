// The Yee update kernels (fdtd_update.h).
#include "science/elec/fdtd_update.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "science/elec/fdtd_row.h"

namespace spire::elec {

namespace {

using fdtd::ComponentUpdate;
using fdtd::Layout;
using fdtd::Scratch;

// Samples below which the kernels stay on one thread: a fork costs more than the work.
constexpr int64_t kParallelSamples = 32768;

template <class T, bool kH>
void curl_step(Fields<T>& fields, Cpml<T>& cpml, const UpdateCoefficients<T>& co, const ResolvedBoundaries& bc) {
  const YeeLattice& lattice = fields.lattice();
  const Layout L = fdtd::make_layout(lattice);
  const int parts = fields.parts();
  const std::vector<ComponentUpdate<T>> updates = fdtd::component_updates(fields, cpml, co, bc, L, kH);
  if (updates.empty()) return;
  const int64_t N0 = L.n[0], N1 = L.n[1], N2 = L.n[2];
  // Rows per block along the middle axis: two planes' worth of the block's rows (outputs and
  // sources) within about 1 MiB of L2.
  const int64_t rows_touched = int64_t(updates.size()) * 3 * parts;
  const int64_t row_bytes = N2 * int64_t(sizeof(T));
  const int64_t block = std::max<int64_t>(1, (int64_t(1) << 20) / std::max<int64_t>(1, row_bytes * rows_touched));
#pragma omp parallel if (lattice.samples() >= kParallelSamples)
  {
    const int threads = omp_get_num_threads(), id = omp_get_thread_num();
    int64_t a0 = 0, b0 = N0, a1 = 0, b1 = N1;
    if (N0 >= 2 * threads) {
      a0 = N0 * id / threads;
      b0 = N0 * (id + 1) / threads;
    } else {
      a1 = N1 * id / threads;
      b1 = N1 * (id + 1) / threads;
    }
    Scratch<T> scratch;
    for (int64_t j0 = a1; j0 < b1; j0 += block) {
      const int64_t j1 = std::min(b1, j0 + block);
      for (int64_t l0 = a0; l0 < b0; ++l0)
        for (const ComponentUpdate<T>& u : updates) fdtd::process_rows<T, kH>(L, u, parts, l0, j0, j1, scratch);
    }
  }
}

// The logical axis step_h_e sweeps: the first with more than one sample of the two outer ones.
int sweep_axis(const Layout& L) { return L.n[0] > 1 ? 0 : 1; }

void check_array(const std::vector<double>& v, size_t n, const char* what, Component c, bool allow_empty) {
  if (allow_empty && v.empty()) return;
  SPIRE_CHECK(v.size() == n, ValueError, "MaterialArrays: ", what, " of ", to_string(c), " has ", v.size(),
              " samples; the lattice has ", n);
  for (size_t i = 0; i < n; ++i)
    SPIRE_CHECK(std::isfinite(v[i]) && v[i] >= 0, ValueError, "MaterialArrays: ", what, " of ", to_string(c),
                " at sample ", i, " is ", v[i], "; it must be finite and >= 0");
}

}  // namespace

template <class T>
UpdateCoefficients<T> make_update_coefficients(const MaterialArrays& m, const YeeLattice& lattice, double dt,
                                               bool d_stored) {
  UpdateCoefficients<T> co;
  co.dx = lattice.dx();
  const size_t n = size_t(lattice.samples());
  for (Component c : lattice.components()) {
    const size_t ci = size_t(int(c));
    const bool electric = is_electric(c);
    check_array(m.inverse[ci], n, electric ? "inv_eps" : "inv_mu", c, false);
    check_array(m.conductivity[ci], n, electric ? "sigma_e" : "sigma_m", c, true);
    const std::vector<double>& inv = m.inverse[ci];
    const std::vector<double>& sigma = m.conductivity[ci];
    const double base = (electric ? 1.0 : -1.0) * dt / co.dx;
    const bool target_is_d = electric && d_stored;
    const bool lossy = std::any_of(sigma.begin(), sigma.end(), [](double s) { return s != 0; });
    const bool uniform = target_is_d || std::all_of(inv.begin(), inv.end(), [&](double v) { return v == inv[0]; });
    auto inv_at = [&](size_t i) { return target_is_d ? 1.0 : inv[i]; };
    if (!lossy && uniform) {
      co.scale_uniform[ci] = T(base * inv_at(0));
    } else {
      co.scale[ci].resize(n);
      if (lossy) co.decay[ci].resize(n);
      for (size_t i = 0; i < n; ++i) {
        const double h = lossy ? 0.5 * sigma[i] * dt : 0.0;
        co.scale[ci][i] = T(base * inv_at(i) / (1 + h));
        if (lossy) co.decay[ci][i] = T((1 - h) / (1 + h));
      }
    }
    if (target_is_d) co.inv_eps[ci].assign(inv.begin(), inv.end());
  }
  return co;
}

int64_t sweep_planes(const YeeLattice& lattice) {
  const Layout L = fdtd::make_layout(lattice);
  return L.n[size_t(sweep_axis(L))];
}

int64_t sweep_plane_of(const YeeLattice& lattice, int64_t index) {
  const Layout L = fdtd::make_layout(lattice);
  const int s = sweep_axis(L);
  return (index / L.stride[size_t(s)]) % L.n[size_t(s)];
}

template <class T>
void step_h_e(Fields<T>& fields, Cpml<T>& cpml, const UpdateCoefficients<T>& co, const ResolvedBoundaries& bc,
              const std::function<void(int64_t)>& after_h) {
  const YeeLattice& lattice = fields.lattice();
  const Layout L = fdtd::make_layout(lattice);
  const int parts = fields.parts();
  const std::vector<ComponentUpdate<T>> hu = fdtd::component_updates(fields, cpml, co, bc, L, true);
  const std::vector<ComponentUpdate<T>> eu = fdtd::component_updates(fields, cpml, co, bc, L, false);
  const int s = sweep_axis(L);
  const int64_t planes = L.n[size_t(s)];
  // A plane is l0 = q (s = 0) or l1 = q (s = 1, where the problem has a single l0).
  auto h_plane = [&](int64_t q, Scratch<T>& scratch) {
    for (const ComponentUpdate<T>& u : hu)
      if (s == 0)
        fdtd::process_rows<T, true>(L, u, parts, q, 0, L.n[1], scratch);
      else
        for (int64_t r = 0; r < L.n[0]; ++r) fdtd::process_rows<T, true>(L, u, parts, r, q, q + 1, scratch);
    if (after_h) after_h(q);
  };
  auto e_plane = [&](int64_t q, Scratch<T>& scratch) {
    for (const ComponentUpdate<T>& u : eu)
      if (s == 0)
        fdtd::process_rows<T, false>(L, u, parts, q, 0, L.n[1], scratch);
      else
        for (int64_t r = 0; r < L.n[0]; ++r) fdtd::process_rows<T, false>(L, u, parts, r, q, q + 1, scratch);
  };
  // H of plane q reads E of planes q and q+1 before they change; E of plane q reads H of q and
  // q-1 after they have. Sweeping up, H(q) then E(q) keeps both orders, except across the ends
  // of a thread's range [a, b): E(a) waits (after the barrier) until the neighbour below has
  // done H(a-1), which must still see the old E(a). Plane 0 closes the periodic wrap the same way.
#pragma omp parallel if (lattice.samples() >= kParallelSamples)
  {
    const int threads = omp_get_num_threads(), id = omp_get_thread_num();
    const int64_t a = planes * id / threads, b = planes * (id + 1) / threads;
    Scratch<T> scratch;
    if (a < b) {
      h_plane(a, scratch);
      for (int64_t q = a + 1; q < b; ++q) {
        h_plane(q, scratch);
        e_plane(q, scratch);
      }
    }
#pragma omp barrier
    if (a < b) e_plane(a, scratch);
  }
}

template <class T>
void zero_walls_in_plane(Fields<T>& fields, const ResolvedBoundaries& bc, bool electric, int64_t plane) {
  const YeeLattice& lattice = fields.lattice();
  const Layout L = fdtd::make_layout(lattice);
  const int s = sweep_axis(L);
  int ps = 0;  // the physical axis swept
  for (int a = 0; a < 3; ++a)
    if (L.logical[size_t(a)] == s) ps = a;
  const Wall wall = electric ? Wall::pec : Wall::pmc;
  for (int axis = 0; axis < 3; ++axis) {
    if (!bc.axis[size_t(axis)].active || bc.axis[size_t(axis)].wall != wall) continue;
    if (axis == ps && plane != 0) continue;
    for (Component c : lattice.components()) {
      if (is_electric(c) != electric || axis_of(c) == axis) continue;
      for (int p = 0; p < fields.parts(); ++p) {
        T* f = fields.data(c, FieldPart(p));
        std::array<int64_t, 3> lo{0, 0, 0}, hi = lattice.shape();
        hi[size_t(axis)] = 1;
        lo[size_t(ps)] = plane;
        hi[size_t(ps)] = plane + 1;
        for (int64_t i = lo[0]; i < hi[0]; ++i)
          for (int64_t j = lo[1]; j < hi[1]; ++j)
            for (int64_t k = lo[2]; k < hi[2]; ++k) f[lattice.index(i, j, k)] = T(0);
      }
    }
  }
}

template <class T>
void step_h(Fields<T>& fields, Cpml<T>& cpml, const UpdateCoefficients<T>& co, const ResolvedBoundaries& bc) {
  curl_step<T, true>(fields, cpml, co, bc);
}

template <class T>
void step_e(Fields<T>& fields, Cpml<T>& cpml, const UpdateCoefficients<T>& co, const ResolvedBoundaries& bc) {
  curl_step<T, false>(fields, cpml, co, bc);
}

template <class T>
void e_from_d(Fields<T>& fields, const UpdateCoefficients<T>& co, Component c, FieldPart part, const T* p) {
  T* __restrict e = fields.data(c, part);
  const T* __restrict d = fields.d(c, part);
  const T* __restrict inv = co.inv_eps[size_t(int(c))].data();
  const int64_t n = fields.lattice().samples();
  SPIRE_CHECK(e && d && inv, ValueError, "e_from_d: ", to_string(c), " has no stored D");
#pragma omp parallel for schedule(static) if (n >= 32768)
  for (int64_t i = 0; i < n; ++i) e[i] = inv[i] * (p ? d[i] - p[i] : d[i]);
}

template <class T>
void zero_walls(Fields<T>& fields, const ResolvedBoundaries& bc, bool electric, bool target_d) {
  const YeeLattice& lattice = fields.lattice();
  const Wall wall = electric ? Wall::pec : Wall::pmc;
  for (int axis = 0; axis < 3; ++axis) {
    if (!bc.axis[size_t(axis)].active || bc.axis[size_t(axis)].wall != wall) continue;
    for (Component c : lattice.components()) {
      if (is_electric(c) != electric || axis_of(c) == axis) continue;
      for (int p = 0; p < fields.parts(); ++p) {
        T* f = target_d ? fields.d(c, FieldPart(p)) : fields.data(c, FieldPart(p));
        std::array<int64_t, 3> lo{0, 0, 0}, hi = lattice.shape();
        hi[size_t(axis)] = 1;
        for (int64_t i = lo[0]; i < hi[0]; ++i)
          for (int64_t j = lo[1]; j < hi[1]; ++j)
            for (int64_t k = lo[2]; k < hi[2]; ++k) f[lattice.index(i, j, k)] = T(0);
      }
    }
  }
}

#define SPIRE_ELEC_INSTANTIATE(T)                                                                              \
  template UpdateCoefficients<T> make_update_coefficients<T>(const MaterialArrays&, const YeeLattice&, double, \
                                                             bool);                                            \
  template void step_h<T>(Fields<T>&, Cpml<T>&, const UpdateCoefficients<T>&, const ResolvedBoundaries&);      \
  template void step_e<T>(Fields<T>&, Cpml<T>&, const UpdateCoefficients<T>&, const ResolvedBoundaries&);      \
  template void e_from_d<T>(Fields<T>&, const UpdateCoefficients<T>&, Component, FieldPart, const T*);         \
  template void zero_walls<T>(Fields<T>&, const ResolvedBoundaries&, bool, bool);                              \
  template void zero_walls_in_plane<T>(Fields<T>&, const ResolvedBoundaries&, bool, int64_t);                  \
  template void step_h_e<T>(Fields<T>&, Cpml<T>&, const UpdateCoefficients<T>&, const ResolvedBoundaries&,     \
                            const std::function<void(int64_t)>&);
SPIRE_ELEC_INSTANTIATE(float)
SPIRE_ELEC_INSTANTIATE(double)
#undef SPIRE_ELEC_INSTANTIATE

}  // namespace spire::elec
