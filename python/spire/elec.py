"""FDTD electromagnetics (science/elec), in the style of Meep's Python API.

Declarative objects describe the problem; a Simulation builds and runs it, with monitors whose
results come out as NumPy arrays. Meep's normalised units: c = 1, lengths in a unit a that you pick
(``UnitScale`` converts to SI), frequencies in c/a, time in a/c; the cell is centred on the origin.

A waveguide's transmission (2D, TM: Ez out of the plane)::

    import spire.elec as em

    sim = em.Simulation(cell_size=(16, 8), resolution=10,
                        boundary_layers=[em.PML(1.0)],
                        geometry=[em.Block(size=(em.inf, 1), material=em.Medium(epsilon=12))],
                        sources=[em.Source(em.GaussianSource(0.15, fwidth=0.1), component="Ez",
                                           center=(-7, 0), size=(0, 1))])
    flux = sim.add_flux(0.15, 0.1, 50, em.FluxRegion(center=(5, 0), size=(0, 2)))
    sim.run(until_after_sources=200)
    flux.flux()                      # per frequency (flux.frequencies)
    sim.field("Ez")                  # (160, 80) array; sim.coordinates("Ez") gives the positions

What there is:

* ``Simulation(cell_size, resolution, *, geometry, sources, boundary_layers=[PML(d)] or
  pml={"x": d, "y": (low, high)}, k_point (Bloch), boundaries={"x": "periodic" | "pmc" | ...},
  default_material, plane_waves, ports, courant, precision ("float64"/"float32"), platform
  ("cpu", "cuda"), subpixel, dimensions)``. Metallic walls by default, as Meep. The dimensions
  follow from cell_size (no z extent: 2D; only z: 1D along z with Ex, Hy). A 2D problem is TM (Ez,
  Hx, Hy) or TE (Hz, Ex, Ey), chosen by the components the sources drive, or dimensions="2d_te".
* Running: ``run(until=T)``, ``run(until_after_sources=T)``, ``run(steps=n)`` (positional step
  functions f(sim) as Meep's), ``step()``, ``add_step_callback(f, every)``; ``time``, ``dt``,
  ``steps``, ``energy()``; ``field(c)``, ``coordinates(c)``, ``get_field_point(c, pt)``,
  ``initialize_field(c, f)``, ``get_epsilon()``; ``save_state()`` / ``load_state()`` (continues
  bit for bit).
* Materials: ``Medium(epsilon, mu, index, conductivity, susceptibilities=[...])`` with
  ``LorentzianSusceptibility``, ``DrudeSusceptibility``, ``DebyeSusceptibility``; ``metal``
  (``perfect_electric_conductor``), ``perfect_magnetic_conductor``. Shapes ``Block``, ``Sphere``,
  ``Cylinder``, ``Prism``; later objects win where they overlap.
* Sources: ``Source(src, component, center, size, amplitude, amp_func)`` with ``GaussianSource``,
  ``ContinuousSource``, ``CustomSource`` (a Python function of time); ``PlaneWave``
  (total-field/scattered-field box); ``LumpedPort`` (a resistive source across a gap).
* Monitors: ``add_flux`` (``get_flux_data`` / ``load_minus_flux_data``: Meep's two-run
  normalisation), ``add_dft_fields``, ``add_near2far`` (``farfield(points)``), ``add_harminv``
  (``modes()``: Mode(freq, decay, Q, amp, err)), ``add_point_series``, ``add_snapshots`` (HDF5 with
  an XDMF sidecar for ParaView), ``add_port_monitor``; ``s_parameters`` runs every port.
* Inverse design: ``DifferentiableRun(..., design=DesignRegion(center, size, shape), fluxes=[...],
  frequencies=[...], until=T)`` called on a Tensor of permittivities gives fluxes and DFT outputs
  as Tensors; ``backward()`` runs the adjoint (exact gradients of the discrete run).
* References: ``yee_frequency`` (the Yee scheme's exact dispersion), ``fresnel``.

Scale: Spire's DFTs are sum f(t_n) exp(i omega t_n) dt; Meep's carry a further 1/sqrt(2 pi), so
absolute fluxes differ from Meep's by 2 pi; every ratio (transmission, reflection) is the same.

Stepping and building release the GIL; step callbacks, CustomSource functions and amplitude
functions take it for each call. Threads: ``spire.set_num_threads``. Bad input raises
``spire.SpireValueError`` / ``spire.ConfigError`` (both ValueErrors) naming what was wrong.
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Callable, Optional, Sequence

import numpy as np

from ._C import _elec, get_num_threads, set_num_threads

__all__ = [
    "inf", "Vector3", "Ex", "Ey", "Ez", "Hx", "Hy", "Hz", "X", "Y", "Z", "ALL", "Low", "High",
    # materials and shapes
    "Medium", "LorentzianSusceptibility", "DrudeSusceptibility", "DebyeSusceptibility", "metal",
    "perfect_electric_conductor", "perfect_magnetic_conductor", "vacuum", "air",
    "GeometricObject", "Block", "Sphere", "Cylinder", "Prism",
    # sources
    "TimeProfile", "GaussianSource", "ContinuousSource", "CustomSource", "Source", "PlaneWave", "LumpedPort",
    # the run and its monitors
    "PML", "FluxRegion", "Near2FarRegion", "Simulation", "Problem", "Flux", "FluxData", "DftFields", "Near2Far",
    "Harminv", "Mode", "PointSeries", "Snapshots", "PortMonitor", "get_fluxes", "get_flux_freqs",
    "load_flux_data", "s_parameters", "read_field_snapshot", "DesignRegion", "DifferentiableRun",
    # units, references, platforms, threads
    "UnitScale", "yee_omega", "yee_frequency", "fresnel", "brewster_angle", "frequency_list", "platforms",
    "set_num_threads", "get_num_threads",
]

inf = math.inf
Vector3 = _elec.Vector3
Ex, Ey, Ez, Hx, Hy, Hz = "Ex", "Ey", "Ez", "Hx", "Hy", "Hz"
X, Y, Z, ALL = "x", "y", "z", None
Low, High = "low", "high"

TimeProfile = _elec.TimeProfile
GaussianSource = _elec.GaussianSource
ContinuousSource = _elec.ContinuousSource
CustomSource = _elec.CustomSource
UnitScale = _elec.UnitScale
Problem = _elec.Problem
Flux = _elec.Flux
FluxData = _elec.FluxData
DftFields = _elec.DftFields
Near2Far = _elec.Near2Far
Harminv = _elec.Harminv
PointSeries = _elec.PointSeries
Snapshots = _elec.Snapshots
PortMonitor = _elec.PortMonitor
load_flux_data = _elec.load_flux_data
read_field_snapshot = _elec.read_field_snapshot
yee_omega = _elec.yee_omega
yee_frequency = _elec.yee_frequency
fresnel = _elec.fresnel
brewster_angle = _elec.brewster_angle
platforms = _elec.platforms

Mode = _elec.Mode
# Meep's field names (freq, amp, err) and the spelled-out ones.
Mode.frequency = property(lambda m: m.freq)
Mode.amplitude = property(lambda m: m.amp)
Mode.error = property(lambda m: m.err)


def frequency_list(fcen: float, df: float, nfreq: int) -> np.ndarray:
    """Meep's nfreq frequencies evenly spaced over fcen +- df/2."""
    return np.asarray(_elec.frequency_list(fcen, df, nfreq))


def _vec(v) -> tuple:
    """A point as a tuple of three floats (Meep's Vector3 with missing coordinates 0)."""
    if v is None:
        return (0.0, 0.0, 0.0)
    if all(hasattr(v, a) for a in "xyz") and not isinstance(v, tuple):
        return (float(v.x), float(v.y), float(v.z))
    t = tuple(float(x) for x in v)
    if not 1 <= len(t) <= 3:
        raise ValueError(f"expected one to three coordinates (x, y, z), got {v!r}")
    return t + (0.0,) * (3 - len(t))


def _diag(scalar, diag, name: str) -> tuple:
    if diag is not None:
        if scalar is not None:
            raise ValueError(f"Medium: give {name} or {name}_diag, not both")
        return _vec(diag)
    s = 1.0 if scalar is None else float(scalar)
    return (s, s, s)


# ---- materials ----

class LorentzianSusceptibility:
    """Meep's LorentzianSusceptibility: chi(f) = sigma f_n^2 / (f_n^2 - f^2 - i f gamma)."""
    _spire_kind = "lorentzian"

    def __init__(self, frequency: float = 0.0, gamma: float = 0.0, sigma: float = 0.0, sigma_diag=None):
        self.frequency, self.gamma = float(frequency), float(gamma)
        self.sigma_diag = _vec(sigma_diag) if sigma_diag is not None else (float(sigma),) * 3

    def __repr__(self) -> str:
        return f"{type(self).__name__}(frequency={self.frequency}, gamma={self.gamma}, sigma_diag={self.sigma_diag})"


class DrudeSusceptibility(LorentzianSusceptibility):
    """Meep's DrudeSusceptibility: chi(f) = -sigma f_n^2 / (f^2 + i f gamma) (plasma frequency sqrt(sigma) f_n)."""
    _spire_kind = "drude"


class DebyeSusceptibility:
    """A Debye relaxation (Meep has none): chi(f) = delta_epsilon / (1 - i 2 pi f tau), tau in a/c."""
    _spire_kind = "debye"

    def __init__(self, tau: float, delta_epsilon: float = 0.0, delta_epsilon_diag=None):
        self.tau = float(tau)
        self.delta_epsilon_diag = (_vec(delta_epsilon_diag) if delta_epsilon_diag is not None
                                   else (float(delta_epsilon),) * 3)

    def __repr__(self) -> str:
        return f"DebyeSusceptibility(tau={self.tau}, delta_epsilon_diag={self.delta_epsilon_diag})"


class Medium:
    """A material (Meep's Medium): permittivity ``epsilon`` (or ``index``, or ``epsilon_diag``),
    permeability ``mu`` (``mu_diag``), an electric ``conductivity`` sigma (J = sigma E: Meep's
    D_conductivity = sigma / epsilon; or give ``D_conductivity`` itself), ``B_conductivity``, and
    ``susceptibilities`` (Meep's E_susceptibilities) added to epsilon. ``epsilon(f)`` gives the
    complex permittivity's diagonal. Checked when made and again when a Simulation is built."""
    _spire_kind = "medium"

    def __init__(self, epsilon: Optional[float] = None, mu: Optional[float] = None, index: Optional[float] = None,
                 conductivity: float = 0.0, D_conductivity: Optional[float] = None,
                 B_conductivity: Optional[float] = None, epsilon_diag=None, mu_diag=None,
                 D_conductivity_diag=None, B_conductivity_diag=None, susceptibilities: Sequence = (),
                 E_susceptibilities: Optional[Sequence] = None, kind: str = "ordinary"):
        if index is not None:
            if epsilon is not None or epsilon_diag is not None:
                raise ValueError("Medium: give epsilon or index, not both")
            epsilon = float(index) ** 2
        self.kind = kind
        self.epsilon_diag = _diag(epsilon, epsilon_diag, "epsilon")
        self.mu_diag = _diag(mu, mu_diag, "mu")
        self.conductivity = float(conductivity)
        self.D_conductivity_diag = (_vec(D_conductivity_diag) if D_conductivity_diag is not None
                                    else (float(D_conductivity or 0.0),) * 3)
        self.B_conductivity_diag = (_vec(B_conductivity_diag) if B_conductivity_diag is not None
                                    else (float(B_conductivity or 0.0),) * 3)
        if E_susceptibilities is not None and len(susceptibilities):
            raise ValueError("Medium: give susceptibilities or E_susceptibilities (Meep's name), not both")
        self.E_susceptibilities = list(E_susceptibilities if E_susceptibilities is not None else susceptibilities)
        _elec.check_medium(self)

    @property
    def susceptibilities(self) -> list:
        return self.E_susceptibilities

    def epsilon(self, frequency: float) -> np.ndarray:
        """The diagonal of the complex permittivity at frequency f (c/a); -inf for a metal."""
        return _elec.medium_epsilon(self, frequency)

    def __repr__(self) -> str:
        if self.kind != "ordinary":
            return "metal" if self.kind == "pec" else "perfect_magnetic_conductor"
        parts = [f"epsilon_diag={self.epsilon_diag}"]
        if self.mu_diag != (1.0, 1.0, 1.0):
            parts.append(f"mu_diag={self.mu_diag}")
        if self.conductivity:
            parts.append(f"conductivity={self.conductivity}")
        if any(self.D_conductivity_diag):
            parts.append(f"D_conductivity_diag={self.D_conductivity_diag}")
        if self.E_susceptibilities:
            parts.append(f"susceptibilities={self.E_susceptibilities}")
        return f"Medium({', '.join(parts)})"


vacuum = air = Medium()
metal = perfect_electric_conductor = Medium(kind="pec")
perfect_magnetic_conductor = Medium(kind="pmc")


# ---- shapes ----

class GeometricObject:
    """Base of the shapes: a material and a centre; later objects win where they overlap."""
    _spire_kind = ""

    def __init__(self, material: Medium, center):
        self.material = material if material is not None else Medium()
        self.center = _vec(center)

    def _check(self):
        _elec.check_object(self)


class Block(GeometricObject):
    """A box of ``size`` (inf allowed) along the axes e1, e2, e3 about ``center``; in 2D its z size
    is 0 (it covers the plane)."""
    _spire_kind = "block"

    def __init__(self, size, center=None, material: Medium = None, e1=(1, 0, 0), e2=(0, 1, 0), e3=(0, 0, 1)):
        super().__init__(material, center)
        self.size, self.e1, self.e2, self.e3 = _vec(size), _vec(e1), _vec(e2), _vec(e3)
        self._check()

    def __repr__(self) -> str:
        return f"Block(size={self.size}, center={self.center}, material={self.material!r})"


class Sphere(GeometricObject):
    _spire_kind = "sphere"

    def __init__(self, radius: float, center=None, material: Medium = None):
        super().__init__(material, center)
        self.radius = float(radius)
        self._check()

    def __repr__(self) -> str:
        return f"Sphere(radius={self.radius}, center={self.center}, material={self.material!r})"


class Cylinder(GeometricObject):
    """A cylinder of ``radius`` and ``height`` (inf: infinitely long) along ``axis``; a disc in 2D."""
    _spire_kind = "cylinder"

    def __init__(self, radius: float, height: float = inf, axis=(0, 0, 1), center=None, material: Medium = None):
        super().__init__(material, center)
        self.radius, self.height, self.axis = float(radius), float(height), _vec(axis)
        self._check()

    def __repr__(self) -> str:
        return f"Cylinder(radius={self.radius}, height={self.height}, center={self.center}, material={self.material!r})"


class Prism(GeometricObject):
    """A polygon (``vertices`` in a plane normal to ``axis``) extruded by ``height``; without a
    centre the vertices are the bottom face (Meep)."""
    _spire_kind = "prism"

    def __init__(self, vertices, height: float = inf, axis=(0, 0, 1), center=None, material: Medium = None):
        super().__init__(material, None)
        self.vertices = [_vec(v) for v in vertices]
        self.height, self.axis = float(height), _vec(axis)
        self.center = None if center is None else _vec(center)
        self._check()

    def __repr__(self) -> str:
        return f"Prism({len(self.vertices)} vertices, height={self.height}, material={self.material!r})"


# ---- sources, boundaries, regions ----

class Source:
    """A current source (Meep's Source): ``src`` (GaussianSource, ContinuousSource, CustomSource)
    driving ``component`` over ``center`` +- ``size``/2 (a point dipole when size is 0), times
    ``amplitude`` and ``amp_func(Vector3 relative to center)``."""
    _spire_kind = "source"

    def __init__(self, src: TimeProfile, component: str, center=None, size=None, amplitude: complex = 1.0,
                 amp_func: Optional[Callable] = None):
        self.src, self.component = src, component
        self.center, self.size = _vec(center), _vec(size)
        self.amplitude, self.amp_func = amplitude, amp_func

    def __repr__(self) -> str:
        return f"Source({self.src!r}, component={self.component!r}, center={self.center}, size={self.size})"


class PML:
    """A CPML layer (Meep's PML) of ``thickness`` (a) or ``cells``, on every axis or one
    (``direction`` "x", "y", "z") and both sides or one (``side`` "low", "high")."""
    _spire_kind = "pml"

    def __init__(self, thickness: Optional[float] = None, direction: Any = None, side: Any = None,
                 cells: Optional[int] = None):
        if (thickness is None) == (cells is None):
            raise ValueError("PML: give exactly one of thickness (a) and cells")
        self.thickness = 0.0 if thickness is None else float(thickness)
        self.cells, self.direction, self.side = cells, direction, side

    def __repr__(self) -> str:
        size = f"cells={self.cells}" if self.cells is not None else f"{self.thickness}"
        return f"PML({size}, direction={self.direction!r}, side={self.side!r})"


class FluxRegion:
    """A plane (3D), line (2D) or point (1D) for a flux or near-to-far monitor: no extent along its
    normal; ``weight`` -1 turns it around (Meep's FluxRegion)."""
    _spire_kind = "flux_region"

    def __init__(self, center=None, size=None, weight: float = 1.0, direction: Any = None):
        self.center, self.size, self.weight, self.direction = _vec(center), _vec(size), float(weight), direction

    def __repr__(self) -> str:
        return f"{type(self).__name__}(center={self.center}, size={self.size}, weight={self.weight})"


class Near2FarRegion(FluxRegion):
    """A face of the surface of a near-to-far transform (Meep's Near2FarRegion)."""


class PlaneWave:
    """A total-field/scattered-field plane wave (plane_wave.h): inside the box ``center`` +-
    ``size``/2 the total field, outside the scattered field only. E along ``polarization``,
    travelling along ``direction``, with the time dependence of ``src``, in a background ``eps``,
    ``mu``."""
    _spire_kind = "plane_wave"

    def __init__(self, src: TimeProfile, size, center=None, direction=(1, 0, 0), polarization=(0, 0, 1),
                 amplitude: complex = 1.0, eps: float = 1.0, mu: float = 1.0):
        self.src, self.size, self.center = src, _vec(size), _vec(center)
        self.direction, self.polarization = _vec(direction), _vec(polarization)
        self.amplitude, self.eps, self.mu = amplitude, float(eps), float(mu)


class LumpedPort:
    """A lumped port (port.h): a gap of ``component`` (Ex, Ey, Ez) over ``center`` +- ``size``/2
    with a series ``resistance`` (ohms) and, when ``src`` is given, a voltage source V_s(t)."""
    _spire_kind = "lumped_port"

    def __init__(self, component: str, size, center=None, resistance: float = 50.0,
                 src: Optional[TimeProfile] = None, amplitude: complex = 1.0):
        self.component, self.size, self.center = component, _vec(size), _vec(center)
        self.resistance, self.src, self.amplitude = float(resistance), src, amplitude


# ---- the run ----

def _split_frequencies(args: tuple, who: str):
    """Meep's two forms: (fcen, df, nfreq, *rest) or (frequencies, *rest)."""
    if not args:
        raise TypeError(f"{who}: give frequencies (fcen, df, nfreq, or a list) first")
    if (len(args) >= 3 and all(isinstance(a, numbers.Real) for a in args[:2])
            and isinstance(args[2], numbers.Integral) and not isinstance(args[2], bool)):
        return frequency_list(args[0], args[1], int(args[2])), args[3:]
    return args[0], args[1:]


def _regions(rest: tuple, who: str) -> list:
    out = []
    for r in rest:
        out.extend(r if isinstance(r, (list, tuple)) else [r])
    if not out:
        raise TypeError(f"{who}: give at least one region")
    return out


def _problem(cell_size, resolution, *, geometry=(), sources=(), boundary_layers=(), plane_waves=(), ports=(),
             **options) -> Problem:
    """The declarative problem of Simulation's (and DifferentiableRun's) keyword arguments."""
    return Problem(cell_size, resolution, geometry=list(geometry), sources=list(sources),
                   boundary_layers=list(boundary_layers), plane_waves=list(plane_waves), ports=list(ports),
                   **options)


class Simulation(_elec.Simulation):
    """An FDTD run (Meep's Simulation), built when made (errors in the problem surface here).
    The module docstring lists the arguments; help(spire.elec) the rest."""

    def __init__(self, cell_size, resolution: float, *, geometry: Sequence = (), sources: Sequence = (),
                 boundary_layers: Sequence = (), pml=None, boundaries=None, k_point=None, pml_profile=None,
                 default_material: Optional[Medium] = None, plane_waves: Sequence = (), ports: Sequence = (),
                 dimensions=None, courant: float = 0.5, precision: str = "float64", platform: str = "cpu",
                 subpixel: bool = True, subpixel_depth: int = 3, subpixel_tolerance: float = 1e-5):
        problem = _problem(cell_size, resolution, dimensions=dimensions, boundary_layers=boundary_layers,
                           pml=pml, boundaries=boundaries, k_point=k_point, pml_profile=pml_profile,
                           geometry=geometry, default_material=default_material, sources=sources,
                           plane_waves=plane_waves, ports=ports, courant=courant, precision=precision,
                           platform=platform, subpixel=subpixel, subpixel_depth=subpixel_depth,
                           subpixel_tolerance=subpixel_tolerance)
        super().__init__(problem)
        self.problem = problem

    # Monitors, in Meep's argument forms.
    def add_flux(self, *args) -> Flux:
        """add_flux(fcen, df, nfreq, *regions) or add_flux(frequencies, *regions)."""
        freqs, rest = _split_frequencies(args, "add_flux")
        return super().add_flux(freqs, _regions(rest, "add_flux"))

    def add_near2far(self, *args, eps: float = 1.0, mu: float = 1.0) -> Near2Far:
        """add_near2far(fcen, df, nfreq, *regions) or add_near2far(frequencies, *regions); eps, mu:
        the homogeneous medium outside the surface."""
        freqs, rest = _split_frequencies(args, "add_near2far")
        return super().add_near2far(freqs, _regions(rest, "add_near2far"), eps, mu)

    def add_dft_fields(self, components, *args, center=None, size=None) -> DftFields:
        """add_dft_fields(components, fcen, df, nfreq, center=, size=) or (components, frequencies,
        ...); the whole cell when size is not given."""
        freqs, rest = _split_frequencies(args, "add_dft_fields")
        if rest:
            raise TypeError("add_dft_fields: give the region as center= and size=")
        return super().add_dft_fields(components, freqs, _vec(center),
                                      tuple(self.cell_size) if size is None else _vec(size))

    def flux_box(self, center, size) -> list:
        """The outward faces of a box as FluxRegions (weights +1 high, -1 low): their flux is the
        power leaving it."""
        return [FluxRegion(c, s, w) for c, s, w in super().flux_box(center, size)]

    # Meep's names for the two-run normalisation and results.
    def get_flux_data(self, flux: Flux) -> FluxData:
        return flux.data()

    def load_flux_data(self, flux: Flux, data: FluxData) -> None:
        flux.load_data(data)

    def load_minus_flux_data(self, flux: Flux, data: FluxData) -> None:
        """Before the run: the flux monitor then sees the field minus the earlier run's."""
        flux.load_minus_data(data)

    def save_flux(self, path, flux: Flux) -> None:
        flux.data().save(path)

    def load_minus_flux(self, path, flux: Flux) -> None:
        flux.load_minus_data(load_flux_data(path))

    def get_near2far_data(self, near2far: Near2Far) -> FluxData:
        return near2far.data()

    def load_minus_near2far_data(self, near2far: Near2Far, data: FluxData) -> None:
        near2far.load_minus_data(data)

    def get_farfield(self, near2far: Near2Far, point) -> np.ndarray:
        """Meep's layout: [Ex, Ey, Ez, Hx, Hy, Hz] per frequency, flattened."""
        return near2far.farfield(_vec(point)).ravel()

    def get_dft_array(self, dft: DftFields, component: str, num_freq: int = 0) -> np.ndarray:
        return dft.array(component, num_freq)

    def meep_time(self) -> float:
        return self.time


class DesignRegion:
    """A box of design permittivities on a grid of ``shape`` values (Meep's MaterialGrid): each
    electric sample inside takes eps interpolated (multilinearly) from the grid values."""
    _spire_kind = "design_region"

    def __init__(self, center=None, size=None, shape=(1, 1, 1)):
        self.center, self.size = _vec(center), _vec(size)
        self.shape = tuple(int(n) for n in tuple(shape) + (1,) * (3 - len(tuple(shape))))

    def __repr__(self) -> str:
        return f"DesignRegion(center={self.center}, size={self.size}, shape={self.shape})"


class DifferentiableRun:
    """An FDTD run as a differentiable function of design permittivities (science/elec/adjoint.h).

    Takes Simulation's problem arguments, a ``design`` DesignRegion, the run length ``until`` and
    what to measure: ``fluxes`` (FluxRegions, with ``frequencies``) and/or raw ``outputs``
    (component, (xs, ys, zs), frequencies). Calling it on a Tensor of eps values (the design grid's
    shape) returns ``flux`` (a Tensor [regions, frequencies], Meep's flux convention and Spire's DFT
    scale) and ``outputs`` (complex128 Tensors [frequencies, points]); ``backward()`` through any
    objective of them runs the adjoint: the exact gradient of the discrete run, at about three
    forward runs' cost, with field checkpoints every ``checkpoint_every`` steps (default about
    sqrt(steps)). Real float64 non-dispersive runs; anything else is refused naming it::

        run = em.DifferentiableRun(cell_size=(5, 3), resolution=10, boundary_layers=[em.PML(0.8)],
                                   sources=[...], design=em.DesignRegion((0.4, 0), (0.8, 1.2), (4, 6)),
                                   fluxes=[em.FluxRegion((1.5, 0), (0, 1.6))], frequencies=[0.5],
                                   until=30)
        eps = spire.full((4, 6, 1), 2.0, requires_grad=True)
        result = run(eps)
        result["flux"].sum().backward()      # eps.grad
    """

    def __init__(self, cell_size, resolution: float, *, design: DesignRegion, until: float,
                 fluxes: Sequence = (), frequencies=None, outputs: Sequence = (), checkpoint_every: int = 0,
                 **problem_options):
        self.problem = _problem(cell_size, resolution, **problem_options)
        self.design = design
        raw = [tuple(o) for o in outputs]
        self._fluxes = []  # per region: (output index or None) for E_a, H_b, E_b, H_a, and the scale
        if fluxes and frequencies is None:
            raise ValueError("DifferentiableRun: fluxes need frequencies")
        for region in fluxes:
            positions, normal, scale, carried = _elec.flux_points(self.problem, region)
            a, b = "xyz"[(normal + 1) % 3], "xyz"[(normal + 2) % 3]
            slots = []
            for c in ("E" + a, "H" + b, "E" + b, "H" + a):
                if c in carried:
                    raw.append((c, positions, frequencies))
                    slots.append(len(raw) - 1)
                else:
                    slots.append(None)
            self._fluxes.append((slots, scale))
        self._raw = len(outputs)
        self._run = _elec.FdtdRun(self.problem, design.center, design.size, design.shape, raw, float(until),
                                  int(checkpoint_every))

    def __call__(self, eps) -> dict:
        out = self._run(eps)
        result = {"outputs": out[:self._raw]}
        if self._fluxes:
            from . import stack  # spire.stack, imported late: spire imports this module
            per_region = []
            for slots, scale in self._fluxes:
                t = [out[i] if i is not None else None for i in slots]
                per_region.append(_elec.poynting_flux(t[0], t[1], t[2], t[3], scale))
            result["flux"] = stack(per_region)
        return result

    @property
    def design_size(self) -> int:
        return self._run.design_size

    @property
    def steps(self) -> int:
        return self._run.steps

    @property
    def checkpoint_every(self) -> int:
        return self._run.checkpoint_every

    @property
    def peak_stored_states(self) -> int:
        return self._run.peak_stored_states


def get_fluxes(flux: Flux) -> np.ndarray:
    """The flux spectrum of a flux monitor (Meep's get_fluxes)."""
    return flux.flux()


def get_flux_freqs(flux: Flux) -> np.ndarray:
    return flux.frequencies


def s_parameters(frequencies, until: float, *, cell_size, resolution: float, excite: Sequence[int] = (),
                 decay_by: float = 0.0, decay_interval: float = 50.0, **simulation) -> dict:
    """The S-parameters of the problem's lumped ports (s_parameters.h): one run per excited port
    (all by default), each until ``until`` or until the port fields have decayed by ``decay_by``
    (checked every ``decay_interval``). The problem is given as Simulation's keyword arguments
    (cell_size, resolution, geometry, ports, boundary_layers, ...; no sources or plane waves).
    Returns {"frequencies", "S" [i, j, f], "input_impedance" [j, f] (ohms), "reference_impedance"
    (ohms, per port), "excited", "stop_time", "decayed"}."""
    for key in ("geometry", "sources", "boundary_layers", "plane_waves", "ports"):
        if key in simulation:
            simulation[key] = list(simulation[key])
    problem = Problem(cell_size, resolution, **simulation)
    return _elec.s_parameters(problem, frequencies, until, list(excite), decay_by, decay_interval)
