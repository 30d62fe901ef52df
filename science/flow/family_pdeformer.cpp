// PDEformer-1's pretraining family (Ye et al. 2024, "PDEformer-1: a foundation model for
// one-dimensional partial differential equations"), after its data generator
// (mindscience MindFlow/applications/pdeformer1d/data_generation: custom_sinus.py with
// num_sinusoid = 0 and common.py), whose distributions are followed here:
//
//   u_t + f0(u) + s(x) + (f1(u) - kappa(x) u_x)_x = 0,  f_i(u) = c_i1 u + c_i2 u^2 + c_i3 u^3
//
//   c_ik       uniform in [-m, m] (m = coef_magnitude, 3 in the published data), each zero with
//              probability 1/2
//   s(x)       zero, a constant uniform in [-m, m], or a random field (the PDEBench-style sum of
//              sines with abs and window), each with probability 1/3
//   kappa(x)   a constant exp(U(log kappa_min, log kappa_max)) or a smooth random field whose
//              log spans a Dirichlet(1, 1, 1)-drawn sub-interval of [log kappa_min, log
//              kappa_max]; zero is a third choice only when the boundary is periodic and f1 is
//              linear (so the problem stays well posed)
//   u(0, x)    a random field as s
//   boundary   periodic (the job's domain says), or at each end independently Dirichlet, Neumann
//              or Robin (cos(a) u + sin(a) u_x, a uniform in (0, pi)) with probability 1/3 each,
//              the value zero, uniform in [-m, m], or taken from the initial field (with its
//              one-sided difference for u_x on the grid, as the generator does), 1/3 each
//   fields     periodic: wavenumbers 2 pi j / L as PDEBench; non-periodic: wavenumbers uniform in
//              [0, 8 pi / L)
//
// Samples beyond |u| = u_bound (10) are rejected by the solver's bound. The generator's data file
// stores the coefficients under coef/: f0 and f1 as [0, c_i1, c_i2, c_i3], s and kappa as
// coef_type (0 zero, 1 constant, 2 field) and field (values on the grid), and per end bc_type (0
// Dirichlet, 1 Neumann, 2 Robin), u_coef, dx_u_coef, bc_val_type (0 zero, 1 random, 2 from the
// initial field) and bc_val; the same names are used here.
//
// One difference in the solve: the generator's Dedalus treats kappa(x) u_xx implicitly as a
// non-constant coefficient. Spire's implicit part has constant coefficients, so a varying kappa
// is written kbar u_xx + ((kappa - kbar) u_x)_x with kbar = max kappa implicit and the remainder
// explicit, which is stable for any step (the explicit part only ever removes diffusion the
// implicit part adds) and leaves the equation unchanged.
#include <cmath>

#include "engine/core/error.h"
#include "science/flow/draws.h"
#include "science/flow/family_detail.h"
#include "science/flow/sine_field.h"

namespace spire::flow::fam {

namespace {

// f_i's coefficients [c0, c1, c2, c3] (c0 always 0), each kept with probability 1/2.
std::vector<double> polynomial(Draws& draws, double m) {
  std::vector<double> c(4);
  for (double& v : c) v = draws.uniform(-m, m);
  for (double& v : c)
    if (draws.chance(0.5)) v = 0;
  c[0] = 0;
  return c;
}

std::string polynomial_text(const std::vector<double>& c) {
  static const char* powers[] = {"", "u", "u^2", "u^3"};
  std::string s;
  for (int k = 1; k <= 3; ++k)
    if (c[k] != 0) s += signed_term(c[k], powers[k], s.empty());
  return s;
}

std::string boundary_text(int type, double a, double b, double value) {
  if (type == 0) return "dirichlet: " + exact_number(value);
  if (type == 1) return "neumann: " + exact_number(value);
  return "robin: " + signed_term(a, "u", true) + signed_term(b, "dx(u)") + " = " + exact_number(value);
}

class PdeformerFamily : public Family {
 public:
  explicit PdeformerFamily(const std::map<std::string, double>& k)
      : m_(k.at("coef_magnitude")), kappa_min_(k.at("kappa_min")), kappa_max_(k.at("kappa_max")),
        u_bound_(k.at("u_bound")) {}
  std::string name() const override { return "pdeformer"; }

  FamilySample sample(const PdeJob& base, uint64_t sample) const override {
    const Discretization& d = base.discretization;
    SPIRE_CHECK(d.dims == 1, ConfigError, "family pdeformer is one-dimensional; the job's domain has ", d.dims,
                " dimensions");
    const std::vector<double> x = grid_points(d, 0);
    Draws draws(base.seed, draw_stream(sample, DrawPurpose::Family, 0));
    FamilySample out;
    auto& coef = out.coef;
    PdeformerTerms t;
    t.periodic = d.periodic;

    // In the generator's order: f0, f1, initial field, s, kappa, left and right boundaries.
    t.f0 = polynomial(draws, m_);
    t.f1 = polynomial(draws, m_);
    coef["f0"] = t.f0;
    coef["f1"] = t.f1;

    SineFieldDraw field_draw;
    field_draw.integer_wavenumbers = t.periodic;
    SineField initial = draw_sine_field(draws, d.x0, d.x1, field_draw);

    t.s_type = int(draws.integer(3));
    std::vector<double> s_grid(x.size(), 0.0);
    if (t.s_type == 1) {
      t.s_value = draws.uniform(-m_, m_);
      s_grid.assign(x.size(), t.s_value);
    } else if (t.s_type == 2) {
      SineField s = draw_sine_field(draws, d.x0, d.x1, field_draw);
      for (size_t i = 0; i < x.size(); ++i) s_grid[i] = s(x[i]);
      t.s_field = s.expression();
    }
    coef["s/coef_type"] = {double(t.s_type)};
    coef["s/field"] = s_grid;

    const double log_min = std::log(kappa_min_), log_max = std::log(kappa_max_);
    bool zero_allowed = t.periodic && t.f1[2] == 0 && t.f1[3] == 0;
    t.kappa_type = zero_allowed ? int(draws.integer(3)) : 1 + int(draws.integer(2));
    std::vector<double> kappa_grid(x.size(), 0.0);
    if (t.kappa_type == 1) {
      t.kappa_value = std::exp(draws.uniform(log_min, log_max));
      kappa_grid.assign(x.size(), t.kappa_value);
    } else if (t.kappa_type == 2) {
      SineFieldDraw smooth = field_draw;
      smooth.smooth = true;
      SineField g = draw_sine_field(draws, d.x0, d.x1, smooth);
      g.normalize_on(x);  // to [0, 1] on the grid
      double e1 = draws.exponential(), e2 = draws.exponential(), e3 = draws.exponential();
      double margin = (log_max - log_min) * e1 / (e1 + e2 + e3), span = (log_max - log_min) * e2 / (e1 + e2 + e3);
      t.kappa_field = "exp(" + exact_number(log_min + margin) + " + " + exact_number(span) + "*(" + g.expression() + "))";
      for (size_t i = 0; i < x.size(); ++i) {
        kappa_grid[i] = std::exp(log_min + margin + span * g(x[i]));
        t.kappa_bar = std::max(t.kappa_bar, kappa_grid[i]);
      }
    }
    coef["kappa/coef_type"] = {double(t.kappa_type)};
    coef["kappa/field"] = kappa_grid;

    if (!t.periodic) {
      const size_t n = x.size();
      for (int side = 0; side < 2; ++side) {
        size_t i0 = side == 0 ? 0 : n - 1;
        double g = initial(x[i0]);
        double dg = (initial(x[side == 0 ? 1 : n - 1]) - initial(x[side == 0 ? 0 : n - 2])) /
                    (x[side == 0 ? 1 : n - 1] - x[side == 0 ? 0 : n - 2]);
        int type = int(draws.integer(3));
        double a = 1, b = 0;
        if (type == 1) a = 0, b = 1;
        if (type == 2) {
          double angle = draws.uniform(0, M_PI);
          a = std::cos(angle), b = std::sin(angle);
        }
        int value_type = int(draws.integer(3));
        double value = value_type == 0 ? 0.0 : value_type == 1 ? draws.uniform(-m_, m_) : a * g + b * dg;
        (side == 0 ? t.bc_left : t.bc_right) = boundary_text(type, a, b, value);
        std::string prefix = side == 0 ? "bc_l/" : "bc_r/";
        coef[prefix + "bc_type"] = {double(type)};
        coef[prefix + "u_coef"] = {a};
        coef[prefix + "dx_u_coef"] = {b};
        coef[prefix + "bc_val_type"] = {double(value_type)};
        coef[prefix + "bc_val"] = {value};
      }
    }

    out.job = base;
    out.job.family = name();
    out.job.problem = pdeformer_problem(t);
    out.job.initial = {{"u", initial.expression()}};
    out.job.time.bound = u_bound_;
    return out;
  }

 private:
  double m_, kappa_min_, kappa_max_, u_bound_;
};

}  // namespace

ProblemText pdeformer_problem(const PdeformerTerms& t) {
  ProblemText p;
  p.fields = {"u"};
  p.dims = 1;
  p.periodic = t.periodic;
  std::string equation = "dt(u)";
  if (t.f0[1] || t.f0[2] || t.f0[3]) equation += " + " + polynomial_text(t.f0);
  if (t.s_type == 1) {
    p.parameters["s"] = t.s_value;
    equation += " + s";
  } else if (t.s_type == 2) {
    p.coefficients["s"] = t.s_field;
    equation += " + s";
  }
  if (t.f1[1] || t.f1[2] || t.f1[3]) equation += " + dx(" + polynomial_text(t.f1) + ")";
  if (t.kappa_type == 1) {
    p.parameters["kappa"] = t.kappa_value;
    equation += " - kappa*dx(dx(u))";
  } else if (t.kappa_type == 2) {
    p.coefficients["kappa"] = t.kappa_field;
    p.parameters["kbar"] = t.kappa_bar;
    equation += " - kbar*dx(dx(u)) - dx((kappa - kbar)*dx(u))";
  }
  p.equations = {equation + " = 0"};
  if (!t.periodic) p.bcs[""] = {{"left", t.bc_left}, {"right", t.bc_right}};
  return p;
}

std::unique_ptr<Family> make_pdeformer_family(const std::map<std::string, double>& keys) {
  return std::make_unique<PdeformerFamily>(keys);
}

}  // namespace spire::flow::fam
