// Lumped ports (port.h), checked against circuit theory of the Yee lattice itself.
//
// Most cases use a TEM parallel-plate line along x: plates at the pec walls of z (gap g), periodic
// in y (width W: no fringing), ports spanning the whole cross-section. The Yee scheme there is
// exactly a ladder network: per cell a series inductance L = g dx / W (the Hy sample between two
// nodes) and at each node (an Ez column) a shunt capacitance C = W dx / g; in the frequency domain
// of our DFTs (exp(-i omega t)) the leapfrog turns d/dt into -i omega~, omega~ = 2 sin(omega dt/2)/dt,
// and the time-centred resistor R into conductance cos(omega dt/2) / R. These facts come from the
// update equations, not from port.cpp, and give exact references for the port's impedances.
//   - Ampere's loop against the discrete Thevenin law, per step (rounding level) in 1D, 2D TM, 2D TE
//     and 3D (float64 and float32; real and Bloch-complex fields), and after the DFT, to 1e-9:
//     I = (V_s - cos(omega dt/2) V)/R + i omega~ C V. The naive (V_s - V)/R differs by the gap's
//     displacement current: measured |I - (V_s - V)/R| / |I| = 0.13 at f = 0.02, 0.27 at 0.04 and
//     0.34 at 0.06 on the line below (there the gap is a whole cell of the line).
//   - A port shorted by a pec wall one cell away (R = eta0): S11 against the exact reflection of the
//     shorting inductance L/2 to 1e-9, and -1 at low frequency: measured -0.99998 - 0.0063i at
//     f = 0.002, -0.99988 - 0.0157i at 0.005, -0.98244 - 0.187i at 0.06 (|S11 + 1| ~ omega~ L / R).
//   - A port (R = 50 ohm) driving a passive port (R_L) one cell down the line: V/I against
//     -i omega~ L + 1 / (cos(omega dt/2)/R_L - i omega~ C) to 1e-9, and S11 against the circuit value
//     (R_L - R)/(R_L + R) within 0.02 at f = 0.0005 (2000 cells per wavelength: the cell's series
//     inductance is then small against R_L). Measured: R_L = 150: 0.499998 - 0.00054i (0.5), at
//     f = 0.02: 0.4974 - 0.022i; R_L = 20: -0.42847 - 0.0119i (-0.42857), at f = 0.002:
//     -0.4270 - 0.048i, at 0.02: -0.285 - 0.43i. The load cannot share the port's gap: its current
//     would flow inside the Ampere loop and not count in I (port.h), so load_ports refuses it.
// And the errors, and a checkpoint round trip of the monitor.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <numbers>

#include "engine/core/error.h"
#include "science/elec/port.h"
#include "tests/common/expect_error.h"
#include "tests/science/elec/support_plate_line.h"

namespace spire::elec {
namespace {

using namespace testing;  // the parallel-plate line

// The parallel-plate line (support_plate_line.h) nx cells long.
YeeLattice line_lattice(int nx) { return YeeLattice(Dimensions::three, {double(nx), kW, kG}, 1.0); }
Boundaries line_walls(bool open_ends) {
  Boundaries b;  // pec everywhere: the plates are the z walls
  b.set_periodic(1);
  if (open_ends) b.set_pmc(0);
  return b;
}

Simulation make_run(const YeeLattice& lattice, const Boundaries& walls, const std::vector<LumpedPort>& ports,
                    MaterialArrays materials, Precision precision = Precision::float64) {
  load_ports(materials, lattice, ports);
  Simulation sim(lattice, std::move(materials), walls, 0.5, precision);
  add_port_sources(sim, ports);
  return sim;
}
Simulation make_run(const YeeLattice& lattice, const Boundaries& walls, const std::vector<LumpedPort>& ports) {
  return make_run(lattice, walls, ports, MaterialArrays::vacuum(lattice));
}

// The source voltage the run injects over step n (centred on t_n + dt/2), as the solver asks it
// (its real part in a real-field run).
cd source_voltage(const LumpedPort& p, double t_mid, double dt, bool complex_fields = false) {
  if (t_mid + dt < p.profile->start_time() || t_mid - dt > p.profile->end_time()) return 0;
  const cd v = p.amplitude * p.profile->current(t_mid, dt);
  return complex_fields ? v : cd(v.real());
}

TEST(Port, LayoutCountsTheGapsSamplesAndItsLoop) {
  const YeeLattice L = line_lattice(6);
  const PortLayout p = port_layout(line_port(0, 50), L);
  EXPECT_EQ(p.cells, 2);
  EXPECT_EQ(p.columns, 4);
  EXPECT_EQ(p.samples.size(), 8u);
  EXPECT_DOUBLE_EQ(p.length, kG);
  EXPECT_DOUBLE_EQ(p.area, kW);
  // Across the full periodic width the Hx terms cancel; what is left is Hy on either side of the
  // gap, 4 samples each with weight +-dx.
  ASSERT_EQ(p.loop.size(), 8u);
  for (const auto& t : p.loop) {
    EXPECT_EQ(t.component, Component::Hy);
    EXPECT_DOUBLE_EQ(std::abs(t.weight), 1.0);
  }
  // A gap of two cells centred between nodes of a 2D TM lattice, one sample wide: 1 x 1 columns.
  const YeeLattice tm(Dimensions::two_tm, {10, 10, 0}, 2.0);
  LumpedPort q;
  q.component = Component::Ez;
  q.center = {0.1, -0.2, 0};
  q.size = {1.0, 0, 0};  // x from -0.4 to 0.6: samples at -0.5 + 0.5 i -> 0, 0.5 (and -0.5 excluded)
  const PortLayout t = port_layout(q, tm);
  EXPECT_EQ(t.columns, 2);
  EXPECT_EQ(t.cells, 1);
  EXPECT_DOUBLE_EQ(t.length, 1.0);  // the unit thickness of a 2D problem
  EXPECT_DOUBLE_EQ(t.area, 2 * 0.5 * 0.5);
  EXPECT_EQ(t.loop.size(), 6u);  // around a 2 x 1 block of samples
}

TEST(Port, ErrorsNameWhatIsWrong) {
  const YeeLattice L = line_lattice(6);
  LumpedPort p = line_port(0, 50);
  p.component = Component::Hz;
  expect_error_naming<ValueError>([&] { port_layout(p, L); }, {"an E component"});
  p = line_port(0, 50);
  p.center.x = 2.9;
  p.size.x = 0.4;
  expect_error_naming<ValueError>([&] { port_layout(p, L); }, {"outside the cell"});
  p = line_port(0, 0);
  expect_error_naming<ValueError>([&] { port_layout(p, L); }, {"resistance must be finite and > 0"});
  p = line_port(0, -5);
  expect_error_naming<ValueError>([&] { port_layout(p, L); }, {"resistance must be finite and > 0"});
  p = line_port(0, 50);
  p.size.z = 0;
  expect_error_naming<ValueError>([&] { port_layout(p, L); }, {"length"});
  p = line_port(0, 50);
  p.size.z = 0.2;  // between two Ez samples along z
  p.center.z = 0;
  expect_error_naming<ValueError>([&] { port_layout(p, L); }, {"no Ez sample"});
  const YeeLattice tm(Dimensions::two_tm, {4, 4, 0}, 2.0);
  p = line_port(0, 50);
  p.component = Component::Ex;
  expect_error_naming<ValueError>([&] { port_layout(p, tm); }, {"does not carry Ex"});
  // Inside a perfect conductor, two ports on one gap, a gap on a pec wall.
  MaterialArrays m = MaterialArrays::vacuum(L);
  for (double& v : m.inverse[2]) v = 0;
  expect_error_naming<ValueError>([&] { load_ports(m, L, {line_port(0, 50)}); }, {"perfect electric conductor"});
  m = MaterialArrays::vacuum(L);
  expect_error_naming<ValueError>([&] { load_ports(m, L, {line_port(0, 50), line_port(0, 70)}); },
                                  {"ports 0 and 1 share"});
  m = MaterialArrays::vacuum(L);
  const std::vector<LumpedPort> wall{line_port(-3, 50, std::make_shared<GaussianSource>(0.1, 0.1))};
  load_ports(m, L, wall);
  Simulation sim(L, m, line_walls(false), 0.5);
  expect_error_naming<ValueError>([&] { add_port_sources(sim, wall); }, {"pec wall"});
}

// Per step: I^{n+1/2} = (V_s^{n+1/2} - (V^n + V^{n+1})/2)/R - C (V^{n+1} - V^n)/dt for a one-cell
// gap, in every dimension, radiating into a PML (C = A / L in vacuum, from the layout's counts);
// also in float32 and with Bloch-periodic (complex) fields.
TEST(Port, AmpereLoopObeysTheDiscreteTheveninLawEachStep) {
  struct Case {
    Dimensions d;
    Vec3 cell;
    Component c;
    Vec3 size;
    double area;  // expected A (dx = 0.5), L = 0.5 or 1
    double length;
    Precision precision = Precision::float64;
    bool bloch = false;  // Bloch-periodic along y instead of a PML
  };
  const std::vector<Case> cases{
      {Dimensions::one, {0, 0, 12}, Component::Ex, {0, 0, 0}, 0.5, 1},
      {Dimensions::two_tm, {10, 10, 0}, Component::Ez, {1.0, 0, 0}, 3 * 0.25, 1},
      {Dimensions::two_te, {10, 10, 0}, Component::Ey, {0, 0.5, 0}, 0.5, 0.5},
      {Dimensions::three, {6, 6, 6}, Component::Ez, {0.5, 0.5, 0.5}, 4 * 0.25, 0.5},
      {Dimensions::three, {6, 6, 6}, Component::Ez, {0.5, 0.5, 0.5}, 4 * 0.25, 0.5, Precision::float32},
      {Dimensions::two_tm, {10, 10, 0}, Component::Ez, {1.0, 0, 0}, 3 * 0.25, 1, Precision::float64, true},
  };
  for (const Case& k : cases) {
    const std::string what = to_string(k.d) + " " + to_string(k.precision) + (k.bloch ? " bloch" : "");
    const YeeLattice L(k.d, k.cell, 2.0);
    LumpedPort p;
    p.component = k.c;
    p.size = k.size;
    p.center = L.position(k.c, L.n(0) / 2, L.n(1) / 2, L.n(2) / 2);
    if (k.d == Dimensions::three) p.center = {0.25, 0.25, 0.25};  // a 2 x 2 block of Ez samples
    p.resistance = 75;
    p.amplitude = cd(2.0, 0.5);
    p.profile = std::make_shared<GaussianSource>(0.3, 0.3);
    const PortLayout layout = port_layout(p, L);
    EXPECT_DOUBLE_EQ(layout.area, k.area) << what;
    EXPECT_DOUBLE_EQ(layout.length, k.length) << what;
    Boundaries walls = Boundaries::pml_cells(4);
    if (k.bloch) walls.set_bloch(1, 0.15);
    Simulation sim = make_run(L, walls, {p}, MaterialArrays::vacuum(L), k.precision);
    PortMonitor mon(sim, p, {0.3});
    const double R = p.resistance / kEta0, C = layout.area / layout.length, dt = sim.dt();
    cd v_prev = 0;
    double worst = 0, scale = 0;
    for (int n = 0; n < 120; ++n) {
      const cd vs = source_voltage(p, sim.time() + dt / 2, dt, k.bloch);
      sim.step();
      const cd v = mon.instant_voltage(), i = mon.instant_current();
      const cd expected = (vs - (v_prev + v) / 2.0) / R - C * (v - v_prev) / dt;
      worst = std::max(worst, std::abs(i - expected));
      scale = std::max(scale, std::abs(i));
      v_prev = v;
    }
    EXPECT_GT(scale, 0) << what;
    EXPECT_LT(worst, (k.precision == Precision::float32 ? 1e-5 : 1e-12) * scale) << what;
    if (k.bloch) {
      EXPECT_NE(mon.instant_current().imag(), 0) << what;
    }
  }
}

// The same law in the frequency domain, on a matched line (two ports of the line's impedance) whose
// fields decay to rounding, for a gap two cells long (the TEM field is uniform along it).
TEST(Port, AmpereLoopObeysTheDiscreteTheveninLawAfterTheDft) {
  const YeeLattice L = line_lattice(21);
  const double z_line = kZline;
  const LumpedPort drive = line_port(-9.5, z_line, pulse(0.04, 0.06));
  const std::vector<LumpedPort> ports{drive, line_port(10.5, z_line)};
  Simulation sim = make_run(L, line_walls(true), ports);
  const std::vector<double> freqs{0.02, 0.04, 0.06};
  PortMonitor mon(sim, drive, freqs);
  std::vector<cd> vs(freqs.size(), 0.0);
  const double dt = sim.dt();
  while (sim.time() < 900) {
    const double t_mid = sim.time() + dt / 2;
    const cd v = source_voltage(drive, t_mid, dt);
    for (size_t f = 0; f < freqs.size(); ++f) vs[f] += v * std::polar(dt, 2 * kPi * freqs[f] * t_mid);
    sim.step();
  }
  const double R = drive.resistance / kEta0, C = kCnode;
  const auto V = mon.voltage(), I = mon.current();
  for (size_t f = 0; f < freqs.size(); ++f) {
    const double w = 2 * kPi * freqs[f];
    const cd expected = (vs[f] - std::cos(w * dt / 2) * V[f]) / R + cd(0, omega_tilde(freqs[f], dt)) * C * V[f];
    EXPECT_LT(std::abs(I[f] - expected), 1e-9 * std::abs(I[f])) << "f " << freqs[f];
    // The naive (V_s - V)/R misses the gap's displacement current (figures in the header comment).
    std::cout << "f " << freqs[f] << ": |I - (V_s - V)/R| / |I| = " << std::abs(I[f] - (vs[f] - V[f]) / R) / std::abs(I[f])
              << "\n";
  }
}

// A port shorted by the pec wall one cell away on either side (two inductors L in parallel).
TEST(Port, ShortedGapReflectsMinusOne) {
  const YeeLattice L = line_lattice(2);  // Ez samples at x = -1 (the wall) and 0 (the port)
  const LumpedPort p = line_port(0, kEta0, pulse(0.03, 0.06));
  Simulation sim = make_run(L, line_walls(false), {p});
  const std::vector<double> freqs{0.002, 0.005, 0.01, 0.03, 0.06};
  PortMonitor mon(sim, p, freqs);
  sim.run(600);
  const auto a = mon.incident_wave(), b = mon.reflected_wave();
  const double z0 = p.resistance / kEta0;
  for (size_t f = 0; f < freqs.size(); ++f) {
    const cd s11 = b[f] / a[f];
    const cd z_short(0, -omega_tilde(freqs[f], sim.dt()) * kLcell / 2);
    EXPECT_LT(std::abs(s11 - (z_short - z0) / (z_short + z0)), 1e-9) << "f " << freqs[f];
    if (freqs[f] <= 0.005) {
      EXPECT_LT(std::abs(s11 + 1.0), 0.02) << "f " << freqs[f] << ": S11 " << s11;
    }
    std::cout << "shorted gap: f " << freqs[f] << " S11 " << s11 << "\n";
  }
}

// A port driving a resistor R_L (a passive port) one cell down an open-ended line.
TEST(Port, ResistiveLoadOneCellAway) {
  const YeeLattice L = line_lattice(2);  // open ends (pmc): Ez at x = 0 (drive) and x = 1 (load)
  const std::vector<double> freqs{0.0005, 0.001, 0.002, 0.005, 0.01, 0.02};  // the pulse's band
  for (const double r_load : {150.0, 20.0}) {
    const LumpedPort drive = line_port(0, 50, pulse(0.01, 0.02));
    const std::vector<LumpedPort> ports{drive, line_port(1, r_load)};
    Simulation sim = make_run(L, line_walls(true), ports);
    PortMonitor mon(sim, drive, freqs);
    sim.run(2500);
    const auto z = mon.impedance();
    const auto a = mon.incident_wave(), b = mon.reflected_wave();
    const double circuit = (r_load - drive.resistance) / (r_load + drive.resistance);
    for (size_t f = 0; f < freqs.size(); ++f) {
      const double wt = omega_tilde(freqs[f], sim.dt()), c = std::cos(kPi * freqs[f] * sim.dt());
      const cd load = 1.0 / (c / (r_load / kEta0) - cd(0, wt * kCnode));
      const cd expected = kEta0 * (cd(0, -wt * kLcell) + load);
      EXPECT_LT(std::abs(z[f] / expected - 1.0), 1e-9) << "R_L " << r_load << " f " << freqs[f];
      const cd s11 = b[f] / a[f];
      if (freqs[f] <= 0.0005) {
        EXPECT_LT(std::abs(s11 - circuit), 0.02) << "R_L " << r_load << " f " << freqs[f];
      }
      std::cout << "R_L " << r_load << " f " << freqs[f] << ": Z " << z[f] << " ohm, S11 " << s11 << " (circuit "
                << circuit << ")\n";
    }
  }
}

TEST(Port, MonitorStateContinuesBitForBit) {
  const YeeLattice L = line_lattice(8);
  const LumpedPort drive = line_port(-3, 100, std::make_shared<GaussianSource>(0.05, 0.05));
  const std::vector<LumpedPort> ports{drive, line_port(4, 100)};
  const std::vector<double> freqs{0.03, 0.05};
  Simulation whole = make_run(L, line_walls(true), ports);
  PortMonitor mw(whole, drive, freqs);
  whole.run_steps(300);
  Simulation first = make_run(L, line_walls(true), ports);
  SimulationState fields, dfts;
  {
    PortMonitor m1(first, drive, freqs);
    first.run_steps(140);
    fields = first.save_state();
    dfts = m1.save_state();
  }
  Simulation second = make_run(L, line_walls(true), ports);
  PortMonitor m2(second, drive, freqs);
  second.load_state(fields);
  m2.load_state(dfts);
  second.run_steps(160);
  for (size_t f = 0; f < freqs.size(); ++f) {
    EXPECT_EQ(m2.voltage()[f], mw.voltage()[f]);
    EXPECT_EQ(m2.current()[f], mw.current()[f]);
  }
  expect_error_naming<ValueError>([&] { m2.load_state({{"port/V", {1.0}}}); }, {"port/V"});
}

}  // namespace
}  // namespace spire::elec
