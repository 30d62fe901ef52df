// Reading PDE jobs (job.h): every table through JobSection, so an unknown key is named with the
// allowed ones; then the equations, boundary conditions and initial expressions are parsed, so a
// mistake in any of them surfaces before a solve starts.
#include "science/flow/job.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "engine/core/error.h"
#include "engine/data/job_file.h"
#include "science/flow/evaluate.h"
#include "science/flow/families.h"
#include "science/flow/parser.h"

namespace spire::flow {
namespace {

using data::JobSection;

constexpr double kInf = HUGE_VAL;

// [domain] x or y: two increasing numbers.
void read_interval(JobSection& domain, const char* key, double& a, double& b, const std::string& where) {
  if (!domain.has(key)) return;
  std::vector<double> v;
  domain.numbers(key, v, -kInf, kInf);
  SPIRE_CHECK(v.size() == 2 && std::isfinite(v[0]) && std::isfinite(v[1]) && v[0] < v[1], ConfigError, where,
              ": domain.", key, " must be [", key, "0, ", key, "1] with ", key, "0 < ", key, "1, got ", v.size(),
              " number", v.size() == 1 ? "" : "s", v.size() == 2 ? " not increasing" : "");
  a = v[0], b = v[1];
}

void read_pde(JobSection& root, PdeJob& job) {
  ProblemText& p = job.problem;
  JobSection pde = root.table("pde");
  SPIRE_CHECK(!(pde.has("equation") && pde.has("equations")), ConfigError, job.where,
              ": [pde] has both equation and equations; give one: equation = \"...\" for one equation, "
              "equations = [\"...\", ...] for a system");
  std::string equation;
  pde.string("equation", equation);
  if (!equation.empty()) p.equations = {equation};
  pde.strings("equations", p.equations);
  SPIRE_CHECK(!pde.has("equations") || !p.equations.empty(), ConfigError, job.where,
              ": pde.equations is empty; it lists the equations of the system");
  pde.strings("fields", p.fields);
  JobSection parameters = pde.table("parameters");
  for (const std::string& k : parameters.keys()) {
    double v = 0;
    parameters.number(k.c_str(), v, -kInf, kInf);
    p.parameters[k] = v;
  }
  parameters.finish();
  JobSection coefficients = pde.table("coefficients");
  for (const std::string& k : coefficients.keys()) coefficients.string(k.c_str(), p.coefficients[k]);
  coefficients.finish();
  pde.finish();
}

void read_domain(JobSection& root, PdeJob& job) {
  Discretization& d = job.discretization;
  JobSection domain = root.table("domain");
  read_interval(domain, "x", d.x0, d.x1, job.where);
  if (domain.has("y")) d.dims = 2;
  read_interval(domain, "y", d.y0, d.y1, job.where);
  domain.boolean("periodic", d.periodic);
  domain.finish();
  job.problem.dims = d.dims;
  job.problem.periodic = d.periodic;
  SPIRE_CHECK(d.dims == 1 || d.periodic, ConfigError, job.where,
              ": a 2D domain is periodic in x and y (Fourier x Fourier); domain.periodic must be true");
}

// [bc] left/right for a problem of one field, or [bc.<field>] tables of left/right.
void read_bc(JobSection& root, PdeJob& job) {
  JobSection bc = root.table("bc");
  if (!bc.present()) return;
  std::map<std::string, std::map<std::string, std::string>> bcs;
  const std::vector<std::string> keys = bc.keys();
  const bool per_field = std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return bc.is_table(k.c_str()); });
  auto sides = [](JobSection& s, std::map<std::string, std::string>& out) {
    for (const char* side : {"left", "right"})
      if (s.has(side)) s.string(side, out[side]);
    s.finish();
  };
  if (per_field) {
    for (const std::string& k : keys) {
      SPIRE_CHECK(bc.is_table(k.c_str()), ConfigError, job.where, ": [bc] mixes ", k,
                  " = ... with per-field tables; write either left/right (one field) or [bc.<field>] tables "
                  "holding left/right for each field");
      JobSection f = bc.table(k.c_str());
      sides(f, bcs[k]);
    }
    bc.finish();
  } else {
    sides(bc, bcs[""]);
  }
  if (job.discretization.periodic) {
    job.warnings.push_back("[bc] is ignored: the domain is periodic (domain.periodic = true)");
    return;
  }
  job.problem.bcs = std::move(bcs);
}

void read_initial(JobSection& root, PdeJob& job) {
  JobSection initial = root.table("initial");
  for (const std::string& k : initial.keys()) initial.string(k.c_str(), job.initial[k]);
  initial.finish();
  RandomInitial& r = job.random;
  JobSection random = root.table("random");
  random.integer("waves", r.waves, 1);
  random.integer("k_max", r.k_max, 1);
  random.number("p_abs", r.p_abs, 0, 1);
  random.number("p_window", r.p_window, 0, 1);
  random.number("amplitude", r.amplitude, -kInf, kInf);
  random.boolean("normalize", r.normalize);
  random.finish();
  const bool any_random = std::any_of(job.initial.begin(), job.initial.end(),
                                      [](auto& kv) { return kv.second == "random"; });
  if (random.present() && !any_random && job.family.empty())
    job.warnings.push_back("[random] is unused: no field's initial condition is \"random\"");
}

void read_time(JobSection& root, PdeJob& job) {
  TimeSettings& t = job.time;
  JobSection time = root.table("time");
  time.number("t_end", t.t_end, 0, kInf, true);
  time.integer("snapshots", t.snapshots, 2);
  SPIRE_CHECK(!(time.has("dt") && time.has("tolerance")), ConfigError, job.where,
              ": [time] has both dt and tolerance; give dt for fixed steps or tolerance for adaptive stepping "
              "(scheme dopri5), not both");
  time.number("dt", t.dt, 0, kInf, true);
  time.number("tolerance", t.tolerance, 0, 1, true);
  time.number("bound", t.bound, 0, kInf, true);
  time.finish();
  SPIRE_CHECK(t.dt > 0 || t.tolerance > 0, ConfigError, job.where,
              ": [time] needs dt (the fixed time step) or tolerance (adaptive stepping with dopri5)");
}

void read_discretization(JobSection& root, PdeJob& job) {
  Discretization& d = job.discretization;
  JobSection disc = root.table("discretization");
  d.basis = d.periodic ? "fourier" : "chebyshev";
  disc.string("basis", d.basis, {"fourier", "chebyshev"});
  SPIRE_CHECK(d.basis == (d.periodic ? "fourier" : "chebyshev"), ConfigError, job.where, ": discretization.basis = \"",
              d.basis, "\" needs ", d.periodic ? "a bounded domain (domain.periodic = false)" : "a periodic domain",
              "; a ", d.periodic ? "periodic" : "bounded", " domain takes basis = \"",
              d.periodic ? "fourier" : "chebyshev", "\"");
  if (disc.is_array("n")) {
    std::vector<int> n;
    disc.integers("n", n, 4);
    SPIRE_CHECK(d.dims == 2 && n.size() == 2, ConfigError, job.where, ": discretization.n = [nx, ny] is for 2D "
                "domains (domain.y given); ", d.dims == 1 ? "this domain is 1D: give n = <points>" : "give two numbers");
    d.nx = n[0], d.ny = n[1];
  } else {
    disc.integer("n", d.nx, 4, 1 << 24);
    d.ny = d.nx;
  }
  disc.number("dealias", d.dealias, 1, 4);
  TimeSettings& t = job.time;
  std::string scheme = t.tolerance > 0 ? "dopri5" : "sbdf2";
  disc.string("scheme", scheme, scheme_names());
  t.scheme = scheme_from_name(scheme);
  disc.finish();
  const bool adaptive = t.scheme == Scheme::DOPRI5;
  SPIRE_CHECK(adaptive == (t.tolerance > 0), ConfigError, job.where, ": discretization.scheme = \"", scheme, "\" ",
              adaptive ? "is adaptive and takes [time] tolerance, not dt"
                       : "takes fixed steps ([time] dt); [time] tolerance is for scheme = \"dopri5\"");
}

void read_output(JobSection& root, PdeJob& job) {
  JobSection output = root.table("output");
  output.string("layout", job.output.layout, {"pdebench", "pdeformer", "both"});
  output.string("dtype", job.output.dtype, {"float32", "float64"});
  output.finish();
}

void read_family(JobSection& root, PdeJob& job) {
  JobSection family = root.table("family");
  if (!family.present()) return;
  SPIRE_CHECK(family.has("name"), ConfigError, job.where, ": [family] needs name, one of ",
              detail::join(family_names()));
  family.string("name", job.family, family_names());
  // The family's own keys, so that finish() names any other key with the allowed ones.
  for (const auto& [key, fallback] : family_defaults(job.family)) {
    const bool given = family.has(key.c_str());
    double v = fallback;
    family.number(key.c_str(), v, -kInf, kInf);  // also when absent: finish() then lists it as allowed
    if (given) job.family_keys[key] = v;
  }
  family.finish();
  make_family(job.family, job.family_keys);  // the family's checks of the values
}

// Runs f, prefixing the message of a ConfigError or ParseError with the job's name (the file), as
// the errors of the tables have it.
template <class F>
auto in_job(const PdeJob& job, F&& f) {
  try {
    return f();
  } catch (const ParseError& e) {
    throw ParseError(detail::cat(job.where, ": ", e.what()));
  } catch (const ConfigError& e) {
    throw ConfigError(detail::cat(job.where, ": ", e.what()));
  }
}

// The equations, boundary conditions and initial expressions, parsed now so that errors come
// before any solve.
// What an [initial] expression may use: x (and y), the parameters; no fields, t or derivatives.
Scope initial_scope(const Problem& problem) {
  Scope scope;
  scope.parameters = problem.parameters;
  scope.x = true, scope.y = problem.dims == 2, scope.t = false, scope.derivatives = false;
  return scope;
}

void check_problem(PdeJob& job) {
  ProblemText& text = job.problem;
  if (text.equations.empty()) {
    SPIRE_CHECK(!job.family.empty(), ConfigError, job.where,
                ": the job has no equation; give [pde] equation = \"...\" (or equations = [...]), or a [family] "
                "for spire pde generate");
    return;
  }
  const Problem problem = in_job(job, [&] { return build_problem(text); });
  if (text.fields.empty()) text.fields = problem.fields;
  // Boundary conditions that do not match the equations' orders are found by the Chebyshev
  // space's matrices; a small copy of the space finds them now instead of at the solve.
  if (!problem.periodic) {
    Discretization small = job.discretization;
    small.nx = std::min(small.nx, 16);
    Eigen::MatrixXcd M, L;
    in_job(job, [&] { make_space(small)->matrices(0, problem, M, L); });
  }
  const Scope scope = initial_scope(problem);
  for (auto& [name, expression] : job.initial) {
    SPIRE_CHECK(std::find(problem.fields.begin(), problem.fields.end(), name) != problem.fields.end(), ConfigError,
                job.where, ": [initial] names ", name, ", which is not a field of the problem; fields: ",
                detail::join(problem.fields));
    if (expression != "random") in_job(job, [&] { parse_expression(expression, "initial." + name, scope); });
  }
  for (size_t i = 0; i < problem.fields.size(); ++i) {
    if (problem.equations[i].mass.empty()) continue;  // determined by a constraint: no initial value
    const std::string& f = problem.fields[i];
    SPIRE_CHECK(job.initial.count(f) || !job.family.empty(), ConfigError, job.where, ": [initial] has no condition for ",
                f, "; give ", f, " = \"<expression of x", problem.dims == 2 ? " and y" : "", ">\" or ", f,
                " = \"random\" (with a [random] table)");
  }
}

}  // namespace

PdeJob parse_pde_job(const std::string& toml, const std::string& where) {
  PdeJob job;
  job.toml = toml;
  job.where = where;
  JobSection root = JobSection::parse(toml, where);
  int64_t seed = 0;
  root.integer("seed", seed, 0);
  job.seed = uint64_t(seed);
  read_pde(root, job);
  read_domain(root, job);
  read_bc(root, job);
  read_family(root, job);
  read_initial(root, job);
  read_time(root, job);
  read_discretization(root, job);
  read_output(root, job);
  root.finish();
  check_problem(job);
  return job;
}

PdeJob load_pde_job(const std::string& path) { return parse_pde_job(JobSection::read(path), path); }

std::unique_ptr<Solver> make_job_solver(const PdeJob& job, std::shared_ptr<const Space> space, uint64_t sample) {
  Problem problem = build_problem(job.problem);
  const Scope scope = initial_scope(problem);
  std::vector<std::pair<int, std::vector<double>>> initial;
  {
    Evaluator evaluator(problem, *space);
    for (size_t i = 0; i < problem.fields.size(); ++i) {
      auto it = job.initial.find(problem.fields[i]);
      if (it == job.initial.end()) continue;
      if (it->second == "random")
        initial.emplace_back(int(i), random_initial(job.random, *space, job.seed, sample, int(i)));
      else
        initial.emplace_back(int(i), evaluator.on_grid(*parse_expression(it->second, "initial." + it->first, scope), 0.0));
    }
  }
  auto solver = std::make_unique<Solver>(std::move(problem), std::move(space), job.time);
  for (auto& [field, grid] : initial) solver->set_initial(field, grid);
  return solver;
}

Solution solve_job_timed(const PdeJob& job, uint64_t sample, const StepCallback& callback, double& run_seconds) {
  SPIRE_CHECK(!job.problem.equations.empty(), ConfigError, job.where, ": the job has no [pde] equation",
              job.family.empty() ? "" : " (its [family] " + job.family + " is for spire pde generate)",
              "; a solve needs [pde] equation = \"...\"");
  std::unique_ptr<Solver> solver = make_job_solver(job, make_space(job.discretization), sample);
  const auto t0 = std::chrono::steady_clock::now();
  Solution s = solver->run(callback);
  run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

Solution solve_job(const PdeJob& job, uint64_t sample, const StepCallback& callback) {
  double seconds = 0;
  return solve_job_timed(job, sample, callback, seconds);
}

}  // namespace spire::flow
