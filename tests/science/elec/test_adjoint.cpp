// The differentiable run (adjoint.h). The check: the gradient of a DFT-flux objective with
// respect to the design permittivities, against central finite differences of the objective (2D TM
// with CPML around, 2D TE with periodic walls, a tiny 3D case); the forward outputs against the Flux
// monitor of an ordinary run of the same problem; checkpoint intervals 1, 7 and the default giving
// the same gradient bits and O(sqrt(steps)) stored states; and what the run refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "engine/core/error.h"
#include "science/elec/adjoint.h"
#include "science/elec/monitors.h"
#include "tests/common/expect_error.h"

namespace spire::elec {
namespace {

using cd = std::complex<double>;

// A dielectric block between a line source and a flux plane, a design region beside the block.
struct Scenario {
  Problem problem;
  DesignRegion region{{0, 0, 0}, {1, 1, 1}, {1, 1, 1}};
  FluxRegion plane;
  std::vector<double> frequencies;
  double until = 0;
};

Scenario setup_2d(Dimensions dims) {
  Scenario s;
  Problem& p = s.problem;
  p.dimensions = dims;
  p.cell_size = {5, 3, 0};
  p.resolution = 10;
  p.boundaries = Boundaries::pml(0.8);
  if (dims == Dimensions::two_te) p.boundaries.set_periodic(1);
  const Component c = dims == Dimensions::two_tm ? Component::Ez : Component::Ey;
  p.sources.push_back(current_sheet(c, {-1.5, 0, 0}, {0, 1.2, 0}, std::make_shared<GaussianSource>(0.5, 0.3)));
  p.geometry.add(Block{{-0.4, 0.1, 0}, {0.5, 1.4, kInfinity}}, Medium::dielectric(2.0));
  s.region = DesignRegion({0.4, 0, 0}, {0.8, 1.2, 0}, {4, 6, 1});
  s.plane = FluxRegion{{1.5, 0, 0}, {0, 1.6, 0}};
  s.frequencies = {0.4, 0.5, 0.6};
  s.until = 30;
  return s;
}

Scenario setup_3d() {
  Scenario s;
  Problem& p = s.problem;
  p.dimensions = Dimensions::three;
  p.cell_size = {1.5, 1.0, 1.0};
  p.resolution = 8;
  p.boundaries = Boundaries::pml_cells(2);
  p.sources.push_back(point_dipole(Component::Ez, {-0.45, 0.05, 0}, std::make_shared<GaussianSource>(0.8, 0.5)));
  s.region = DesignRegion({0.05, 0, 0}, {0.5, 0.5, 0.5}, {2, 2, 2});
  s.plane = FluxRegion{{0.45, 0, 0}, {0, 0.5, 0.5}};
  s.frequencies = {0.7, 0.9};
  s.until = 8;
  return s;
}

// The 2D TM scenario with the design region reaching into the top CPML slab (so the gradient reads
// the CPML psi of the E update), a conductor across it (the E update's decay and scale both change)
// and a pec object near the flux plane.
Scenario setup_pml_conductor() {
  Scenario s = setup_2d(Dimensions::two_tm);
  s.problem.geometry.add(Block{{0.4, 1.0, 0}, {0.3, 0.6, kInfinity}}, Medium::dielectric(1.5).with_conductivity(0.4));
  s.problem.geometry.add(Cylinder{{1.0, -0.6, 0}, 0.15}, perfect_electric_conductor());
  s.region = DesignRegion({0.4, 0.9, 0}, {0.8, 1.0, 0}, {4, 5, 1});
  return s;
}

// The tangential E and H outputs at the plane's flux points, the flux's normal being x: (Ey, Hz)
// and (Ez, Hy) where the problem carries them.
struct FluxObjective {
  std::vector<DftOutput> outputs;
  std::vector<std::pair<size_t, size_t>> pairs_plus, pairs_minus;  // Re conj(E) H with + or - sign
  double measure = 1;

  FluxObjective(const YeeLattice& lattice, const Scenario& s) {
    const auto points = flux_points(lattice, s.plane);
    measure = 1;
    for (int a = 1; a < 3; ++a)
      if (lattice.has_axis(a)) measure *= s.plane.size[a] / double(points[size_t(a)].size());
    auto add = [&](Component c) {
      if (!lattice.has(c)) return size_t(-1);
      outputs.push_back({c, points, s.frequencies});
      return outputs.size() - 1;
    };
    const size_t ey = add(Component::Ey), hz = add(Component::Hz), ez = add(Component::Ez), hy = add(Component::Hy);
    if (ey != size_t(-1) && hz != size_t(-1)) pairs_plus.push_back({ey, hz});
    if (ez != size_t(-1) && hy != size_t(-1)) pairs_minus.push_back({ez, hy});
  }
  // L = sum_f flux(f) (flux.h: sum_p Re[conj(Ey) Hz - conj(Ez) Hy] dA).
  double value(const std::vector<std::vector<cd>>& out) const {
    double L = 0;
    for (const auto& [e, h] : pairs_plus)
      for (size_t i = 0; i < out[e].size(); ++i) L += measure * (std::conj(out[e][i]) * out[h][i]).real();
    for (const auto& [e, h] : pairs_minus)
      for (size_t i = 0; i < out[e].size(); ++i) L -= measure * (std::conj(out[e][i]) * out[h][i]).real();
    return L;
  }
  // dL/dRe + i dL/dIm: for Re(conj(E) H), g_E = H and g_H = E.
  std::vector<std::vector<cd>> cotangents(const std::vector<std::vector<cd>>& out) const {
    std::vector<std::vector<cd>> g(out.size());
    for (size_t k = 0; k < out.size(); ++k) g[k].assign(out[k].size(), cd(0));
    for (const auto& [e, h] : pairs_plus)
      for (size_t i = 0; i < out[e].size(); ++i) {
        g[e][i] += measure * out[h][i];
        g[h][i] += measure * out[e][i];
      }
    for (const auto& [e, h] : pairs_minus)
      for (size_t i = 0; i < out[e].size(); ++i) {
        g[e][i] -= measure * out[h][i];
        g[h][i] -= measure * out[e][i];
      }
    return g;
  }
};

std::vector<double> random_design(int64_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(1.5, 3.0);
  std::vector<double> eps(static_cast<size_t>(n));
  for (double& e : eps) e = u(rng);
  return eps;
}

// Gradient against central differences (step 1e-4 eps) in the given design values; returns the
// worst relative error, relative to the largest gradient entry checked so that a value near zero
// does not dominate.
double worst_fd_error(const Scenario& s, const std::vector<int64_t>& which, unsigned seed) {
  const YeeLattice lattice(s.problem.dimensions, s.problem.cell_size, s.problem.resolution);
  const FluxObjective objective(lattice, s);
  DifferentiableRun run(s.problem, s.region, objective.outputs, s.until);
  const std::vector<double> eps = random_design(run.design_size(), seed);
  const auto out = run.forward(eps);
  const std::vector<double> grad = run.gradient(objective.cotangents(out));
  EXPECT_EQ(int64_t(grad.size()), run.design_size());
  double largest = 0;
  for (int64_t i : which) largest = std::max(largest, std::abs(grad[size_t(i)]));
  EXPECT_GT(largest, 0);
  double worst = 0;
  for (int64_t i : which) {
    std::vector<double> e = eps;
    const double h = 1e-4 * eps[size_t(i)];
    e[size_t(i)] = eps[size_t(i)] + h;
    const double up = objective.value(run.forward(e));
    e[size_t(i)] = eps[size_t(i)] - h;
    const double down = objective.value(run.forward(e));
    const double fd = (up - down) / (2 * h);
    const double err = std::abs(grad[size_t(i)] - fd) / std::max(std::abs(fd), 1e-2 * largest);
    worst = std::max(worst, err);
    std::printf("  value %3lld: adjoint % .10e  fd % .10e  rel %.2e\n", (long long)i, grad[size_t(i)], fd, err);
  }
  return worst;
}

TEST(AdjointRun, FluxGradientMatchesFiniteDifferences2DTM) {
  const double worst = worst_fd_error(setup_2d(Dimensions::two_tm), {0, 5, 9, 14, 18, 23}, 1);
  std::printf("2D TM worst relative error %.2e\n", worst);
  EXPECT_LT(worst, 1e-5);
}

TEST(AdjointRun, FluxGradientMatchesFiniteDifferences2DTEPeriodic) {
  const double worst = worst_fd_error(setup_2d(Dimensions::two_te), {2, 7, 13, 20}, 2);
  std::printf("2D TE worst relative error %.2e\n", worst);
  EXPECT_LT(worst, 1e-5);
}

TEST(AdjointRun, FluxGradientMatchesFiniteDifferences3D) {
  const double worst = worst_fd_error(setup_3d(), {0, 3, 5, 6}, 3);
  std::printf("3D worst relative error %.2e\n", worst);
  EXPECT_LT(worst, 1e-5);
}

// A plane wave (total-field/scattered-field) on the design region, the flux plane outside the
// total-field box: the gradient of the scattered power, as an inverse-design user of a scatterer
// needs it.
TEST(AdjointRun, ScatteredFluxOfAPlaneWaveMatchesFiniteDifferences) {
  Scenario s = setup_2d(Dimensions::two_tm);
  s.problem.sources.clear();
  s.problem.cell_size = {5, 4, 0};
  PlaneWave wave;
  wave.direction = {1, 0, 0};
  wave.polarization = {0, 0, 1};
  wave.profile = std::make_shared<GaussianSource>(0.5, 0.3);
  wave.center = {0.2, 0, 0};
  wave.size = {2.0, 1.8, 0};
  s.problem.plane_waves.push_back(wave);
  s.problem.geometry = Geometry();
  s.plane = FluxRegion{{1.6, 0, 0}, {0, 1.8, 0}};
  const double worst = worst_fd_error(s, {0, 7, 12, 23}, 5);
  std::printf("2D TM plane wave worst relative error %.2e\n", worst);
  EXPECT_LT(worst, 1e-5);
}

TEST(AdjointRun, FluxGradientMatchesFiniteDifferencesInPmlAndConductor) {
  const double worst = worst_fd_error(setup_pml_conductor(), {0, 4, 11, 15, 19}, 4);
  std::printf("2D TM in pml + conductor worst relative error %.2e\n", worst);
  EXPECT_LT(worst, 1e-5);
}

TEST(AdjointRun, ForwardOutputsAreTheFluxMonitorsOfAnOrdinaryRun) {
  // Design values 1 over vacuum: the same materials as build(), so the same fields and DFTs bit for bit.
  Scenario s = setup_2d(Dimensions::two_tm);
  s.problem.geometry = Geometry();
  const YeeLattice lattice(s.problem.dimensions, s.problem.cell_size, s.problem.resolution);
  const FluxObjective objective(lattice, s);
  DifferentiableRun run(s.problem, s.region, objective.outputs, s.until);
  const auto out = run.forward(std::vector<double>(size_t(run.design_size()), 1.0));
  ASSERT_EQ(run.output_shape(0), (std::vector<int64_t>{3, int64_t(flux_points(lattice, s.plane)[1].size())}));

  Simulation sim = build(s.problem);
  Monitors monitors(sim);
  Flux& flux = monitors.add_flux({s.plane}, s.frequencies);
  sim.run(s.until);
  EXPECT_EQ(sim.steps(), run.steps());
  const std::vector<DftFields>& transforms = flux.surfaces().at(0).transforms();
  ASSERT_EQ(transforms.size(), out.size());  // Hy and Ez
  for (const DftFields& d : transforms)
    for (size_t k = 0; k < out.size(); ++k)
      if (objective.outputs[k].component == d.component()) {
        EXPECT_EQ(d.data(), out[k]) << to_string(d.component());
      }
  const std::vector<double> spectrum = flux.flux();
  double total = 0;
  for (double f : spectrum) total += f;
  EXPECT_NEAR(objective.value(out), total, 1e-12 * std::abs(total));
}

TEST(AdjointRun, CheckpointIntervalsGiveTheSameBits) {
  const Scenario s = setup_2d(Dimensions::two_tm);
  const YeeLattice lattice(s.problem.dimensions, s.problem.cell_size, s.problem.resolution);
  const FluxObjective objective(lattice, s);
  std::vector<std::vector<double>> grads;
  std::vector<int64_t> peaks;
  int64_t steps = 0;
  for (int64_t every : {int64_t(1), int64_t(7), int64_t(0)}) {
    DifferentiableRun run(s.problem, s.region, objective.outputs, s.until, AdjointOptions{every});
    const auto out = run.forward(random_design(run.design_size(), 5));
    grads.push_back(run.gradient(objective.cotangents(out)));
    peaks.push_back(run.peak_stored_states());
    steps = run.steps();
  }
  for (size_t r = 1; r < grads.size(); ++r)
    EXPECT_EQ(std::memcmp(grads[0].data(), grads[r].data(), grads[0].size() * sizeof(double)), 0) << "run " << r;
  std::printf("steps %lld: peak stored states %lld (every 1), %lld (every 7), %lld (default)\n", (long long)steps,
              (long long)peaks[0], (long long)peaks[1], (long long)peaks[2]);
  EXPECT_EQ(peaks[0], steps + 1);
  EXPECT_EQ(peaks[1], (steps + 6) / 7 + 7);
  EXPECT_LE(double(peaks[2]), 2 * std::sqrt(double(steps)) + 2);
}

TEST(AdjointRun, RefusesWhatItDoesNotCover) {
  const Scenario s = setup_2d(Dimensions::two_tm);
  const YeeLattice lattice(s.problem.dimensions, s.problem.cell_size, s.problem.resolution);
  const FluxObjective objective(lattice, s);
  auto make = [&](Problem p) { DifferentiableRun run(p, s.region, objective.outputs, s.until); };
  Problem bloch = s.problem;
  bloch.boundaries.set_bloch(1, 0.2);
  expect_error_naming<ConfigError>([&] { make(bloch); }, {"bloch"});
  Problem single = s.problem;
  single.precision = Precision::float32;
  expect_error_naming<ConfigError>([&] { make(single); }, {"float64"});
  Problem drude = s.problem;
  drude.geometry.add(Block{{1, -1, 0}, {0.2, 0.2, kInfinity}},
                     Medium::dielectric(2).with_susceptibility(Susceptibility::drude(1, 0.1, 1)));
  expect_error_naming<ConfigError>([&] { make(drude); }, {"dispersive"});
  Problem inside = s.problem;
  inside.sources.push_back(point_dipole(Component::Ez, {0.4, 0.1, 0}, std::make_shared<GaussianSource>(0.5, 0.3)));
  expect_error_naming<ConfigError>([&] { make(inside); }, {"design region"});
  // A magnetic source there is fine: its current does not depend on eps.
  Problem magnetic = s.problem;
  magnetic.sources.push_back(point_dipole(Component::Hx, {0.4, 0.1, 0}, std::make_shared<GaussianSource>(0.5, 0.3)));
  EXPECT_NO_THROW(make(magnetic));

  DifferentiableRun run(s.problem, s.region, objective.outputs, s.until);
  expect_error_naming<ValueError>([&] { run.gradient({}); }, {"forward()"});
  expect_error_naming<ValueError>([&] { run.forward({1.0, 2.0}); }, {"24"});
  std::vector<double> eps(size_t(run.design_size()), 2.0);
  eps[3] = -1;
  expect_error_naming<ValueError>([&] { run.forward(eps); }, {"design value 3"});
  eps[3] = 2;
  const auto out = run.forward(eps);
  auto g = objective.cotangents(out);
  g[1].pop_back();
  expect_error_naming<ValueError>([&] { run.gradient(g); }, {"cotangent 1"});
  expect_error_naming<ValueError>([&] { run.gradient({}); }, {"cotangents for"});
  std::vector<DftOutput> outside = objective.outputs;
  outside[0].positions[0] = {9.0};
  expect_error_naming<ValueError>([&] { DifferentiableRun(s.problem, s.region, outside, s.until); }, {"output 0"});
  expect_error_naming<ValueError>(
      [&] { DifferentiableRun(s.problem, s.region, objective.outputs, s.until, {-1}); }, {"checkpoint_every"});
}

}  // namespace
}  // namespace spire::elec
