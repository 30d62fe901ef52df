// S-parameters of a problem's lumped ports (port.h), one run per excited port (as openEMS users
// do with its lumped ports and calcPort): for each port j to excite, the problem is
// built with port j driven by its own profile and every other port passive (its resistor alone),
// run until `until` (or until the ports' fields have decayed), and every port's power waves
// a_i, b_i (reference impedance Z0_i = the port's resistance) are recorded at the frequencies.
//
//   With every port excited (the default): S = B A^-1 at each frequency, where column j of A and B
//   holds the a_i and b_i of the run exciting port j. This is the scattering matrix of the
//   structure outside the gaps, exactly (up to the DFT's truncation): it does not assume that the
//   passive ports absorb what reaches them. (A passive port terminates the structure with
//   R / cos(omega dt/2) in parallel with its gap capacitance, port.h, so its own reflection is small
//   but not zero; the plain ratio b_i / a_j would carry it, and a reciprocal structure would then
//   show S_ij != S_ji by that much.)
//   With some ports excited: S_ij = b_i / a_j for the excited j (the plain ratio, which assumes
//   the passive ports reflect nothing); the columns of the others are empty.
// input_impedance[j] = V_j / I_j in ohms in the run exciting port j: the impedance port j sees,
// the other ports terminated by their resistances.
//
// The problem must have no other excitation (sources, plane waves): ValueError otherwise. Its
// ports' resistances go into the material arrays when build() makes the Simulation (problem.h).
// The frequencies should lie within the excitations' spectra: where a_j vanishes S is undefined.
//
// Stopping (Meep's stop_when_fields_decayed): with decay_by > 0 a run stops at the first check,
// every decay_interval after the excitation has ended, at which the largest port power
//   P(t) = sum_i (|V_i|^2 + |R_i I_i|^2) / R_i        (= 2 sum_i (|a_i|^2 + |b_i|^2) instantaneously)
// over the last interval is at most decay_by times the largest P seen so far; or at `until`,
// whichever comes first.
#pragma once
#include <complex>
#include <vector>

#include "science/elec/problem.h"

namespace spire::elec {

struct SParameterOptions {
  std::vector<int> excite;     // indices into problem.ports of the ports to excite; empty: all
  double decay_by = 0;         // > 0: stop when the port fields have decayed by this (0 <= x < 1)
  double decay_interval = 50;  // time between decay checks, in a/c (> 0)
};

struct SParameterResult {
  std::vector<double> frequencies;          // c/a
  std::vector<double> reference_impedance;  // ohms, per port: its resistance
  std::vector<int> excited;                 // the ports excited, in run order
  // s[i][j][f]: S_ij at frequencies[f]; s[i][j] is empty when port j was not excited (and not all
  // ports were).
  std::vector<std::vector<std::vector<std::complex<double>>>> s;
  // input_impedance[j][f] in ohms; empty for ports not excited.
  std::vector<std::vector<std::complex<double>>> input_impedance;
  // incident[j][i][f], reflected[j][i][f]: a_i and b_i in the run exciting port j (empty for ports
  // not excited).
  std::vector<std::vector<std::vector<std::complex<double>>>> incident, reflected;
  // Per run (in `excited` order): the time it stopped at and whether it stopped because the
  // fields had decayed (always false when decay_by = 0).
  std::vector<double> stop_time;
  std::vector<bool> decayed;

  // S_ij at frequency index f (ValueError when port j was not excited or an index is out of range).
  std::complex<double> operator()(size_t i, size_t j, size_t f) const;
};

// ValueError naming what is wrong: no ports, an excited port without a profile, an index in
// `excite` out of range or repeated, sources or plane waves in the problem, no frequencies or one
// that is not finite and > 0, until not finite and > 0, bad decay options; and the errors of
// build() and port.h.
SParameterResult s_parameters(const Problem& problem, const std::vector<double>& frequencies, double until,
                              SParameterOptions options = {});

}  // namespace spire::elec
