// run_until_fields_decayed (run_until.h) against Meep's stop_when_fields_decayed, transcribed below
// from Meep's python/simulation.py and applied to the point's time series recorded by an
// independent monitor (PointTimeSeries) in a second, identical run: both must stop at the same
// step. Also: a lossless cavity never decays (max_time ends it), and bad input is rejected.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "engine/core/error.h"
#include "science/elec/monitors.h"
#include "science/elec/problem.h"
#include "science/elec/run_until.h"

namespace spire::elec {
namespace {

// Meep's closure (python/simulation.py, stop_when_fields_decayed) with the run_until_after_sources
// wrapper (`cond(sim) and sim.round_time() >= ts`), evaluated before each step on |c(pt)|^2, with
// the guard run_until.h documents (a history of exact zeros has not decayed).
struct MeepDecayRule {
  double dt_check, decay_by, sources_end;
  double max_abs = 0, cur_max = 0, t0 = 0;
  bool operator()(double t, double fabs) {
    cur_max = std::max(cur_max, fabs);
    if (t <= dt_check + t0) return false;
    const double old_cur = cur_max;
    cur_max = 0;
    t0 = t;
    max_abs = std::max(max_abs, old_cur);
    return max_abs != 0 && old_cur <= max_abs * decay_by && t >= sources_end;
  }
};

// A TM pulse leaving a PML-bounded cell; `cutoff` stretches the Gaussian's nominal duration (the
// current is negligible long before its end: the sources rule then decides when the run stops).
Problem pulse_problem(double cutoff) {
  Problem p;
  p.dimensions = Dimensions::two_tm;
  p.cell_size = {6, 4, 0};
  p.resolution = 10;
  p.boundaries = Boundaries::pml(1.0);
  p.sources.push_back(
      point_dipole(Component::Ez, Vec3{-1.5, 0.2, 0}, std::make_shared<GaussianSource>(1.0, 0.5, 0.0, cutoff)));
  return p;
}

TEST(RunUntilFieldsDecayed, StopsAtTheStepMeepsRuleStopsAtOnARecordedSeries) {
  for (double cutoff : {5.0, 20.0}) {
    const FieldDecayOptions options{Component::Ez, Vec3{1.23, -0.47, 0}, 5.0, 1e-3};
    Simulation sim = build(pulse_problem(cutoff));
    const FieldDecayResult r = run_until_fields_decayed(sim, options);
    ASSERT_TRUE(r.decayed);
    EXPECT_EQ(r.steps, sim.steps());
    EXPECT_GE(r.time, sim.sources_end_time());

    // The reference: record Ez at the point for longer than that run took, then apply Meep's rule.
    Simulation ref = build(pulse_problem(cutoff));
    Monitors monitors(ref);
    const PointTimeSeries& series = monitors.add_point_series(options.point, {Component::Ez});
    ref.run_steps(r.steps + 200);
    const std::vector<double>& ez = series.values(Component::Ez);  // after steps 1, 2, ...
    MeepDecayRule rule{options.interval, options.decay_by, ref.sources_end_time()};
    int64_t stop = -1;
    for (int64_t n = 0; n <= int64_t(ez.size()); ++n) {
      const double f = n == 0 ? 0.0 : ez[size_t(n - 1)] * ez[size_t(n - 1)];
      if (rule(double(n) * ref.dt(), f)) {
        stop = n;
        break;
      }
    }
    EXPECT_EQ(r.steps, stop) << "cutoff " << cutoff;
    EXPECT_NEAR(r.peak, rule.max_abs, 1e-12 * rule.max_abs) << "cutoff " << cutoff;
    EXPECT_LE(r.last_window, options.decay_by * r.peak);
    if (cutoff == 20.0) {
      // The pulse has left long before its nominal end: the sources rule stopped the run, at the
      // first window that closed after the sources' end.
      EXPECT_LT(r.time, sim.sources_end_time() + options.interval + 2 * sim.dt());
    }
  }
}

TEST(RunUntilFieldsDecayed, LosslessCavityRunsToMaxTime) {
  Problem p;
  p.dimensions = Dimensions::two_tm;
  p.cell_size = {2, 1.5, 0};
  p.resolution = 10;  // metallic walls: the pulse rings forever
  p.sources.push_back(point_dipole(Component::Ez, Vec3{0.33, 0.21, 0}, std::make_shared<GaussianSource>(1.0, 0.5)));
  Simulation sim = build(p);
  const FieldDecayResult r = run_until_fields_decayed(sim, {Component::Ez, Vec3{-0.4, 0.1, 0}, 5.0, 1e-3}, 40.0);
  EXPECT_FALSE(r.decayed);
  EXPECT_GE(r.time, 40.0);
  EXPECT_LT(r.time, 40.0 + sim.dt());
  EXPECT_GT(r.last_window, 1e-3 * r.peak);
}

TEST(RunUntilFieldsDecayed, RejectsBadOptions) {
  Simulation sim = build(pulse_problem(5));
  auto message = [&](const FieldDecayOptions& o) {
    try {
      FieldDecay d(sim, o);
    } catch (const ValueError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({Component::Hz, {}, 5, 1e-3}).find("no Hz component"), std::string::npos);
  EXPECT_NE(message({Component::Ez, {}, 0, 1e-3}).find("interval"), std::string::npos);
  EXPECT_NE(message({Component::Ez, {}, 5, 0}).find("decay_by must be in (0, 1]"), std::string::npos);
  EXPECT_NE(message({Component::Ez, {}, 5, 1.5}).find("decay_by must be in (0, 1]"), std::string::npos);
  EXPECT_NE(message({Component::Ez, {3.5, 0, 0}, 5, 1e-3}).find("x = 3.5 is outside the cell"), std::string::npos);
  EXPECT_THROW(run_until_fields_decayed(sim, {}, std::nan("")), ValueError);
}

}  // namespace
}  // namespace spire::elec
