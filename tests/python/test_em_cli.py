"""`spire em run` and `spire em check` (cli/em.cpp, science/elec/job.h): the results file as h5py
reads it (monitor groups, complex DFT arrays, the job's text, attributes naming units and
conventions), errors that name the key, the checkpoint guard, and a run stopped by SIGINT and
resumed that ends with the same numbers as one that was not stopped."""
import pathlib
import signal
import subprocess
import time

import h5py
import numpy as np

JOB = """
[cell]
size = [4, 3]
resolution = 10
dimensions = "2d_tm"

[boundary]
pml = 0.5

[[material]]
name = "glass"
epsilon = 4

[[geometry]]
shape = "block"
center = [0.5, 0]
size = [1, 1]
material = "glass"

[[source]]
component = "Ez"
center = [-1, 0.1]
[source.profile]
kind = "gaussian"
frequency = 0.6
fwidth = 0.4

[[monitor]]
kind = "flux"
name = "right"
fcen = 0.6
df = 0.4
nfreq = 5
[[monitor.region]]
center = [1.4, 0]
size = [0, 2]

[[monitor]]
kind = "dft_fields"
name = "field"
components = ["Ez"]
center = [0, 0]
size = [1, 0.5]
frequencies = [0.5, 0.7]

[[monitor]]
kind = "harminv"
component = "Ez"
center = [0.5, 0]
fcen = 0.6
df = 0.6

[[monitor]]
kind = "point"
name = "probe"
center = [0.2, 0.3]

[run]
until = UNTIL
progress = PROGRESS
"""


def job(tmp: pathlib.Path, name="job.toml", until=10, progress=5, cell=None) -> pathlib.Path:
    text = JOB.replace("UNTIL", str(until)).replace("PROGRESS", str(progress))
    if cell:
        text = text.replace("[cell]\nsize = [4, 3]", "[cell]\nsize = " + cell)
    p = tmp / name
    p.write_text(text)
    return p


def run(cli, *args, ok=True, timeout=120):
    p = subprocess.run([cli, *map(str, args)], capture_output=True, text=True, timeout=timeout)
    if ok:
        assert p.returncode == 0, p.stdout + p.stderr
    return p


def test_run_writes_a_results_file_that_h5py_reads(spire_cli, tmp_path):
    path = job(tmp_path)
    p = run(spire_cli, "em", "run", path, "--quiet", "--threads", 1)
    assert p.stdout == ""
    out = tmp_path / "job.h5"
    assert out.exists() and (tmp_path / "job.checkpoint.h5").exists()
    with h5py.File(out, "r") as f:
        assert f.attrs["format"] == "spire.elec.results"
        assert f.attrs["job"] == path.read_text()
        assert "sqrt(2 pi)" in f.attrs["dft_convention"]
        assert "lengths in a" in f.attrs["units"]
        assert f.attrs["dimensions"] == "2d_tm" and f.attrs["steps"] == 200
        assert set(f["monitors"]) == {"right", "field", "harminv0", "probe"}
        right = f["monitors/right"]
        assert right.attrs["kind"] == "flux"
        np.testing.assert_allclose(right["frequencies"][:], np.linspace(0.4, 0.8, 5))
        assert right["flux"].shape == (5,) and np.all(right["flux"][:] > 0)  # power flows out at +x
        ez = f["monitors/field/Ez/values"]
        assert ez.dtype == np.complex128  # the {r, i} compound
        assert ez.shape == (2, len(f["monitors/field/Ez/x"]), len(f["monitors/field/Ez/y"]), 1)
        assert np.abs(ez[:]).max() > 0
        probe = f["monitors/probe"]
        assert probe["time"].shape == (200,) and probe["Hx"].attrs["time_offset"] == -0.025
        h = f["monitors/harminv0"]
        assert h["frequency"].shape == h["q"].shape == h["amplitude"].shape


def test_check_describes_the_job(spire_cli, tmp_path):
    p = run(spire_cli, "em", "check", job(tmp_path))
    assert "lattice: 2d_tm, 40 x 30 = 1200 cells" in p.stdout
    assert "200 steps" in p.stdout and "memory: about" in p.stdout
    assert "monitor right: flux, 5 frequencies" in p.stdout
    assert not (tmp_path / "job.h5").exists()  # check writes nothing


def test_errors_name_the_key_and_what_is_allowed(spire_cli, tmp_path):
    path = job(tmp_path)
    path.write_text(path.read_text().replace("resolution = 10", "resolution = 10\nresolutoin = 3"))
    p = run(spire_cli, "em", "run", path, ok=False)
    assert p.returncode == 1
    assert "unknown key resolutoin in [cell]" in p.stderr and "allowed:" in p.stderr
    path.write_text(job(tmp_path).read_text().replace('kind = "gaussian"', 'kind = "gausian"'))
    p = run(spire_cli, "em", "check", path, ok=False)
    assert p.returncode == 1 and "source[0].profile.kind" in p.stderr and "continuous" in p.stderr


def read_numbers(path):
    with h5py.File(path, "r") as f:
        return {k: f[k][:] for k in ("monitors/right/flux", "monitors/field/Ez/values", "monitors/probe/Ez",
                                     "monitors/probe/time")}


def test_a_checkpoint_is_kept_until_resume_and_a_finished_run_extends(spire_cli, tmp_path):
    path = job(tmp_path, until=6)
    run(spire_cli, "em", "run", path, "--quiet")
    p = run(spire_cli, "em", "run", path, "--quiet", ok=False)
    assert p.returncode == 1 and "--resume" in p.stderr and "job.checkpoint.h5" in p.stderr
    # Raise until and resume: the run continues from its end to the new one.
    job(tmp_path, until=10)
    p = run(spire_cli, "em", "run", path, "--resume")
    assert "resuming from" in p.stdout and "at step 120" in p.stdout and "80 steps to go of 200" in p.stdout
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    run(spire_cli, "em", "run", job(fresh, until=10), "--quiet")
    a, b = read_numbers(tmp_path / "job.h5"), read_numbers(fresh / "job.h5")
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def test_sigint_writes_a_checkpoint_and_resume_gives_the_same_numbers(spire_cli, tmp_path):
    # A run of 100000 steps (a second or more on one thread), stopped by SIGINT at its first
    # progress line (0.1 s): the signal always arrives while it steps.
    big = "[8, 6]"
    path = job(tmp_path, until=5000, progress=0.1, cell=big)
    proc = subprocess.Popen([spire_cli, "em", "run", str(path), "--threads", "1"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    for line in proc.stdout:
        if line.startswith("step ") or time.time() > deadline:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "checkpoint" in err and "--resume" in err
    assert not (tmp_path / "job.h5").exists()  # no results from a stopped run
    p = run(spire_cli, "em", "run", path, "--resume", "--quiet", timeout=300)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    run(spire_cli, "em", "run", job(fresh, until=5000, progress=0.1, cell=big), "--quiet", timeout=300)
    a, b = read_numbers(tmp_path / "job.h5"), read_numbers(fresh / "job.h5")
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
