// The FDTD run as an engine op (fdtd_op.h): backward() through an objective written with engine
// ops (the Poynting flux through a plane, summed over frequencies) gives the gradient with respect
// to the design permittivities, checked against central finite differences of the same objective
// (the 1e-3 relative); the flux of the op's outputs equals the Flux monitor of an ordinary
// run; a graph recorded before another call still differentiates at its own values; second
// derivatives and bad input are refused by name.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/error.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "science/elec/fdtd_op.h"
#include "science/elec/monitors.h"

namespace spire::elec {
namespace {

// A 2D TM problem: a line source, a dielectric block, a design region beside it, and the flux
// through a plane behind them.
struct Design {
  Problem problem;
  DesignRegion region{{0.4, 0, 0}, {0.8, 1.2, 0}, {4, 6, 1}};
  FluxRegion plane{{1.5, 0, 0}, {0, 1.6, 0}};
  std::vector<double> frequencies{0.4, 0.5, 0.6};
  double until = 30;
  std::vector<double> eps;

  Design() {
    problem.dimensions = Dimensions::two_tm;
    problem.cell_size = {5, 3, 0};
    problem.resolution = 10;
    problem.boundaries = Boundaries::pml(0.8);
    problem.sources.push_back(
        current_sheet(Component::Ez, {-1.5, 0, 0}, {0, 1.2, 0}, std::make_shared<GaussianSource>(0.5, 0.3)));
    problem.geometry.add(Block{{-0.4, 0.1, 0}, {0.5, 1.4, kInfinity}}, Medium::dielectric(2.0));
    for (int i = 0; i < 24; ++i) eps.push_back(1.5 + 0.06 * ((i * 7) % 24));
  }
  YeeLattice lattice() const { return YeeLattice(problem.dimensions, problem.cell_size, problem.resolution); }
  FdtdOp op() const {
    const auto points = flux_points(lattice(), plane);
    return FdtdOp(DifferentiableRun(problem, region, {{Component::Ez, points, frequencies},
                                                      {Component::Hy, points, frequencies}}, until));
  }
  // The flux through the plane per frequency: Re(conj(Ey) Hz - conj(Ez) Hy) dA with only Ez, Hy.
  Tensor flux(const std::vector<Tensor>& out) const {
    const double dA = plane.size[1] / double(flux_points(lattice(), plane)[1].size());
    return poynting_flux(Tensor(), Tensor(), out[0], out[1], dA);
  }
};

double objective(const Design& d, const FdtdOp& op, const std::vector<double>& eps) {
  return sum(d.flux(op(from_vector(eps, {4, 6, 1})))).item<double>();
}

TEST(FdtdOp, BackwardThroughTheFluxMatchesFiniteDifferences) {
  const Design d;
  const FdtdOp op = d.op();
  Tensor eps = from_vector(d.eps, {4, 6, 1});
  eps.set_requires_grad(true);
  Tensor L = sum(d.flux(op(eps)));
  L.backward();
  const std::vector<double> grad = eps.grad().to_vector();
  ASSERT_EQ(grad.size(), d.eps.size());
  double largest = 0;
  for (double g : grad) largest = std::max(largest, std::abs(g));
  ASSERT_GT(largest, 0);
  for (int i : {0, 5, 11, 17, 23}) {
    std::vector<double> e = d.eps;
    const double h = 1e-4 * e[size_t(i)];
    e[size_t(i)] = d.eps[size_t(i)] + h;
    const double up = objective(d, op, e);
    e[size_t(i)] = d.eps[size_t(i)] - h;
    const double down = objective(d, op, e);
    const double fd = (up - down) / (2 * h);
    EXPECT_LT(std::abs(grad[size_t(i)] - fd), 1e-3 * std::max(std::abs(fd), 1e-2 * largest))
        << "design value " << i << ": backward " << grad[size_t(i)] << ", finite differences " << fd;
  }
}

TEST(FdtdOp, FluxOfTheOutputsIsTheFluxMonitorOfAnOrdinaryRun) {
  // With every design value 1 the region is the vacuum around it, so the run is the plain problem.
  const Design d;
  const FdtdOp op = d.op();
  const std::vector<double> flux = d.flux(op(from_vector(std::vector<double>(24, 1.0), {4, 6, 1}))).to_vector();
  Simulation sim = build(d.problem);
  Monitors monitors(sim);
  Flux& monitor = monitors.add_flux({d.plane}, d.frequencies);
  sim.run(d.until);
  const std::vector<double> expected = monitor.flux();
  ASSERT_EQ(flux.size(), expected.size());
  for (size_t f = 0; f < expected.size(); ++f)
    EXPECT_NEAR(flux[f], expected[f], 1e-12 * std::abs(expected[f])) << "frequency " << d.frequencies[f];
}

TEST(FdtdOp, AnOlderGraphDifferentiatesAtItsOwnValues) {
  const Design d;
  const FdtdOp op = d.op();
  Tensor a = from_vector(d.eps, {4, 6, 1});
  a.set_requires_grad(true);
  Tensor La = sum(d.flux(op(a)));
  std::vector<double> other = d.eps;
  for (double& e : other) e += 0.3;
  Tensor b = from_vector(other, {4, 6, 1});
  b.set_requires_grad(true);
  Tensor Lb = sum(d.flux(op(b)));  // the run's checkpoints now belong to b
  La.backward();
  Lb.backward();
  // Against fresh ops that saw one design each.
  for (auto [x, values] : {std::pair{a, d.eps}, std::pair{b, other}}) {
    const FdtdOp fresh = d.op();
    Tensor y = from_vector(values, {4, 6, 1});
    y.set_requires_grad(true);
    sum(d.flux(fresh(y))).backward();
    const std::vector<double> want = y.grad().to_vector(), got = x.grad().to_vector();
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << i;
  }
}

TEST(FdtdOp, RefusesSecondDerivativesAndBadInput) {
  const Design d;
  const FdtdOp op = d.op();
  EXPECT_THROW(op(from_vector(std::vector<double>(5, 2.0), {5})), ShapeError);
  Tensor eps = from_vector(d.eps, {4, 6, 1});
  eps.set_requires_grad(true);
  Tensor L = sum(d.flux(op(eps)));
  try {
    L.backward(Tensor(), false, /*create_graph=*/true);
    Tensor g = eps.grad();
    sum(g).backward();
    FAIL() << "a second derivative was taken";
  } catch (const AutodiffError& e) {
    EXPECT_NE(std::string(e.what()).find("elec.fdtd_run"), std::string::npos) << e.what();
  }
  EXPECT_THROW(poynting_flux(Tensor(), Tensor(), Tensor(), Tensor(), 1.0), ValueError);
}

}  // namespace
}  // namespace spire::elec
