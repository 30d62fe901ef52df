// The exact transpose of one FDTD step of a real, float64, non-dispersive run (fdtd_update.h), for
// the adjoint (reverse-time) run of a differentiable simulation (adjoint.h).
//
// Without sources, one step of such a run is a linear map on its state u = (E, H, every CPML psi):
//   u' = A u,   A = P_E L_E P_H L_H,
// where L_H updates H and the H-update psi from E (forward differences, tables at half-integer
// positions), P_H zeroes the tangential H on pmc walls, L_E updates E and the E-update psi from the
// new H (backward differences, tables at integer positions) and P_E zeroes the tangential E on pec
// walls. Sources only add terms that do not depend on u (an electric source's factor depends on
// inv_eps: the differentiable run refuses them where eps is a design variable). Every axis wraps
// (sample n is sample 0, yee.h), which makes periodic walls part of L_H and L_E.
//
// Each L is, per updated sample f of component c and per curl term t (sign s_t, difference d_t of
// the source component along axis a, CPML tables b, c, kt of axis a where psi exists):
//   psi_t' = b psi_t + c d_t,   f' = decay f + scale sum_t [(1 + kt + c) d_t + b psi_t],
// so, for adjoint variables written with the same names (lambda' known, lambda wanted),
//   lambda_f = decay lambda_f',   lambda_psi_t = b (scale lambda_f' + lambda_psi_t'),
//   D_t = (1 + kt + c) scale lambda_f' + c lambda_psi_t'            (the adjoint of d_t),
// and the source component takes the transpose of the difference: for L_E's backward difference
// d(i) = s (h(i) - h(i - e_a)),  lambda_h(j) += s (D(j) - D(j + e_a)); for L_H's forward difference
// d(i) = s (e(i + e_a) - e(i)),  lambda_e(j) += s (D(j - e_a) - D(j)), indices wrapping as in the
// forward step. A^T = L_H^T P_H L_E^T P_E applies these in reverse order.
//
// Layout: the adjoint state has exactly the arrays of the run's state (simulation.h's save_state:
// "E/<c>/re" for every component, E and H alike, and "psi/<c>/<axis>/re"), so states convert both
// ways and the dot-product test <A x, y> = <x, A^T y> can use the Simulation's own step for A.
//
// Work: per half step, one pass forms S = scale lambda_f for every updated component (and, in the
// slabs only, the CPML corrections of D), a second adds the differences of S and of the corrections
// into the source components, row by row (the contiguous axis innermost, vectorisable). One sweep
// over planes does both half steps (as the forward step_h_e), threaded over contiguous ranges of
// planes, each row written by one thread: the same bits whatever the thread count. Not safe to call
// on one AdjointStep from two threads at once (the scratch arrays are members).
#pragma once
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "science/elec/boundary.h"
#include "science/elec/cpml.h"
#include "science/elec/fdtd_row.h"
#include "science/elec/fdtd_update.h"
#include "science/elec/material_arrays.h"
#include "science/elec/simulation.h"

namespace spire::elec {

// The fields and CPML psi of a real run (or their adjoints); arrays of components or axes a run
// lacks are empty.
struct RunState {
  std::array<AlignedVector<double>, 6> field;                // by int(Component): E and H
  std::array<std::array<AlignedVector<double>, 3>, 6> psi;  // [component][derivative axis]
};

class AdjointStep {
 public:
  // The step of a real float64 run on `lattice` with these materials, boundaries (their pml
  // profile included) and time step dt: what Simulation(lattice, materials, boundaries, courant)
  // steps with dt = courant dx. ConfigError for bloch boundaries (complex fields); ValueError for
  // bad material arrays or boundaries, as the Simulation would.
  AdjointStep(const YeeLattice& lattice, const MaterialArrays& materials, const Boundaries& boundaries, double dt);

  const YeeLattice& lattice() const { return lattice_; }
  double dt() const { return dt_; }
  // Every array zero, with the run's sizes.
  RunState zero_state() const;
  // From and to a run's state (ValueError naming a missing or wrong-sized array).
  RunState from_state(const SimulationState& state) const;
  SimulationState to_state(const RunState& s, int64_t steps) const;
  // Sum over every array of a . b, in a fixed order.
  double dot(const RunState& a, const RunState& b) const;

  // lambda <- A^T lambda.
  void apply(RunState& lambda) const;
  // The two parts of apply(): P_E, then L_H^T P_H L_E^T (an adjoint run reads lambda_E between
  // them: the gradient with respect to the E update's coefficients needs P_E lambda).
  void project_electric(RunState& lambda) const;
  void apply_projected(RunState& lambda) const;

  // The curl (CPML terms included) that the E update of a step applied at electric samples
  // (component, index), from the run's state after that step: H^{n+1/2} and the E-update psi.
  // psi may be all null when needs_psi() is false.
  class ElectricCurl {
   public:
    ElectricCurl(const AdjointStep& step, const std::vector<std::pair<Component, int64_t>>& samples);
    bool needs_psi() const { return needs_psi_; }
    void evaluate(const std::array<const double*, 6>& fields,
                  const std::array<std::array<const double*, 3>, 6>& psi, double* out) const;

   private:
    struct Tap {
      int64_t hi = 0, lo = 0;  // the difference H[hi] - H[lo]
      int src = 0;             // int(Component) of H
      double sign = 1;
      double one_plus_kt = 1;
      int psi_axis = -1;       // -1: no psi here
      int64_t psi_index = 0;
    };
    struct Sample {
      int component = 0;
      int taps = 0;
      Tap tap[2];
    };
    std::vector<Sample> samples_;
    bool needs_psi_ = false;
  };

 private:
  struct Term {
    Component src = Component::Ex;
    int axis = 0;  // physical derivative axis
    int l = 0;     // logical axis (fdtd_row.h's Layout)
    double sign = 1;
    bool psi = false;
  };
  struct Update {
    Component c = Component::Ex;
    int terms = 0;
    Term term[2];
  };
  void pass1(RunState& lambda, bool kH, int64_t row) const;
  void pass2(RunState& lambda, bool kH, int64_t row) const;
  void project_pmc_row(RunState& lambda, int64_t row) const;
  int64_t psi_size(int axis) const;

  YeeLattice lattice_;
  ResolvedBoundaries bc_;
  double dt_;
  fdtd::Layout L_;
  std::array<CpmlAxis<double>, 3> tables_;
  UpdateCoefficients<double> co_;
  std::vector<Update> e_updates_, h_updates_;
  // Scratch of apply_projected(): S per updated component, the CPML corrections per component and axis.
  mutable std::array<AlignedVector<double>, 6> s_;
  mutable std::array<std::array<AlignedVector<double>, 3>, 6> corr_;
};

}  // namespace spire::elec
