# Makes `import spire` work from a source checkout after a CMake build (which copies the extension
# into python/spire/) without installing.
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_python = os.path.join(_here, "..", "..", "python")
try:
    import spire  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.abspath(_python))


import pathlib  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture
def spire_cli() -> str:
    """The spire command of this build (or $SPIRE_CLI)."""
    repo = pathlib.Path(_here).resolve().parents[1]
    for p in [os.environ.get("SPIRE_CLI"), repo / "build" / "bin" / "spire"]:
        if p and pathlib.Path(p).exists():
            return str(p)
    raise AssertionError("the spire command was not found (build it, or set SPIRE_CLI)")
