"""Numba kernels of dynamic load balancing: scheduling simulators, balls into bins, repartitioning moves."""
