"""Numba kernels of the ordering stages, one module per stage."""
