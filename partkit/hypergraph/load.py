"""Any supported input file as a :class:`~partkit.hypergraph.Hypergraph` (what the CLI reads)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from partkit.hypergraph.hgr import read_hgr
from partkit.hypergraph.model import Hypergraph

#: CLI model names -> :meth:`Hypergraph.from_matrix` models.
MODELS = {"hypergraph": "columns", "hypergraph-rows": "rows"}


def read_hypergraph(path, *, model="columns", vertex_weights=None, ncommon=None) -> Hypergraph:
    """Read an hMETIS ``.hgr`` file, or a matrix / graph / mesh file as its hypergraph model.

    Parameters
    ----------
    path : str or Path
        ``.hgr`` (read as is), Matrix Market, METIS graph or mesh (a graph
        stands for its adjacency matrix).
    model : {"columns", "rows"}
        Column-net (row partition) or row-net (column partition) model of a matrix.
    vertex_weights : {None, "nnz", "unit"}
        ``None``: the file's weights for ``.hgr``, nonzeros per row/column
        otherwise.
    ncommon : int, optional
        Mesh only: nodes two elements share to be adjacent.
    """
    from partkit.io import file_kind, read_graph, read_matrix

    name = Path(path).name
    if name.lower().endswith(".hgr"):
        h = read_hgr(path)
        if vertex_weights == "unit":
            h = Hypergraph(h.n, h.net_ptr, h.pins, net_cost=h.net_cost, name=h.name)
        elif vertex_weights == "nnz":
            h = Hypergraph(h.n, h.net_ptr, h.pins, vwgt=np.diff(h.vertex_ptr), net_cost=h.net_cost, name=h.name)
        return h
    source = read_matrix(path) if file_kind(path) == "matrixmarket" else read_graph(path, ncommon=ncommon)
    return Hypergraph.from_matrix(source, model=model, vertex_weights=vertex_weights or "nnz", name=name)
