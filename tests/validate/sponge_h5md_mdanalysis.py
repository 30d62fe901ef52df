#!/usr/bin/env python3
"""MDAnalysis reads Spire's H5MD trajectories (science/sponge/h5md.h).

Usage: python3 tests/validate/sponge_h5md_mdanalysis.py [FILE.h5 ...]
(without files: the samples that build/bin/spire_sponge_tests writes, md and lj units and a
triclinic box)

For each file, MDAnalysis's H5MDReader (the reader of `mda.Universe(topology, "run.h5")`) loads the
trajectory and every frame is compared with the same file read by h5py directly: positions,
velocities, forces and box in MDAnalysis's units (Angstrom, ps, kJ/(mol Angstrom)) converted from
the file's own unit attributes (md units), or unconverted for reduced (lj) units; times, steps and
the observables group. Prints `figure:` lines, `ok:` or `FAILED:` per file, and exits non-zero on
any failure.

Sample files: SPONGE_H5MD_SAMPLES=/tmp/samples <sponge test binary> --gtest_filter=*Samples*
(test_h5md.cpp), which is what this script runs when given no files.
Needs MDAnalysis (pip install MDAnalysis) and h5py.
"""
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np

try:
    import h5py
    import MDAnalysis as mda
except ImportError as e:  # pragma: no cover - reported, not hidden
    print(f"FAILED: {e}; install with `pip install MDAnalysis h5py`")
    sys.exit(2)

# The file's unit -> MDAnalysis's unit factor (MDAnalysis works in Angstrom, ps, kJ/mol).
LENGTH = {"nm": 10.0, "Angstrom": 1.0}
VELOCITY = {"nm ps-1": 10.0}
FORCE = {"kJ mol-1 nm-1": 0.1}


def unit_of(dataset):
    u = dataset.attrs.get("unit")
    return u.decode() if isinstance(u, bytes) else u


def check(path):
    failures = []
    with h5py.File(path, "r") as f:
        version = list(f["h5md"].attrs["version"])
        creator = f["h5md/creator"].attrs["name"]
        creator = creator.decode() if isinstance(creator, bytes) else creator
        if version != [1, 1]:
            failures.append(f"h5md version {version}, expected [1, 1]")
        group_name = list(f["particles"])[0]
        g = f["particles"][group_name]
        units = unit_of(g["position/value"]) if "position" in g else None
        reduced = units is None
        raw = {name: g[f"{name}/value"][()] for name in ("position", "velocity", "force") if name in g}
        table = {"position": LENGTH, "velocity": VELOCITY, "force": FORCE}
        scale = {name: 1.0 if reduced else table[name][unit_of(g[f"{name}/value"])] for name in raw}
        edges = g["box/edges/value"][()] if "edges" in g["box"] else None
        steps = g["position/step"][()]
        times = g["position/time"][()]
        observables = {k: f[f"observables/{k}/value"][()] for k in f["observables"] if "value" in f[f"observables/{k}"]}
        complete = int(f.attrs.get("complete", -1))
    if complete != 1:
        failures.append(f"attribute complete = {complete}: the writer did not close the file")

    n_atoms = raw["position"].shape[1]
    u = mda.Universe.empty(n_atoms, trajectory=False)
    u.load_new(path, format="H5MD", convert_units=not reduced)
    traj = u.trajectory
    if traj.n_frames != len(steps):
        failures.append(f"MDAnalysis sees {traj.n_frames} frames, the file holds {len(steps)}")
    worst = 0.0
    for k, ts in enumerate(traj):
        for name, attr in (("position", "positions"), ("velocity", "velocities"), ("force", "forces")):
            if name not in raw:
                continue
            got = getattr(ts, attr).astype(np.float64)
            want = raw[name][k] * scale[name]
            err = float(np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want))))
            worst = max(worst, err)
            if err > 1e-6:  # MDAnalysis keeps float32
                failures.append(f"frame {k}: {name} differs by {err:.2e} (relative)")
        if edges is not None:
            e = edges[k] * (1.0 if reduced else LENGTH[units])
            if e.ndim == 1:
                want_dims = np.array([*e, 90, 90, 90])
            else:
                want_dims = mda.lib.mdamath.triclinic_box(*e)
            if not np.allclose(ts.dimensions, want_dims, rtol=1e-5, atol=1e-4):
                failures.append(f"frame {k}: box {ts.dimensions} vs {want_dims}")
        if not np.isclose(ts.time, times[k], rtol=1e-9, atol=1e-12):
            failures.append(f"frame {k}: time {ts.time} vs {times[k]}")
        if int(ts.data["step"]) != int(steps[k]):
            failures.append(f"frame {k}: step {ts.data['step']} vs {steps[k]}")
        for key, values in observables.items():
            if not np.allclose(ts.data[key], values[k]):
                failures.append(f"frame {k}: observable {key} {ts.data[key]} vs {values[k]}")
    print(f"figure: {path}: {traj.n_frames} frames of {n_atoms} atoms, units {'reduced' if reduced else units}, "
          f"creator {creator}, largest relative difference MDAnalysis vs h5py {worst:.2e}")
    return failures


def sample_files(directory):
    """Has the sponge test binary write its H5MD samples (md, lj, triclinic) into `directory`."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    binary = os.path.join(os.environ.get("SPIRE_BUILD", os.path.join(root, "build")), "bin", "spire_sponge_tests")
    if not os.path.exists(binary):
        raise SystemExit(f"FAILED: {binary} not found: build Spire first (or set SPIRE_BUILD)")
    subprocess.run([binary, "--gtest_filter=SpongeH5md.WritesSamplesForPeerReaders"], check=True,
                   env=dict(os.environ, SPONGE_H5MD_SAMPLES=directory), stdout=subprocess.DEVNULL)
    return sorted(glob.glob(os.path.join(directory, "*.h5")))


def main(paths):
    if not paths:  # `make validate`: the test suite's samples, in a folder removed afterwards
        with tempfile.TemporaryDirectory(prefix="spire_h5md_") as directory:
            paths = sample_files(directory)
            if len(paths) != 3:
                print(f"FAILED: expected 3 sample files in {directory}, got {paths}")
                return 1
            return main(paths)
    bad = 0
    for path in paths:
        try:
            failures = check(path)
        except Exception as e:  # any exception is a failure to read
            failures = [f"{type(e).__name__}: {e}"]
        if failures:
            bad += 1
            print(f"FAILED: {path}: " + "; ".join(failures[:5]))
        else:
            print(f"ok: MDAnalysis {mda.__version__} reads {path}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
