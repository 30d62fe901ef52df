// Lennard-Jones pair interactions, U(r) = 4 eps ((sigma/r)^12 - (sigma/r)^6), over the pairs of a
// neighbour list, with per-type parameters.
//
// Parameters: epsilon and sigma per particle type (by the System's type names), combined for
// unlike pairs by Lorentz-Berthelot (sigma arithmetic, epsilon geometric: AMBER, CHARMM; LAMMPS's
// `pair_modify mix arithmetic`) or geometric (both geometric: OPLS; LAMMPS's default), and any
// pair set explicitly overriding the rule (LAMMPS's `pair_coeff I J`, GROMACS's [ nonbond_params ]).
//
// Cutoff modes:
//   cut           U(r) for r < rc, 0 beyond: LAMMPS's lj/cut.
//   shifted       U(r) - U(rc) for r < rc: LAMMPS's `pair_modify shift yes`, GROMACS's
//                 potential-shift, OpenMM's cutoff without switching.
//   force_switch  GROMACS's vdw-modifier = force-switch: each of r^-12 and r^-6 has its force
//                 alpha r^-(alpha+1) + A (r - rs)^2 + B (r - rs)^3 between rs and rc, which with
//                 A = -alpha ((alpha + 4) rc - (alpha + 1) rs) / (rc^(alpha+2) (rc - rs)^2),
//                 B =  alpha ((alpha + 3) rc - (alpha + 1) rs) / (rc^(alpha+2) (rc - rs)^3)
//                 brings force and its slope to zero at rc; the potential is its integral,
//                 zero at rc (so shifted by a constant below rs).
//
// Long-range tail corrections (LAMMPS's `pair_modify tail yes`, GROMACS's DispCorr = EnerPres)
// add the energy and pressure of the part of the full Lennard-Jones interaction that the cutoff
// takes away, for a uniform fluid (g(r) = 1) beyond where the force is modified:
//   E_tail = (2 pi / V) sum_ab N_a N_b integral_rm^inf r^2 U_missing(r) dr
//   P_tail = (2 pi / (3 V^2)) sum_ab N_a N_b integral_rm^inf r^3 F_missing(r) dr
// with F_missing the full force minus the one computed and U_missing its potential (zero at
// infinity); rm = rc for cut and shifted (so the constant shift below rc is not counted, as
// LAMMPS), rs for force_switch. The pressure enters the virial as V P_tail on its diagonal.
//
// Exclusions (the Topology's) are left out by the neighbour list; 1-4 pairs (Pair14) are added
// back here with epsilon scaled by lj_scale, as the full Lennard-Jones (no cutoff or shift, as
// GROMACS's pairs and OpenMM's exceptions), between minimum images.
//
// The pair sum runs in the pair kernel (nonbonded.h), alone or in one pass with the Coulomb
// direct-space sum when a ForceField holds both over the same cutoff: forces, energy and virial
// have the same bits whatever the thread count and whenever the neighbour list was built. Rows of
// types with no Lennard-Jones partner at all (water's hydrogens) are skipped.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "science/sponge/force.h"
#include "science/sponge/neighbor_list.h"
#include "science/sponge/nonbonded.h"

namespace spire::sponge {

enum class LJCutoffMode { cut, shifted, force_switch };
enum class LJMixing { lorentz_berthelot, geometric };

// "cut", "shifted", "force_switch"; ConfigError naming them otherwise.
LJCutoffMode lj_cutoff_mode(const std::string& name);
std::string to_string(LJCutoffMode mode);
// "lorentz_berthelot" (also "arithmetic"), "geometric"; ConfigError naming them otherwise.
LJMixing lj_mixing(const std::string& name);
std::string to_string(LJMixing mixing);

struct LJParameters {
  double epsilon = 0, sigma = 0;
};

class LennardJones final : public Force {
 public:
  // cutoff > 0; switch_distance only for force_switch, where 0 < switch_distance < cutoff.
  // ValueError otherwise.
  explicit LennardJones(double cutoff, LJCutoffMode mode = LJCutoffMode::cut, double switch_distance = 0);

  // epsilon >= 0, sigma > 0 (sigma may be 0 when epsilon is: a type without Lennard-Jones, such
  // as TIP3P's hydrogens). ValueError otherwise. Setting a type again replaces it.
  void set_type(const std::string& type, double epsilon, double sigma);
  // An explicit pair, used instead of the mixing rule (either order of the types).
  void set_pair(const std::string& type_a, const std::string& type_b, double epsilon, double sigma);
  void set_mixing(LJMixing mixing) { mixing_ = mixing, resolved_ = false; }
  void set_tail_correction(bool on) { tail_ = on; }

  LJCutoffMode mode() const { return mode_; }
  LJMixing mixing() const { return mixing_; }
  double switch_distance() const { return switch_; }
  bool tail_correction() const { return tail_; }
  // The parameters of a pair of types: the explicit pair if set, else mixed. ConfigError naming
  // the type when one has no parameters.
  LJParameters parameters(const std::string& type_a, const std::string& type_b) const;
  // The pair energy and the force along r (-dU/dr) at distance r as the kernel computes them
  // for these parameters (0 beyond the cutoff), for tools and tests.
  double pair_energy(const LJParameters& p, double r) const;
  double pair_force(const LJParameters& p, double r) const;

  std::string name() const override { return "lj"; }
  double cutoff() const override { return cutoff_; }
  // Parameters for every type the particles use, cutoff within the box's reach, tail corrections
  // only with a periodic box, every 1-4 pair also excluded (else it would count twice).
  void check(const System& system, const State& state) const override;
  void add(const System& system, const State& state, const NeighborList* neighbors, ForceResult& out) override;

  // The kernel's working data (public only so that the kernel, a free function, can name it).
  // Per type pair: U = r^-6 (c12 r^-6 - c6) - shift below rc.
  struct PairCoefficients {
    double c12 = 0, c6 = 0, shift = 0, unused = 0;  // padded to 32 bytes
  };
  // What a kernel on another platform (the cuda platform) needs, resolved for `system`'s types:
  // the coefficients per type pair (index ta * ntypes + tb), the force-switch coefficients (for
  // r^-12 and r^-6: force alpha r^-(alpha+1) + a t^2 + b t^3 with t = r - switch_distance), and the
  // tail correction as E_tail = 2 pi / V * tail_energy and P_tail = 2 pi / (3 V^2) * tail_pressure
  // (both 0 without tail corrections). ConfigError as add() for a type in use without parameters.
  struct KernelParameters {
    std::vector<PairCoefficients> table;
    int ntypes = 0;
    double cutoff = 0, switch_distance = 0;
    bool switched = false;
    double a12 = 0, b12 = 0, a6 = 0, b6 = 0;
    double tail_energy = 0, tail_pressure = 0;
  };
  KernelParameters kernel_parameters(const System& system);

 private:
  // ForceField hands this term's pairs to one pass together with a Coulomb term's (pair_term,
  // add_rest).
  friend class ForceField;
  // The pair function as the pair kernel takes it, resolved for `system`'s types.
  LJPairTerm pair_term(const System& system);
  // What the pair sum leaves out (1-4 pairs, tail corrections): forces and virial added to out;
  // returns the term's energy, pair_energy plus these.
  double add_rest(const System& system, const State& state, double pair_energy, ForceResult& out);
  void resolve(const System& system);
  // ConfigError naming a type that particles have but that has no parameters.
  void check_types_in_use(const System& system);
  // sum over type pairs of N_a N_b times the tail integrals (see the header comment).
  void tail_sums(const System& system, double& energy, double& pressure) const;
  double tail_integral_energy(double c12, double c6) const;
  double tail_integral_pressure(double c12, double c6) const;

  double cutoff_;
  LJCutoffMode mode_;
  double switch_;
  LJMixing mixing_ = LJMixing::lorentz_berthelot;
  bool tail_ = false;
  std::map<std::string, LJParameters> types_;
  std::map<std::pair<std::string, std::string>, LJParameters> pairs_;  // key ordered (a <= b)
  // Force-switch coefficients for r^-12 and r^-6: A, B and the constant C (0 otherwise).
  double a12_ = 0, b12_ = 0, k12_ = 0, a6_ = 0, b6_ = 0, k6_ = 0;

  // Resolved for the System's types (index ti * ntypes + tj), rebuilt when the type names or
  // the parameters change.
  std::vector<std::string> resolved_names_;
  bool resolved_ = false;
  std::vector<PairCoefficients> table_;
  std::vector<char> missing_;  // per type: no parameters (fine while no particle has it)
  std::vector<char> active_;   // per type: some type pair of its row has c12 or c6 != 0
  PairKernel kernel_;
};

}  // namespace spire::sponge
