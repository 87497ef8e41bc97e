"""Generated test and benchmark graphs with coordinates."""

from __future__ import annotations

import numpy as np

from partkit.graph import Graph


def grid2d(nx, ny):
    """The ``nx``-by-``ny`` 2D grid graph (5-point stencil) with coordinates.

    Vertices are numbered row by row; vertex ``i + nx * j`` sits at ``(i, j)``.
    """
    idx = np.arange(nx * ny).reshape(ny, nx)
    horizontal = np.stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()], axis=1)
    vertical = np.stack([idx[:-1, :].ravel(), idx[1:, :].ravel()], axis=1)
    xs, ys = np.meshgrid(np.arange(nx, dtype=float), np.arange(ny, dtype=float))
    coords = np.stack([xs.ravel(), ys.ravel()], axis=1)
    return Graph.from_edges(nx * ny, np.concatenate([horizontal, vertical]), coords=coords,
                            name=f"grid{nx}x{ny}")


def grid3d(nx, ny, nz):
    """The ``nx``-by-``ny``-by-``nz`` 3D grid graph (7-point stencil) with coordinates.

    Vertex ``i + nx * (j + ny * k)`` sits at ``(i, j, k)``.
    """
    idx = np.arange(nx * ny * nz).reshape(nz, ny, nx)
    pairs = [np.stack([idx[:, :, :-1].ravel(), idx[:, :, 1:].ravel()], axis=1),
             np.stack([idx[:, :-1, :].ravel(), idx[:, 1:, :].ravel()], axis=1),
             np.stack([idx[:-1, :, :].ravel(), idx[1:, :, :].ravel()], axis=1)]
    zs, ys, xs = np.meshgrid(np.arange(nz, dtype=float), np.arange(ny, dtype=float),
                             np.arange(nx, dtype=float), indexing="ij")
    coords = np.stack([xs.ravel(), ys.ravel(), zs.ravel()], axis=1)
    return Graph.from_edges(nx * ny * nz, np.concatenate(pairs), coords=coords,
                            name=f"grid{nx}x{ny}x{nz}")


def delaunay(n, seed=0):
    """The Delaunay triangulation of ``n`` uniform random points in the unit square.

    This is how the DIMACS10 ``delaunay_nXX`` graphs are made (``n = 2**XX``);
    ``n = 2**20`` gives about 3.1 million edges.
    """
    from scipy.spatial import Delaunay

    points = np.random.default_rng(seed).random((n, 2))
    simplices = Delaunay(points).simplices.astype(np.int64)
    edges = np.concatenate([simplices[:, [0, 1]], simplices[:, [1, 2]], simplices[:, [0, 2]]])
    edges.sort(axis=1)
    edges = np.unique(edges, axis=0)
    exponent = int(np.log2(n)) if n > 0 and n & (n - 1) == 0 else None
    name = f"delaunay_n{exponent}" if exponent is not None else f"delaunay_{n}"
    return Graph.from_edges(n, edges, coords=points, name=name)
