"""Random numbers from a counter-based generator (Philox-4x32-10): values depend only on (seed,
stream, position), so a seed gives the same draws on every run, thread count and device.
``generator=None`` uses the process-wide default generator (seeded by ``spire.manual_seed``)."""

from ._C.random import (Generator, bernoulli, default_generator, manual_seed, normal, permutation,
                        randint, uniform)

__all__ = ["Generator", "bernoulli", "default_generator", "manual_seed", "seed", "normal",
           "permutation", "randint", "uniform"]

seed = manual_seed
