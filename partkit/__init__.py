"""partkit: graph partitioning and load balancing with Numba kernels."""

from partkit._numba_cache import ensure_numba_cache

ensure_numba_cache()  # before any kernel module is imported

from partkit.api import partition  # noqa: E402
from partkit.errors import InfeasibleBalanceWarning, InputError  # noqa: E402
from partkit.graph import Graph  # noqa: E402

__version__ = "0.1.0"

__all__ = ["Graph", "InputError", "InfeasibleBalanceWarning", "partition", "__version__"]
