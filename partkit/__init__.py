"""partkit: graph partitioning and load balancing with Numba kernels."""

from partkit.api import partition
from partkit.errors import InfeasibleBalanceWarning, InputError
from partkit.graph import Graph

__version__ = "0.1.0"

__all__ = ["Graph", "InputError", "InfeasibleBalanceWarning", "partition", "__version__"]
