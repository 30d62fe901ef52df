#include "science/flow/dopri5.h"

#include <algorithm>
#include <boost/numeric/odeint.hpp>

#include "engine/core/error.h"

namespace spire::flow {

namespace odeint = boost::numeric::odeint;
// Complex coefficients interleaved as doubles: odeint's error norm then treats the real and the
// imaginary part of each coefficient as components.
using state = std::vector<double>;

struct Dopri5::Impl {
  Pencils& pencils;
  ExplicitTerms& terms;
  int mass;
  std::vector<cplx> F;
  long evaluations = 0, accepted = 0;
  using stepper_type = odeint::result_of::make_dense_output<odeint::runge_kutta_dopri5<state>>::type;
  stepper_type stepper;
  state x;

  Impl(Pencils& p, ExplicitTerms& t, double tol)
      : pencils(p), terms(t), mass(-1), F(p.size()),
        stepper(odeint::make_dense_output(tol, tol, odeint::runge_kutta_dopri5<state>())),
        x(2 * p.size()) {
    SPIRE_CHECK(pencils.invertible(1, 0), ConfigError,
                "scheme dopri5 needs dt() of every field in every equation (an invertible M); this "
                "problem has a constraint equation or boundary rows. Use sbdf2, sbdf3, rk222 or rk443");
    mass = pencils.factor(1, 0);
  }

  void rhs(const state& xs, state& dxdt, double t) {
    ++evaluations;
    const cplx* X = reinterpret_cast<const cplx*>(xs.data());
    terms.evaluate(X, t, F.data());
    pencils.apply_L(X, F.data(), -1, 1);
    pencils.solve(pencils.factor(1, 0), F.data(), reinterpret_cast<cplx*>(dxdt.data()));
  }
};

Dopri5::Dopri5(Pencils& pencils, ExplicitTerms& terms, double tolerance)
    : impl_(std::make_unique<Impl>(pencils, terms, tolerance)) {}
Dopri5::~Dopri5() = default;

void Dopri5::initialize(const cplx* X, double t, double dt) {
  const double* d = reinterpret_cast<const double*>(X);
  std::copy(d, d + impl_->x.size(), impl_->x.begin());
  impl_->stepper.initialize(impl_->x, t, dt);
}

std::pair<double, double> Dopri5::step() {
  Impl& m = *impl_;
  auto sys = [&m](const state& xs, state& dxdt, double t) { m.rhs(xs, dxdt, t); };
  auto r = m.stepper.do_step(sys);
  ++m.accepted;
  return r;
}

const cplx* Dopri5::current() const {
  return reinterpret_cast<const cplx*>(impl_->stepper.current_state().data());
}

void Dopri5::state_at(double t, cplx* X) {
  impl_->stepper.calc_state(t, impl_->x);
  const cplx* s = reinterpret_cast<const cplx*>(impl_->x.data());
  std::copy(s, s + impl_->pencils.size(), X);
}

double Dopri5::time() const { return impl_->stepper.current_time(); }

// FSAL: the first step evaluates once more, then every attempt costs six evaluations.
long Dopri5::rejected() const {
  if (impl_->evaluations == 0) return 0;
  return std::max(0L, (impl_->evaluations - 1) / 6 - impl_->accepted);
}

}  // namespace spire::flow
