"""Numba kernels of the distributed stages: the per-rank loops over local vertices and edges."""
