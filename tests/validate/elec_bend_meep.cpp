// Side by side with Meep: the transmittance and reflectance spectra of a 90-degree waveguide bend
// (Meep's tutorial "Transmittance Spectrum of a Waveguide Bend", python/examples/bend-flux.py).
// A 2D TM cell of 16 x 32 with a PML 1 thick, resolution 10 (160 x 320 cells); waveguides of eps
// 12 and width 1; an Ez Gaussian line source (fcen 0.15, df 0.1) across the waveguide at the inner
// edge of the left PML; 100 frequencies. Meep's two-run normalisation: a straight waveguide gives
// the incident flux at the transmission line and the reflection line's DFT data; in the bend run
// the reflection line starts from minus that data. Both runs stop as Meep's
// stop_when_fields_decayed(50, Ez, pt, 1e-3) after the sources (run_until.h), pt 0.5 before the
// transmission line. T = transmitted / incident, R = -reflected / incident.
//
// Bound: the 2%, read as 0.02 of the incident power, |T_Spire - T_Meep| and
// |R_Spire - R_Meep| at every frequency where the incident flux is at least 5% of its peak (outside,
// both spectra are ratios of small numbers: the pulse carries under 5% of its peak power there).
// The discrete problems differ in the PML (Meep: sigma ~ u^2 for R = 1e-15; Spire: the CPML of
// boundary.h), which the waveguides run into; in how each code brings E and H to common points on
// a flux line; in the eps of the pixels at the bend's corners, which two blocks share; and in the
// DFT conventions and the source's half-step clock (elec_ring_meep.cpp), which cancel in T and R.
// The waveguides' faces lie on Ez samples, where both codes average eps across the face the same
// way (the arithmetic mean for E parallel to it).
// Also printed: the incident spectra (Spire's DFTs lack Meep's 1/sqrt(2 pi): fluxes differ by 2 pi,
// monitors.h), and each run's length in steps (the same stopping rule; Meep compares its time
// rounded to float, which can close a window a step earlier than run_until.h's double time).
// Measured at resolution 20 (both codes, the same scripts): |dT| 1.5e-3, |dR| 6e-4, the incident
// ratio within 7e-4 of 1: every difference falls about 4 times from resolution 10, so the codes
// converge to the same spectra and what differs at resolution 10 is second-order discretisation
// detail (not the PML: Spire with Meep's grading changes |dT| by under 1e-3).
//
//   /usr/bin/python3 tests/validate/peers/elec_bend_meep.py /tmp/bend_meep.txt
//   validate_elec_bend_meep /tmp/bend_meep.txt
// or just `validate_elec_bend_meep` from the repository root: it runs the script itself.
// Spire runs on one thread (Meep's Debian build is serial); both wall times are printed.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>

#include "science/elec/monitors.h"
#include "science/elec/problem.h"
#include "science/elec/run_until.h"
#include "tests/validate/elec_meep_peer.h"

using namespace spire::elec;
using spire::elec::meep_validation::check;

namespace {

constexpr double kResolution = 10, kSx = 16, kSy = 32, kPml = 1, kPad = 4, kWidth = 1, kEps = 12;
constexpr double kFcen = 0.15, kDf = 0.1;
constexpr int kNfreq = 100;
constexpr double kDecayInterval = 50, kDecayBy = 1e-3;
constexpr double kTolerance = 0.02;      // of the incident power
constexpr double kBandThreshold = 0.05;  // compare where the incident flux is >= this times its peak

struct Spectra {
  std::vector<double> frequencies, incident, reflected, transmitted;
  int64_t straight_steps = 0, bend_steps = 0;
  double wall = 0;
};

const double kXcen = 0.5 * (kSx - kWidth - 2 * kPad);   // x centre of the vertical arm
const double kYcen = -0.5 * (kSy - kWidth - 2 * kPad);  // y centre of the horizontal arm

Problem base_problem() {
  Problem p;
  p.dimensions = Dimensions::two_tm;
  p.cell_size = {kSx, kSy, 0};
  p.resolution = kResolution;
  p.boundaries = Boundaries::pml(kPml);
  p.sources.push_back(current_sheet(Component::Ez, Vec3{-0.5 * kSx + kPml, kYcen, 0}, Vec3{0, kWidth, 0},
                                    std::make_shared<GaussianSource>(kFcen, kDf)));
  return p;
}

FieldDecayOptions decay_at(Vec3 point) { return {Component::Ez, point, kDecayInterval, kDecayBy}; }

Spectra run_spire() {
  const auto start = std::chrono::steady_clock::now();
  Spectra out;
  out.frequencies = frequency_list(kFcen, kDf, kNfreq);
  const FluxRegion refl_region{Vec3{-0.5 * kSx + kPml + 0.5, kYcen, 0}, Vec3{0, 2 * kWidth, 0}};
  const Medium dielectric = Medium::dielectric(kEps);

  // Run 1: the straight waveguide.
  FluxData straight_refl;
  {
    Problem p = base_problem();
    p.geometry.add(Block{Vec3{0, kYcen, 0}, Vec3{kInfinity, kWidth, kInfinity}}, dielectric);
    Simulation sim = build(p);
    Monitors monitors(sim);
    Flux& refl = monitors.add_flux({refl_region}, out.frequencies);
    Flux& tran =
        monitors.add_flux({FluxRegion{Vec3{0.5 * kSx - kPml, kYcen, 0}, Vec3{0, 2 * kWidth, 0}}}, out.frequencies);
    run_until_fields_decayed(sim, decay_at(Vec3{0.5 * kSx - kPml - 0.5, kYcen, 0}));
    straight_refl = refl.data();
    out.incident = tran.flux();
    out.straight_steps = sim.steps();
  }
  // Run 2: the bend.
  Problem p = base_problem();
  p.geometry.add(Block{Vec3{-0.5 * kPad, kYcen, 0}, Vec3{kSx - kPad, kWidth, kInfinity}}, dielectric);
  p.geometry.add(Block{Vec3{kXcen, 0.5 * kPad, 0}, Vec3{kWidth, kSy - kPad, kInfinity}}, dielectric);
  Simulation sim = build(p);
  Monitors monitors(sim);
  Flux& refl = monitors.add_flux({refl_region}, out.frequencies);
  Flux& tran =
      monitors.add_flux({FluxRegion{Vec3{kXcen, 0.5 * kSy - kPml - 0.5, 0}, Vec3{2 * kWidth, 0, 0}}}, out.frequencies);
  refl.load_minus_data(straight_refl);
  run_until_fields_decayed(sim, decay_at(Vec3{kXcen, 0.5 * kSy - kPml - 0.5, 0}));
  out.reflected = refl.flux();
  out.transmitted = tran.flux();
  out.bend_steps = sim.steps();
  out.wall = spire::elec::meep_validation::seconds_since(start);
  return out;
}

Spectra read_meep(const std::vector<spire::elec::meep_validation::Record>& records, const std::string& program,
                  const std::string& path) {
  namespace v = spire::elec::meep_validation;
  Spectra m;
  for (const auto& r : records) {
    if (r.key != "flux") continue;
    if (r.fields.size() < 4) v::bad_peer_file(program, path, "a 'flux' record needs 4 fields");
    m.frequencies.push_back(r.number(0));
    m.incident.push_back(r.number(1));
    m.reflected.push_back(r.number(2));
    m.transmitted.push_back(r.number(3));
  }
  if (m.frequencies.size() != size_t(kNfreq))
    v::bad_peer_file(program, path, "expected " + std::to_string(kNfreq) + " 'flux' records");
  const v::Record& steps = v::find_record(records, "steps", 2, program, path);
  m.straight_steps = int64_t(steps.number(0));
  m.bend_steps = int64_t(steps.number(1));
  m.wall = v::find_record(records, "wall_seconds", 1, program, path).number(0);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  namespace v = spire::elec::meep_validation;
  const std::string program = "validate_elec_bend_meep";
  const std::string path = v::peer_file(argc, argv, program, "elec_bend_meep.py", __FILE__);
  const auto records = v::read_records(program, path);
  const Spectra meep = read_meep(records, program, path);
  const std::string meep_version = v::find_record(records, "meep_version", 1, program, path).fields[0];

  omp_set_num_threads(1);
  const Spectra spire = run_spire();

  bool same_frequencies = true;
  for (size_t i = 0; i < meep.frequencies.size(); ++i)
    same_frequencies = same_frequencies && std::fabs(spire.frequencies[i] - meep.frequencies[i]) <= 1e-12;
  check(same_frequencies, "the same 100 frequencies as Meep's");

  const double peak = *std::max_element(meep.incident.begin(), meep.incident.end());
  double worst_t = 0, worst_r = 0, f_t = 0, f_r = 0, worst_t_rel = 0, band_lo = 1e300, band_hi = -1e300,
         worst_incident = 0;
  int in_band = 0;
  std::printf("Meep %s. Spectra where the incident flux is >= %.0f%% of its peak (every 5th frequency):\n",
              meep_version.c_str(), 100 * kBandThreshold);
  std::printf("  %-9s %-9s %-9s %-9s %-9s %-12s\n", "f", "T Spire", "T Meep", "R Spire", "R Meep", "inc. ratio");
  for (size_t i = 0; i < meep.frequencies.size(); ++i) {
    if (meep.incident[i] < kBandThreshold * peak) continue;
    const double ts = spire.transmitted[i] / spire.incident[i], tm = meep.transmitted[i] / meep.incident[i];
    const double rs = -spire.reflected[i] / spire.incident[i], rm = -meep.reflected[i] / meep.incident[i];
    // Spire's fluxes are 2 pi times Meep's (monitors.h): the ratio is 1 for the same incident power.
    const double incident_ratio = spire.incident[i] / (2 * std::numbers::pi * meep.incident[i]);
    if (in_band++ % 5 == 0)
      std::printf("  %-9.5f %-9.5f %-9.5f %-9.5f %-9.5f %-12.5f\n", meep.frequencies[i], ts, tm, rs, rm,
                  incident_ratio);
    band_lo = std::min(band_lo, meep.frequencies[i]);
    band_hi = std::max(band_hi, meep.frequencies[i]);
    if (std::fabs(ts - tm) > worst_t) worst_t = std::fabs(ts - tm), f_t = meep.frequencies[i];
    if (std::fabs(rs - rm) > worst_r) worst_r = std::fabs(rs - rm), f_r = meep.frequencies[i];
    worst_t_rel = std::max(worst_t_rel, std::fabs(ts - tm) / tm);
    worst_incident = std::max(worst_incident, std::fabs(incident_ratio - 1));
  }
  std::printf(
      "figure: bend transmittance, %d frequencies %.4f..%.4f: largest |T Spire - T Meep| %.2e at f %.4f "
      "(tolerance %.2f)\n",
      in_band, band_lo, band_hi, worst_t, f_t, kTolerance);
  std::printf(
      "figure: bend reflectance, %d frequencies %.4f..%.4f: largest |R Spire - R Meep| %.2e at f %.4f "
      "(tolerance %.2f)\n",
      in_band, band_lo, band_hi, worst_r, f_r, kTolerance);
  std::printf("figure: bend transmittance: largest relative difference (T Spire - T Meep) / T Meep in the band %.2e\n",
              worst_t_rel);
  std::printf("figure: bend incident flux, Spire / (2 pi Meep): largest deviation from 1 in the band %.2e\n",
              worst_incident);
  check(in_band >= 40, "at least 40 of the 100 frequencies carry 5% of the peak incident flux");
  check(worst_t <= kTolerance, "the transmittance spectrum within 0.02 of Meep's");
  check(worst_r <= kTolerance, "the reflectance spectrum within 0.02 of Meep's");

  std::printf(
      "figure: bend run lengths (stop_when_fields_decayed(50, Ez, pt, 1e-3)): straight Spire %ld, Meep %ld "
      "steps; bend Spire %ld, Meep %ld steps\n",
      long(spire.straight_steps), long(meep.straight_steps), long(spire.bend_steps), long(meep.bend_steps));
  std::printf(
      "figure: bend wall time (one thread, both runs of 160 x 320 cells with 2 x 100-frequency flux "
      "monitors): Spire %.2f s, Meep %.2f s, Meep / Spire %.2f\n",
      spire.wall, meep.wall, meep.wall / spire.wall);
  v::remove_peer_file(argc, path);
  std::printf("%s: %d failures\n", v::failures ? "FAILED" : "ok", v::failures);
  return v::failures ? 1 : 0;
}
