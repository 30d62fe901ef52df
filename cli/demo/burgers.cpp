// Step: viscous Burgers from a job file (the issue's example): a Fourier spectral solve with IMEX
// SBDF2, checked against the exact Cole-Hopf solution, written as HDF5 (PDEBench layout) with an
// x-t picture beside it.
#include <chrono>
#include <cmath>
#include <filesystem>

#include "cli/demo/demo.h"
#include "science/flow/job.h"
#include "science/flow/output.h"
#include "science/flow/plot.h"

namespace spire::cli::demo {
namespace {

const char* kJob = R"TOML([pde]
equation = "dt(u) + dx(0.5*u^2) - nu*dx(dx(u)) = 0"
parameters = { nu = 0.01 }
[domain]
x = [-1.0, 1.0]
periodic = true
[initial]
u = "sin(pi*x)"
[time]
t_end = 1.0
snapshots = 101
dt = 4e-4
[discretization]
basis = "fourier"
n = 256
dealias = 1.5
scheme = "sbdf2"
)TOML";

// Cole-Hopf: u = -2 nu phi_x / phi with phi the heat flow of phi0 = exp(cos(pi x) / (2 pi nu)),
//   u(x, t) = int sin(pi (x - h)) phi0(x - h) G(h, t) dh / int phi0(x - h) G(h, t) dh,
// G the heat kernel; the trapezoid rule in h = s sqrt(4 nu t) is exact to round-off here.
double cole_hopf(double x, double t, double nu) {
  const double w = std::sqrt(4 * nu * t), a = 1 / (2 * M_PI * nu), ds = 1e-3;
  double num = 0, den = 0;
  for (double s = -9; s <= 9; s += ds) {
    const double y = x - s * w;
    const double g = std::exp(-s * s + a * (std::cos(M_PI * y) - 1));
    num += std::sin(M_PI * y) * g;
    den += g;
  }
  return num / den;
}

SPIRE_DEMO_STEP(300, "burgers", "Viscous Burgers from a job file, against Cole-Hopf (spire pde solve)", [](Context& c) {
  flow::PdeJob job = flow::parse_pde_job(kJob, "the demo's Burgers job");
  const auto t0 = std::chrono::steady_clock::now();
  flow::Solution s = flow::solve_job(job);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::filesystem::path dir = c.dir;
  flow::SolutionSet set;
  set.solutions.push_back(s);
  flow::write_solutions((dir / "burgers.h5").string(), job, set);
  flow::plot_solution(s, 0, (dir / "burgers.png").string());
  c.out << "  u_t + (u^2/2)_x = 0.01 u_xx, u(x, 0) = sin(pi x), periodic on [-1, 1]; Fourier n = 256, SBDF2, "
           "dt = 4e-4; wrote "
        << (dir / "burgers.h5").string() << " and " << (dir / "burgers.png").string() << "\n";
  c.figure("time steps", double(s.steps));
  c.figure("solve time", seconds, "s");
  const std::vector<double>& x = s.coords[0];
  const size_t n = x.size(), last = s.t.size() - 1;
  double err = 0;
  for (size_t i = 0; i < n; i += 4)
    err = std::max(err, std::abs(s.fields[0][last * n + i] - cole_hopf(x[i], s.t[last], 0.01)));
  c.check("snapshots stored (t = 0 to 1)", double(s.t.size()), 101, 0);
  c.check("max |u - Cole-Hopf| at t = 1", err, 0, 1e-5);
});

}  // namespace
}  // namespace spire::cli::demo
