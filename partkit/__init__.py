"""partkit: graph partitioning and load balancing with Numba kernels."""

from partkit.api import partition
from partkit.errors import InfeasibleBalanceWarning, InputError
from partkit.graph import Graph
from partkit.ordering import order, separator

__version__ = "0.1.0"

__all__ = ["Graph", "InputError", "InfeasibleBalanceWarning", "order", "partition", "separator", "__version__"]
