"""METIS 5 k-way through pymetis, for comparison."""

import numpy as np

from partkit.errors import InputError


def partition(graph, k, *, imbalance=0.03, seed=0, recursive=False, tpwgts=None, ubvec=None):
    """Partition with METIS (``METIS_PartGraphKway``, or recursive bisection).

    Parameters
    ----------
    graph : partkit.Graph
    k : int
    imbalance : float
        Allowed imbalance, passed to METIS as ``ufactor = 1000 * imbalance``.
    seed : int
        METIS random seed.
    recursive : bool
        Use ``METIS_PartGraphRecursive`` instead of k-way.
    tpwgts : float array, shape (k,) or (k, 1), optional
        Target share of every part, passed to METIS.
    ubvec : float array, shape (1,), optional
        Allowed imbalance, passed as ``ufactor``.

    Raises
    ------
    InputError
        For a graph with several constraints: pymetis hands METIS one
        constraint (``ncon = 1``) whatever weights it is given, so they
        would be read as the weights of other vertices.
    """
    try:
        import pymetis
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise InputError("method 'metis' needs pymetis: pip install 'partkit[compare]'") from exc
    if graph.ncon > 1:
        raise InputError(f"method 'metis': pymetis gives METIS one constraint only and {graph.name} has "
                         f"{graph.ncon}; use method 'multilevel' for several constraints")
    if ubvec is not None:
        imbalance = float(ubvec[0]) - 1.0
    options = pymetis.Options(ufactor=max(1, int(round(1000 * imbalance))), seed=int(seed))
    if tpwgts is not None:
        tpwgts = np.ravel(tpwgts).tolist()
    vweights = graph.vwgt.ravel()
    adjacency = pymetis.CSRAdjacency(graph.xadj, graph.adjncy)
    _, part = pymetis.part_graph(int(k), adjacency, vweights=vweights, eweights=graph.adjwgt,
                                 tpwgts=tpwgts, recursive=recursive, options=options)
    return np.asarray(part, dtype=np.int64)
