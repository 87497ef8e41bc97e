"""partkit: graph partitioning and load balancing with Numba kernels.

The top-level names are imported on first use, so that ``import partkit``
and ``partkit --help`` stay fast (numpy, scipy and the compiled kernels
load only when a command needs them).
"""

import importlib

from partkit._numba_cache import ensure_numba_cache

ensure_numba_cache()  # before any kernel module is imported

__version__ = "0.1.0"

#: Public name -> module that defines it.
_LAZY = {
    "partition": "partkit.api",
    "Graph": "partkit.graph",
    "InputError": "partkit.errors",
    "InfeasibleBalanceWarning": "partkit.errors",
    "order": "partkit.ordering",
    "separator": "partkit.ordering",
}

__all__ = ["Graph", "InputError", "InfeasibleBalanceWarning", "order", "partition", "separator", "__version__"]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'partkit' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
