"""The machine the parts run on: processing elements and the distances between them.

One description serves the partitioner (where parts are placed), the
mapping cost and the communication estimate. A machine has ``k``
processing elements (PEs) numbered ``0..k-1`` and a distance ``D(p, q)``
between every two of them (``D(p, p) = 0``); the cost of a placement is
``J = sum over cut edges {u, v} of w_uv * D(pe(u), pe(v))``.

Four kinds, written as on the command line:

* a hierarchy ``a1:a2:...:aL`` with distances ``d1:d2:...:dL`` (the KaHIP,
  VieM and SharedMap convention): ``a1`` PEs share the innermost level (the
  cores of a processor), ``a2`` of those groups the next (the processors of
  a node), and so on; ``k = a1 * a2 * ... * aL``. Two PEs whose first
  common level is ``i`` are ``d_i`` apart. PE ids count the innermost level
  fastest: PEs ``0..a1-1`` share a processor;
* a torus or mesh ``torus2d:4x8``, ``torus3d:4x4x4``, ``mesh2d:8x8``,
  ``mesh3d:4x4x4``, ``ring:16``: hop distances (with wrap-around on a torus),
  PE ids counting the first extent fastest;
* a fat tree ``fattree:a1xa2x...``: ``a1`` PEs under a leaf switch, ``a2``
  leaf switches under the next, ...; a message that climbs ``i`` levels
  takes ``2 i`` hops;
* a distance file: ``k`` lines of ``k`` numbers, symmetric, zero on the
  diagonal.

Examples
--------
>>> m = parse_machine(hierarchy="2:2", distance="1:10")
>>> m.k, m.distance.tolist()
(4, [[0, 1, 10, 10], [1, 0, 10, 10], [10, 10, 0, 1], [10, 10, 1, 0]])
>>> parse_machine(topology="torus2d:3x2").distance[0].tolist()
[0, 1, 1, 1, 2, 2]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from partkit import collectives
from partkit.errors import InputError

#: Largest machine whose distance matrix is built (``k * k`` entries).
MAX_PES = 1 << 14

#: Topology kinds accepted by :func:`parse_machine`'s ``topology``.
KINDS = ("torus2d", "torus3d", "mesh2d", "mesh3d", "ring", "fattree", "full")


@dataclass(frozen=True)
class Machine:
    """``k`` processing elements and the distance between every two.

    Attributes
    ----------
    name : str
        The description it was made from (``"4:8 / 1:10"``, ``"torus3d:4x4x4"``, a file name).
    distance : ndarray of int64 or float64, shape (k, k)
        Symmetric, zero on the diagonal, non-negative.
    network : partkit.collectives.Topology
        The interconnect as the collective model sees it (diameter, degree,
        bisection), for :func:`partkit.estimate.estimate`.
    hierarchy : tuple of int
        ``(a1, ..., aL)`` for a hierarchy or a fat tree, empty otherwise.
    level_distances : tuple
        ``(d1, ..., dL)`` for a hierarchy or a fat tree, empty otherwise.
    """

    name: str
    distance: np.ndarray = field(repr=False)
    network: collectives.Topology = field(repr=False)
    hierarchy: tuple = ()
    level_distances: tuple = ()

    @property
    def k(self) -> int:
        """Number of processing elements."""
        return int(self.distance.shape[0])


def hierarchy_distances(hierarchy, distances) -> np.ndarray:
    """The ``(k, k)`` distance matrix of a hierarchy (see the module notes).

    Examples
    --------
    >>> hierarchy_distances([2, 3], [1, 5])[0].tolist()
    [0, 1, 5, 5, 5, 5]
    """
    k = int(np.prod(hierarchy))
    pe = np.arange(k)
    result = np.zeros((k, k), dtype=np.int64)
    width = 1
    for a, d in zip(hierarchy, distances):  # the outer levels overwrite the inner ones
        width *= a
        group = pe // (width // a)
        result[group[:, None] != group[None, :]] = d
    return result


def grid_distances(dims, wrap) -> np.ndarray:
    """Hop distances between the points of a grid of extents ``dims`` (first extent fastest)."""
    k = int(np.prod(dims))
    pe = np.arange(k)
    result = np.zeros((k, k), dtype=np.int64)
    stride = 1
    for extent in dims:
        x = (pe // stride) % extent
        step = np.abs(x[:, None] - x[None, :])
        result += np.minimum(step, extent - step) if wrap else step
        stride *= extent
    return result


def parse_machine(*, hierarchy=None, distance=None, topology=None, distance_file=None, k=None) -> Machine:
    """A :class:`Machine` from the command line's strings; exactly one kind must be given.

    Parameters
    ----------
    hierarchy, distance : str or sequence of int, optional
        ``"4:8"`` and ``"1:10"`` (or ``[4, 8]``, ``[1, 10]``), of the same length.
    topology : str, optional
        ``torus2d:4x8``, ``torus3d:4x4x4``, ``mesh2d:..``, ``mesh3d:..``, ``ring:N``,
        ``fattree:a1xa2..``, ``full:N``; without extents (``torus3d``) they are chosen for ``k``.
    distance_file : str or Path, optional
        ``k`` lines of ``k`` numbers.
    k : int, optional
        The number of parts: when given, the machine must have exactly ``k`` PEs.

    Raises
    ------
    InputError
        For a malformed description, or one whose number of PEs is not ``k``.
    """
    given = [name for name, value in (("--hierarchy", hierarchy), ("--topology", topology),
                                      ("--distance-file", distance_file)) if value is not None]
    if len(given) != 1:
        raise InputError("describe the machine one way: --hierarchy A1:A2.. with --distance D1:D2.., "
                         f"--topology KIND:EXTENTS, or --distance-file FILE (got {', '.join(given) or 'none'})")
    if hierarchy is not None:
        machine = _hierarchy_machine(hierarchy, distance)
    else:
        if distance is not None:
            raise InputError("--distance goes with --hierarchy (use --distance-file for a distance matrix)")
        machine = _topology_machine(topology, k) if topology is not None else _file_machine(distance_file)
    if k is not None and machine.k != int(k):
        raise InputError(f"machine {machine.name} has {machine.k} processing elements, but k = {k}: "
                         "k must be the number of processing elements it describes")
    return machine


def _integers(text, what, minimum):
    if isinstance(text, str):
        parts = re.split(r"[:x,]", text.strip())
        try:
            values = tuple(int(p) for p in parts)
        except ValueError:
            raise InputError(f"{what} {text!r} is not a list of integers like 4:8") from None
    else:
        values = tuple(int(v) for v in text)
    if not values or min(values) < minimum:
        raise InputError(f"{what} {text!r} must be integers of at least {minimum}")
    return values


def _check_size(k, name):
    if k > MAX_PES:
        raise InputError(f"machine {name} has {k} processing elements; at most {MAX_PES} are supported")


def _hierarchy_machine(hierarchy, distance) -> Machine:
    levels = _integers(hierarchy, "hierarchy", 1)
    if distance is None:
        raise InputError("--hierarchy needs --distance (one distance per level, e.g. --hierarchy 4:8 --distance 1:10)")
    distances = _integers(distance, "distance", 0)
    if len(distances) != len(levels):
        raise InputError(f"hierarchy {hierarchy!r} has {len(levels)} levels but distance {distance!r} "
                         f"has {len(distances)}: give one distance per level")
    k = int(np.prod(levels))
    name = f"{':'.join(map(str, levels))} / {':'.join(map(str, distances))}"
    _check_size(k, name)
    return Machine(name, hierarchy_distances(levels, distances), collectives.fattree(k), levels, distances)


def _topology_machine(text, k) -> Machine:
    kind, _, extents = text.partition(":")
    kind = kind.strip().lower()
    if kind not in KINDS:
        raise InputError(f"unknown topology {text!r}; choose one of {', '.join(k + ':..' for k in KINDS)}")
    if extents:
        dims = _integers(extents, f"topology {text!r}: extents", 1)
    elif k is None:
        raise InputError(f"topology {text!r} needs its extents (e.g. {kind}:4x4{'x4' if '3d' in kind else ''})")
    elif kind in ("torus2d", "mesh2d", "torus3d", "mesh3d"):
        dims = collectives.torus_dims(k, 2 if "2d" in kind else 3)
    else:
        dims = (int(k),)
    ndims = {"torus2d": 2, "mesh2d": 2, "torus3d": 3, "mesh3d": 3, "ring": 1, "full": 1}.get(kind)
    if ndims is not None and len(dims) != ndims:
        raise InputError(f"topology {text!r} needs {ndims} extent{'s' if ndims > 1 else ''}, got {len(dims)}")
    size = int(np.prod(dims))
    name = f"{kind}:{'x'.join(map(str, dims))}"
    _check_size(size, name)
    if kind == "fattree":
        distances = tuple(2 * (i + 1) for i in range(len(dims)))
        return Machine(name, hierarchy_distances(dims, distances), collectives.fattree(size), dims, distances)
    if kind == "full":
        return Machine(name, 1 - np.eye(size, dtype=np.int64), collectives.fully_connected(size))
    wrap = kind != "mesh2d" and kind != "mesh3d"
    network = collectives.torus(dims) if wrap else _mesh_network(dims)
    return Machine(name, grid_distances(dims, wrap), network)


def _mesh_network(dims) -> collectives.Topology:
    """A mesh without wrap-around, as the collective model sees it."""
    size = int(np.prod(dims))
    longest = max(dims)
    degree = sum(min(2, d - 1) for d in dims)
    return collectives.Topology(f"mesh{len(dims)}d", size, sum(d - 1 for d in dims), degree,
                                size // longest if longest > 1 else 0, tuple(dims))


def _file_machine(path) -> Machine:
    path = Path(path)
    try:
        rows = [line.split() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]
    except OSError as exc:
        raise InputError(f"{path}: cannot read the distance file ({exc.strerror or exc})") from None
    k = len(rows)
    if k == 0:
        raise InputError(f"{path}: the distance file is empty")
    bad = next((i for i, row in enumerate(rows) if len(row) != k), None)
    if bad is not None:
        raise InputError(f"{path}: a distance file of {k} rows needs {k} numbers a row; row {bad + 1} has "
                         f"{len(rows[bad])}")
    _check_size(k, str(path))
    try:
        matrix = np.array(rows, dtype=np.float64)
    except ValueError:
        raise InputError(f"{path}: the distance file holds something that is not a number") from None
    if not np.all(np.isfinite(matrix)) or matrix.min() < 0:
        raise InputError(f"{path}: distances must be finite and non-negative")
    if np.any(np.diag(matrix) != 0):
        raise InputError(f"{path}: the distance of a processing element to itself (the diagonal) must be 0")
    if not np.array_equal(matrix, matrix.T):
        i, j = np.argwhere(matrix != matrix.T)[0]
        raise InputError(f"{path}: distances must be symmetric; row {i + 1} column {j + 1} differs from "
                         f"row {j + 1} column {i + 1}")
    if np.array_equal(matrix, np.round(matrix)):
        matrix = matrix.astype(np.int64)
    return Machine(path.name, matrix, collectives.fully_connected(k))
