// A PDE job: the TOML file of `spire pde solve|generate` and the dictionary of spire.flow.PDE.
// Key names are the interface (docs/flow.md lists them):
//
//   [pde]            equation = "..." | equations = [...], fields = [...] (optional),
//                    parameters = {...}, coefficients = { kappa = "1 + 0.1*cos(pi*x)" }
//   [domain]         x = [x0, x1], y = [y0, y1] (2D), periodic = true
//   [bc]             left = "...", right = "..." (one field) or [bc.<field>] left/right (systems):
//                    "dirichlet: g", "neumann: g", "robin: a*u + b*dx(u) = g"; g may depend on t
//   [initial]        <field> = "expression of x (and y)" | "random" (with a [random] table)
//   [random]         the initial-condition generator (initial.h)
//   [time]           t_end, snapshots, dt | tolerance, bound
//   [discretization] basis, n (or [nx, ny]), dealias, scheme
//   [output]         layout = "pdebench" | "pdeformer" | "both", dtype = "float32" | "float64"
//   [family]         `spire pde generate` only: which random family (families.h) and its keys
//   seed             the base seed of random initial conditions and families
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "science/flow/initial.h"
#include "science/flow/problem.h"
#include "science/flow/solver.h"
#include "science/flow/space.h"

namespace spire::flow {

struct OutputSettings {
  std::string layout = "pdebench";  // pdebench | pdeformer | both
  std::string dtype = "float64";    // float32 | float64
};

struct PdeJob {
  ProblemText problem;
  Discretization discretization;
  TimeSettings time;
  std::map<std::string, std::string> initial;  // field -> expression or "random"
  RandomInitial random;                          // used by fields whose initial is "random"
  OutputSettings output;
  uint64_t seed = 0;
  std::string family;                            // [family] name, "" when none
  std::map<std::string, double> family_keys;     // [family]'s other keys (numbers), for make_family
  std::string toml;                              // the job's text, stored in every output file
  std::string where;                             // the file name, for messages
  std::vector<std::string> warnings;             // what was accepted but has no effect ("[bc] is
                                                 // ignored: the domain is periodic"); the CLI prints them
};

// ConfigError naming the key and the allowed values for anything wrong or unknown (the time step
// and the tolerance together, snapshots < 2, a field without an initial condition, ...).
PdeJob parse_pde_job(const std::string& toml, const std::string& where);
PdeJob load_pde_job(const std::string& path);

// One solve: builds the problem and the space, sets the initial fields (sample `sample` of the
// job's random initial conditions, seeded by (seed, sample)), runs.
// The solver of sample `sample` of a job on `space` (which threads may share), its initial fields
// set: expressions evaluated on the grid, "random" drawn by random_initial(seed, sample).
std::unique_ptr<Solver> make_job_solver(const PdeJob& job, std::shared_ptr<const Space> space, uint64_t sample);

Solution solve_job(const PdeJob& job, uint64_t sample = 0, const StepCallback& callback = {});
// The same, also giving the seconds Solver::run took (the time stepping alone, for benchmarks).
Solution solve_job_timed(const PdeJob& job, uint64_t sample, const StepCallback& callback, double& run_seconds);

}  // namespace spire::flow
