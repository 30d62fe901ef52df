"""spire.flow and `spire pde`: solutions against exact ones, the HDF5 files as h5py reads them
(dataset names, shapes, attributes, the job's text), PNG pictures as PIL and matplotlib read them,
and the errors of bad input (through Python and the command line)."""
import math
import pathlib
import subprocess
import warnings

import h5py
import matplotlib
import matplotlib.image
import numpy as np
import pytest
from PIL import Image

import spire
import spire.flow

REPO = pathlib.Path(__file__).resolve().parents[2]
BURGERS = (REPO / "examples" / "flow" / "burgers.toml").read_text()


def small_burgers(n=64, t_end=0.2, snapshots=11):
    return (BURGERS.replace("n = 256", f"n = {n}").replace("t_end = 1.0", f"t_end = {t_end}")
            .replace("snapshots = 101", f"snapshots = {snapshots}"))


def run(cli, *args, ok=True):
    p = subprocess.run([cli, *map(str, args)], capture_output=True, text=True, timeout=120)
    if ok:
        assert p.returncode == 0, p.stdout + p.stderr
    return p


def test_heat_with_dirichlet_and_neumann_ends_matches_the_exact_solution():
    # u_t = nu u_xx on [0, 1], u(0) = 0, u_x(1) = 0: u = exp(-nu (pi/2)^2 t) sin(pi x / 2).
    nu = 0.5
    pde = spire.flow.PDE(
        equation="dt(u) = nu*dx(dx(u))", parameters={"nu": nu},
        domain={"x": [0.0, 1.0], "periodic": False},
        bc={"left": "dirichlet: 0", "right": "neumann: 0"},
        initial={"u": "sin(pi*x/2)"},
        time={"t_end": 0.5, "snapshots": 6, "dt": 1e-3},
        discretization={"basis": "chebyshev", "n": 24, "scheme": "sbdf3"})
    assert pde.fields == ["u"]
    sol = pde.solve()
    assert sol.complete and sol.stop_reason == ""
    assert sol["u"].shape == (6, 24) and sol.x.shape == (24,)
    np.testing.assert_allclose(sol.t, np.linspace(0, 0.5, 6), atol=1e-14)
    exact = np.exp(-nu * (math.pi / 2) ** 2 * sol.t)[:, None] * np.sin(math.pi * sol.x / 2)[None, :]
    assert np.max(np.abs(sol["u"] - exact)) < 1e-8
    assert sol.steps >= 500 and sol.seconds > 0


def test_a_robin_end_with_time_dependent_data_matches_the_exact_solution():
    # u = exp(-t) cos(x) solves u_t = u_xx with u_x(0) = 0 and u + u_x = exp(-t)(cos 1 - sin 1) at x = 1.
    pde = spire.flow.PDE(
        equation="dt(u) = dx(dx(u))", domain={"x": [0.0, 1.0], "periodic": False},
        bc={"left": "neumann: 0", "right": "robin: 1*u + 1*dx(u) = exp(-t)*(cos(1) - sin(1))"},
        initial={"u": "cos(x)"}, time={"t_end": 0.5, "snapshots": 3, "dt": 1e-3},
        discretization={"n": 16, "scheme": "sbdf3"})
    sol = pde.solve()
    assert np.max(np.abs(sol["u"] - np.exp(-sol.t)[:, None] * np.cos(sol.x)[None, :])) < 1e-9


def test_taylor_green_system_in_2d_and_its_file(tmp_path, spire_cli):
    # w = 2 cos x cos y exp(-2 nu t) solves the vorticity equations exactly (u.grad w = 0).
    nu = 0.05
    pde = spire.flow.PDE(
        equations=["dt(w) + dy(psi)*dx(w) - dx(psi)*dy(w) - nu*laplacian(w) = 0", "laplacian(psi) + w = 0"],
        parameters={"nu": nu}, domain={"x": [0, 2 * math.pi], "y": [0, 2 * math.pi], "periodic": True},
        initial={"w": "2*cos(x)*cos(y)"}, time={"t_end": 0.2, "snapshots": 3, "dt": 1e-2},
        discretization={"n": [16, 12], "scheme": "rk443"}, seed=5)
    assert pde.fields == ["w", "psi"]
    out = tmp_path / "tg.h5"
    sol = pde.solve(output=out)
    assert sol["w"].shape == (3, 16, 12) and sol.y.shape == (12,)
    exact = 2 * np.cos(sol.x)[:, None] * np.cos(sol.y)[None, :] * math.exp(-2 * nu * 0.2)
    assert np.max(np.abs(sol["w"][-1] - exact)) < 1e-7
    assert np.max(np.abs(sol["psi"][-1] - exact / 2)) < 1e-7  # lap psi = -w
    with h5py.File(out, "r") as f:
        assert set(f.keys()) == {"w", "psi", "x-coordinate", "y-coordinate", "t-coordinate"}
        assert f["w"].shape == (1, 3, 16, 12) and f["psi"].shape == (1, 3, 16, 12)
        assert f["w"].dtype == np.float64
        np.testing.assert_array_equal(f["w"][0], sol["w"])
        np.testing.assert_array_equal(f["y-coordinate"][:], sol.y)
        assert f.attrs["seed"] == 5 and f.attrs["fields"] == "w, psi" and f.attrs["complete"] == 1
    data = spire.flow.load(out)
    assert data.fields == ["w", "psi"] and len(data) == 1 and data.complete == [True]
    np.testing.assert_array_equal(data["psi"][0], sol["psi"])
    # The 2D picture: the last snapshot, 400 wide and square for a square domain.
    run(spire_cli, "pde", "plot", out, "-o", tmp_path / "psi.png", "--field", "psi")
    assert Image.open(tmp_path / "psi.png").size == (400 + 144, 400 + 40)


def test_cli_solve_writes_the_pdebench_layout_with_its_provenance(spire_cli, tmp_path):
    job = tmp_path / "burgers.toml"
    job.write_text(small_burgers())
    out = tmp_path / "out.h5"
    p = run(spire_cli, "pde", "solve", job, "-o", out, "--quiet")
    assert "[bc] is ignored" in p.stderr  # the example is periodic yet has a [bc] table
    with h5py.File(out, "r") as f:
        assert set(f.keys()) == {"tensor", "x-coordinate", "t-coordinate"}
        assert f["tensor"].shape == (1, 11, 64)
        np.testing.assert_allclose(f["x-coordinate"][:], -1 + 2 * np.arange(64) / 64, atol=1e-15)
        np.testing.assert_allclose(f["t-coordinate"][:], np.linspace(0, 0.2, 11), atol=1e-14)
        np.testing.assert_allclose(f["tensor"][0, 0], np.sin(np.pi * f["x-coordinate"][:]), atol=1e-13)
        assert f.attrs["spire_version"] == spire.__version__
        assert f.attrs["job"] == job.read_text()
        assert f.attrs["seed"] == 0 and f.attrs["complete"] == 1 and "stop_reason" not in f.attrs
        u = f["tensor"][0]
    # Burgers conserves the mean; the energy decays.
    assert abs(u[-1].mean()) < 1e-12
    assert np.sum(u[-1] ** 2) < np.sum(u[0] ** 2)


def test_pdeformer_layout_and_float32(tmp_path):
    pde = spire.flow.PDE(
        equation="dt(u) - nu*dx(dx(u)) = 0", parameters={"nu": 0.1}, domain={"x": [-1.0, 1.0]},
        initial={"u": "sin(pi*x)"}, time={"t_end": 0.1, "snapshots": 3, "dt": 1e-3},
        discretization={"n": 16}, output={"layout": "both", "dtype": "float32"})
    out = tmp_path / "both.h5"
    sol = pde.solve(output=str(out))
    with h5py.File(out, "r") as f:
        assert {"u_sol_all", "x_coord", "t_coord", "tensor", "x-coordinate", "t-coordinate"} <= set(f.keys())
        assert f["u_sol_all"].shape == (1, 3, 16) and f["u_sol_all"].dtype == np.float32
        np.testing.assert_array_equal(f["u_sol_all"][0], sol["u"].astype(np.float32))
        np.testing.assert_array_equal(f["tensor"][:], f["u_sol_all"][:])
        np.testing.assert_array_equal(f["t_coord"][:], sol.t.astype(np.float32))


def test_a_blow_up_keeps_the_snapshots_reached_and_exits_with_3(spire_cli, tmp_path):
    # u' = u^2, u(0) = 1: u = 1/(1 - t) passes the bound 1e3 at t = 0.999, after the snapshot at 0.9.
    job = tmp_path / "blow.toml"
    job.write_text('[pde]\nequation = "dt(u) = u^2"\n[initial]\nu = "1"\n'
                   '[time]\nt_end = 2.0\nsnapshots = 21\ndt = 1e-4\nbound = 1e3\n'
                   '[discretization]\nn = 8\nscheme = "rk443"\n')
    out = tmp_path / "blow.h5"
    p = run(spire_cli, "pde", "solve", job, "-o", out, "--quiet", ok=False)
    assert p.returncode == 3, p.stdout + p.stderr
    assert "stopped" in p.stderr
    with h5py.File(out, "r") as f:
        assert f.attrs["complete"] == 0
        assert "t = 0.99" in f.attrs["stop_reason"]
        t = f["t-coordinate"][:]
        np.testing.assert_allclose(t, np.arange(10) / 10, atol=1e-12)
        np.testing.assert_allclose(f["tensor"][0, :, 0], 1 / (1 - t), rtol=1e-9)


def test_cli_plot_writes_a_png_of_the_documented_size_and_colours(spire_cli, tmp_path):
    job = tmp_path / "burgers.toml"
    job.write_text(small_burgers(n=32, t_end=0.1, snapshots=5))
    out, png = tmp_path / "out.h5", tmp_path / "fig.png"
    run(spire_cli, "pde", "solve", job, "-o", out, "--quiet")
    run(spire_cli, "pde", "plot", out, "-o", png, "--field", "u", "--sample", "0")
    image = Image.open(png)
    assert image.size == (512 + 144, 320 + 40) and image.mode == "RGB"
    pixels = matplotlib.image.imread(str(png))
    assert pixels.shape[:2] == (360, 656)
    # The colour bar (right of the plot, from x = 56 + 512 + 10) runs through matplotlib's viridis.
    viridis = matplotlib.colormaps["viridis"]
    bar = np.asarray(image)[12:12 + 320, 56 + 512 + 10 + 7].astype(float) / 255
    for row in (0, 160, 319):
        expected = np.array(viridis(1 - (row + 0.5) / 320)[:3])
        assert np.max(np.abs(bar[row] - expected)) <= 2 / 255
    # A field or a sample that is not there is named.
    p = run(spire_cli, "pde", "plot", out, "-o", png, "--field", "v", ok=False)
    assert p.returncode == 1 and "no field v" in p.stderr and "u" in p.stderr
    assert not (tmp_path / "missing.png").exists()


def test_a_parse_error_through_the_cli_shows_the_line_and_a_caret(spire_cli, tmp_path):
    job = tmp_path / "bad.toml"
    job.write_text(small_burgers().replace("dx(0.5*u^2)", "dx(0.5*u^2"))
    p = run(spire_cli, "pde", "solve", job, "-o", tmp_path / "bad.h5", ok=False)
    assert p.returncode == 1
    assert "pde.equation:1:" in p.stderr
    assert "dt(u) + dx(0.5*u^2 - nu*dx(dx(u)) = 0" in p.stderr
    assert "^" in p.stderr.splitlines()[-1] or any(line.strip() == "^" for line in p.stderr.splitlines())
    assert not (tmp_path / "bad.h5").exists()


def test_cli_explain_prints_the_split(spire_cli, tmp_path):
    job = tmp_path / "burgers.toml"
    job.write_text(BURGERS)
    p = run(spire_cli, "pde", "solve", job, "--explain")
    assert "M:" in p.stdout and "L:" in p.stdout and "F:" in p.stdout
    assert p.stdout == spire.flow.read_job(str(job)).explain()


def test_bad_keys_and_values_are_config_errors_naming_them(tmp_path):
    base = dict(equation="dt(u) = dx(dx(u))", domain={"x": [0.0, 1.0]}, initial={"u": "sin(pi*x)"},
                time={"t_end": 0.1, "snapshots": 2, "dt": 1e-3}, discretization={"n": 16})

    def error(**changes):
        kw = {**base, **changes}
        with pytest.raises(spire.ConfigError) as e:
            spire.flow.PDE(**kw)
        return str(e.value)

    m = error(time={"t_end": 0.1, "snapshots": 2, "dt": 1e-3, "tolerance": 1e-6})
    assert "dt" in m and "tolerance" in m
    m = error(time={"t_end": 0.1, "snapshots": 2, "step": 1e-3})
    assert "step" in m and "dt" in m
    m = error(discretization={"n": 16, "scheme": "euler"})
    assert "euler" in m and "sbdf2" in m
    m = error(output={"layout": "netcdf"})
    assert "netcdf" in m and "pdeformer" in m
    m = error(initial={})
    assert "no condition for u" in m
    with pytest.raises(spire.ConfigError) as e:
        spire.flow.PDE(equations=["dt(u) = 0"], **base)
    assert "equation" in str(e.value) and "equations" in str(e.value)
    # A write that fails leaves no file under the name: two fields cannot go in the PDEformer layout.
    pde = spire.flow.PDE(
        equations=["dt(u) = dx(dx(u)) + v", "dt(v) = dx(dx(v))"], domain={"x": [-1.0, 1.0]},
        initial={"u": "sin(pi*x)", "v": "cos(pi*x)"}, time={"t_end": 0.01, "snapshots": 2, "dt": 1e-3},
        discretization={"n": 8}, output={"layout": "pdeformer"})
    with pytest.raises(spire.ConfigError):
        pde.solve(output=tmp_path / "two.h5")
    assert list(tmp_path.iterdir()) == []


def test_the_example_job_files_parse():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in sorted((REPO / "examples" / "flow").glob("*.toml")):
            pde = spire.flow.read_job(str(path))
            # A family job's fields come with each sample its family draws.
            assert pde.fields or "[family]" in path.read_text(), path


def test_generate_through_the_cli_and_python_gives_the_same_file(spire_cli, tmp_path):
    job = tmp_path / "gen.toml"
    job.write_text('seed = 3\n[family]\nname = "burgers"\nnu = 0.05\n[domain]\nx = [0.0, 1.0]\n'
                   '[time]\nt_end = 0.2\nsnapshots = 5\ndt = 1e-3\n[discretization]\nn = 32\n'
                   '[output]\nlayout = "both"\n')
    cli_out, py_out = tmp_path / "cli.h5", tmp_path / "py.h5"
    run(spire_cli, "pde", "generate", job, "-o", cli_out, "--samples", 4, "--threads", 1, "--quiet")
    report = spire.flow.generate(str(job), py_out, samples=4, threads=2)
    assert report["accepted"] == 4 and sum(report["rejected"].values()) == 0
    with h5py.File(cli_out, "r") as a, h5py.File(py_out, "r") as b:
        assert a["tensor"].shape == (4, 5, 32)
        np.testing.assert_array_equal(a["tensor"][:], b["tensor"][:])  # the seed decides, not the threads
        np.testing.assert_array_equal(a["u_sol_all"][:], a["tensor"][:])
        assert a.attrs["seed"] == 3 and a.attrs["job"] == job.read_text()
        coef = {}
        a["coef"].visititems(lambda k, v: coef.update({k: v[:]}) if isinstance(v, h5py.Dataset) else None)
    data = spire.flow.load(py_out)
    assert len(data) == 4 and data.fields == ["u"] and all(data.complete)
    np.testing.assert_array_equal(data["u"], spire.flow.load(cli_out)["u"])
    assert data.coef.keys() == coef.keys()
    for k in coef:
        np.testing.assert_array_equal(data.coef[k], coef[k])
    # --seed overrides the job's seed: another seed, other samples.
    run(spire_cli, "pde", "generate", job, "-o", tmp_path / "other.h5", "--samples", 4, "--seed", 4, "--quiet")
    with h5py.File(tmp_path / "other.h5", "r") as c:
        assert c.attrs["seed"] == 4
        assert not np.array_equal(c["tensor"][:, 0], data["u"][:, 0])
