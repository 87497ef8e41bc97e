"""Compiled kernels of the placement of parts on a machine."""
