// Energy minimisation to a force tolerance: FIRE (Bitzek et al., Phys. Rev. Lett. 97, 170201, 2006,
// in the FIRE 2.0 form of Guenole et al., Comput. Mater. Sci. 175, 109584, 2020, with LAMMPS's
// min_style fire defaults) and L-BFGS (Nocedal 1980; Liu and Nocedal 1989) with a backtracking
// line search.
//
// Both stop when every particle's force |F_i| <= force_tolerance (energy / length: kJ/mol/nm in md,
// as GROMACS's emtol, epsilon/sigma in lj), or after max_iterations. Particles of mass 0 never
// move. Both move the state's positions only (velocities untouched) and leave the force field
// holding the forces at the final positions.
//
// Constraints: FIRE keeps them (SHAKE after each move, with the constraint forces projected out of
// the forces it follows and tests for convergence); L-BFGS refuses a system with constraints or
// rigid waters (ValueError; use FIRE), as GROMACS's does.
//
// Lengths left at 0 take the unit system's default: max_step 0.1 sigma (lj) or 0.01 nm (md),
// LAMMPS's dmax; FIRE's initial time step 0.005 tau (lj) or 0.002 ps (md).
#pragma once
#include <cstdint>
#include <string>

#include "science/sponge/force_field.h"
#include "science/sponge/constraints.h"

namespace spire::sponge {

struct MinimizeResult {
  bool converged = false;
  int64_t iterations = 0;
  int64_t evaluations = 0;  // force-field evaluations
  double energy = 0;        // potential energy at the final positions
  double max_force = 0;     // largest |F_i| there (constraint forces projected out)
  std::string stop_reason;  // why it stopped, for logs
};

struct FireOptions {
  double force_tolerance = 0;  // > 0, required
  int64_t max_iterations = 10000;
  double dt = 0;               // initial time step; 0: the units' default
  double dt_max_factor = 10;   // dt <= 10 dt_initial (LAMMPS tmax)
  double dt_min_factor = 0.02; // dt >= 0.02 dt_initial (LAMMPS tmin)
  double dt_grow = 1.1;        // f_inc
  double dt_shrink = 0.5;      // f_dec
  double alpha_start = 0.25;   // alpha0 (FIRE 2.0)
  double alpha_shrink = 0.99;  // f_alpha
  int delay = 20;              // N_delay: steps of P > 0 before dt may grow, and the initial delay
  int max_uphill = 2000;       // stop after this many consecutive P <= 0 steps
  double max_step = 0;         // largest displacement of any particle per step; 0: the units' default
  ConstraintOptions constraints;
};

struct LbfgsOptions {
  double force_tolerance = 0;  // > 0, required
  int64_t max_iterations = 10000;
  int memory = 10;             // correction pairs kept, >= 1
  double max_step = 0;         // largest displacement of any particle per line search; 0: default
};

MinimizeResult minimize_fire(const System& system, State& state, ForceField& forces, const FireOptions& options);
MinimizeResult minimize_lbfgs(const System& system, State& state, ForceField& forces, const LbfgsOptions& options);

}  // namespace spire::sponge
