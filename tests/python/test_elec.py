"""spire.elec, the Python face of the FDTD package, against references computed here: a PEC
cavity's resonances from harmonic inversion against the Yee scheme's exact discrete dispersion
relation (written out in NumPy), a dielectric slab's reflectance by Meep's two-run normalisation
against the Airy (thin-film) formula and its second-order convergence, the fixed numbers of the same
problem built through the C++ API (the program and command below), field shapes and dtypes, step
callbacks, a CustomSource that reproduces a GaussianSource bit for bit, an empty total-field box
dark outside, a port monitor against the S-parameter run of the same port, snapshots read back
with h5py, save_state/load_state continuing bit for bit (also after a source raised mid-step), the
same bits on one and two threads, the GIL released while stepping, and the errors of bad input."""
import math
import os
import threading
import time

import h5py
import numpy as np
import pytest

import spire
import spire.elec as em


def yee_frequency_numpy(k, dx, dt, n=1.0):
    """The Yee scheme's exact dispersion (Taflove & Hagness eq. 4.12):
    (n/dt)^2 sin^2(omega dt/2) = sum_a sin^2(k_a dx/2) / dx^2, solved for f = omega / (2 pi)."""
    s = math.sqrt(sum(math.sin(ka * dx / 2) ** 2 for ka in k)) / dx
    return (2 / dt) * math.asin(dt * s / n) / (2 * math.pi)


# ---- resonances and reflection against analytic references ----

def test_pec_cavity_resonances_match_the_discrete_dispersion_relation():
    lx, ly, res = 2.0, 1.5, 10
    sim = em.Simulation(cell_size=(lx, ly), resolution=res,
                        sources=[em.Source(em.GaussianSource(0.6, fwidth=0.8), em.Ez, center=(0.33, 0.21))])
    assert sim.dimensions == "2d_tm" and sim.shape == (20, 15)
    h = sim.add_harminv("Ez", (-0.41, 0.17), 0.6, 0.8)
    sim.run(until_after_sources=150)
    modes = h.modes()
    dx, dt = 1 / res, sim.dt
    # Ez = sin(m pi x / Lx) sin(n pi y / Ly) in a PEC box: k = (m pi / Lx, n pi / Ly), m, n >= 1.
    exact = sorted(yee_frequency_numpy((m * math.pi / lx, n * math.pi / ly), dx, dt)
                   for m in range(1, 6) for n in range(1, 6))
    assert len(modes) >= 4
    for mode in modes:
        nearest = min(exact, key=lambda f: abs(f - mode.freq))
        assert abs(mode.freq - nearest) / nearest < 1e-6, (mode, nearest)
        assert mode.frequency == mode[0] and abs(mode.Q) > 1e6  # lossless: no decay beyond rounding
    assert abs(modes[0].freq - exact[0]) / exact[0] < 1e-6  # the fundamental (1, 1) is found
    # The module's own yee_frequency is the same relation.
    k = (math.pi / lx, math.pi / ly)
    assert em.yee_frequency(k, dx, dt) == pytest.approx(exact[0], rel=1e-14)


def slab_reflectance(n, d, f):
    """|r|^2 of a lossless slab (index n, thickness d) in vacuum at normal incidence (Airy)."""
    r12 = (1 - n) / (1 + n)
    phase = np.exp(2j * 2 * np.pi * f * n * d)
    r = r12 * (1 - phase) / (1 - r12 ** 2 * phase)
    return np.abs(r) ** 2


def slab_run(res, n=2.0, d=1.0, freqs=np.linspace(0.3, 0.7, 9)):
    """R and T of a slab in 1D by Meep's two-run normalisation: an empty run gives the incident
    flux and its DFT data; the slab run starts its reflection monitor from minus that data."""
    src = em.GaussianSource(0.5, fwidth=0.5)
    common = dict(cell_size=(0, 0, 12), resolution=res, boundary_layers=[em.PML(1.0)],
                  sources=[em.Source(src, em.Ex, center=(0, 0, -4))])
    empty = em.Simulation(**common)
    assert empty.dimensions == "1d" and empty.shape == (12 * res,)
    refl0 = empty.add_flux(freqs, em.FluxRegion(center=(0, 0, -3)))
    empty.run(until_after_sources=40)
    incident = refl0.flux()
    data = empty.get_flux_data(refl0)

    slab = em.Simulation(geometry=[em.Block(size=(em.inf, em.inf, d), center=(0, 0, d / 2),
                                            material=em.Medium(index=n))], **common)
    refl = slab.add_flux(freqs, em.FluxRegion(center=(0, 0, -3)))
    trans = slab.add_flux(freqs, em.FluxRegion(center=(0, 0, 3)))
    slab.load_minus_flux_data(refl, data)
    slab.run(until_after_sources=40)
    assert np.allclose(em.get_flux_freqs(refl), freqs)
    return -refl.flux() / incident, trans.flux() / incident, slab_reflectance(n, d, freqs)


def test_slab_reflectance_by_two_run_normalisation_matches_airy():
    # Measured max |R - R_airy| over f = 0.3..0.7 (largest at 0.7): 3.29e-2 at resolution 20,
    # 8.28e-3 at 40, 2.07e-3 at 80 (the Yee scheme's phase error in the slab, second order);
    # |R + T - 1| < 1e-7 (lossless, and the CPML reflects nothing measurable here).
    errors = []
    for res in (20, 40):
        R, T, exact = slab_run(res)
        errors.append(np.max(np.abs(R - exact)))
        assert np.max(np.abs(R + T - 1)) < 1e-6
    assert errors[1] < 1e-2
    assert 3.6 < errors[0] / errors[1] < 4.4  # second order in dx


# ---- the same numbers as the C++ API ----

# The same problem through the C++ API. CPP_PROGRAM saved as ref.cpp in the repository root and run
#   c++ -O3 -march=x86-64-v3 -fopenmp -std=gnu++20 -I. ref.cpp -Lbuild/lib -lspire_elec -lspire_engine \
#       -Wl,-rpath,build/lib -o ref && ./ref
# (the library as of 2026-11-23) printed these, with %.17g:
CPP_PROGRAM = r"""
#include <cstdio>
#include <memory>
#include "science/elec/monitors.h"
#include "science/elec/problem.h"
using namespace spire::elec;
int main() {
  Problem p;
  p.dimensions = Dimensions::two_tm;
  p.cell_size = {8, 4, 0};
  p.resolution = 10;
  p.boundaries = Boundaries::pml(1.0);
  p.geometry.add(Block{{0, 0, 0}, {kInfinity, 1, 0}}, Medium::dielectric(12));
  p.geometry.add(Cylinder{{1.5, 1.0, 0}, 0.4}, Medium::dielectric(4));
  p.sources.push_back(point_dipole(Component::Ez, {-2.5, 0.1, 0}, std::make_shared<GaussianSource>(0.15, 0.1)));
  Simulation sim = build(p);
  Monitors m(sim);
  Flux& flux = m.add_flux({FluxRegion{{2, 0, 0}, {0, 2, 0}}}, frequency_list(0.15, 0.1, 5));
  sim.run(50);
  std::printf("steps %lld\n", (long long)sim.steps());
  for (double f : flux.flux()) std::printf("flux %.17g\n", f);
  std::printf("energy %.17g\n", sim.energy());
  const FieldView ez = sim.field(Component::Ez);
  for (long long i : {1225LL, 1620LL, 2220LL, 2430LL}) std::printf("Ez[%lld] %.17g\n", i, ez.real(i));
}
"""
CPP_STEPS = 1000
CPP_FLUX = [0.012764282331087777, 0.029999030574996744, 0.048403863915516175, 0.039816367112402766,
            0.021041089905738608]
CPP_ENERGY = 0.80349504559506846
CPP_EZ = {1225: 0.03781147766578688, 1620: -0.11365032880259203, 2220: 0.0035072827136523803,
          2430: -0.010694333759936074}


def test_results_equal_the_same_problem_built_in_cpp():
    sim = em.Simulation(cell_size=(8, 4), resolution=10, boundary_layers=[em.PML(1.0)],
                        geometry=[em.Block(size=(em.inf, 1), material=em.Medium(epsilon=12)),
                                  em.Cylinder(0.4, center=(1.5, 1.0), material=em.Medium(epsilon=4))],
                        sources=[em.Source(em.GaussianSource(0.15, fwidth=0.1), "Ez", center=(-2.5, 0.1))])
    flux = sim.add_flux(0.15, 0.1, 5, em.FluxRegion(center=(2, 0), size=(0, 2)))
    sim.run(until=50)
    assert sim.steps == CPP_STEPS and sim.time == pytest.approx(50)
    # The same library underneath: equal up to the rounding of another build's instruction choices.
    np.testing.assert_allclose(flux.flux(), CPP_FLUX, rtol=1e-11)
    assert sim.energy() == pytest.approx(CPP_ENERGY, rel=1e-11)
    ez = sim.field("Ez").ravel()
    for i, v in CPP_EZ.items():
        assert ez[i] == pytest.approx(v, rel=1e-10)


# ---- fields, callbacks, sources ----

def test_field_shapes_dtypes_and_coordinates():
    g = em.GaussianSource(1.0, fwidth=0.5)
    tm = em.Simulation(cell_size=(2, 1), resolution=10, sources=[em.Source(g, "Ez")])
    assert tm.field("Ez").shape == (20, 10) and tm.field("Ez").dtype == np.float64
    assert tm.components == ["Ez", "Hx", "Hy"]
    x, y = tm.coordinates("Hy")
    assert len(x) == 20 and len(y) == 10 and x[0] == pytest.approx(-1 + 0.05) and y[0] == pytest.approx(-0.5)

    te = em.Simulation(cell_size=(2, 1), resolution=10, sources=[em.Source(g, "Hz")], precision="float32")
    assert te.dimensions == "2d_te" and te.field("Ex").dtype == np.float32

    one = em.Simulation(cell_size=(0, 0, 3), resolution=10, sources=[em.Source(g, "Ex")])
    assert one.field("Hy").shape == (30,)

    three = em.Simulation(cell_size=(1, 0.5, 0.8), resolution=10, sources=[em.Source(g, "Ey")])
    assert three.field("Hz").shape == (10, 5, 8) and len(three.components) == 6

    bloch = em.Simulation(cell_size=(1, 1), resolution=10, k_point=(0.3, 0), sources=[em.Source(g, "Ez")])
    assert bloch.complex_fields and bloch.field("Ez").dtype == np.complex128
    bloch.run(steps=40)
    assert np.any(bloch.field("Ez").imag != 0)
    eps = em.Simulation(cell_size=(2, 1), resolution=10,
                        geometry=[em.Block(size=(1, em.inf), material=em.Medium(epsilon=4))]).get_epsilon()
    assert eps.shape == (20, 10) and eps.max() == pytest.approx(4) and eps.min() == pytest.approx(1)


def test_step_callbacks_are_counted_and_removed():
    sim = em.Simulation(cell_size=(1, 1), resolution=10,
                        sources=[em.Source(em.GaussianSource(1.0, fwidth=0.5), "Ez")])
    seen, every_step = [], []
    cid = sim.add_step_callback(lambda s: seen.append((s.steps, s is sim)), every=10)
    sim.run(lambda s: every_step.append(s.steps), steps=95)
    assert seen == [(k, True) for k in range(10, 100, 10)]
    assert every_step == list(range(1, 96))
    sim.run(steps=5)  # the step function belonged to that run only
    assert len(every_step) == 95 and seen[-1] == (100, True)
    sim.remove_step_callback(cid)
    sim.run(until=sim.time + 20 * sim.dt)
    assert seen[-1] == (100, True) and sim.steps == 120

    def boom(s):
        raise RuntimeError("stop here")

    sim.add_step_callback(boom)
    with pytest.raises(RuntimeError, match="stop here"):
        sim.run(steps=10)
    assert sim.steps == 121  # stopped after the step that raised; the run stays usable


def test_custom_source_reproduces_gaussian_source_bit_for_bit():
    g = em.GaussianSource(0.8, fwidth=0.4)
    res, courant = 10, 0.5
    dt = courant / res
    calls = []

    def current(t):
        calls.append(t)
        return g.current(t, dt)

    # The pulse's current is nonzero for interval centres within dt/2 of [start, end]: a window one
    # step wider on each side gives the solver the same values at the same times.
    custom = em.CustomSource(current, start_time=g.start_time - dt, end_time=g.end_time + dt, center_frequency=0.8)
    runs = []
    for src in (g, custom):
        sim = em.Simulation(cell_size=(2, 2), resolution=res, boundary_layers=[em.PML(0.5)],
                            sources=[em.Source(src, "Ez", center=(0.1, -0.2), size=(0.3, 0))])
        assert sim.dt == dt
        sim.run(until=30)
        runs.append(sim.field("Ez"))
    assert np.array_equal(runs[0], runs[1]) and np.max(np.abs(runs[0])) > 0
    assert len(calls) > 100


def test_snapshots_read_back_with_h5py(tmp_path):
    sim = em.Simulation(cell_size=(2, 1), resolution=10,
                        sources=[em.Source(em.GaussianSource(1.0, fwidth=0.5), "Ez", center=(0.2, 0.1))])
    path = tmp_path / "fields.h5"
    shots = sim.add_snapshots(path, every=10, components=["Ez"])
    sim.run(steps=30)
    last = sim.field("Ez")
    sim.close_snapshots()
    assert shots.snapshots == 3 and os.path.exists(shots.xdmf_path)
    with h5py.File(path, "r") as f:
        stored = f["fields/Ez/00000030"][...]  # x fastest: [n_y][n_x]
        assert np.array_equal(stored.T, last)
    values, t, step = em.read_field_snapshot(path, "Ez", 30)
    assert step == 30 and t == pytest.approx(sim.time) and np.array_equal(values[:, :, 0], last)


def test_custom_source_that_raises_stops_the_run_until_a_state_is_loaded():
    cs = em.CustomSource(lambda t: 1 / 0 if t > 0.3 else 0.0)
    sim = em.Simulation(cell_size=(1, 1), resolution=10, sources=[em.Source(cs, "Ez")])
    sim.run(steps=3)
    saved = sim.save_state()
    with pytest.raises(ZeroDivisionError):
        sim.run(steps=10)
    assert sim.steps == 6  # step 7's E update asked the source for t = 0.325
    with pytest.raises(ValueError, match=r"step 7 failed half-way \(ZeroDivisionError"):
        sim.run(steps=1)
    sim.load_state(saved)
    assert sim.steps == 3 and np.array_equal(sim.field("Ez"), np.zeros((10, 10)))


def test_plane_wave_box_leaves_the_outside_dark():
    g = em.GaussianSource(0.5, fwidth=0.4)
    for polarization, component, dims in (((0, 0, 1), "Ez", "2d_tm"), ((0, 1, 0), "Ey", "2d_te")):
        sim = em.Simulation(cell_size=(4, 4), resolution=10, boundary_layers=[em.PML(0.5)],
                            plane_waves=[em.PlaneWave(g, size=(2, 2), direction=(1, 0, 0),
                                                      polarization=polarization)])
        assert sim.dimensions == dims
        sim.run(until=12)
        f = sim.field(component)
        x, y = sim.coordinates(component)
        inside = (np.abs(x)[:, None] < 0.8) & (np.abs(y)[None, :] < 0.8)
        outside = (np.abs(x)[:, None] > 1.2) | (np.abs(y)[None, :] > 1.2)
        # Measured 8e-16 relative (TM): an empty total-field box is dark outside to rounding.
        assert np.max(np.abs(f[outside])) < 1e-12 * np.max(np.abs(f[inside]))
        assert np.max(np.abs(f[inside])) > 0.1


def test_port_monitor_and_s_parameters_agree():
    port = em.LumpedPort("Ez", size=(0, 0, 0), resistance=50, src=em.GaussianSource(0.5, fwidth=0.4))
    problem = dict(cell_size=(2, 2), resolution=10, boundary_layers=[em.PML(0.5)], ports=[port])
    freqs = [0.4, 0.5]
    result = em.s_parameters(freqs, 40, **problem)
    assert result["S"].shape == (1, 1, 2) and result["excited"] == [0]
    sim = em.Simulation(**problem)
    monitor = sim.add_port_monitor(0, freqs)
    sim.run(until=40)
    # One port: S = b / a of its own run, and the input impedance is that run's V / I.
    np.testing.assert_allclose(result["S"][0, 0], monitor.reflected_wave() / monitor.incident_wave(), rtol=1e-12)
    np.testing.assert_allclose(result["input_impedance"][0], monitor.impedance(), rtol=1e-12)
    assert np.all(np.abs(result["S"][0, 0]) <= 1)  # a passive structure
    with pytest.raises(ValueError, match="until"):
        em.s_parameters(freqs, 20, **problem)  # ends before the excitation does


# ---- checkpoints, threads, the GIL ----

def dispersive_run(**kw):
    drude = em.Medium(epsilon=2, susceptibilities=[em.DrudeSusceptibility(frequency=1.0, gamma=0.1, sigma=0.5)])
    return em.Simulation(cell_size=(3, 2), resolution=10, boundary_layers=[em.PML(0.5)],
                         geometry=[em.Sphere(0.4, center=(0.5, 0), material=drude)],
                         sources=[em.Source(em.GaussianSource(0.7, fwidth=0.5), "Ez", center=(-0.6, 0.1))], **kw)


def test_save_state_load_state_continues_bit_for_bit():
    whole = dispersive_run()
    whole.run(steps=240)

    first = dispersive_run()
    first.run(steps=120)
    state = first.save_state()
    assert state["steps"][0] == 120
    assert any(k.startswith("pol/") for k in state) and any(k.startswith("psi/") for k in state)
    resumed = dispersive_run()
    resumed.load_state(state)
    assert resumed.steps == 120 and resumed.time == first.time
    resumed.run(steps=120)
    for c in whole.components:
        assert np.array_equal(whole.field(c), resumed.field(c)), c
    assert resumed.energy() == whole.energy()

    bad = dict(state)
    del bad["E/Ez/re"]
    with pytest.raises(ValueError, match="E/Ez/re"):
        dispersive_run().load_state(bad)


def test_thread_count_does_not_change_the_bits():
    before = spire.get_num_threads()
    try:
        fields = []
        for n in (1, 2):
            em.set_num_threads(n)
            sim = dispersive_run()
            sim.run(steps=100)
            fields.append(sim.field("Ez"))
        assert np.array_equal(fields[0], fields[1])
    finally:
        spire.set_num_threads(before)


def test_run_releases_the_gil():
    sim = em.Simulation(cell_size=(6, 6), resolution=20, boundary_layers=[em.PML(1.0)],
                        sources=[em.Source(em.GaussianSource(0.5, fwidth=0.3), "Ez")])
    ticks, done = [0], threading.Event()

    def count():
        while not done.is_set():
            ticks[0] += 1
            time.sleep(0)

    t = threading.Thread(target=count)
    t.start()
    try:
        start = ticks[0]
        sim.run(steps=4000)  # ~0.2 s without Python callbacks: the GIL is free the whole run
        during = ticks[0] - start
    finally:
        done.set()
        t.join()
    # Measured ~2000 ticks on an idle machine; holding the GIL would allow none.
    assert during > 20


# ---- errors ----

def test_errors_name_what_was_wrong():
    g = em.GaussianSource(1.0, fwidth=0.5)
    assert issubclass(spire.SpireValueError, ValueError) and issubclass(spire.ConfigError, ValueError)
    with pytest.raises(ValueError, match="Courant"):
        em.Simulation(cell_size=(1, 1), resolution=10, courant=0.9)
    with pytest.raises(ValueError, match=r"unknown field component 'Qz'.*allowed"):
        em.Simulation(cell_size=(1, 1), resolution=10, sources=[em.Source(g, "Qz")])
    with pytest.raises(ValueError, match="leaves the cell"):
        em.Simulation(cell_size=(1, 1), resolution=10, sources=[em.Source(g, "Ez", center=(2, 0))])
    with pytest.raises(ValueError, match="epsilon"):
        em.Medium(epsilon=-1)
    with pytest.raises(ValueError, match=r"TM .*sources\[0\].*TE from sources\[1\]"):
        em.Simulation(cell_size=(1, 1), resolution=10, sources=[em.Source(g, "Ez"), em.Source(g, "Hz")])
    with pytest.raises(ValueError, match=r"geometry\[0\]: expected Block"):
        em.Simulation(cell_size=(1, 1), resolution=10, geometry=[em.Medium(epsilon=2)])
    with pytest.raises(spire.ConfigError, match="float16"):
        em.Simulation(cell_size=(1, 1), resolution=10, precision="float16")
    with pytest.raises(spire.ConfigError, match="kappa"):
        em.Simulation(cell_size=(1, 1), resolution=10, pml_profile={"kapa_max": 2})
    sim = em.Simulation(cell_size=(1, 1), resolution=10, sources=[em.Source(g, "Ez")])
    with pytest.raises(ValueError, match=r"does not carry Hz.*2d_te"):
        sim.add_dft_fields(["Hz"], 1.0)
    with pytest.raises(ValueError, match="exactly one of until"):
        sim.run()
    with pytest.raises(ValueError, match="never ends"):
        em.Simulation(cell_size=(1, 1), resolution=10,
                      sources=[em.Source(em.ContinuousSource(1.0), "Ez")]).run(until_after_sources=1)
    with pytest.raises(ValueError, match="running"):
        sim.run(lambda s: s.run(steps=1), steps=1)
    with pytest.raises(ValueError, match="fwidth"):
        em.GaussianSource(1.0)


# ---- monitors' shapes ----

def test_dft_and_near2far_shapes():
    sim = em.Simulation(cell_size=(4, 4), resolution=10, boundary_layers=[em.PML(1.0)],
                        sources=[em.Source(em.GaussianSource(0.5, fwidth=0.3), "Ez")])
    dft = sim.add_dft_fields(["Ez", "Hx"], [0.4, 0.5], center=(0, 0), size=(1, 0))
    n2f = sim.add_near2far(0.5, 0.2, 3, sim.flux_box((0, 0), (1, 1)))
    point = sim.add_point_series((0.1, 0.1), ["Ez"])
    sim.run(until=20)
    assert dft.array("Ez", 1).shape == (11,) and dft.array("Ez").dtype == np.complex128
    assert len(dft.coordinates("Hx")[0]) == dft.array("Hx").shape[0]
    far = n2f.farfield((0, 30))
    assert far.shape == (3, 6)
    many = n2f.farfield([(0, 30), (30, 0)])
    assert many.shape == (2, 3, 6) and np.array_equal(many[0], far)
    assert np.array_equal(sim.get_farfield(n2f, (0, 30)), far.ravel())
    assert point.values("Ez").shape == (sim.steps,)
    assert point.values("Ez")[-1] == sim.get_field_point("Ez", (0.1, 0.1))
