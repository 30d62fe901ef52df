// The transpose of one FDTD step (adjoint_step.h).
#include "science/elec/adjoint_step.h"

#include <omp.h>

#include <algorithm>
#include <string>

#include "engine/core/error.h"

namespace spire::elec {

namespace {

// Below this many samples the passes stay on one thread (as the forward kernels: a fork costs more
// than the work).
constexpr int64_t kParallelSamples = 32768;

std::string field_name(Component c) { return "E/" + to_string(c) + "/re"; }
std::string psi_name(Component c, int axis) { return "psi/" + to_string(c) + "/" + "xyz"[axis] + "/re"; }

}  // namespace

AdjointStep::AdjointStep(const YeeLattice& lattice, const MaterialArrays& materials, const Boundaries& boundaries,
                         double dt)
    : lattice_(lattice), bc_(resolve(boundaries, lattice)), dt_(dt), L_(fdtd::make_layout(lattice)) {
  SPIRE_CHECK(!bc_.complex_fields(), ConfigError,
              "AdjointStep: bloch boundaries make the fields complex; the adjoint step covers real runs only "
              "(pec, pmc, pml and periodic walls)");
  co_ = make_update_coefficients<double>(materials, lattice, dt, false);
  {
    const Cpml<double> cpml(lattice, bc_, boundaries.pml_profile, dt, false);
    for (int a = 0; a < 3; ++a) tables_[size_t(a)] = cpml.axis(a);
  }
  // The curl terms as the forward kernels take them (curl_terms.h).
  for (Component c : lattice.components()) {
    Update u;
    u.c = c;
    const fdtd::CurlTerms terms = fdtd::curl_terms(lattice, c);
    for (int t = 0; t < terms.count; ++t) {
      const int axis = terms.term[t].axis;
      Term& tm = u.term[u.terms++];
      tm.src = terms.term[t].source;
      tm.axis = axis;
      tm.l = L_.logical[size_t(axis)];
      tm.sign = terms.term[t].negative ? -1.0 : 1.0;
      tm.psi = tables_[size_t(axis)].active();
    }
    if (u.terms == 0) continue;
    (is_electric(c) ? e_updates_ : h_updates_).push_back(u);
  }
}

int64_t AdjointStep::psi_size(int axis) const {
  return lattice_.samples() / lattice_.n(axis) * tables_[size_t(axis)].slabs();
}

RunState AdjointStep::zero_state() const {
  RunState s;
  const size_t n = size_t(lattice_.samples());
  for (Component c : lattice_.components()) s.field[size_t(int(c))].assign(n, 0.0);
  for (const auto* list : {&e_updates_, &h_updates_})
    for (const Update& u : *list)
      for (int t = 0; t < u.terms; ++t)
        if (u.term[t].psi)
          s.psi[size_t(int(u.c))][size_t(u.term[t].axis)].assign(size_t(psi_size(u.term[t].axis)), 0.0);
  return s;
}

RunState AdjointStep::from_state(const SimulationState& state) const {
  RunState s = zero_state();
  for (Component c : lattice_.components()) {
    const StateArray& a = find_state(state, field_name(c), lattice_.samples());
    std::copy(a.values.begin(), a.values.end(), s.field[size_t(int(c))].begin());
    for (int axis = 0; axis < 3; ++axis) {
      auto& psi = s.psi[size_t(int(c))][size_t(axis)];
      if (psi.empty()) continue;
      const StateArray& p = find_state(state, psi_name(c, axis), int64_t(psi.size()));
      std::copy(p.values.begin(), p.values.end(), psi.begin());
    }
  }
  return s;
}

SimulationState AdjointStep::to_state(const RunState& s, int64_t steps) const {
  SimulationState out;
  out.push_back({"steps", {double(steps)}});
  for (Component c : lattice_.components()) {
    const auto& f = s.field[size_t(int(c))];
    out.push_back({field_name(c), std::vector<double>(f.begin(), f.end())});
    for (int axis = 0; axis < 3; ++axis) {
      const auto& psi = s.psi[size_t(int(c))][size_t(axis)];
      if (!psi.empty()) out.push_back({psi_name(c, axis), std::vector<double>(psi.begin(), psi.end())});
    }
  }
  return out;
}

double AdjointStep::dot(const RunState& a, const RunState& b) const {
  double total = 0;
  auto add = [&](const AlignedVector<double>& x, const AlignedVector<double>& y) {
    SPIRE_CHECK(x.size() == y.size(), ValueError, "AdjointStep::dot: arrays of ", x.size(), " and ", y.size(),
                " values");
    for (size_t i = 0; i < x.size(); ++i) total += x[i] * y[i];
  };
  for (int c = 0; c < 6; ++c) {
    add(a.field[size_t(c)], b.field[size_t(c)]);
    for (int axis = 0; axis < 3; ++axis) add(a.psi[size_t(c)][size_t(axis)], b.psi[size_t(c)][size_t(axis)]);
  }
  return total;
}

void AdjointStep::project_electric(RunState& lambda) const {
  for (int axis = 0; axis < 3; ++axis) {
    if (!bc_.axis[size_t(axis)].active || bc_.axis[size_t(axis)].wall != Wall::pec) continue;
    for (Component c : lattice_.components()) {
      if (!is_electric(c) || axis_of(c) == axis) continue;
      double* f = lambda.field[size_t(int(c))].data();
      std::array<int64_t, 3> hi = lattice_.shape();
      hi[size_t(axis)] = 1;
      for (int64_t i = 0; i < hi[0]; ++i)
        for (int64_t j = 0; j < hi[1]; ++j)
          for (int64_t k = 0; k < hi[2]; ++k) f[lattice_.index(i, j, k)] = 0.0;
    }
  }
}

void AdjointStep::apply(RunState& lambda) const {
  project_electric(lambda);
  apply_projected(lambda);
}

// The transpose of each half step, L_E^T then L_H^T, with D_t = S + C_t: S = scale lambda_f' is
// shared by both terms of a component, C_t = (kt + c) S + c lambda_psi_t' exists only where psi
// does. pass1 writes S (one array per component) and C_t (psi-shaped) for one row, pass2 adds into
// one row of every source component the differences of S of each term that reads it, then those of
// C_t inside the slabs, gathered from the row and its neighbour rows.
//
// One sweep over the planes of the sweep axis (fdtd_row.h's Layout: x in 3D and 2D's outer logical
// axis otherwise) does all of it, so that every array streams through memory about once, as in the
// forward step_h_e. Plane q: pass1_E(q + 1), pass2_E(q) (reads S_E of q and q + 1), P_H(q),
// pass1_H(q), pass2_H(q) (reads S_H of q - 1 and q). A thread's range [a, b) starts with pass1_E(a)
// and a barrier (its predecessor needs S_E(a) for pass2_E(a - 1)) and ends, after a second
// barrier, with pass2_H(a), which needs S_H(a - 1) from its predecessor; plane 0 closes the wrap
// the same way. Every plane sees the same operations in the same order whatever the split.
void AdjointStep::apply_projected(RunState& lambda) const {
  for (const auto* list : {&e_updates_, &h_updates_})
    for (const Update& u : *list) {
      s_[size_t(int(u.c))].resize(size_t(lattice_.samples()));
      for (int t = 0; t < u.terms; ++t)
        if (u.term[t].psi) corr_[size_t(int(u.c))][size_t(u.term[t].axis)].resize(size_t(psi_size(u.term[t].axis)));
    }
  const int64_t N0 = L_.n[0], N1 = L_.n[1];
  const int sweep = N0 > 1 ? 0 : 1;
  const int64_t planes = L_.n[size_t(sweep)];
  // The rows (l0 * N1 + l1) of plane q.
  auto rows = [&](int64_t q, auto&& f) {
    if (sweep == 0)
      for (int64_t r = q * N1; r < (q + 1) * N1; ++r) f(r);
    else
      for (int64_t l0 = 0; l0 < N0; ++l0) f(l0 * N1 + q);
  };
  auto e1 = [&](int64_t q) { rows(q, [&](int64_t r) { pass1(lambda, false, r); }); };
  auto e2 = [&](int64_t q) { rows(q, [&](int64_t r) { pass2(lambda, false, r); }); };
  auto h1 = [&](int64_t q) {
    rows(q, [&](int64_t r) {
      project_pmc_row(lambda, r);
      pass1(lambda, true, r);
    });
  };
  auto h2 = [&](int64_t q) { rows(q, [&](int64_t r) { pass2(lambda, true, r); }); };
#pragma omp parallel if (lattice_.samples() >= kParallelSamples)
  {
    const int threads = omp_get_num_threads(), id = omp_get_thread_num();
    const int64_t a = planes * id / threads, b = planes * (id + 1) / threads;
    if (a < b) e1(a);
#pragma omp barrier
    for (int64_t q = a; q < b; ++q) {
      if (q + 1 < b) e1(q + 1);
      e2(q);
      h1(q);
      if (q > a) h2(q);
    }
#pragma omp barrier
    if (a < b) h2(a);
  }
}

// P_H on one row: tangential H at index 0 along each pmc axis.
void AdjointStep::project_pmc_row(RunState& lambda, int64_t r) const {
  const int64_t N1 = L_.n[1], N2 = L_.n[2], l0 = r / N1, l1 = r % N1;
  for (int axis = 0; axis < 3; ++axis) {
    if (!bc_.axis[size_t(axis)].active || bc_.axis[size_t(axis)].wall != Wall::pmc) continue;
    const int la = L_.logical[size_t(axis)];
    if ((la == 0 && l0 != 0) || (la == 1 && l1 != 0)) continue;
    for (const Update& u : h_updates_) {
      if (axis_of(u.c) == axis) continue;
      double* f = lambda.field[size_t(int(u.c))].data() + r * N2;
      if (la == 2)
        f[0] = 0.0;
      else
        std::fill(f, f + N2, 0.0);
    }
  }
}

// Pass 1 of one row: S = scale lambda_f, lambda_f <- decay lambda_f, and in the slabs
// C_t = (kt + c) S + c lambda_psi_t, lambda_psi_t <- b (S + lambda_psi_t).
void AdjointStep::pass1(RunState& lambda, bool kH, int64_t r) const {
  const std::vector<Update>& updates = kH ? h_updates_ : e_updates_;
  const size_t kind = kH ? 1 : 0;  // CPML table: H updates differentiate at half-integer positions
  const int64_t N1 = L_.n[1], N2 = L_.n[2];
  const int64_t l0 = r / N1, l1 = r % N1, base = r * N2;
  for (const Update& u : updates) {
    const size_t ci = size_t(int(u.c));
    double* __restrict lr = lambda.field[ci].data() + base;
    double* __restrict sr = s_[ci].data() + base;
    const double su = co_.scale_uniform[ci];
    if (!co_.scale[ci].empty()) {
      const double* __restrict sc = co_.scale[ci].data() + base;
      for (int64_t k = 0; k < N2; ++k) sr[k] = sc[k] * lr[k];
    } else {
      for (int64_t k = 0; k < N2; ++k) sr[k] = su * lr[k];
    }
    if (!co_.decay[ci].empty()) {
      const double* __restrict dr = co_.decay[ci].data() + base;
      for (int64_t k = 0; k < N2; ++k) lr[k] *= dr[k];
    }
    for (int t = 0; t < u.terms; ++t) {
      const Term& tm = u.term[t];
      if (!tm.psi) continue;
      const CpmlAxis<double>& ax = tables_[size_t(tm.axis)];
      const int64_t S = ax.slabs();
      double* psi = lambda.psi[ci][size_t(tm.axis)].data();
      double* corr = corr_[ci][size_t(tm.axis)].data();
      if (tm.l == 2) {
        const double* b = ax.b[kind].data();
        const double* c = ax.c[kind].data();
        const double* kt = ax.kappa_term[kind].data();
        auto correct = [&](int64_t k, int64_t pk) {
          const double sv = sr[k], p = psi[pk];
          corr[pk] = (kt[k] + c[k]) * sv + c[k] * p;
          psi[pk] = b[k] * (sv + p);
        };
        const int64_t prow = r * S;
        for (int64_t k = 0; k < std::min<int64_t>(ax.pml_low, N2); ++k) correct(k, prow + k);
        for (int64_t k = std::max<int64_t>(ax.pml_low, N2 - ax.pml_high); k < N2; ++k)
          correct(k, prow + ax.pml_low + k - (N2 - ax.pml_high));
      } else {
        const int64_t x = tm.l == 0 ? l0 : l1;
        const int64_t slab = ax.slab(x);
        if (slab < 0) continue;
        const double b = ax.b[kind][size_t(x)], c = ax.c[kind][size_t(x)], kt = ax.kappa_term[kind][size_t(x)];
        const int64_t prow = tm.l == 0 ? (slab * N1 + l1) * N2 : (l0 * S + slab) * N2;
        double* __restrict pr = psi + prow;
        double* __restrict cr = corr + prow;
        for (int64_t k = 0; k < N2; ++k) {
          const double sv = sr[k], p = pr[k];
          cr[k] = (kt + c) * sv + c * p;
          pr[k] = b * (sv + p);
        }
      }
    }
  }
}

// Pass 2 of one row: L_E's backward difference d(i) = s (h(i) - h(i - e)) gives
// lambda_h(j) += s (D(j) - D(j + e)); L_H's forward difference d(i) = s (e(i + e) - e(i)) gives
// lambda_e(j) += s (D(j - e) - D(j)).
void AdjointStep::pass2(RunState& lambda, bool kH, int64_t r) const {
  const std::vector<Update>& updates = kH ? h_updates_ : e_updates_;
  const int64_t N0 = L_.n[0], N1 = L_.n[1], N2 = L_.n[2];
  const int64_t l0 = r / N1, l1 = r % N1, base = r * N2;
  for (const Update& u : updates)
    for (int t = 0; t < u.terms; ++t) {
      const Term& tm = u.term[t];
      const size_t ci = size_t(int(u.c));
      double* __restrict out = lambda.field[size_t(int(tm.src))].data() + base;
      const double* __restrict d = s_[ci].data() + base;
      const double sg = tm.sign;
      if (tm.l == 2) {
        if (!kH) {
          for (int64_t k = 0; k + 1 < N2; ++k) out[k] += sg * (d[k] - d[k + 1]);
          out[N2 - 1] += sg * (d[N2 - 1] - d[0]);
        } else {
          out[0] += sg * (d[N2 - 1] - d[0]);
          for (int64_t k = 1; k < N2; ++k) out[k] += sg * (d[k - 1] - d[k]);
        }
        if (!tm.psi) continue;
        // C_t inside the slabs along the row: its sample k enters out at k and at k -+ 1.
        const CpmlAxis<double>& ax = tables_[size_t(tm.axis)];
        const double* cr = corr_[ci][size_t(tm.axis)].data() + r * ax.slabs();
        auto spread = [&](int64_t k, int64_t pk) {
          const double v = sg * cr[pk];
          if (!kH) {
            out[k] += v;
            out[k == 0 ? N2 - 1 : k - 1] -= v;
          } else {
            out[k == N2 - 1 ? 0 : k + 1] += v;
            out[k] -= v;
          }
        };
        for (int64_t k = 0; k < std::min<int64_t>(ax.pml_low, N2); ++k) spread(k, k);
        for (int64_t k = std::max<int64_t>(ax.pml_low, N2 - ax.pml_high); k < N2; ++k)
          spread(k, ax.pml_low + k - (N2 - ax.pml_high));
        continue;
      }
      const int64_t n = tm.l == 0 ? N0 : N1, x = tm.l == 0 ? l0 : l1;
      const int64_t xn = kH ? (x == 0 ? n - 1 : x - 1) : (x == n - 1 ? 0 : x + 1);
      const int64_t rn = tm.l == 0 ? xn * N1 + l1 : l0 * N1 + xn;
      const double* __restrict dn = s_[ci].data() + rn * N2;
      if (!kH)
        for (int64_t k = 0; k < N2; ++k) out[k] += sg * (d[k] - dn[k]);
      else
        for (int64_t k = 0; k < N2; ++k) out[k] += sg * (dn[k] - d[k]);
      if (!tm.psi) continue;
      const CpmlAxis<double>& ax = tables_[size_t(tm.axis)];
      const int64_t S = ax.slabs();
      const double* corr = corr_[ci][size_t(tm.axis)].data();
      auto corr_row = [&](int64_t xx) -> const double* {
        const int64_t slab = ax.slab(xx);
        if (slab < 0) return nullptr;
        return corr + (tm.l == 0 ? (slab * N1 + l1) * N2 : (l0 * S + slab) * N2);
      };
      const double* own = corr_row(x);
      const double* other = corr_row(xn);
      const double s_own = kH ? -sg : sg;
      if (own)
        for (int64_t k = 0; k < N2; ++k) out[k] += s_own * own[k];
      if (other)
        for (int64_t k = 0; k < N2; ++k) out[k] -= s_own * other[k];
    }
}

AdjointStep::ElectricCurl::ElectricCurl(const AdjointStep& step,
                                        const std::vector<std::pair<Component, int64_t>>& samples) {
  const YeeLattice& lat = step.lattice_;
  const std::array<int64_t, 3> stride{lat.n(1) * lat.n(2), lat.n(2), 1};
  samples_.reserve(samples.size());
  for (const auto& [c, idx] : samples) {
    SPIRE_CHECK(is_electric(c) && lat.has(c), ValueError, "AdjointStep::ElectricCurl: ", to_string(c),
                " is not an electric component of this ", to_string(lat.dimensions()), " lattice");
    SPIRE_CHECK(idx >= 0 && idx < lat.samples(), ValueError, "AdjointStep::ElectricCurl: sample ", idx,
                " outside the lattice's ", lat.samples());
    Sample s;
    s.component = int(c);
    const std::array<int64_t, 3> x{idx / stride[0], (idx / stride[1]) % lat.n(1), idx % lat.n(2)};
    for (const Update& u : step.e_updates_) {
      if (u.c != c) continue;
      for (int t = 0; t < u.terms; ++t) {
        const Term& tm = u.term[t];
        const int a = tm.axis;
        const int64_t xa = x[size_t(a)];
        Tap& tap = s.tap[s.taps++];
        tap.src = int(tm.src);
        tap.sign = tm.sign;
        tap.hi = idx;
        tap.lo = xa == 0 ? idx + (lat.n(a) - 1) * stride[size_t(a)] : idx - stride[size_t(a)];
        if (!tm.psi) continue;
        const CpmlAxis<double>& ax = step.tables_[size_t(a)];
        const int64_t slab = ax.slab(xa);
        if (slab < 0) continue;
        tap.one_plus_kt = 1 + ax.kappa_term[0][size_t(xa)];
        tap.psi_axis = a;
        // psi is ordered like the lattice with the extent along a replaced by the slab count.
        std::array<int64_t, 3> n = lat.shape(), y = x;
        n[size_t(a)] = ax.slabs();
        y[size_t(a)] = slab;
        tap.psi_index = (y[0] * n[1] + y[1]) * n[2] + y[2];
        needs_psi_ = true;
      }
    }
    samples_.push_back(s);
  }
}

void AdjointStep::ElectricCurl::evaluate(const std::array<const double*, 6>& fields,
                                         const std::array<std::array<const double*, 3>, 6>& psi, double* out) const {
  for (size_t q = 0; q < samples_.size(); ++q) {
    const Sample& s = samples_[q];
    double curl = 0;
    for (int t = 0; t < s.taps; ++t) {
      const Tap& tap = s.tap[t];
      const double* h = fields[size_t(tap.src)];
      const double d = tap.sign * (h[tap.hi] - h[tap.lo]);
      if (tap.psi_axis < 0) {
        curl += d;
      } else {
        curl += tap.one_plus_kt * d + psi[size_t(s.component)][size_t(tap.psi_axis)][tap.psi_index];
      }
    }
    out[q] = curl;
  }
}

}  // namespace spire::elec
