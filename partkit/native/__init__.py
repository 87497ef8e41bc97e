"""Numba kernels (``@njit(cache=True)``) on plain int64/float64 arrays.

The modules here hold the hot loops of partkit: matching, contraction,
clustering, bucket and heap priority queues, FM / KL passes, k-way
refinement, label propagation, the scheduling simulator and the
repartitioning gains. The algorithms' shapes and parameters live in
:mod:`partkit.methods` and :mod:`partkit.balance`.
"""
