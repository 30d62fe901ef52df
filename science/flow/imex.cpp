#include "science/flow/imex.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

#include "engine/core/error.h"

namespace spire::flow {

const std::vector<std::string>& scheme_names() {
  static const std::vector<std::string> names{"sbdf1", "sbdf2", "sbdf3", "rk222", "rk443", "etdrk4", "dopri5"};
  return names;
}

std::string scheme_name(Scheme s) { return scheme_names()[int(s)]; }

Scheme scheme_from_name(const std::string& name) {
  std::string lower = name;
  for (char& ch : lower) ch = char(std::tolower((unsigned char)ch));
  const auto& names = scheme_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == lower) return Scheme(i);
  throw ConfigError("discretization.scheme = \"" + name + "\": unknown scheme (allowed: " +
                    detail::join(names) + ")");
}

namespace {

// An additive Runge-Kutta tableau: explicit A, implicit H (both lower triangular, H_i0 = 0),
// stage times c. Stiffly accurate: the last stage is the new state.
struct Tableau {
  int stages;                     // including stage 0 (X_0)
  std::vector<double> c;
  std::vector<std::vector<double>> A, H;
};

// Ascher, Ruuth & Spiteri (1997), (2,2,2): as Dedalus's RK222.
Tableau rk222() {
  const double g = (2 - std::sqrt(2.0)) / 2, d = 1 - 1 / (2 * g);
  return {3, {0, g, 1}, {{0, 0, 0}, {g, 0, 0}, {d, 1 - d, 0}}, {{0, 0, 0}, {0, g, 0}, {0, 1 - g, g}}};
}

// Ascher, Ruuth & Spiteri (1997), (4,4,3): as Dedalus's RK443.
Tableau rk443() {
  return {5,
          {0, 1. / 2, 2. / 3, 1. / 2, 1},
          {{0, 0, 0, 0, 0},
           {1. / 2, 0, 0, 0, 0},
           {11. / 18, 1. / 18, 0, 0, 0},
           {5. / 6, -5. / 6, 1. / 2, 0, 0},
           {1. / 4, 7. / 4, 3. / 4, -7. / 4, 0}},
          {{0, 0, 0, 0, 0},
           {0, 1. / 2, 0, 0, 0},
           {0, 1. / 6, 1. / 2, 0, 0},
           {0, -1. / 2, 1. / 2, 1. / 2, 0},
           {0, 3. / 2, -3. / 2, 1. / 2, 1. / 2}}};
}

class RungeKutta : public Stepper {
 public:
  RungeKutta(Tableau tab, Pencils& pencils, ExplicitTerms& terms)
      : tab_(std::move(tab)), pencils_(pencils), terms_(terms) {
    const size_t N = pencils.size();
    F_.assign(tab_.stages, std::vector<cplx>(N));
    LX_.assign(tab_.stages, std::vector<cplx>(N));
    B_.assign(tab_.stages, std::vector<cplx>(N));
    MX0_.resize(N);
    rhs_.resize(N);
  }

  void step(cplx* X, double t, double dt) override { step_with(X, t, dt, nullptr); }

  // F0: F(X, t) when the caller has it already (a multistep scheme starting up), else null.
  void step_with(cplx* X, double t, double dt, const cplx* F0) {
    const size_t N = pencils_.size();
    const int S = tab_.stages;
    // Every implicit stage of these tableaus has the same H_ii, so one factorisation serves (a
    // look-up among the few cached ones).
    const int factor = pencils_.factor(1, dt * tab_.H[1][1]);
    pencils_.apply_M(X, MX0_.data());
    if (F0) std::copy(F0, F0 + N, F_[0].data());
    else terms_.evaluate(X, t, F_[0].data());
    const bool bounded = terms_.boundary(t, B_[0].data());
    for (int i = 1; i < S; ++i) {
      cplx* r = rhs_.data();
      std::copy(MX0_.begin(), MX0_.end(), r);
      for (int j = 0; j < i; ++j) {
        const double a = dt * tab_.A[i][j], h = dt * tab_.H[i][j];
        const cplx* Fj = F_[j].data();
        const cplx* Lj = LX_[j].data();
        if (a != 0)
          for (size_t k = 0; k < N; ++k) r[k] += a * Fj[k];
        if (h != 0)
          for (size_t k = 0; k < N; ++k) r[k] -= h * Lj[k];
      }
      if (bounded) {
        // Boundary rows then read H_ii B X_i = H_ii g(t_i) (see imex.h).
        terms_.boundary(t + tab_.c[i] * dt, B_[i].data());
        for (int j = 0; j <= i; ++j) {
          const double w = dt * (tab_.H[i][j] - (j < i ? tab_.A[i][j] : 0.0));
          if (w == 0) continue;
          const cplx* Bj = B_[j].data();
          for (size_t k = 0; k < N; ++k) r[k] += w * Bj[k];
        }
      }
      pencils_.solve(factor, r, X);  // X now holds stage i
      if (i + 1 < S) {
        pencils_.apply_L(X, LX_[i].data());
        terms_.evaluate(X, t + tab_.c[i] * dt, F_[i].data());
      }
    }
  }

 private:
  Tableau tab_;
  Pencils& pencils_;
  ExplicitTerms& terms_;
  std::vector<std::vector<cplx>> F_, LX_, B_;
  std::vector<cplx> MX0_, rhs_;
};

// Semi-implicit BDF of order q with a constant step (Wang & Ruuth 2008, Dedalus's SBDF1-3).
class Sbdf : public Stepper {
 public:
  Sbdf(int order, Pencils& pencils, ExplicitTerms& terms)
      : q_(order), pencils_(pencils), terms_(terms), starter_(rk443(), pencils, terms) {
    const size_t N = pencils.size();
    F_.assign(q_, std::vector<cplx>(N));
    MX_.assign(q_, std::vector<cplx>(N));
    B_.assign(q_ + 1, std::vector<cplx>(N));
    rhs_.resize(N);
    // a_0..a_q (times dt) and c_1..c_q.
    static const double a[3][4] = {{1, -1, 0, 0}, {1.5, -2, 0.5, 0}, {11. / 6, -3, 1.5, -1. / 3}};
    static const double c[3][4] = {{0, 1, 0, 0}, {0, 2, -1, 0}, {0, 3, -3, 1}};
    for (int j = 0; j <= q_; ++j) a_[j] = a[q_ - 1][j], c_[j] = c[q_ - 1][j];
  }

  void reset() override { filled_ = 0; }

  void step(cplx* X, double t, double dt) override {
    const size_t N = pencils_.size();
    if (dt != dt_) {
      filled_ = 0;
      dt_ = dt;
    }
    // History slot 0 is the newest (n-1); rotate, then fill it with the current state.
    std::rotate(F_.rbegin(), F_.rbegin() + 1, F_.rend());
    std::rotate(MX_.rbegin(), MX_.rbegin() + 1, MX_.rend());
    // B_[0] is g at the new time, B_[j] at n - j.
    std::rotate(B_.rbegin(), B_.rbegin() + 1, B_.rend());
    const bool bounded = terms_.boundary(t, B_[1].data());
    terms_.evaluate(X, t, F_[0].data());
    pencils_.apply_M(X, MX_[0].data());
    filled_ = std::min(filled_ + 1, q_);
    if (filled_ < q_) {
      starter_.step_with(X, t, dt, F_[0].data());
      return;
    }
    cplx* r = rhs_.data();
    std::fill(r, r + N, cplx(0));
    for (int j = 1; j <= q_; ++j) {
      const double cj = c_[j], aj = a_[j] / dt;
      const cplx* Fj = F_[j - 1].data();
      const cplx* Mj = MX_[j - 1].data();
      for (size_t k = 0; k < N; ++k) r[k] += cj * Fj[k] - aj * Mj[k];
    }
    if (bounded) {
      // Boundary rows then read L X^n = g(t + dt) rather than its extrapolation (see imex.h).
      terms_.boundary(t + dt, B_[0].data());
      for (int j = 0; j <= q_; ++j) {
        const double w = j == 0 ? 1.0 : -c_[j];
        const cplx* Bj = B_[j].data();
        for (size_t k = 0; k < N; ++k) r[k] += w * Bj[k];
      }
    }
    pencils_.solve(pencils_.factor(a_[0] / dt, 1), r, X);
  }

 private:
  int q_;
  Pencils& pencils_;
  ExplicitTerms& terms_;
  RungeKutta starter_;
  std::vector<std::vector<cplx>> F_, MX_, B_;
  std::vector<cplx> rhs_;
  std::array<double, 4> a_{}, c_{};
  int filled_ = 0;
  double dt_ = 0;
};

}  // namespace

std::unique_ptr<Stepper> make_imex(Scheme scheme, Pencils& pencils, ExplicitTerms& terms) {
  switch (scheme) {
    case Scheme::SBDF1: return std::make_unique<Sbdf>(1, pencils, terms);
    case Scheme::SBDF2: return std::make_unique<Sbdf>(2, pencils, terms);
    case Scheme::SBDF3: return std::make_unique<Sbdf>(3, pencils, terms);
    case Scheme::RK222: return std::make_unique<RungeKutta>(rk222(), pencils, terms);
    case Scheme::RK443: return std::make_unique<RungeKutta>(rk443(), pencils, terms);
    default: break;
  }
  throw ConfigError("make_imex: " + scheme_name(scheme) + " is not an IMEX scheme");
}

}  // namespace spire::flow
