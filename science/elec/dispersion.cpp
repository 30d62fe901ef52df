// Dispersive polarisations (dispersion.h): coefficients of the ADE recursions, their discrete
// susceptibility, and the per-sample state that the FDTD step advances.
#include "science/elec/dispersion.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "engine/core/error.h"

namespace spire::elec {

namespace {
constexpr double kTwoPi = 2 * std::numbers::pi;
// Below this many samples a term is updated on the calling thread: starting a thread team costs
// more than the few microseconds of work.
constexpr int64_t kParallelMin = 4096;
}  // namespace

AdeCoefficients ade_coefficients(const Susceptibility& model, double dt) {
  model.validate("ade_coefficients");
  SPIRE_CHECK(std::isfinite(dt) && dt > 0, ValueError, model.describe(), ": the time step must be finite and > 0, got ", dt);
  AdeCoefficients c;
  if (model.kind == Susceptibility::Kind::debye) {
    // (2 tau + dt) P^{n+1} = (2 tau - dt) P^n + dt s (3 E^n - E^{n-1})
    const double d = 2 * model.tau + dt;
    c.a1 = (2 * model.tau - dt) / d;
    c.b0 = 3 * dt / d;
    c.b1 = -dt / d;
    return c;
  }
  const double w = kTwoPi * model.frequency * dt;  // omega_n dt
  const double h = 0.5 * kTwoPi * model.gamma * dt;  // g dt / 2
  if (model.kind == Susceptibility::Kind::lorentzian) {
    SPIRE_CHECK(w < 2, ValueError, model.describe(), ": 2 pi frequency dt = ", w,
                " must be < 2 for the Lorentzian update to be stable (frequency < ", 1 / (std::numbers::pi * dt),
                " at dt = ", dt, "); refine the grid or lower the resonance frequency");
  }
  const bool drude = model.kind == Susceptibility::Kind::drude;
  c.a1 = (2 - (drude ? 0.0 : w * w)) / (1 + h);
  c.a2 = -(1 - h) / (1 + h);
  c.b0 = w * w / (1 + h);
  return c;
}

std::complex<double> discrete_susceptibility(const Susceptibility& model, double f, double dt, int axis) {
  SPIRE_CHECK(std::isfinite(f) && f > 0, ValueError, "discrete_susceptibility: frequency must be finite and > 0, got ", f);
  SPIRE_CHECK(axis >= 0 && axis < 3, ValueError, "discrete_susceptibility: axis must be 0, 1 or 2, got ", axis);
  const AdeCoefficients c = ade_coefficients(model, dt);
  // P^n = chi E^n with E^n ~ z^n, z = exp(-i omega dt): chi (z - a1 - a2 / z) = s (b0 + b1 / z).
  const std::complex<double> z = std::polar(1.0, -kTwoPi * f * dt);
  return model.sigma_diag[axis] * (c.b0 + c.b1 / z) / (z - c.a1 - c.a2 / z);
}

double nyquist_susceptibility(const Susceptibility& model, double dt) {
  const AdeCoefficients c = ade_coefficients(model, dt);
  return (c.b0 - c.b1) / (-1 - c.a1 + c.a2);
}

void check_dispersive_stability(const YeeLattice& lattice, const MaterialArrays& arrays,
                                const std::vector<SusceptibilityArrays>& terms, double dt) {
  if (terms.empty()) return;
  const size_t n = size_t(lattice.samples());
  double max_inv_mu = 0;
  for (Component c : lattice.components()) {
    if (is_electric(c)) continue;
    for (double v : arrays.inverse[size_t(int(c))]) max_inv_mu = std::max(max_inv_mu, v);
  }
  int dims = 0;
  for (int a = 0; a < 3; ++a) dims += lattice.has_axis(a) ? 1 : 0;
  const double courant = dt / lattice.dx();
  const double need = courant * courant * dims * max_inv_mu;  // eps_N must reach S^2 d / mu_min
  std::vector<double> chi_n;
  for (const SusceptibilityArrays& t : terms) chi_n.push_back(nyquist_susceptibility(t.model, dt));
  for (Component c : lattice.components()) {
    if (!is_electric(c)) continue;
    const std::vector<double>& inv = arrays.inverse[size_t(int(c))];
    SPIRE_CHECK(inv.size() == n, ValueError, "check_dispersive_stability: inv_eps of ", to_string(c), " has ", inv.size(),
                " samples; the lattice has ", n);
    for (size_t i = 0; i < n; ++i) {
      if (inv[i] == 0) continue;
      double eps_n = 1 / inv[i];
      bool dispersive = false;
      for (size_t t = 0; t < terms.size(); ++t) {
        const std::vector<double>& s = terms[t].strength[size_t(axis_of(c))];
        if (s.empty() || s[i] == 0) continue;
        eps_n += s[i] * chi_n[t];
        dispersive = true;
      }
      if (!dispersive || eps_n >= need) continue;
      const int64_t k = int64_t(i) % lattice.n(2), j = (int64_t(i) / lattice.n(2)) % lattice.n(1),
                    ii = int64_t(i) / (lattice.n(2) * lattice.n(1));
      const Vec3 p = lattice.position(c, ii, j, k);
      throw ValueError(detail::cat(
          "dispersive media: at ", to_string(c), " sample (", ii, ", ", j, ", ", k, ") at (", p.x, ", ", p.y, ", ", p.z,
          ") the permittivity the update presents at the Nyquist frequency of the time step is ", eps_n,
          " (1/inv_eps = ", 1 / inv[i], " plus the susceptibilities' discrete chi there); the update is stable only "
          "if it is at least (dt/dx)^2 d / mu = ", need,
          ": lower the Courant number or raise the resolution (resonances and plasma frequencies must be well "
          "below 1/(pi dt))"));
    }
  }
}

template <class T>
Polarizations<T>::Polarizations(const YeeLattice& lattice, const std::vector<SusceptibilityArrays>& terms, double dt)
    : samples_(lattice.samples()) {
  const size_t n = size_t(lattice.samples());
  // Merge entries with the same dynamics: their polarisations obey one equation with the summed
  // strength.
  std::vector<Susceptibility> models;
  std::vector<std::array<std::vector<double>, 3>> strength;
  for (size_t t = 0; t < terms.size(); ++t) {
    const SusceptibilityArrays& in = terms[t];
    size_t m = 0;
    while (m < models.size() && !models[m].same_model(in.model)) ++m;
    if (m == models.size()) {
      models.push_back(in.model);
      strength.emplace_back();
    }
    for (int a = 0; a < 3; ++a) {
      const std::vector<double>& s = in.strength[size_t(a)];
      if (s.empty()) continue;
      const Component c = Component(a);
      SPIRE_CHECK(lattice.has(c), ValueError, "Polarizations: term ", t, " (", in.model.describe(), ") has strengths for ",
                  to_string(c), ", which a ", to_string(lattice.dimensions()), " problem does not carry");
      SPIRE_CHECK(s.size() == n, ValueError, "Polarizations: term ", t, " (", in.model.describe(), ") has ", s.size(),
                  " strengths for ", to_string(c), "; the lattice has ", n, " samples");
      std::vector<double>& acc = strength[m][size_t(a)];
      if (acc.empty()) acc.assign(n, 0.0);
      for (size_t i = 0; i < n; ++i) acc[i] += s[i];
    }
  }
  std::array<std::vector<char>, 3> used;
  for (size_t m = 0; m < models.size(); ++m) {
    const AdeCoefficients k = ade_coefficients(models[m], dt);
    Term term;
    term.model = models[m];
    term.a1 = T(k.a1);
    term.a2 = T(k.a2);
    term.b0 = T(k.b0);
    term.b1 = T(k.b1);
    bool any = false;
    for (int a = 0; a < 3; ++a) {
      const std::vector<double>& s = strength[m][size_t(a)];
      if (s.empty()) continue;
      Field& f = term.field[size_t(a)];
      for (size_t i = 0; i < n; ++i) {
        if (s[i] == 0) continue;
        f.index.push_back(int64_t(i));
        f.strength.push_back(T(s[i]));
      }
      f.p.assign(f.index.size(), T(0));
      f.history.assign(f.index.size(), T(0));
      if (f.index.empty()) continue;
      any = true;
      if (used[size_t(a)].empty()) used[size_t(a)].assign(n, 0);
      for (int64_t i : f.index) used[size_t(a)][size_t(i)] = 1;
    }
    if (any) terms_.push_back(std::move(term));
  }
  for (int a = 0; a < 3; ++a) {
    if (used[size_t(a)].empty()) continue;
    for (size_t i = 0; i < n; ++i)
      if (used[size_t(a)][i]) active_[size_t(a)].push_back(int64_t(i));
  }
}

template <class T>
bool Polarizations<T>::has(Component c) const {
  return is_electric(c) && !active_[size_t(axis_of(c))].empty();
}

template <class T>
const T* Polarizations<T>::advance(Component c, const T* e) {
  if (!has(c)) return nullptr;
  const size_t a = size_t(axis_of(c));
  if (total_[a].empty()) total_[a].assign(size_t(samples_), T(0));
  T* total = total_[a].data();
  const std::vector<int64_t>& act = active_[a];
  const int64_t n_act = int64_t(act.size());
#pragma omp parallel for schedule(static) if (n_act > kParallelMin)
  for (int64_t j = 0; j < n_act; ++j) total[act[size_t(j)]] = T(0);
  advance_into(c, e, total);
  return total;
}

template <class T>
void Polarizations<T>::advance_into(Component c, const T* e, T* total) {
  if (!has(c)) return;
  const size_t a = size_t(axis_of(c));
  // Terms one after another, each over its own samples: a sample's sum is always formed in term
  // order, so the result does not depend on how the samples are split among threads.
  for (Term& term : terms_) {
    Field& f = term.field[a];
    const int64_t m = int64_t(f.index.size());
    if (m == 0) continue;
    const int64_t* idx = f.index.data();
    const T* s = f.strength.data();
    T* p = f.p.data();
    T* hist = f.history.data();
    const T a1 = term.a1, a2 = term.a2, b0 = term.b0, b1 = term.b1;
    if (term.model.kind == Susceptibility::Kind::debye) {
      // History: E^{n-1}.
#pragma omp parallel for schedule(static) if (m > kParallelMin)
      for (int64_t j = 0; j < m; ++j) {
        const int64_t i = idx[j];
        const T next = a1 * p[j] + s[j] * (b0 * e[i] + b1 * hist[j]);
        hist[j] = e[i];
        p[j] = next;
        total[i] += next;
      }
    } else {
      // History: P^{n-1}.
#pragma omp parallel for schedule(static) if (m > kParallelMin)
      for (int64_t j = 0; j < m; ++j) {
        const int64_t i = idx[j];
        const T now = p[j];
        const T next = a1 * now + a2 * hist[j] + b0 * s[j] * e[i];
        hist[j] = now;
        p[j] = next;
        total[i] += next;
      }
    }
  }
}

template <class T>
const T* Polarizations<T>::total(Component c) const {
  if (!has(c)) return nullptr;
  const std::vector<T>& t = total_[size_t(axis_of(c))];
  return t.empty() ? nullptr : t.data();
}

template <class T>
void Polarizations<T>::reset() {
  for (Term& term : terms_)
    for (Field& f : term.field) {
      std::fill(f.p.begin(), f.p.end(), T(0));
      std::fill(f.history.begin(), f.history.end(), T(0));
    }
  for (std::vector<T>& t : total_) std::fill(t.begin(), t.end(), T(0));
}

template <class T>
typename Polarizations<T>::Field& Polarizations<T>::field(size_t t, Component c) {
  SPIRE_CHECK(t < terms_.size(), ValueError, "Polarizations: term ", t, " out of range (", terms_.size(), " terms)");
  SPIRE_CHECK(is_electric(c), ValueError, "Polarizations: ", to_string(c), " is not an E component");
  return terms_[t].field[size_t(axis_of(c))];
}

template <class T>
const std::vector<int64_t>& Polarizations<T>::sample_indices(size_t t, Component c) const {
  return const_cast<Polarizations*>(this)->field(t, c).index;
}

template <class T>
std::vector<T>& Polarizations<T>::polarization(size_t t, Component c) {
  return field(t, c).p;
}

template <class T>
std::vector<T>& Polarizations<T>::history(size_t t, Component c) {
  return field(t, c).history;
}

template class Polarizations<double>;
template class Polarizations<float>;

}  // namespace spire::elec
