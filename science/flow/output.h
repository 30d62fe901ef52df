// HDF5 output of PDE solutions. PDEBench layout: `tensor` [samples, n_t, n_x(, n_y)] for one field
// (one dataset per field, named by the field, for systems), `x-coordinate`, `y-coordinate`,
// `t-coordinate`. PDEformer layout: `u_sol_all` [samples, n_t, n_x], `x_coord`, `t_coord`,
// `coef/<name>`. Attributes on the root: `spire_version`, `job` (the TOML), `seed`. Files are
// written under a temporary name and renamed when whole.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "science/flow/job.h"

namespace spire::flow {

// The samples of a file: every Solution shares the job's grid and snapshot times.
struct SolutionSet {
  std::vector<Solution> solutions;
  std::vector<std::map<std::string, std::vector<double>>> coef;  // per sample (PDEformer layout)
  std::map<std::string, long> rejected;                           // stored as attributes
  std::vector<std::string> fields;  // the field names in the solutions' order: read_solutions fills
                                    // them; write_solutions takes the job's problem's when empty
};

void write_solutions(const std::string& path, const PdeJob& job, const SolutionSet& set);

// A file written by write_solutions, read back (for resuming and joining dataset runs); IOError
// naming the path and what is missing when it is not one.
SolutionSet read_solutions(const std::string& path);

}  // namespace spire::flow
