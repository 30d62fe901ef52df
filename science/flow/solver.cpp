#include "science/flow/solver.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/core/error.h"
#include "science/flow/dopri5.h"
#include "science/flow/etdrk4.h"
#include "science/flow/evaluate.h"
#include "science/flow/fftw_plans.h"
#include "science/flow/imex.h"
#include "science/flow/pencils.h"

namespace spire::flow {

namespace {

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

void validate(const TimeSettings& s) {
  SPIRE_CHECK(s.t_end > 0 && std::isfinite(s.t_end), ConfigError, "time.t_end = ", num(s.t_end),
              ": must be a finite number > 0");
  SPIRE_CHECK(s.snapshots >= 2, ConfigError, "time.snapshots = ", s.snapshots,
              ": must be at least 2 (t = 0 and t = t_end are both stored)");
  SPIRE_CHECK(s.bound > 0 && !std::isnan(s.bound), ConfigError, "time.bound = ", num(s.bound), ": must be > 0");
  SPIRE_CHECK(s.dt >= 0 && std::isfinite(s.dt), ConfigError, "time.dt = ", num(s.dt),
              ": must be a finite number > 0");
  SPIRE_CHECK(s.tolerance >= 0 && std::isfinite(s.tolerance), ConfigError, "time.tolerance = ",
              num(s.tolerance), ": must be a finite number > 0");
  const std::string scheme = scheme_name(s.scheme);
  if (s.scheme == Scheme::DOPRI5) {
    SPIRE_CHECK(s.dt == 0, ConfigError, "time.dt = ", num(s.dt),
                " with scheme dopri5: the adaptive scheme takes time.tolerance (> 0), not dt");
    SPIRE_CHECK(s.tolerance > 0 && s.tolerance < 1, ConfigError, "time.tolerance = ", num(s.tolerance),
                ": scheme dopri5 needs a tolerance in (0, 1), e.g. 1e-8");
  } else {
    SPIRE_CHECK(s.tolerance == 0, ConfigError, "time.tolerance = ", num(s.tolerance), " with scheme ", scheme,
                ": tolerance is for the adaptive scheme dopri5 only; fixed-step schemes take time.dt (> 0)");
    SPIRE_CHECK(s.dt > 0, ConfigError, "time.dt = ", num(s.dt), " with scheme ", scheme,
                ": a fixed-step scheme needs dt > 0 (or choose scheme dopri5 with time.tolerance)");
  }
}

}  // namespace

struct Solver::State : ExplicitTerms {
  Problem problem;
  std::shared_ptr<const Space> space;
  TimeSettings settings;
  std::unique_ptr<Evaluator> evaluator;
  std::unique_ptr<Pencils> pencils;
  std::unique_ptr<Stepper> stepper;
  std::unique_ptr<Dopri5> dopri;
  size_t coeff_size = 0, grid_size = 0;
  // Aligned, so that FFTW's aligned plans take them without staging copies.
  std::vector<AlignedVector<cplx>> initial, coeffs, F;  // per field, per field, per equation
  std::vector<cplx> zero;                             // explicit terms of zero, for boundary()
  std::vector<const cplx*> coeff_in, F_in, zero_in;
  std::vector<cplx*> coeff_out, F_out;
  std::vector<cplx> X, Y, rhs;
  AlignedVector<double> grid;

  State(Problem p, std::shared_ptr<const Space> s, TimeSettings t)
      : problem(std::move(p)), space(std::move(s)), settings(t) {}

  void evaluate(const cplx* state, double t, cplx* out) override {
    pencils->scatter(state, coeff_out);
    evaluator->explicit_terms(coeff_in, t, F_out);
    pencils->gather_rhs(F_in, t, out);
  }

  bool boundary(double t, cplx* out) override {
    if (problem.bcs.empty()) return false;
    pencils->gather_rhs(zero_in, t, out);
    return true;
  }

  // |u| <= 2 sum |c| on the grid for Fourier (r2c keeps half the spectrum) and Chebyshev (|T_i| <= 1)
  // coefficients, so a state that passes needs no transform. NaN fails the comparison.
  bool suspicious(const cplx* state) const {
    double s = 0;
    const size_t n = pencils->size();
    for (size_t k = 0; k < n; ++k) s += std::abs(state[k].real()) + std::abs(state[k].imag());
    return !(2 * s <= settings.bound);
  }

  // Where a field's grid values are non-finite or beyond the bound: the message, or "".
  std::string inspect(int f, const double* g, double t) const {
    size_t worst = grid_size;
    double big = 0;
    for (size_t i = 0; i < grid_size; ++i) {
      if (!std::isfinite(g[i])) {
        return problem.fields[f] + " is not finite at t = " + num(t) + ", " + where(i);
      }
      if (std::abs(g[i]) > big) big = std::abs(g[i]), worst = i;
    }
    if (big > settings.bound)
      return "|" + problem.fields[f] + "| = " + num(big) + " exceeds the bound " + num(settings.bound) +
             " at t = " + num(t) + ", " + where(worst);
    return "";
  }

  std::string where(size_t i) const {
    const auto shape = space->grid_shape(false);
    if (shape.size() == 1) return "x = " + num(space->coordinates(0, false)[i]);
    const size_t ny = size_t(shape[1]);
    return "x = " + num(space->coordinates(0, false)[i / ny]) + ", y = " +
           num(space->coordinates(1, false)[i % ny]);
  }

  // Transforms the state and looks at it; "" when it is fine after all.
  std::string locate(const cplx* state, double t) {
    pencils->scatter(state, coeff_out);
    for (size_t f = 0; f < coeffs.size(); ++f) {
      space->backward(coeffs[f].data(), grid.data(), false);
      std::string r = inspect(int(f), grid.data(), t);
      if (!r.empty()) return r;
    }
    return "";
  }

  // Writes snapshot k of `sol` from `state`; a message when the state has blown up (then the
  // snapshot does not count).
  std::string store(const cplx* state, int k, double t, Solution& sol) {
    pencils->scatter(state, coeff_out);
    for (size_t f = 0; f < coeffs.size(); ++f) {
      double* g = sol.fields[f].data() + size_t(k) * grid_size;
      space->backward(coeffs[f].data(), g, false);
      std::string r = inspect(int(f), g, t);
      if (!r.empty()) return r;
    }
    sol.t.push_back(t);
    return "";
  }
};

Solver::Solver(Problem problem, std::shared_ptr<const Space> space, TimeSettings settings) {
  validate(settings);
  SPIRE_CHECK(space != nullptr, ValueError, "Solver: no space");
  SPIRE_CHECK(!problem.fields.empty(), ConfigError, "the problem has no fields");
  state_ = std::make_unique<State>(std::move(problem), std::move(space), settings);
  State& s = *state_;
  const int nf = int(s.problem.fields.size()), ne = int(s.problem.equations.size());
  s.coeff_size = s.space->coeff_size(false);
  s.grid_size = s.space->grid_size(false);
  s.initial.assign(nf, AlignedVector<cplx>(s.coeff_size));
  s.coeffs.assign(nf, AlignedVector<cplx>(s.coeff_size));
  s.F.assign(ne, AlignedVector<cplx>(s.coeff_size));
  for (auto& c : s.coeffs) s.coeff_in.push_back(c.data()), s.coeff_out.push_back(c.data());
  for (auto& c : s.F) s.F_in.push_back(c.data()), s.F_out.push_back(c.data());
  s.zero.assign(s.coeff_size, cplx(0));
  s.zero_in.assign(ne, s.zero.data());
  s.grid.resize(s.grid_size);
  s.pencils = std::make_unique<Pencils>(s.problem, *s.space);
  s.X.resize(s.pencils->size());
  s.Y.resize(s.pencils->size());
  s.rhs.resize(s.pencils->size());
  s.evaluator = std::make_unique<Evaluator>(s.problem, *s.space);
  switch (settings.scheme) {
    case Scheme::ETDRK4: s.stepper = make_etdrk4(*s.pencils, s); break;
    case Scheme::DOPRI5: s.dopri = std::make_unique<Dopri5>(*s.pencils, s, settings.tolerance); break;
    default: s.stepper = make_imex(settings.scheme, *s.pencils, s); break;
  }
}

Solver::~Solver() = default;

const Problem& Solver::problem() const { return state_->problem; }
const Space& Solver::space() const { return *state_->space; }

void Solver::set_initial(int field, const std::vector<double>& grid) {
  State& s = *state_;
  SPIRE_CHECK(field >= 0 && field < int(s.problem.fields.size()), ValueError, "set_initial: field ", field,
              " out of range (the problem has ", s.problem.fields.size(), " fields)");
  SPIRE_CHECK(grid.size() == s.grid_size, ValueError, "set_initial: ", s.problem.fields[field], " has ",
              grid.size(), " grid values; the grid has ", s.grid_size);
  s.space->forward(grid.data(), s.initial[field].data(), false);
}

Solution Solver::run(const StepCallback& callback) {
  State& s = *state_;
  const TimeSettings& ts = s.settings;
  const int S = ts.snapshots;
  Solution sol;
  for (int a = 0; a < s.space->discretization().dims; ++a) sol.coords.push_back(s.space->coordinates(a, false));
  sol.fields.assign(s.problem.fields.size(), std::vector<double>(size_t(S) * s.grid_size));
  sol.t.reserve(S);
  auto snapshot_time = [&](int k) { return k == S - 1 ? ts.t_end : ts.t_end * k / (S - 1); };
  auto finish = [&](const std::string& reason) {
    sol.complete = reason.empty();
    sol.stop_reason = reason;
    for (auto& f : sol.fields) f.resize(sol.t.size() * s.grid_size);
    return sol;
  };

  std::vector<const cplx*> init;
  for (auto& c : s.initial) init.push_back(c.data());
  cplx* X = s.X.data();
  s.pencils->gather(init, X);
  // Fields without dt() (a stream function) follow from the evolved ones; two passes settle a
  // constraint whose explicit side depends on its own field.
  if (s.pencils->has_constraints())
    for (int pass = 0; pass < 2; ++pass) {
      s.evaluate(X, 0, s.rhs.data());
      s.pencils->enforce_constraints(s.rhs.data(), X);
    }
  if (std::string r = s.store(X, 0, 0, sol); !r.empty()) return finish(r);

  if (ts.scheme == Scheme::DOPRI5) {
    Dopri5& d = *s.dopri;
    d.initialize(X, 0, 1e-3 * ts.t_end / (S - 1));
    int k = 1;
    while (k < S) {
      std::pair<double, double> span;
      try {
        span = d.step();
      } catch (const std::exception& e) {
        sol.rejected = d.rejected();
        return finish("dopri5 found no step size that meets the tolerance at t = " + num(d.time()) + " (" +
                      e.what() + ")");
      }
      ++sol.steps;
      sol.rejected = d.rejected();
      const double t1 = span.second;
      if (!(t1 > span.first)) return finish("dopri5's step size fell to zero at t = " + num(span.first));
      if (t1 <= ts.t_end && s.suspicious(d.current()))
        if (std::string r = s.locate(d.current(), t1); !r.empty()) return finish(r);
      while (k < S && snapshot_time(k) <= t1) {
        d.state_at(snapshot_time(k), s.Y.data());
        if (std::string r = s.store(s.Y.data(), k, snapshot_time(k), sol); !r.empty()) return finish(r);
        ++k;
      }
      if (callback && !callback(std::min(t1, ts.t_end), sol.steps))
        return finish("stopped by the step callback at t = " + num(std::min(t1, ts.t_end)));
    }
    return finish("");
  }

  // Equal intervals, each cut into equal steps no longer than dt: one step size for the whole run,
  // so multistep histories carry across snapshots.
  const double interval = ts.t_end / (S - 1);
  const long sub = std::max(1L, long(std::ceil(interval / ts.dt * (1 - 1e-12))));
  const double h = interval / double(sub);
  s.stepper->reset();
  for (int k = 1; k < S; ++k) {
    const double t0 = snapshot_time(k - 1);
    for (long j = 0; j < sub; ++j) {
      const double t = t0 + double(j) * h;
      s.stepper->step(X, t, h);
      ++sol.steps;
      const bool last = j + 1 == sub;
      const double t1 = last ? snapshot_time(k) : t0 + double(j + 1) * h;
      if (s.suspicious(X))
        if (std::string r = s.locate(X, t1); !r.empty()) return finish(r);
      if (last)
        if (std::string r = s.store(X, k, t1, sol); !r.empty()) return finish(r);
      if (callback && !callback(t1, sol.steps)) return finish("stopped by the step callback at t = " + num(t1));
    }
  }
  return finish("");
}

}  // namespace spire::flow
