// spire._C._flow: the PDE package (science/flow) for spire.flow (python/spire/flow.py). Jobs come in
// as TOML text, so Python and `spire pde` share one reader and its errors; solves and dataset runs
// release the GIL.
#include <cstring>
#include <limits>

#include "common.h"
#include "science/flow/generate.h"
#include "science/flow/job.h"
#include "science/flow/output.h"
#include "science/flow/problem.h"

namespace spire::python {
namespace {

using namespace spire::flow;

py::array_t<double> to_array(const double* data, std::vector<py::ssize_t> shape) {
  py::array_t<double> a(shape);
  size_t n = 1;
  for (auto d : shape) n *= size_t(d);
  if (n) std::memcpy(a.mutable_data(), data, n * sizeof(double));
  return a;
}

py::array_t<double> to_array(const std::vector<double>& v) { return to_array(v.data(), {py::ssize_t(v.size())}); }

std::vector<py::ssize_t> grid_shape(const std::vector<std::vector<double>>& coords) {
  std::vector<py::ssize_t> s;
  for (auto& c : coords) s.push_back(py::ssize_t(c.size()));
  return s;
}

void put_coordinates(py::dict& d, const std::vector<double>& t, const std::vector<std::vector<double>>& coords) {
  d["t"] = to_array(t);
  d["x"] = to_array(coords.at(0));
  if (coords.size() > 1) d["y"] = to_array(coords[1]);
}

py::dict solution_dict(const Solution& s, const std::vector<std::string>& names, double seconds) {
  py::dict d, values;
  std::vector<py::ssize_t> shape = grid_shape(s.coords);
  shape.insert(shape.begin(), py::ssize_t(s.t.size()));
  for (size_t f = 0; f < s.fields.size(); ++f) values[py::str(names.at(f))] = to_array(s.fields[f].data(), shape);
  d["fields"] = names;
  d["values"] = values;
  put_coordinates(d, s.t, s.coords);
  d["complete"] = s.complete;
  d["stop_reason"] = s.stop_reason;
  d["steps"] = s.steps;
  d["rejected"] = s.rejected;
  d["seconds"] = seconds;
  return d;
}

py::dict check(const std::string& toml, const std::string& where) {
  PdeJob job = parse_pde_job(toml, where);
  py::dict d;
  d["fields"] = job.problem.fields;
  d["warnings"] = job.warnings;
  return d;
}

py::dict solve(const std::string& toml, const std::string& where, uint64_t sample, const std::string& out) {
  PdeJob job = parse_pde_job(toml, where);
  Solution s;
  double seconds = 0;
  {
    py::gil_scoped_release release;
    s = solve_job_timed(job, sample, {}, seconds);
    if (!out.empty()) {
      SolutionSet set;
      set.solutions.push_back(s);
      write_solutions(out, job, set);
    }
  }
  return solution_dict(s, job.problem.fields, seconds);
}

std::string explain_job(const std::string& toml, const std::string& where) {
  std::string text = explain(build_problem(parse_pde_job(toml, where).problem));
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text;
}

py::dict generate_job(const std::string& toml, const std::string& where, const std::string& out, long samples,
                      int64_t seed, int threads, bool resume, int refine) {
  PdeJob job = parse_pde_job(toml, where);
  GenerateSettings settings;
  settings.samples = samples;
  settings.seed = seed >= 0 ? uint64_t(seed) : job.seed;
  job.seed = settings.seed;
  settings.threads = threads;
  settings.resume = resume;
  settings.refine = refine;
  GenerateReport r;
  {
    py::gil_scoped_release release;
    r = generate(job, out, settings);
  }
  py::dict d;
  d["accepted"] = r.accepted;
  d["rejected"] = r.rejected;
  d["resumed"] = r.resumed;
  d["refined"] = r.refined;
  d["seconds"] = r.seconds;
  return d;
}

py::dict load(const std::string& path) {
  SolutionSet set;
  {
    py::gil_scoped_release release;
    set = read_solutions(path);
  }
  py::dict d, values, coef;
  SPIRE_CHECK(!set.solutions.empty(), IOError, "spire.flow.load: ", path, " holds no samples");
  const Solution& first = set.solutions.front();
  size_t nt = 0;
  const Solution* longest = &first;
  for (auto& s : set.solutions)
    if (s.t.size() > nt) nt = s.t.size(), longest = &s;
  size_t grid = 1;
  for (auto& c : first.coords) grid *= c.size();
  std::vector<py::ssize_t> shape = grid_shape(first.coords);
  shape.insert(shape.begin(), {py::ssize_t(set.solutions.size()), py::ssize_t(nt)});
  for (size_t f = 0; f < set.fields.size(); ++f) {
    // Samples that stopped early are NaN after their last snapshot, as in the file.
    std::vector<double> all(set.solutions.size() * nt * grid, std::numeric_limits<double>::quiet_NaN());
    for (size_t s = 0; s < set.solutions.size(); ++s)
      std::copy(set.solutions[s].fields[f].begin(), set.solutions[s].fields[f].end(),
                all.begin() + std::ptrdiff_t(s * nt * grid));
    values[py::str(set.fields[f])] = to_array(all.data(), shape);
  }
  d["fields"] = set.fields;
  d["values"] = values;
  put_coordinates(d, longest->t, first.coords);
  py::list complete, reasons;
  for (auto& s : set.solutions) complete.append(s.complete), reasons.append(s.stop_reason);
  d["complete"] = complete;
  d["stop_reasons"] = reasons;
  if (!set.coef.empty())
    for (auto& [name, v0] : set.coef.front()) {
      std::vector<double> all;
      for (auto& c : set.coef) all.insert(all.end(), c.at(name).begin(), c.at(name).end());
      coef[py::str(name)] = to_array(all.data(), {py::ssize_t(set.coef.size()), py::ssize_t(v0.size())});
    }
  d["coef"] = coef;
  d["rejected"] = set.rejected;
  return d;
}

}  // namespace

void bind_flow(py::module_& m) {
  auto flow = m.def_submodule("_flow", "PDEs: the language, spectral solvers, datasets");
  flow.def("check", &check, py::arg("toml"), py::arg("where"),
           "Reads a job's TOML text (every key and expression checked); {fields, warnings}.");
  flow.def("solve", &solve, py::arg("toml"), py::arg("where"), py::arg("sample") = 0, py::arg("out") = "",
           "Solves a job (without the GIL); a dict of the snapshots. With out, also writes the HDF5 file.");
  flow.def("explain", &explain_job, py::arg("toml"), py::arg("where"), "The split of a job's equations as text.");
  flow.def("generate", &generate_job, py::arg("toml"), py::arg("where"), py::arg("out"), py::arg("samples"),
           py::arg("seed") = -1, py::arg("threads") = 0, py::arg("resume") = true, py::arg("refine") = 0,
           "spire pde generate (without the GIL); the report as a dict.");
  flow.def("load", &load, py::arg("path"), "A file of spire pde solve/generate as a dict of arrays.");
}

}  // namespace spire::python
