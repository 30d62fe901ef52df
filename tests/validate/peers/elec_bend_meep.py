"""Meep's side of the waveguide-bend validation (tests/validate/elec_bend_meep.cpp).

Meep's tutorial "Transmittance Spectrum of a Waveguide Bend" (python/examples/bend-flux.py) as
published, with no files written: a 2D cell of 16 x 32 with a PML of thickness 1, resolution 10;
waveguides of eps 12 and width 1 with their centres pad = 4 from the cell's sides; an Ez Gaussian
line source (fcen 0.15, df 0.1) across the waveguide at the inner edge of the left PML; flux
monitors of 100 frequencies over lines 2w long. Run 1 (straight waveguide): the incident flux at the
transmission line and the reflection line's DFT data. Run 2 (the bend): the reflection line starts
from minus that data (load_minus_flux_data), the transmission line crosses the vertical arm. Both
runs stop with stop_when_fields_decayed(50, Ez, pt, 1e-3) after the sources, pt 0.5 before the
transmission line.

    /usr/bin/python3 tests/validate/peers/elec_bend_meep.py OUT.txt

Writes OUT.txt (whitespace-separated, one record per line):
    meep_version V
    steps STRAIGHT BEND                   time steps of the two runs
    wall_seconds S                        both runs, Simulation() to the fluxes, one process
    flux F INCIDENT REFLECTED TRANSMITTED one line per frequency: Meep's get_fluxes of the
                                          straight run's transmission line and the bend run's lines
    end
(The reflectance is -REFLECTED / INCIDENT, the transmittance TRANSMITTED / INCIDENT.)
"""
import os
import sys
import time

import meep as mp

RESOLUTION = 10
SX, SY = 16.0, 32.0
DPML = 1.0
PAD = 4.0
W = 1.0
EPS = 12.0
FCEN, DF, NFREQ = 0.15, 0.1, 100
DECAY_DT, DECAY_BY = 50.0, 1e-3


def main(path):
    mp.verbosity(0)
    start = time.perf_counter()
    cell = mp.Vector3(SX, SY, 0)
    wvg_xcen = 0.5 * (SX - W - 2 * PAD)   # x centre of the vertical arm
    wvg_ycen = -0.5 * (SY - W - 2 * PAD)  # y centre of the horizontal arm
    dielectric = mp.Medium(epsilon=EPS)
    sources = [mp.Source(mp.GaussianSource(FCEN, fwidth=DF), component=mp.Ez,
                         center=mp.Vector3(-0.5 * SX + DPML, wvg_ycen), size=mp.Vector3(0, W))]
    refl_fr = mp.FluxRegion(center=mp.Vector3(-0.5 * SX + DPML + 0.5, wvg_ycen), size=mp.Vector3(0, 2 * W))

    # Run 1: the straight waveguide.
    sim = mp.Simulation(cell_size=cell, boundary_layers=[mp.PML(DPML)], resolution=RESOLUTION, sources=sources,
                        geometry=[mp.Block(size=mp.Vector3(mp.inf, W, mp.inf), center=mp.Vector3(0, wvg_ycen),
                                           material=dielectric)])
    refl = sim.add_flux(FCEN, DF, NFREQ, refl_fr)
    tran = sim.add_flux(FCEN, DF, NFREQ, mp.FluxRegion(center=mp.Vector3(0.5 * SX - DPML, wvg_ycen),
                                                       size=mp.Vector3(0, 2 * W)))
    pt = mp.Vector3(0.5 * SX - DPML - 0.5, wvg_ycen)
    sim.run(until_after_sources=mp.stop_when_fields_decayed(DECAY_DT, mp.Ez, pt, DECAY_BY))
    straight_refl_data = sim.get_flux_data(refl)
    incident = mp.get_fluxes(tran)
    straight_steps = sim.fields.t
    sim.reset_meep()

    # Run 2: the bend.
    geometry = [mp.Block(size=mp.Vector3(SX - PAD, W, mp.inf), center=mp.Vector3(-0.5 * PAD, wvg_ycen),
                         material=dielectric),
                mp.Block(size=mp.Vector3(W, SY - PAD, mp.inf), center=mp.Vector3(wvg_xcen, 0.5 * PAD),
                         material=dielectric)]
    sim = mp.Simulation(cell_size=cell, boundary_layers=[mp.PML(DPML)], resolution=RESOLUTION, sources=sources,
                        geometry=geometry)
    refl = sim.add_flux(FCEN, DF, NFREQ, refl_fr)
    tran = sim.add_flux(FCEN, DF, NFREQ, mp.FluxRegion(center=mp.Vector3(wvg_xcen, 0.5 * SY - DPML - 0.5),
                                                       size=mp.Vector3(2 * W, 0)))
    sim.load_minus_flux_data(refl, straight_refl_data)
    pt = mp.Vector3(wvg_xcen, 0.5 * SY - DPML - 0.5)
    sim.run(until_after_sources=mp.stop_when_fields_decayed(DECAY_DT, mp.Ez, pt, DECAY_BY))
    reflected = mp.get_fluxes(refl)
    transmitted = mp.get_fluxes(tran)
    freqs = mp.get_flux_freqs(refl)
    wall = time.perf_counter() - start

    with open(path + ".tmp", "w") as out:
        out.write(f"meep_version {mp.__version__}\n")
        out.write(f"steps {straight_steps} {sim.fields.t}\n")
        out.write(f"wall_seconds {wall!r}\n")
        for f, i, r, t in zip(freqs, incident, reflected, transmitted):
            out.write(f"flux {f!r} {i!r} {r!r} {t!r}\n")
        out.write("end\n")
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: elec_bend_meep.py OUT.txt")
    main(sys.argv[1])
