"""PDEs: write the equation, get the solution (science/flow).

    pde = spire.flow.PDE(
        equation="dt(u) + dx(0.5*u^2) - nu*dx(dx(u)) = 0", parameters={"nu": 0.01},
        domain={"x": [-1.0, 1.0], "periodic": True}, initial={"u": "sin(pi*x)"},
        time={"t_end": 1.0, "snapshots": 101, "dt": 4e-4},
        discretization={"basis": "fourier", "n": 256, "scheme": "sbdf2"})
    sol = pde.solve()          # sol.t [n_t], sol.x [n_x], sol["u"] [n_t, n_x] (NumPy)
    print(pde.explain())       # the split into implicit (M, L) and explicit (F) parts

The keyword arguments mirror the tables of a job file for ``spire pde solve`` (docs/flow.md): a PDE
is turned into that TOML text (``pde.toml``) and read by the same C++ reader, so both check the
same keys and values and give the same errors.
"""
from __future__ import annotations

import os
import warnings as _warnings
from typing import Any, Dict, List, Mapping, Optional

import numpy as np

from ._C import _flow
from .rl._toml import to_toml as _to_toml

__all__ = ["PDE", "Solution", "Dataset", "generate", "load", "read_job"]

_WHO = "spire.flow.PDE"


class _Fields:
    """Fields on a grid: ``fields`` (the names), ``obj[name]`` (the values), ``t``, ``x``, ``y``."""

    def __init__(self, d: Mapping[str, Any]):
        self.fields: List[str] = list(d["fields"])
        self._values: Dict[str, np.ndarray] = dict(d["values"])
        self.t: np.ndarray = d["t"]
        self.x: np.ndarray = d["x"]
        self.y: Optional[np.ndarray] = d.get("y")

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._values:
            raise KeyError(f"spire.flow.{type(self).__name__}: no field {name!r}; fields: {', '.join(self.fields)}")
        return self._values[name]

    def __contains__(self, name: str) -> bool:
        return name in self._values


class Solution(_Fields):
    """One solve: ``t`` (the snapshot times reached), ``x`` (and ``y`` in 2D) the grid, ``sol[name]``
    the field's values [n_t, n_x(, n_y)]; ``complete`` is False when a blow-up stopped the run
    (``stop_reason`` says when and where; the snapshots before it are kept)."""

    def __init__(self, d: Mapping[str, Any]):
        super().__init__(d)
        self.complete: bool = d["complete"]
        self.stop_reason: str = d["stop_reason"]
        self.steps: int = d["steps"]
        self.rejected_steps: int = d["rejected"]
        self.seconds: float = d["seconds"]  # the time stepping alone (Solver::run), not parsing

    def __repr__(self) -> str:
        shape = "x".join(str(n) for n in self[self.fields[0]].shape)
        state = "complete" if self.complete else f"stopped: {self.stop_reason}"
        return f"Solution({', '.join(self.fields)} [{shape}], {self.steps} steps, {state})"


class PDE:
    """A PDE job. Every keyword is a table of the job file: ``equation`` (or ``equations``, a list),
    ``fields``, ``parameters``, ``coefficients`` make [pde]; ``domain``, ``bc``, ``initial``,
    ``random``, ``time``, ``discretization``, ``output``, ``family`` are the tables of the same
    names; ``seed`` the top-level seed. Bad keys or values raise ConfigError (ParseError for an
    equation that does not parse, with the line, the column and a caret) when the PDE is made."""

    def __init__(self, equation: Optional[str] = None, *, equations: Optional[List[str]] = None,
                 fields: Optional[List[str]] = None, parameters: Optional[Mapping[str, float]] = None,
                 coefficients: Optional[Mapping[str, str]] = None, domain: Optional[Mapping[str, Any]] = None,
                 bc: Optional[Mapping[str, Any]] = None, initial: Optional[Mapping[str, str]] = None,
                 random: Optional[Mapping[str, Any]] = None, time: Optional[Mapping[str, Any]] = None,
                 discretization: Optional[Mapping[str, Any]] = None, output: Optional[Mapping[str, Any]] = None,
                 family: Optional[Mapping[str, Any]] = None, seed: int = 0):
        pde: Dict[str, Any] = {}
        if equation is not None:
            pde["equation"] = equation
        if equations is not None:
            pde["equations"] = list(equations)
        for key, value in (("fields", fields), ("parameters", parameters), ("coefficients", coefficients)):
            if value is not None:
                pde[key] = list(value) if key == "fields" else _plain(value)
        config: Dict[str, Any] = {"seed": int(seed)}
        if pde:
            config["pde"] = pde
        for key, value in (("domain", domain), ("bc", bc), ("initial", initial), ("random", random),
                           ("time", time), ("discretization", discretization), ("output", output),
                           ("family", family)):
            if value is not None:
                config[key] = _plain(value)
        self.toml: str = _to_toml(config, _WHO)
        info = _flow.check(self.toml, _WHO)
        self.fields: List[str] = list(info["fields"])
        self.warnings: List[str] = list(info["warnings"])
        for w in self.warnings:
            _warnings.warn(f"{_WHO}: {w}", stacklevel=2)

    @classmethod
    def from_toml(cls, text: str, where: str = "job") -> "PDE":
        """A PDE from job-file text (what ``spire pde solve`` reads); ``where`` names it in errors."""
        self = cls.__new__(cls)
        self.toml = text
        info = _flow.check(text, where)
        self.fields, self.warnings = list(info["fields"]), list(info["warnings"])
        return self

    def solve(self, output: Optional[str] = None, *, sample: int = 0) -> Solution:
        """Solves (without the GIL) and returns the snapshots; with ``output``, also writes them to
        that HDF5 file as ``spire pde solve -o`` does."""
        return Solution(_flow.solve(self.toml, _WHO, int(sample), os.fspath(output) if output else ""))

    def explain(self) -> str:
        """How each equation is split: M dt(X) + L X (implicit) = F (explicit)."""
        return _flow.explain(self.toml, _WHO)

    def __repr__(self) -> str:
        return f"PDE(fields={self.fields})"


def read_job(path: str) -> PDE:
    """The PDE of a job file."""
    with open(path, encoding="utf-8") as f:
        return PDE.from_toml(f.read(), os.fspath(path))


def generate(job, output: str, samples: int, seed: Optional[int] = None, threads: int = 0,
             resume: bool = True, refine: int = 0) -> Dict[str, Any]:
    """``spire pde generate``: ``samples`` samples of the job's [family] (or of its random initial
    conditions) into ``output``. ``job`` is a PDE or a job file's path. ``refine``: a sample that
    blows up is solved again with dt/10, up to this many times (0-3), before it is rejected.
    Returns the report: accepted, rejected (reason -> count), resumed, refined, seconds."""
    pde = job if isinstance(job, PDE) else read_job(os.fspath(job))
    return _flow.generate(pde.toml, _WHO, os.fspath(output), int(samples), -1 if seed is None else int(seed),
                          int(threads), bool(resume), int(refine))


class Dataset(_Fields):
    """A file written by ``spire pde solve`` / ``generate`` (or ``PDE.solve(output=...)``):
    ``data[name]`` is [samples, n_t, n_x(, n_y)], ``t``, ``x``, ``y`` the coordinates, ``fields`` the
    names, ``complete`` per sample, ``coef[name]`` [samples, k] (PDEformer layout), ``rejected``."""

    def __init__(self, d: Mapping[str, Any]):
        super().__init__(d)
        self.complete: List[bool] = list(d["complete"])
        self.stop_reasons: List[str] = list(d["stop_reasons"])
        self.coef: Dict[str, np.ndarray] = dict(d["coef"])
        self.rejected: Dict[str, int] = dict(d["rejected"])

    def __len__(self) -> int:
        return len(self.complete)

    def __repr__(self) -> str:
        return f"Dataset({len(self)} samples of {', '.join(self.fields)}, t [{len(self.t)}], x [{len(self.x)}])"


def load(path: str) -> Dataset:
    """Reads a file of ``spire pde solve`` / ``generate``."""
    return Dataset(_flow.load(os.fspath(path)))


def _plain(value: Any) -> Any:
    """Mappings and sequences (NumPy arrays and scalars included) as plain Python values for TOML."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value
