"""Numba kernels shared by the readers (the integer tokenizer)."""
