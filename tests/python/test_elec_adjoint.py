"""spire.elec.DifferentiableRun: backward() through a flux objective gives the gradient with
respect to the design permittivities, checked against central finite differences of the same
objective (the issue asks 1e-3 relative); the flux equals an ordinary run's flux monitor; bad input
is refused by name."""
import numpy as np
import pytest

import spire
import spire.elec as em


def make_run(**overrides):
    options = dict(
        boundary_layers=[em.PML(0.8)],
        sources=[em.Source(em.GaussianSource(0.5, fwidth=0.3), component="Ez", center=(-1.5, 0), size=(0, 1.2))],
        geometry=[em.Block(center=(-0.4, 0.1), size=(0.5, 1.4, em.inf), material=em.Medium(epsilon=2.0))],
        design=em.DesignRegion(center=(0.4, 0), size=(0.8, 1.2), shape=(4, 6)),
        fluxes=[em.FluxRegion(center=(1.5, 0), size=(0, 1.6))],
        frequencies=[0.4, 0.5, 0.6],
        until=30,
    )
    options.update(overrides)
    return em.DifferentiableRun((5, 3), 10, **options)


def objective(run, eps):
    return float(run(spire.tensor(eps))["flux"].sum().item())


def test_gradient_matches_finite_differences():
    run = make_run()
    assert run.design_size == 24
    values = 1.5 + 0.06 * ((np.arange(24) * 7) % 24)
    eps = spire.tensor(values.reshape(4, 6, 1), requires_grad=True)
    run(eps)["flux"].sum().backward()
    grad = eps.grad.numpy().ravel()
    largest = np.abs(grad).max()
    assert largest > 0
    for i in (0, 9, 17):
        h = 1e-4 * values[i]
        up, down = values.copy(), values.copy()
        up[i] += h
        down[i] -= h
        fd = (objective(run, up.reshape(4, 6, 1)) - objective(run, down.reshape(4, 6, 1))) / (2 * h)
        assert abs(grad[i] - fd) < 1e-3 * max(abs(fd), 1e-2 * largest), (i, grad[i], fd)


def test_flux_is_the_flux_monitor_of_an_ordinary_run():
    # Design values 1 are the vacuum around the region: the plain problem.
    run = make_run()
    flux = run(spire.ones((4, 6, 1), dtype=spire.float64))["flux"].numpy()
    sim = em.Simulation((5, 3), 10, boundary_layers=[em.PML(0.8)],
                        sources=[em.Source(em.GaussianSource(0.5, fwidth=0.3), component="Ez", center=(-1.5, 0),
                                           size=(0, 1.2))],
                        geometry=[em.Block(center=(-0.4, 0.1), size=(0.5, 1.4, em.inf),
                                           material=em.Medium(epsilon=2.0))])
    monitor = sim.add_flux([0.4, 0.5, 0.6], em.FluxRegion(center=(1.5, 0), size=(0, 1.6)))
    sim.run(until=30)
    np.testing.assert_allclose(flux[0], monitor.flux(), rtol=1e-12)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="float64|float32"):
        make_run(precision="float32")
    with pytest.raises(ValueError, match="frequencies"):
        make_run(frequencies=None)
    run = make_run()
    with pytest.raises(spire.ShapeError):
        run(spire.ones((5,), dtype=spire.float64))
