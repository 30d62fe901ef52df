// Time integration of a split problem (problem.h) on a spectral space (space.h), with snapshots at
// evenly spaced times, blow-up detection and progress.
//
// Schemes, all in the form M dt X + L X = F (Dedalus's): IMEX multistep SBDF1-3 (started with
// RK443 steps so that the measured order is the designed one), IMEX Runge-Kutta RK222 and RK443
// (Ascher, Ruuth & Spiteri 1997), ETDRK4 (Cox & Matthews 2002, coefficients by Kassam & Trefethen's
// contour integrals; needs M = I and a diagonal L, so periodic problems without constraints), and
// adaptive Dormand-Prince 5(4) through Boost.Odeint (needs an invertible M). Fixed steps are
// shortened so that every snapshot time is hit exactly.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "science/flow/problem.h"
#include "science/flow/space.h"

namespace spire::flow {

enum class Scheme { SBDF1, SBDF2, SBDF3, RK222, RK443, ETDRK4, DOPRI5 };
Scheme scheme_from_name(const std::string& name);  // "sbdf2"...; ConfigError listing the names
std::string scheme_name(Scheme s);
const std::vector<std::string>& scheme_names();

struct TimeSettings {
  double t_end = 1;
  int snapshots = 101;      // stored at t_end * k / (snapshots - 1), t = 0 included
  double dt = 0;            // fixed step (the largest allowed; shortened to land on snapshots)
  double tolerance = 0;     // > 0: adaptive (dopri5 only); absolute and relative
  Scheme scheme = Scheme::SBDF2;
  double bound = 1e8;       // |field| beyond this on the grid is a blow-up
};

struct Solution {
  std::vector<double> t;                    // the snapshot times reached
  std::vector<std::vector<double>> fields;  // per field: [snapshot][grid point], unpadded grid
  std::vector<std::vector<double>> coords;  // per axis: the grid points
  bool complete = true;                     // false when stopped by a blow-up or a callback
  std::string stop_reason;                  // "u is not finite at t = 0.3125, x = 0.25" or ""
  long steps = 0;                           // time steps taken (accepted steps for dopri5)
  long rejected = 0;                        // dopri5's rejected steps
};

// Called after every step with the time reached; returning false stops the run (what was stored
// stays).
using StepCallback = std::function<bool(double t, long steps)>;

class Solver {
 public:
  // ConfigError when the scheme cannot treat this problem (etdrk4 with a non-diagonal L, dopri5
  // with a constraint equation) or a setting is out of range (naming it and the range).
  Solver(Problem problem, std::shared_ptr<const Space> space, TimeSettings settings);
  ~Solver();

  // Grid values (unpadded) of one field at t = 0. Fields without initial values start at zero.
  void set_initial(int field, const std::vector<double>& grid);
  Solution run(const StepCallback& callback = {});

  const Problem& problem() const;
  const Space& space() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace spire::flow
