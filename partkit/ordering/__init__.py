"""Fill-reducing orderings for sparse direct solvers.

- :func:`separator`: a balanced vertex separator (multilevel, node FM).
- :func:`symbolic_cholesky`: nnz(L) and factor flops of an ordering.
"""

from partkit.ordering.separator import separator
from partkit.ordering.symbolic import Fill, symbolic_cholesky

__all__ = ["Fill", "separator", "symbolic_cholesky"]
