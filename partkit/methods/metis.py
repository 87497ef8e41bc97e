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
        Target share of every part, passed to METIS (one constraint only:
        pymetis takes no more).
    ubvec : float array, shape (ncon,), optional
        Allowed imbalance per constraint; pymetis passes one ``ufactor``,
        so METIS gets the smallest.
    """
    try:
        import pymetis
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise InputError("method 'metis' needs pymetis: pip install 'partkit[compare]'") from exc
    if ubvec is not None:
        imbalance = float(np.min(ubvec)) - 1.0
    options = pymetis.Options(ufactor=max(1, int(round(1000 * imbalance))), seed=int(seed))
    if tpwgts is not None:
        if graph.ncon > 1:
            raise InputError("method 'metis': pymetis takes target part weights for one constraint only")
        tpwgts = np.ravel(tpwgts).tolist()
    vweights = graph.vwgt.ravel()  # row-major: ncon weights per vertex, as METIS expects
    adjacency = pymetis.CSRAdjacency(graph.xadj, graph.adjncy)
    _, part = pymetis.part_graph(int(k), adjacency, vweights=vweights, eweights=graph.adjwgt,
                                 tpwgts=tpwgts, recursive=recursive, options=options)
    return np.asarray(part, dtype=np.int64)
