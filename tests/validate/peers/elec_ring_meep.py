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
    with open(path + ".tmp", "w") as out:
        out.write(f"meep_version {mp.__version__}\n")
        out.write(f"dt {sim.fields.dt!r}\n")
        out.write(f"steps {sim.fields.t}\n")
        out.write(f"wall_seconds {wall!r}\n")
        for m in harminv.modes:
            out.write(f"mode {m.freq!r} {m.decay!r} {m.Q!r} {abs(m.amp)!r} {abs(m.err)!r}\n")
        out.write("end\n")
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: elec_ring_meep.py OUT.txt")
    main(sys.argv[1])
