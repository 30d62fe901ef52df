"""Meep's side of the ring-resonator validation (tests/validate/elec_ring_meep.cpp).

Meep's tutorial "Modes of a Ring Resonator" (python/examples/ring.py) as published, except that
the mirror symmetry is left out (Spire has none, and the run times are compared) and no files are
written: a ring of index n = 3.4, width w = 1 and inner radius r = 1 in air, pad 4 to a PML of
thickness 2, resolution 10; an Ez Gaussian pulse (fcen 0.15, df 0.1) at (r + 0.1, 0); Harminv of
Ez at the same point from the end of the source, run until 300 after the source.

    /usr/bin/python3 tests/validate/peers/elec_ring_meep.py OUT.txt

Writes OUT.txt (whitespace-separated, one record per line):
    meep_version V
    dt DT                                 the time step Meep used
    steps N                               time steps taken
    wall_seconds S                        Simulation() to the Harminv result, one process
    mode FREQUENCY DECAY Q |AMPLITUDE| ERROR     one line per mode Harminv reports
    mode_exact_dt FREQUENCY DECAY Q |AMPLITUDE| ERROR
                                          the same Harminv call on the same samples with dt = the
                                          run's exact time step instead of the spacing the Harminv
                                          step function measured (t_n - t_{n-1}, which differs from
                                          it by ~1e-14 relative): how well Harminv determines each
                                          mode on this signal
    series DT N V1 ... VN                 the Ez samples Harminv analysed (from the end of the source)
    end
"""
import os
import sys
import time

import meep as mp

N_INDEX, W, R, PAD, DPML = 3.4, 1.0, 1.0, 4.0, 2.0
RESOLUTION = 10
FCEN, DF = 0.15, 0.1
RUN_AFTER_SOURCES = 300


def main(path):
    mp.verbosity(0)
    sxy = 2 * (R + W + PAD + DPML)
    start = time.perf_counter()
    geometry = [mp.Cylinder(radius=R + W, material=mp.Medium(index=N_INDEX)), mp.Cylinder(radius=R)]
    point = mp.Vector3(R + 0.1)
    sources = [mp.Source(mp.GaussianSource(FCEN, fwidth=DF), mp.Ez, point)]
    sim = mp.Simulation(cell_size=mp.Vector3(sxy, sxy), geometry=geometry, sources=sources,
                        resolution=RESOLUTION, boundary_layers=[mp.PML(DPML)])
    harminv = mp.Harminv(mp.Ez, point, FCEN, DF)
    sim.run(mp.after_sources(harminv), until_after_sources=RUN_AFTER_SOURCES)
    wall = time.perf_counter() - start
    # Harminv's arguments as mp.Harminv passes them (simulation.py, _analyze_harminv), dt exact.
    exact_dt = mp.py_do_harminv(harminv.data, sim.fields.dt, FCEN - DF / 2, FCEN + DF / 2, 100,
                                harminv.spectral_density, harminv.Q_thresh, harminv.rel_err_thresh,
                                harminv.err_thresh, harminv.rel_amp_thresh, harminv.amp_thresh)
    with open(path + ".tmp", "w") as out:
        out.write(f"meep_version {mp.__version__}\n")
        out.write(f"dt {sim.fields.dt!r}\n")
        out.write(f"steps {sim.fields.t}\n")
        out.write(f"wall_seconds {wall!r}\n")
        for m in harminv.modes:
            out.write(f"mode {m.freq!r} {m.decay!r} {m.Q!r} {abs(m.amp)!r} {abs(m.err)!r}\n")
        for freq, amp, err in exact_dt:
            q = freq.real / (-2 * freq.imag) if freq.imag != 0 else float("inf")
            out.write(f"mode_exact_dt {freq.real!r} {freq.imag!r} {q!r} {abs(amp)!r} {abs(err)!r}\n")
        samples = " ".join(repr(v.real) for v in harminv.data)
        out.write(f"series {sim.fields.dt!r} {len(harminv.data)} {samples}\n")
        out.write("end\n")
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: elec_ring_meep.py OUT.txt")
    main(sys.argv[1])
