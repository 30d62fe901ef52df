// S-parameters from lumped ports (s_parameters.h): one run per excited port, power waves from the
// port monitors, S = B A^-1 (all ports excited) or b_i / a_j.
#include "science/elec/s_parameters.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include "engine/core/error.h"
#include "science/elec/units.h"

namespace spire::elec {

namespace {

void check_inputs(const Problem& problem, const std::vector<double>& frequencies, double until,
                  const SParameterOptions& options) {
  SPIRE_CHECK(!problem.ports.empty(), ValueError, "s_parameters: the problem has no ports");
  SPIRE_CHECK(problem.sources.empty() && problem.plane_waves.empty(), ValueError, "s_parameters: the problem has ",
              problem.sources.size(), " sources and ", problem.plane_waves.size(),
              " plane waves; the ports must be its only excitation (remove them)");
  SPIRE_CHECK(!frequencies.empty(), ValueError, "s_parameters: no frequencies");
  for (double f : frequencies)
    SPIRE_CHECK(std::isfinite(f) && f > 0, ValueError, "s_parameters: frequencies must be finite and > 0 (c/a), got ",
                f);
  SPIRE_CHECK(std::isfinite(until) && until > 0, ValueError, "s_parameters: until must be finite and > 0, got ",
              until);
  SPIRE_CHECK(std::isfinite(options.decay_by) && options.decay_by >= 0 && options.decay_by < 1, ValueError,
              "s_parameters: decay_by must be in [0, 1) (0: run until `until`), got ", options.decay_by);
  SPIRE_CHECK(std::isfinite(options.decay_interval) && options.decay_interval > 0, ValueError,
              "s_parameters: decay_interval must be finite and > 0, got ", options.decay_interval);
  std::set<int> seen;
  for (int j : options.excite) {
    SPIRE_CHECK(j >= 0 && size_t(j) < problem.ports.size(), ValueError, "s_parameters: excite names port ", j,
                "; the problem has ports 0..", problem.ports.size() - 1);
    SPIRE_CHECK(seen.insert(j).second, ValueError, "s_parameters: excite names port ", j, " twice");
  }
}

struct RunResult {
  std::vector<std::vector<std::complex<double>>> a, b;  // [port][frequency]
  std::vector<std::complex<double>> impedance;          // of the excited port
  double stop_time = 0;
  bool decayed = false;
};

// Builds the problem with port j excited and the others passive, runs it, and reads every port.
RunResult run_exciting(const Problem& problem, size_t j, const std::vector<double>& frequencies, double until,
                       const SParameterOptions& options) {
  Problem p = problem;
  for (size_t i = 0; i < p.ports.size(); ++i)
    if (i != j) p.ports[i].profile = nullptr;
  const TimeProfile& profile = *p.ports[j].profile;
  SPIRE_CHECK(!std::isfinite(profile.end_time()) || until >= profile.end_time(), ValueError, "s_parameters: until = ",
              until, " ends before port ", j, "'s excitation does (t = ", profile.end_time(),
              "): the DFTs would miss part of it");
  Simulation sim = build(p);
  std::vector<std::unique_ptr<PortMonitor>> monitors;
  for (const LumpedPort& port : p.ports) monitors.push_back(std::make_unique<PortMonitor>(sim, port, frequencies));

  RunResult r;
  double largest = 0, largest_recent = 0;
  double next_check = std::max(0.0, std::isfinite(profile.end_time()) ? profile.end_time() : until) +
                      options.decay_interval;
  while (sim.time() < until - 1e-6 * sim.dt()) {
    sim.step();
    if (options.decay_by == 0) continue;
    // The ports' instantaneous power measure (s_parameters.h), in normalised units.
    double power = 0;
    for (const auto& m : monitors) {
      const double z = m->resistance() / si::kVacuumImpedance;
      power += (std::norm(m->instant_voltage()) + z * z * std::norm(m->instant_current())) / z;
    }
    largest = std::max(largest, power);
    largest_recent = std::max(largest_recent, power);
    if (sim.time() >= next_check) {
      if (largest_recent <= options.decay_by * largest) {
        r.decayed = true;
        break;
      }
      largest_recent = 0;
      next_check += options.decay_interval;
    }
  }
  r.stop_time = sim.time();
  for (const auto& m : monitors) {
    r.a.push_back(m->incident_wave());
    r.b.push_back(m->reflected_wave());
  }
  r.impedance = monitors[j]->impedance();
  return r;
}

}  // namespace

std::complex<double> SParameterResult::operator()(size_t i, size_t j, size_t f) const {
  SPIRE_CHECK(i < s.size() && j < s.size(), ValueError, "SParameterResult: port index (", i, ", ", j,
              ") out of range; there are ", s.size(), " ports");
  SPIRE_CHECK(!s[i][j].empty(), ValueError, "SParameterResult: port ", j, " was not excited, so S_", i, j,
              " is unknown");
  SPIRE_CHECK(f < frequencies.size(), ValueError, "SParameterResult: frequency index ", f, " out of range (",
              frequencies.size(), " frequencies)");
  return s[i][j][f];
}

SParameterResult s_parameters(const Problem& problem, const std::vector<double>& frequencies, double until,
                              SParameterOptions options) {
  check_inputs(problem, frequencies, until, options);
  const size_t n = problem.ports.size(), nf = frequencies.size();
  std::vector<int> excite = options.excite;
  if (excite.empty())
    for (size_t j = 0; j < n; ++j) excite.push_back(int(j));
  for (int j : excite)
    SPIRE_CHECK(problem.ports[size_t(j)].profile != nullptr, ValueError, "s_parameters: port ", j,
                " has no profile to excite it with (give it a pulse covering the frequencies, e.g. a GaussianSource)");

  SParameterResult r;
  r.frequencies = frequencies;
  for (const LumpedPort& port : problem.ports) r.reference_impedance.push_back(port.resistance);
  r.excited = excite;
  r.s.assign(n, std::vector<std::vector<std::complex<double>>>(n));
  r.input_impedance.assign(n, {});
  r.incident.assign(n, {});
  r.reflected.assign(n, {});
  for (int j : excite) {
    RunResult run = run_exciting(problem, size_t(j), frequencies, until, options);
    r.input_impedance[size_t(j)] = std::move(run.impedance);
    r.incident[size_t(j)] = std::move(run.a);
    r.reflected[size_t(j)] = std::move(run.b);
    r.stop_time.push_back(run.stop_time);
    r.decayed.push_back(run.decayed);
  }

  for (size_t i = 0; i < n; ++i)
    for (int j : excite) r.s[i][size_t(j)].assign(nf, 0.0);
  if (excite.size() == n) {
    // S A = B with column j of A, B the waves of the run exciting port j.
    Eigen::MatrixXcd A(n, n), B(n, n);
    for (size_t f = 0; f < nf; ++f) {
      for (size_t j = 0; j < n; ++j)
        for (size_t i = 0; i < n; ++i) {
          A(Eigen::Index(i), Eigen::Index(j)) = r.incident[j][i][f];
          B(Eigen::Index(i), Eigen::Index(j)) = r.reflected[j][i][f];
        }
      const Eigen::MatrixXcd S = A.transpose().fullPivLu().solve(B.transpose()).transpose();
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) r.s[i][j][f] = S(Eigen::Index(i), Eigen::Index(j));
    }
  } else {
    for (int j : excite)
      for (size_t i = 0; i < n; ++i)
        for (size_t f = 0; f < nf; ++f)
          r.s[i][size_t(j)][f] = r.reflected[size_t(j)][i][f] / r.incident[size_t(j)][size_t(j)][f];
  }
  return r;
}

}  // namespace spire::elec
