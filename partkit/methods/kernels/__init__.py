"""Numba kernels of the classic methods: Kernighan-Lin swaps and PuLP-style label propagation."""
