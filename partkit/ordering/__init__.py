"""Fill-reducing orderings for sparse direct solvers.

- :func:`symbolic_cholesky`: nnz(L) and factor flops of an ordering.
"""

from partkit.ordering.symbolic import Fill, symbolic_cholesky

__all__ = ["Fill", "symbolic_cholesky"]
