"""Partitioning methods, all with one signature.

Every method is a function ``partition(graph, k, *, imbalance, seed, **options)``
returning a 1-D int64 array of part ids in ``[0, k)``. :func:`partkit.partition`
dispatches to them by name, checks the arguments and the result, and warns
when the balance constraint is not met.
"""

from __future__ import annotations

import importlib

#: Method name -> (module, one-line description). Modules are imported lazily
#: so that ``partkit --help`` does not compile Numba kernels.
METHODS = {
    "multilevel": ("partkit.methods.multilevel", "multilevel k-way: matching/clustering coarsening, LP + k-way FM refinement"),
    "block": ("partkit.methods.block", "contiguous blocks of vertices in input order (baseline)"),
    "metis": ("partkit.methods.metis", "METIS 5 k-way through pymetis (needs the 'compare' extra)"),
    "fm": ("partkit.methods.fm", "Fiduccia-Mattheyses from multi-start grown bisections, recursive bisection"),
    "spectral": ("partkit.methods.spectral", "Fiedler vector (Lanczos or multilevel) split at the weighted median"),
    "inertial": ("partkit.methods.inertial", "principal axis of the coordinates, weighted median split"),
    "rcb": ("partkit.methods.rcb", "recursive coordinate bisection along the longest axis"),
    "kl": ("partkit.methods.kl", "Kernighan-Lin pair swaps, O(n^2) per pass, recursive bisection"),
    "labelprop": ("partkit.methods.labelprop", "size-constrained label propagation (PuLP style), direct k-way"),
}

DEFAULT_METHOD = "multilevel"

#: The methods that read the vertex coordinates (``graph.coords``).
COORDINATE_METHODS = ("inertial", "rcb")


def get_method(name):
    """The ``partition`` function of method ``name``.

    Raises
    ------
    partkit.InputError
        If no method has that name.
    """
    from partkit.errors import InputError

    if name not in METHODS:
        raise InputError(f"unknown method {name!r}; available: {', '.join(METHODS)}")
    return importlib.import_module(METHODS[name][0]).partition
