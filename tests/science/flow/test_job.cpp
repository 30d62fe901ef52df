// The job file: the issue's example parses with every value as written; every wrong key or value is
// a ConfigError (ParseError for text that does not parse) that names it; solve_job of the heat
// equation matches its exact solution.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "science/flow/job.h"

namespace spire::flow {
namespace {

// The issue's example, verbatim.
const char* kIssueExample = R"TOML([pde]
equation = "dt(u) + dx(0.5*u^2) - nu*dx(dx(u)) = 0"   # any number of equations and fields
parameters = { nu = 0.01 }
[domain]
x = [-1.0, 1.0]            # y = [...] for 2D
periodic = true
[bc]                        # only when not periodic
left = "dirichlet: 0"       # dirichlet | neumann | robin: a*u + b*dx(u) = g ; g may depend on t
right = "neumann: 0"
[initial]
u = "sin(pi*x)"             # an expression in x (and y), or "random" with a [random] table
[time]
t_end = 1.0
snapshots = 101             # stored, evenly spaced, t = 0 included
dt = 4e-4                   # or tolerance = 1e-8 for adaptive stepping
[discretization]
basis = "fourier"           # fourier | chebyshev
n = 256
dealias = 1.5
scheme = "sbdf2"            # sbdf1..3, rk222, rk443, etdrk4, dopri5 (adaptive, Boost.Odeint)
)TOML";

// A small valid job to break one key at a time.
std::string heat(const std::string& extra_time = "dt = 1e-3", const std::string& disc = "n = 16") {
  return "[pde]\nequation = \"dt(u) = nu*dx(dx(u))\"\nparameters = { nu = 0.5 }\n"
         "[domain]\nx = [0.0, 1.0]\nperiodic = false\n"
         "[bc]\nleft = \"dirichlet: 0\"\nright = \"neumann: 0\"\n"
         "[initial]\nu = \"sin(pi*x/2)\"\n"
         "[time]\nt_end = 0.5\nsnapshots = 6\n" + extra_time + "\n"
         "[discretization]\n" + disc + "\n";
}

// The ConfigError (or ParseError) message of parsing `text`, "" when it parses.
template <class E = ConfigError>
std::string error_of(const std::string& text) {
  try {
    parse_pde_job(text, "job.toml");
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& text, std::initializer_list<const char*> words) {
  const std::string m = error_of(text);
  ASSERT_FALSE(m.empty()) << "parsed without an error:\n" << text;
  for (const char* w : words) EXPECT_NE(m.find(w), std::string::npos) << "'" << w << "' not in: " << m;
}

TEST(Job, IssueExampleParsesWithEveryValue) {
  PdeJob job = parse_pde_job(kIssueExample, "burgers.toml");
  ASSERT_EQ(job.problem.equations.size(), 1u);
  EXPECT_EQ(job.problem.equations[0], "dt(u) + dx(0.5*u^2) - nu*dx(dx(u)) = 0");
  EXPECT_EQ(job.problem.parameters.at("nu"), 0.01);
  EXPECT_EQ(job.problem.fields, std::vector<std::string>{"u"});
  EXPECT_EQ(job.discretization.x0, -1.0);
  EXPECT_EQ(job.discretization.x1, 1.0);
  EXPECT_TRUE(job.discretization.periodic);
  EXPECT_TRUE(job.problem.periodic);
  EXPECT_EQ(job.discretization.dims, 1);
  // [bc] is read (its keys checked) but a periodic domain has no boundary: a warning says so.
  EXPECT_TRUE(job.problem.bcs.empty());
  ASSERT_EQ(job.warnings.size(), 1u);
  EXPECT_NE(job.warnings[0].find("[bc] is ignored"), std::string::npos);
  EXPECT_EQ(job.initial.at("u"), "sin(pi*x)");
  EXPECT_EQ(job.time.t_end, 1.0);
  EXPECT_EQ(job.time.snapshots, 101);
  EXPECT_EQ(job.time.dt, 4e-4);
  EXPECT_EQ(job.time.tolerance, 0.0);
  EXPECT_EQ(job.discretization.basis, "fourier");
  EXPECT_EQ(job.discretization.nx, 256);
  EXPECT_EQ(job.discretization.dealias, 1.5);
  EXPECT_EQ(job.time.scheme, Scheme::SBDF2);
  EXPECT_EQ(job.output.layout, "pdebench");
  EXPECT_EQ(job.output.dtype, "float64");
  EXPECT_EQ(job.seed, 0u);
  EXPECT_EQ(job.toml, kIssueExample);
  EXPECT_EQ(job.where, "burgers.toml");
}

TEST(Job, BoundedDomainKeepsItsBoundaryConditions) {
  PdeJob job = parse_pde_job(heat(), "heat.toml");
  EXPECT_FALSE(job.discretization.periodic);
  EXPECT_EQ(job.discretization.basis, "chebyshev");  // the default for a bounded domain
  EXPECT_EQ(job.problem.bcs.at("").at("left"), "dirichlet: 0");
  EXPECT_EQ(job.problem.bcs.at("").at("right"), "neumann: 0");
  EXPECT_TRUE(job.warnings.empty());
}

TEST(Job, SystemsTwoDimensionsAndTheOtherTables) {
  const std::string text = R"TOML(seed = 7
[pde]
equations = ["dt(w) + dy(psi)*dx(w) - dx(psi)*dy(w) - nu*laplacian(w) = 0", "laplacian(psi) + w = 0"]
fields = ["w", "psi"]
parameters = { nu = 0.05 }
[domain]
x = [0.0, 6.0]
y = [0.0, 3.0]
[initial]
w = "random"
[random]
waves = 3
k_max = 5
p_abs = 0.25
p_window = 0.5
amplitude = 2.0
normalize = true
[time]
t_end = 0.5
snapshots = 3
tolerance = 1e-7
bound = 50.0
[discretization]
n = [32, 16]
dealias = 2.0
[output]
layout = "both"
dtype = "float32"
)TOML";
  PdeJob job = parse_pde_job(text, "ns.toml");
  EXPECT_EQ(job.seed, 7u);
  EXPECT_EQ(job.problem.equations.size(), 2u);
  EXPECT_EQ(job.problem.fields, (std::vector<std::string>{"w", "psi"}));
  EXPECT_EQ(job.discretization.dims, 2);
  EXPECT_EQ(job.problem.dims, 2);
  EXPECT_EQ(job.discretization.y1, 3.0);
  EXPECT_EQ(job.discretization.nx, 32);
  EXPECT_EQ(job.discretization.ny, 16);
  EXPECT_EQ(job.discretization.dealias, 2.0);
  EXPECT_EQ(job.time.tolerance, 1e-7);
  EXPECT_EQ(job.time.scheme, Scheme::DOPRI5);  // the default with a tolerance
  EXPECT_EQ(job.time.bound, 50.0);
  EXPECT_EQ(job.random.waves, 3);
  EXPECT_EQ(job.random.k_max, 5);
  EXPECT_EQ(job.random.p_abs, 0.25);
  EXPECT_EQ(job.random.p_window, 0.5);
  EXPECT_EQ(job.random.amplitude, 2.0);
  EXPECT_TRUE(job.random.normalize);
  EXPECT_EQ(job.output.layout, "both");
  EXPECT_EQ(job.output.dtype, "float32");
  EXPECT_FALSE(job.initial.count("psi"));  // psi is determined by its constraint: no initial value
}

TEST(Job, PerFieldBoundaryTables) {
  const std::string text = R"TOML([pde]
equations = ["dt(u) = dx(dx(u)) + v", "dt(v) = dx(dx(v))"]
[domain]
x = [0.0, 1.0]
periodic = false
[bc.u]
left = "dirichlet: 0"
right = "dirichlet: 0"
[bc.v]
left = "neumann: 0"
right = "robin: 1*v + 2*dx(v) = 0"
[initial]
u = "0"
v = "cos(pi*x)"
[time]
snapshots = 2
dt = 0.01
[discretization]
n = 16
)TOML";
  PdeJob job = parse_pde_job(text, "sys.toml");
  EXPECT_EQ(job.problem.bcs.at("u").at("right"), "dirichlet: 0");
  EXPECT_EQ(job.problem.bcs.at("v").at("left"), "neumann: 0");
  EXPECT_EQ(job.problem.bcs.at("v").at("right"), "robin: 1*v + 2*dx(v) = 0");
}

TEST(Job, EachWrongKeyOrValueIsNamed) {
  // Unknown keys, with the allowed ones.
  expect_error(heat("dt = 1e-3\ndtt = 2"), {"dtt", "[time]", "t_end", "snapshots"});
  expect_error("speed = 1\n" + heat(), {"speed", "top level", "pde", "discretization"});
  expect_error(heat() + "stencil = 3\n", {"stencil", "[discretization]", "scheme"});
  // equation and equations together.
  expect_error("[pde]\nequation = \"dt(u) = dx(dx(u))\"\nequations = [\"dt(u) = 0\"]\n", {"equation", "equations"});
  // dt and tolerance together, and neither.
  expect_error(heat("dt = 1e-3\ntolerance = 1e-6"), {"dt", "tolerance", "both"});
  expect_error(heat(""), {"dt", "tolerance"});
  // An unknown scheme lists the names; a scheme that does not fit the step control says so.
  expect_error(heat("dt = 1e-3", "n = 16\nscheme = \"sbdf4\""), {"discretization.scheme", "sbdf4", "sbdf2", "etdrk4"});
  expect_error(heat("dt = 1e-3", "n = 16\nscheme = \"dopri5\""), {"dopri5", "tolerance"});
  expect_error(heat("tolerance = 1e-6", "n = 16\nscheme = \"rk443\""), {"rk443", "tolerance"});
  // Bad output settings.
  expect_error(heat() + "[output]\nlayout = \"hdf\"\n", {"output.layout", "hdf", "pdebench", "pdeformer", "both"});
  expect_error(heat() + "[output]\ndtype = \"float16\"\n", {"output.dtype", "float32"});
  // Initial conditions: missing, for a field that does not exist.
  expect_error(R"TOML([pde]
equation = "dt(u) = dx(dx(u))"
[time]
dt = 0.01
)TOML", {"[initial]", "no condition for u"});
  std::string extra = heat();
  extra.replace(extra.find("u = \"sin"), 0, "v = \"x\"\n");
  expect_error(extra, {"[initial]", "v", "not a field", "u"});
  // Values out of range or of the wrong type.
  expect_error(heat("dt = -1e-3"), {"time.dt", "> 0"});
  std::string few = heat();
  few.replace(few.find("snapshots = 6"), 13, "snapshots = 1");
  expect_error(few, {"time.snapshots", ">= 2"});
  expect_error(heat("dt = 1e-3", "n = [16, 16]"), {"discretization.n", "2D"});
  expect_error(heat("dt = 1e-3", "n = 16\nbasis = \"fourier\""), {"basis", "fourier", "periodic"});
  expect_error(heat("dt = 1e-3", "n = 16\ndealias = 0.5"), {"discretization.dealias", "0.5"});
  std::string interval = heat();
  interval.replace(interval.find("x = [0.0, 1.0]"), 14, "x = [1.0, 0.0]");
  expect_error(interval, {"domain.x", "x0 < x1"});
  // [bc] mixing left/right and per-field tables.
  std::string mixed = heat();
  mixed.replace(mixed.find("right = \"neumann: 0\"\n"), 0, "u = { left = \"dirichlet: 0\" }\n");
  expect_error(mixed, {"[bc]", "mixes"});
  // No equation at all.
  expect_error("[time]\ndt = 0.1\n", {"no equation", "[pde]", "[family]"});
  // parameters must be numbers.
  std::string bad_parameter = heat();
  bad_parameter.replace(bad_parameter.find("nu = 0.5"), 8, "nu = \"fast\"");
  expect_error(bad_parameter, {"pde.parameters.nu", "number"});
}

TEST(Job, AnExpressionThatDoesNotParseShowsTheCaret) {
  std::string text = heat();
  text.replace(text.find("sin(pi*x/2)"), 11, "sin(pi*x/2");
  const std::string m = error_of<ParseError>(text);
  ASSERT_FALSE(m.empty());
  EXPECT_NE(m.find("initial.u"), std::string::npos) << m;
  EXPECT_NE(m.find("sin(pi*x/2\n"), std::string::npos) << m;  // the source line
  EXPECT_NE(m.find('^'), std::string::npos) << m;             // and the caret under it
  // t is not allowed in an initial condition; an unknown name is listed with the allowed ones.
  std::string with_t = heat();
  with_t.replace(with_t.find("sin(pi*x/2)"), 11, "sin(pi*x/2)*exp(-t)");
  EXPECT_FALSE(error_of<Error>(with_t).empty());
  std::string unknown = heat();
  unknown.replace(unknown.find("sin(pi*x/2)"), 11, "sin(pi*z)");
  const std::string u = error_of<Error>(unknown);
  EXPECT_NE(u.find("z"), std::string::npos) << u;
}

// The heat equation on a periodic domain: u = exp(-nu pi^2 t) sin(pi x).
TEST(Job, SolveJobMatchesTheHeatEquationsExactSolution) {
  const std::string text = R"TOML([pde]
equation = "dt(u) - nu*dx(dx(u)) = 0"
parameters = { nu = 0.1 }
[domain]
x = [-1.0, 1.0]
[initial]
u = "sin(pi*x)"
[time]
t_end = 0.5
snapshots = 6
dt = 1e-3
[discretization]
n = 16
scheme = "sbdf3"
)TOML";
  PdeJob job = parse_pde_job(text, "heat.toml");
  Solution s = solve_job(job);
  ASSERT_TRUE(s.complete) << s.stop_reason;
  ASSERT_EQ(s.t.size(), 6u);
  const auto& x = s.coords.at(0);
  ASSERT_EQ(x.size(), 16u);
  double err = 0;
  for (size_t k = 0; k < s.t.size(); ++k) {
    EXPECT_NEAR(s.t[k], 0.1 * double(k), 1e-12);
    for (size_t i = 0; i < x.size(); ++i)
      err = std::max(err, std::abs(s.fields[0][k * x.size() + i] -
                                   std::exp(-0.1 * M_PI * M_PI * s.t[k]) * std::sin(M_PI * x[i])));
  }
  EXPECT_LT(err, 1e-7);
}

}  // namespace
}  // namespace spire::flow
