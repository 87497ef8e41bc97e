"""Coordinates for graphs that have none: a spectral layout for drawing."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, laplacian
from scipy.sparse.linalg import eigsh


def spectral_layout(graph, seed=0) -> np.ndarray:
    """2D coordinates from the second and third eigenvectors of the graph Laplacian.

    For meshes this recovers a picture close to the geometry. Each connected
    component is laid out on its own and the components are placed side by
    side. Uses shift-invert Lanczos (a sparse LU factorisation), so it is
    meant for drawing graphs up to a few hundred thousand vertices.

    Parameters
    ----------
    graph : partkit.Graph
    seed : int
        Seed of the Lanczos start vector.

    Returns
    -------
    numpy.ndarray, shape (n, 2)
    """
    adjacency = sp.csr_matrix((np.ones(graph.adjncy.size), graph.adjncy, graph.xadj),
                              shape=(graph.n, graph.n))
    ncomp, labels = connected_components(adjacency, directed=False)
    coords = np.zeros((graph.n, 2))
    offset = 0.0
    rng = np.random.default_rng(seed)
    order = np.argsort(-np.bincount(labels))
    for component in order:
        members = np.flatnonzero(labels == component)
        if members.size <= 3:
            local = np.column_stack([np.arange(members.size, dtype=float), np.zeros(members.size)])
        else:
            lap = laplacian(adjacency[members][:, members]).tocsc().astype(np.float64)
            shifted = lap + 1e-8 * sp.identity(members.size, format="csc")
            start = rng.standard_normal(members.size)
            _, vectors = eigsh(shifted, k=3, sigma=-1e-3, which="LM", v0=start)
            local = vectors[:, 1:3]
        local = local - local.min(axis=0)
        scale = local.max() if local.max() > 0 else 1.0
        local = local / scale * np.sqrt(members.size)
        coords[members] = local + [offset, 0.0]
        offset += local[:, 0].max() + 0.1 * np.sqrt(members.size) + 1.0
    return coords
