// Flux against analytic plane waves sampled on the lattice (each component at its own staggered
// position and own time, as the solver's fields are): the DFT over W = whole periods of a wave of
// amplitude E0 is E0 W / 2, so (2 / W^2) flux is the time-averaged Poynting flux |E0|^2 / 2 cos(theta)
// per area. At a plane on the grid, E is sampled exactly and H is the mean of two samples dx/2 either
// side, which multiplies it by cos(k_n dx / 2): that factor is the whole difference at normal
// incidence. The two-run normalisation must isolate a reflected wave exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "engine/core/error.h"
#include "science/elec/flux.h"

namespace spire::elec {
namespace {

using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;

// A vacuum plane wave E = E0 e^{i k.x}, H = khat x E (|k| = omega), as real fields on the lattice.
struct PlaneWave {
  Vec3 k;
  ComplexVec3 e0;
  ComplexVec3 e(Vec3 x) const {
    const cd ph = std::exp(cd(0, k.x * x.x + k.y * x.y + k.z * x.z));
    return {e0[0] * ph, e0[1] * ph, e0[2] * ph};
  }
  ComplexVec3 h(Vec3 x) const {
    const double w = std::sqrt(k.x * k.x + k.y * k.y + k.z * k.z);
    const ComplexVec3 E = e(x);
    const double n[3] = {k.x / w, k.y / w, k.z / w};
    return {n[1] * E[2] - n[2] * E[1], n[2] * E[0] - n[0] * E[2], n[0] * E[1] - n[1] * E[0]};
  }
};

// Runs `steps` steps of the sum of the waves through the monitor, the fields sampled at each
// component's own position and time.
void drive(const YeeLattice& lat, const std::vector<PlaneWave>& waves, double omega, double dt, int steps,
           Flux& flux) {
  std::array<std::vector<cd>, 6> phasor;
  for (Component c : lat.components()) {
    auto& v = phasor[size_t(int(c))];
    v.assign(size_t(lat.samples()), cd(0));
    for (int64_t i = 0; i < lat.n(0); ++i)
      for (int64_t j = 0; j < lat.n(1); ++j)
        for (int64_t k = 0; k < lat.n(2); ++k) {
          const Vec3 x = lat.position(c, i, j, k);
          for (const PlaneWave& w : waves)
            v[size_t(lat.index(i, j, k))] += (is_electric(c) ? w.e(x) : w.h(x))[size_t(axis_of(c))];
        }
  }
  std::array<std::vector<double>, 6> real;
  FieldArrays<double> arrays;
  for (Component c : lat.components()) {
    real[size_t(int(c))].resize(size_t(lat.samples()));
    arrays.real[size_t(int(c))] = real[size_t(int(c))].data();
  }
  for (int n = 0; n < steps; ++n) {
    const double t = (n + 1) * dt;
    for (Component c : lat.components()) {
      const cd rot = std::exp(cd(0, -omega * component_time(c, t, dt)));
      for (size_t s = 0; s < real[size_t(int(c))].size(); ++s)
        real[size_t(int(c))][s] = (phasor[size_t(int(c))][s] * rot).real();
    }
    flux.update(arrays, t);
  }
}

TEST(Flux, NormalPlaneWaveGivesHalfTheSquaredAmplitudePerArea3D) {
  const double res = 20, dt = 0.5 / res, f = 1.0, omega = 2 * kPi * f;
  const int steps = 3 * 40;  // three periods of 40 steps
  const double window = steps * dt;
  const YeeLattice lat(Dimensions::three, Vec3{1.0, 0.6, 2.0}, res);
  const PlaneWave wave{Vec3{0, 0, omega}, ComplexVec3{cd(0.8, 0.3), 0, 0}};
  const double e2 = std::norm(wave.e0[0]);
  // On a grid plane (z = 0.3) over the whole cross-section, and between planes over part of it.
  Flux on_grid(lat, {FluxRegion{Vec3{0, 0, 0.3}, Vec3{1.0, 0.6, 0}}}, {f}, dt);
  Flux off_grid(lat, {FluxRegion{Vec3{0.1, -0.05, -0.437}, Vec3{0.5, 0.3, 0}}}, {f}, dt);
  drive(lat, {wave}, omega, dt, steps, on_grid);
  drive(lat, {wave}, omega, dt, steps, off_grid);
  const double area = 1.0 * 0.6;
  const double averaged = 2 / (window * window) * on_grid.flux()[0];
  EXPECT_NEAR(averaged / (e2 / 2 * area * std::cos(omega / res / 2)), 1.0, 1e-12);
  EXPECT_NEAR(averaged / (e2 / 2 * area), 1.0, 0.013);  // 20 cells per wavelength
  // Between grid planes both E and H are linear interpolations of e^{ikz} between their two nearest
  // samples: alpha = ((z2 - z) e^{ik(z1 - z)} + (z - z1) e^{ik(z2 - z)}) / dx, and the flux carries
  // Re(conj(alpha_E) alpha_H). z = -0.437: Ex between -0.45 and -0.40, Hy between -0.475 and -0.425.
  auto alpha = [&](double z, double z1) {
    const double z2 = z1 + 1 / res;
    return ((z2 - z) * std::exp(cd(0, omega * (z1 - z))) + (z - z1) * std::exp(cd(0, omega * (z2 - z)))) * res;
  };
  const double factor = (std::conj(alpha(-0.437, -0.45)) * alpha(-0.437, -0.475)).real();
  const double off = 2 / (window * window) * off_grid.flux()[0];
  EXPECT_NEAR(off / (e2 / 2 * 0.15 * factor), 1.0, 1e-12);
  EXPECT_NEAR(off / (e2 / 2 * 0.15), 1.0, 0.02);
}

TEST(Flux, ObliquePlaneWavesIn3D2DAnd1D) {
  const double res = 40, dt = 0.5 / res, f = 1.0, omega = 2 * kPi * f;
  const int steps = 2 * 80;
  const double window = steps * dt;
  const double theta = 0.5, phi = 0.3;
  const Vec3 khat{std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta)};
  // A polarisation normal to k: a complex combination of two transverse vectors.
  const Vec3 u{std::cos(theta) * std::cos(phi), std::cos(theta) * std::sin(phi), -std::sin(theta)};
  const Vec3 v{-std::sin(phi), std::cos(phi), 0};
  ComplexVec3 e0;
  for (int a = 0; a < 3; ++a) e0[size_t(a)] = cd(0.6, 0.2) * u[a] + cd(-0.3, 0.5) * v[a];
  const double e2 = std::norm(e0[0]) + std::norm(e0[1]) + std::norm(e0[2]);
  {
    const YeeLattice lat(Dimensions::three, Vec3{1.0, 1.0, 1.0}, res);
    Flux flux(lat, {FluxRegion{Vec3{0, 0, 0.1}, Vec3{0.5, 0.4, 0}}}, {f}, dt);
    drive(lat, {PlaneWave{Vec3{omega * khat.x, omega * khat.y, omega * khat.z}, e0}}, omega, dt, steps, flux);
    EXPECT_NEAR(2 / (window * window) * flux.flux()[0] / (e2 / 2 * std::cos(theta) * 0.2), 1.0, 0.004);
  }
  // 2D: a wave in the xy plane at angle theta to x, through a line normal to x.
  const ComplexVec3 tm{0, 0, cd(0.7, -0.4)};                                       // Ez
  const ComplexVec3 te{cd(-std::sin(theta)), cd(std::cos(theta)), 0};               // E in the plane
  for (auto [dims, pol] : {std::pair{Dimensions::two_tm, tm}, std::pair{Dimensions::two_te, te}}) {
    const YeeLattice lat(dims, Vec3{1.0, 1.0, 0}, res);
    Flux flux(lat, {FluxRegion{Vec3{0.2, 0, 0}, Vec3{0, 0.6, 0}}}, {f}, dt);
    drive(lat, {PlaneWave{Vec3{omega * std::cos(theta), omega * std::sin(theta), 0}, pol}}, omega, dt, steps, flux);
    const double p2 = std::norm(pol[0]) + std::norm(pol[1]) + std::norm(pol[2]);
    EXPECT_NEAR(2 / (window * window) * flux.flux()[0] / (p2 / 2 * std::cos(theta) * 0.6), 1.0, 0.004)
        << to_string(dims);
  }
  // 1D: a point.
  const YeeLattice lat(Dimensions::one, Vec3{0, 0, 1.0}, res);
  Flux flux(lat, {FluxRegion{Vec3{0, 0, -0.2}, Vec3{}}}, {f, 1.5}, dt);
  drive(lat, {PlaneWave{Vec3{0, 0, omega}, ComplexVec3{1.0, 0, 0}}}, omega, dt, steps, flux);
  EXPECT_NEAR(2 / (window * window) * flux.flux()[0], 0.5 * std::cos(omega / res / 2), 1e-12);
  // At another frequency a whole number of periods of the wave leaves (almost) nothing.
  EXPECT_LT(std::abs(flux.flux()[1]), 1e-3 * flux.flux()[0]);
}

TEST(Flux, TwoRunNormalisationIsolatesTheReflectedWave) {
  const double res = 20, dt = 0.5 / res, omega = 2 * kPi;
  const YeeLattice lat(Dimensions::three, Vec3{0.4, 0.4, 2.0}, res);
  const std::vector<double> freqs = {1.0};
  const PlaneWave incident{Vec3{0, 0, omega}, ComplexVec3{1.0, 0, 0}};
  const cd r = 0.3 * std::exp(cd(0, 0.7));
  const PlaneWave reflected{Vec3{0, 0, -omega}, ComplexVec3{r, 0, 0}};
  const FluxRegion plane{Vec3{0, 0, -0.5}, Vec3{0.4, 0.4, 0}};
  Flux first(lat, {plane}, freqs, dt);
  drive(lat, {incident}, omega, dt, 80, first);
  const double incident_flux = first.flux()[0];
  EXPECT_GT(incident_flux, 0);
  Flux total(lat, {plane}, freqs, dt), scattered(lat, {plane}, freqs, dt);
  scattered.load_minus_data(first.data());
  drive(lat, {incident, reflected}, omega, dt, 80, total);
  drive(lat, {incident, reflected}, omega, dt, 80, scattered);
  EXPECT_NEAR(scattered.flux()[0] / incident_flux, -std::norm(r), 1e-12);
  EXPECT_NEAR(total.flux()[0] / incident_flux, 1 - std::norm(r), 1e-12);
  // load_data restores the saved run; scale_dfts scales the flux by the square.
  Flux copy(lat, {plane}, freqs, dt);
  copy.load_data(first.data());
  copy.scale_dfts(2.0);
  EXPECT_NEAR(copy.flux()[0], 4 * incident_flux, 1e-12 * incident_flux);
  // Data of another monitor does not fit.
  Flux other(lat, {plane}, {1.0, 1.1}, dt);
  EXPECT_THROW(other.load_minus_data(first.data()), ValueError);
  Flux two(lat, {plane, plane}, freqs, dt);
  EXPECT_THROW(two.load_minus_data(first.data()), ValueError);
}

// A closed box around no source: what enters one face leaves by the others.
TEST(Flux, ClosedBoxAroundNoSourceHasNoNetFlux) {
  const double res = 20, dt = 0.5 / res, omega = 2 * kPi;
  const YeeLattice lat(Dimensions::three, Vec3{1.0, 1.0, 1.0}, res);
  const auto faces = box_regions(lat, Vec3{0.05, 0, -0.1}, Vec3{0.5, 0.6, 0.4});
  ASSERT_EQ(faces.size(), 6u);
  Flux box(lat, faces, {1.0}, dt);
  Flux in(lat, {faces[0]}, {1.0}, dt);  // the low-x face, weight -1
  const PlaneWave wave{Vec3{omega * 0.8, omega * 0.6, 0}, ComplexVec3{0, 0, 1.0}};
  drive(lat, {wave}, omega, dt, 40, box);
  drive(lat, {wave}, omega, dt, 40, in);
  EXPECT_LT(in.flux()[0], 0);  // entering through the low-x face: against its outward normal
  EXPECT_LT(std::abs(box.flux()[0]), 1e-12 * std::abs(in.flux()[0]));
  EXPECT_EQ(box_regions(YeeLattice(Dimensions::two_tm, Vec3{1, 1, 0}, 10), Vec3{}, Vec3{0.5, 0.5, 0}).size(), 4u);
}

TEST(Flux, RegionErrorsNameTheProblem) {
  const YeeLattice lat(Dimensions::three, Vec3{1.0, 1.0, 1.0}, 10);
  auto message = [&](FluxRegion r) {
    try {
      Flux(lat, {r}, {1.0}, 0.05);
    } catch (const ValueError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(FluxRegion{Vec3{}, Vec3{0.5, 0.5, 0.5}}).find("exactly one"), std::string::npos);
  EXPECT_NE(message(FluxRegion{Vec3{}, Vec3{0.5, 0, 0}}).find("exactly one"), std::string::npos);
  EXPECT_NE(message(FluxRegion{Vec3{0.4, 0, 0}, Vec3{0.5, 0.5, 0}}).find("outside the cell"), std::string::npos);
  EXPECT_THROW(Flux(lat, {}, {1.0}, 0.05), ValueError);
  EXPECT_THROW(Flux(lat, {FluxRegion{Vec3{}, Vec3{0.5, 0.5, 0}}}, {}, 0.05), ValueError);
  EXPECT_THROW(box_regions(lat, Vec3{}, Vec3{0.5, 0, 0.5}), ValueError);
}

}  // namespace
}  // namespace spire::elec
