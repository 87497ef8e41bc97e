"""Geometric bisection: inertial (principal axis) and recursive coordinate bisection.

Both need vertex coordinates (``graph.coords``, any dimension, usually 2D
or 3D). Inertial bisection projects the coordinates, centred at their
weighted mean, on the principal axis of inertia (the eigenvector of the
largest eigenvalue of the weighted covariance matrix) and cuts at the
weighted median; recursive coordinate bisection (RCB) cuts along the
coordinate axis of largest extent instead. Both split the weight at the
requested fraction (first constraint), so k need not be a power of two, and
both accept ``refine="fm"``. A graph without coordinates is refused with
:class:`partkit.InputError`.
"""

from __future__ import annotations

import numpy as np

from partkit.errors import InputError
from partkit.multilevel.recursive import check_refine, make_bisector, prefix_split, recursive_bisection


def partition(graph, k, *, imbalance=0.03, seed=0, refine=None):
    """Partition ``graph`` into ``k`` parts by recursive inertial bisection.

    Parameters
    ----------
    graph : partkit.Graph
        Must have coordinates.
    k : int
    imbalance : float
    seed : int
        Only used by FM refinement.
    refine : {None, "fm"}
        Refine every bisection with FM.

    Returns
    -------
    numpy.ndarray of int64
    """
    require_coordinates(graph, "inertial")
    return recursive_bisection(graph, k, make_bisector(inertial_split, check_refine(refine)),
                               imbalance=imbalance, seed=seed)


def rcb_partition(graph, k, *, imbalance=0.03, seed=0, refine=None):
    """Partition ``graph`` into ``k`` parts by recursive coordinate bisection.

    Parameters are those of :func:`partition`.
    """
    require_coordinates(graph, "rcb")
    return recursive_bisection(graph, k, make_bisector(coordinate_split, check_refine(refine)),
                               imbalance=imbalance, seed=seed)


def require_coordinates(graph, method):
    """Raise :class:`InputError` unless ``graph`` has finite coordinates."""
    if graph.coords is None:
        raise InputError(f"{graph.name}: method '{method}' needs vertex coordinates and the graph has none "
                         "(use a mesh or generated graph with coordinates, or a non-geometric method)")
    if not np.all(np.isfinite(graph.coords)):
        raise InputError(f"{graph.name}: method '{method}' needs finite vertex coordinates")


def principal_axis(coords, weights):
    """Unit principal axis of inertia of weighted points, and their weighted centre."""
    w = np.asarray(weights, dtype=np.float64)
    if w.sum() <= 0:
        w = np.ones_like(w)
    centre = (w @ coords) / w.sum()
    x = coords - centre
    cov = (x * w[:, None]).T @ x
    _, vecs = np.linalg.eigh(cov)
    return vecs[:, -1], centre


def inertial_split(graph, fraction0, seed):
    """Bisect at the weighted median of the projection on the principal axis."""
    axis, centre = principal_axis(graph.coords, graph.vwgt[:, 0])
    need = fraction0 * float(graph.vwgt[:, 0].sum())
    return prefix_split(graph, (graph.coords - centre) @ axis, need)


def coordinate_split(graph, fraction0, seed):
    """Bisect at the weighted median along the coordinate axis of largest extent."""
    extent = graph.coords.max(axis=0) - graph.coords.min(axis=0)
    need = fraction0 * float(graph.vwgt[:, 0].sum())
    return prefix_split(graph, graph.coords[:, int(np.argmax(extent))], need)
