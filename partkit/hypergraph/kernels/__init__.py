"""Numba kernels of the hypergraph partitioner, one module per stage (plus the shared heap)."""
