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
