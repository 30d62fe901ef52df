// The dataset families (families.h): the registry, PDEBench's 1D families and 2D Navier-Stokes.
// The PDEformer-1 family is in family_pdeformer.cpp.
#include "science/flow/families.h"

#include <cmath>

#include "engine/core/error.h"
#include "science/flow/draws.h"
#include "science/flow/family_detail.h"
#include "science/flow/sine_field.h"

namespace spire::flow {

namespace fam {

std::vector<double> grid_points(const Discretization& d, int axis) {
  int n = axis == 0 ? d.nx : d.ny;
  double a = axis == 0 ? d.x0 : d.y0, b = axis == 0 ? d.x1 : d.y1;
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = d.basis == "chebyshev" ? a + (b - a) * 0.5 * (1 - std::cos(M_PI * i / (n - 1))) : a + i * (b - a) / n;
  return x;
}

std::string signed_term(double c, const std::string& what, bool first) {
  std::string number = exact_number(std::abs(c)), body = what.empty() ? number : number + "*" + what;
  if (first) return c < 0 ? "-" + body : body;
  return (c < 0 ? " - " : " + ") + body;
}

}  // namespace fam

namespace {

using Keys = std::map<std::string, double>;

const std::map<std::string, Keys>& defaults() {
  static const std::map<std::string, Keys> d = {
      // PDEformer-1's pretraining data ("custom_sinus", sinus0, cU3, k1e-03_1, u_bound 10).
      {"pdeformer", {{"coef_magnitude", 3}, {"kappa_min", 1e-3}, {"kappa_max", 1}, {"u_bound", 10}}},
      // PDEBench's parameters are swept per file; these are one of their values each.
      {"advection", {{"beta", 1}}},
      {"burgers", {{"nu", 0.01}}},
      {"diffusion_reaction", {{"nu", 0.5}, {"rho", 1}}},
      // FNO's Navier-Stokes data (Li et al. 2021): initial vorticity a Gaussian random field with
      // covariance tau^(2 alpha - 2) (-lap + tau^2)^(-alpha), here truncated at |k| <= k_max.
      {"navier_stokes_2d", {{"nu", 1e-3}, {"alpha", 2.5}, {"tau", 7}, {"k_max", 8}}},
  };
  return d;
}

void require_1d_periodic(const PdeJob& base, const std::string& family) {
  SPIRE_CHECK(base.discretization.dims == 1 && base.discretization.periodic, ConfigError, "family ", family,
              " is PDEBench's periodic 1D problem: it needs a 1D periodic domain (domain.periodic = true, "
              "discretization.basis = \"fourier\")");
}

// PDEBench's 1D families share a shape: one equation in u, its parameters, u from PDEBench's
// initial-condition generator (the job's [random] table, PDEBench's defaults).
class PdebenchFamily : public Family {
 public:
  PdebenchFamily(std::string name, std::string equation, Keys parameters, bool normalize)
      : name_(std::move(name)), equation_(std::move(equation)), parameters_(std::move(parameters)),
        normalize_(normalize) {}
  std::string name() const override { return name_; }
  FamilySample sample(const PdeJob& base, uint64_t) const override {
    require_1d_periodic(base, name_);
    FamilySample s;
    s.job = base;
    s.job.family = name_;
    ProblemText& p = s.job.problem;
    p = ProblemText{};
    p.equations = {equation_};
    p.fields = {"u"};
    p.parameters = parameters_;
    p.dims = 1;
    p.periodic = true;
    s.job.initial = {{"u", "random"}};
    if (normalize_) s.job.random.normalize = true;  // PDEBench's if_norm for diffusion-reaction
    for (auto& [k, v] : parameters_) s.coef[k] = {v};
    return s;
  }

 private:
  std::string name_, equation_;
  Keys parameters_;
  bool normalize_;
};

// w_t + u.grad w = nu lap w with u = (dy psi, -dx psi) and lap psi = -w, on a periodic square
// (FNO's vorticity form, without its forcing). The initial vorticity is a sum of cosines with
// Gaussian amplitudes, so psi's initial field is known in closed form and given too.
class NavierStokesFamily : public Family {
 public:
  explicit NavierStokesFamily(const Keys& k)
      : nu_(k.at("nu")), alpha_(k.at("alpha")), tau_(k.at("tau")), k_max_(int(k.at("k_max"))) {}
  std::string name() const override { return "navier_stokes_2d"; }
  FamilySample sample(const PdeJob& base, uint64_t sample) const override {
    const Discretization& d = base.discretization;
    SPIRE_CHECK(d.dims == 2 && d.periodic, ConfigError,
                "family navier_stokes_2d needs a 2D periodic domain (domain.x and domain.y, periodic = true)");
    Draws draws(base.seed, draw_stream(sample, DrawPurpose::Family, 0));
    const double lx = d.x1 - d.x0, ly = d.y1 - d.y0, sigma = std::sqrt(2.0) * std::pow(tau_, alpha_ - 1);
    std::string w, psi;
    for (int i = 0; i <= k_max_; ++i)
      for (int j = -k_max_; j <= k_max_; ++j) {
        if (i == 0 && j <= 0) continue;  // one of each +-k pair, and no mean
        double kx = 2 * M_PI * i / lx, ky = 2 * M_PI * j / ly, k2 = kx * kx + ky * ky;
        double std_dev = sigma * std::pow(k2 + tau_ * tau_, -alpha_ / 2);
        double a = std_dev * draws.normal(), b = std_dev * draws.normal();
        // a cos(theta) + b sin(theta) = r cos(theta + phase)
        double r = std::hypot(a, b), phase = std::atan2(-b, a);
        std::string wave = "cos(" + exact_number(kx) + "*x + " + exact_number(ky) + "*y + " + exact_number(phase) + ")";
        w += fam::signed_term(r, wave, w.empty());
        psi += fam::signed_term(r / k2, wave, psi.empty());
      }
    FamilySample s;
    s.job = base;
    s.job.family = name();
    ProblemText& p = s.job.problem;
    p = ProblemText{};
    p.equations = {"dt(w) + dy(psi)*dx(w) - dx(psi)*dy(w) - nu*laplacian(w) = 0", "laplacian(psi) + w = 0"};
    p.fields = {"w", "psi"};
    p.parameters = {{"nu", nu_}};
    p.dims = 2;
    p.periodic = true;
    s.job.initial = {{"w", w.empty() ? "0" : w}, {"psi", psi.empty() ? "0" : psi}};
    s.coef["nu"] = {nu_};
    return s;
  }

 private:
  double nu_, alpha_, tau_;
  int k_max_;
};

void check_keys(const std::string& name, const Keys& k) {
  auto positive = [&](const char* key) {
    if (k.count(key))
      SPIRE_CHECK(k.at(key) > 0 && std::isfinite(k.at(key)), ConfigError, "family.", key, " (family ", name,
                  ") must be positive, got ", k.at(key));
  };
  for (const char* key : {"nu", "kappa_min", "kappa_max", "u_bound", "tau", "alpha"}) positive(key);
  for (const char* key : {"beta", "rho", "coef_magnitude"})
    if (k.count(key))
      SPIRE_CHECK(std::isfinite(k.at(key)), ConfigError, "family.", key, " must be finite, got ", k.at(key));
  if (k.count("coef_magnitude"))
    SPIRE_CHECK(k.at("coef_magnitude") >= 0, ConfigError, "family.coef_magnitude must be >= 0, got ",
                k.at("coef_magnitude"));
  if (k.count("kappa_min"))
    SPIRE_CHECK(k.at("kappa_min") <= k.at("kappa_max"), ConfigError, "family.kappa_min (", k.at("kappa_min"),
                ") must not exceed family.kappa_max (", k.at("kappa_max"), ")");
  if (k.count("k_max"))
    SPIRE_CHECK(k.at("k_max") >= 1 && k.at("k_max") <= 64 && k.at("k_max") == std::floor(k.at("k_max")),
                ConfigError, "family.k_max must be an integer in [1, 64], got ", k.at("k_max"));
}

}  // namespace

const std::vector<std::string>& family_names() {
  static const std::vector<std::string> names = {"pdeformer", "advection", "burgers", "diffusion_reaction",
                                                 "navier_stokes_2d"};
  return names;
}

const std::map<std::string, double>& family_defaults(const std::string& name) {
  auto it = defaults().find(name);
  SPIRE_CHECK(it != defaults().end(), ConfigError, "unknown family '", name, "'; the families are ",
              detail::join(family_names()));
  return it->second;
}

std::unique_ptr<Family> make_family(const std::string& name, const std::map<std::string, double>& keys) {
  Keys k = family_defaults(name);
  for (auto& [key, value] : keys) {
    if (!k.count(key)) {
      std::vector<std::string> allowed;
      for (auto& [a, _] : k) allowed.push_back(a);
      throw ConfigError(detail::cat("family.", key, " is not a key of family ", name, "; its keys are ",
                                    detail::join(allowed)));
    }
    k[key] = value;
  }
  check_keys(name, k);
  if (name == "pdeformer") return fam::make_pdeformer_family(k);
  if (name == "advection")
    return std::make_unique<PdebenchFamily>(name, "dt(u) + beta*dx(u) = 0", Keys{{"beta", k["beta"]}}, false);
  if (name == "burgers")
    return std::make_unique<PdebenchFamily>(name, "dt(u) + dx(0.5*u^2) - nu/pi*dx(dx(u)) = 0",
                                            Keys{{"nu", k["nu"]}}, false);
  if (name == "diffusion_reaction")
    return std::make_unique<PdebenchFamily>(name, "dt(u) - nu*dx(dx(u)) = rho*u*(1 - u)",
                                            Keys{{"nu", k["nu"]}, {"rho", k["rho"]}}, true);
  return std::make_unique<NavierStokesFamily>(k);
}

}  // namespace spire::flow
