"""Fill-reducing orderings for sparse direct solvers.

- :func:`order`: nested dissection finished by approximate minimum degree.
- :func:`separator`: a balanced vertex separator (multilevel, node FM).
- :func:`minimum_degree`: approximate minimum degree on its own.
- :func:`symbolic_cholesky`: nnz(L) and factor flops of an ordering.
"""

from partkit.ordering.minimum_degree import minimum_degree
from partkit.ordering.nested import order
from partkit.ordering.separator import separator
from partkit.ordering.symbolic import Fill, symbolic_cholesky

__all__ = ["Fill", "minimum_degree", "order", "separator", "symbolic_cholesky"]
