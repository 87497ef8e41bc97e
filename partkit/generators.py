"""Generated test and benchmark graphs with coordinates."""

from __future__ import annotations

import numpy as np

from partkit.errors import InputError
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


def random_geometric(n, radius=None, seed=0):
    """The random geometric graph of ``n`` uniform random points in the unit square.

    Two points are joined when they lie within ``radius`` of each other;
    the default ``0.55 * sqrt(ln n / n)`` is that of the DIMACS10
    ``rgg_n_2_XX_s0`` graphs (``n = 2**XX``, average degree about
    ``0.95 ln n``). Points without a neighbour stay isolated vertices.

    Parameters
    ----------
    n : int
        Number of points, at least 2.
    radius : float, optional
        Connection radius.
    seed : int
        Seed of the random points; the same seed gives the same graph.

    Examples
    --------
    >>> g = random_geometric(4096, seed=1)
    >>> g.n, 7 < 2 * g.m / g.n < 9, g.coords.shape
    (4096, True, (4096, 2))
    """
    from scipy.spatial import cKDTree

    if n < 2:
        raise InputError(f"random_geometric: n must be at least 2, not {n}")
    radius = 0.55 * np.sqrt(np.log(n) / n) if radius is None else radius
    points = np.random.default_rng(seed).random((n, 2))
    edges = cKDTree(points).query_pairs(radius, output_type="ndarray").astype(np.int64)
    return Graph.from_edges(n, edges, coords=points, name=f"rgg_{n}")


def grid3d(nx, ny, nz):
    """The ``nx``-by-``ny``-by-``nz`` 3D grid graph (7-point stencil) with coordinates.

    Vertex ``i + nx * (j + ny * l)`` sits at ``(i, j, l)``; every vertex is
    joined to its neighbours along the three axes.

    Parameters
    ----------
    nx, ny, nz : int
        Grid points along each axis (at least 1 each).

    Returns
    -------
    Graph
        ``nx * ny * nz`` vertices, ``(nx-1) ny nz + nx (ny-1) nz + nx ny (nz-1)`` edges.

    Examples
    --------
    >>> g = grid3d(4, 3, 2)
    >>> g.n, g.m, g.coords.shape
    (24, 46, (24, 3))
    >>> int(g.degrees().max())
    5
    """
    if min(nx, ny, nz) < 1:
        raise InputError(f"grid3d: sizes must be at least 1, not {nx}x{ny}x{nz}")
    idx = np.arange(nx * ny * nz).reshape(nz, ny, nx)
    edges = [np.stack([a.ravel(), b.ravel()], axis=1) for a, b in
             ((idx[:, :, :-1], idx[:, :, 1:]), (idx[:, :-1, :], idx[:, 1:, :]), (idx[:-1], idx[1:]))]
    zs, ys, xs = np.meshgrid(np.arange(nz, dtype=float), np.arange(ny, dtype=float),
                             np.arange(nx, dtype=float), indexing="ij")
    coords = np.stack([xs.ravel(), ys.ravel(), zs.ravel()], axis=1)
    return Graph.from_edges(nx * ny * nz, np.concatenate(edges), coords=coords, name=f"grid{nx}x{ny}x{nz}")


def tet_mesh3d(n, seed=0):
    """The dual graph of a random 3D tetrahedral mesh, with about ``n`` vertices.

    The mesh is the Delaunay tetrahedralisation (:class:`scipy.spatial.Delaunay`)
    of ``round(n / 6.5)`` uniform random points in the unit cube, which has
    about 6.5 tetrahedra per point. Its *dual* graph is returned: one vertex
    per tetrahedron (at its centroid), one edge per pair of tetrahedra that
    share a triangular face, so no vertex has more than 4 neighbours. This is
    the graph an element-wise partition of a 3D FEM mesh cuts.

    Parameters
    ----------
    n : int
        Approximate number of tetrahedra (vertices of the graph), at least 30.
    seed : int
        Seed of the random points; the same seed gives the same graph.

    Examples
    --------
    >>> g = tet_mesh3d(5000, seed=1)
    >>> 4000 < g.n < 6000, int(g.degrees().max()), g.coords.shape[1]
    (True, 4, 3)
    """
    from scipy.spatial import Delaunay

    if n < 30:
        raise InputError(f"tet_mesh3d: n must be at least 30, not {n}")
    points = np.random.default_rng(seed).random((max(5, round(n / 6.5)), 3))
    mesh = Delaunay(points)
    neighbours = mesh.neighbors.astype(np.int64)
    tets = np.repeat(np.arange(len(neighbours), dtype=np.int64), 4)
    faces = np.stack([tets, neighbours.ravel()], axis=1)
    faces = faces[faces[:, 0] < faces[:, 1]]  # each interior face once; -1 marks the boundary
    centroids = points[mesh.simplices].mean(axis=1)
    return Graph.from_edges(len(neighbours), faces, coords=centroids, name=f"tet_mesh3d_{n}")


def rmat(scale, edge_factor=16, abcd=(0.57, 0.19, 0.19, 0.05), seed=0):
    """An undirected R-MAT graph with ``2**scale`` vertices (a power-law graph).

    ``edge_factor * 2**scale`` directed edges are drawn as in the Graph500
    generator: for each of the ``scale`` bits, an edge falls in the top-left,
    top-right, bottom-left or bottom-right quadrant of the adjacency matrix
    with probabilities ``a, b, c, d``. The vertex labels are then randomly
    permuted, the edges symmetrised, and self loops and duplicates removed
    (unit weights). Vertices that drew no edge stay isolated.

    Parameters
    ----------
    scale : int
        log2 of the number of vertices (1 to 30).
    edge_factor : int
        Directed edges drawn per vertex before duplicates are removed.
    abcd : tuple of 4 floats
        Quadrant probabilities; the usual ``(0.57, 0.19, 0.19, 0.05)``.
    seed : int
        Random seed; the same seed gives the same graph.

    Examples
    --------
    >>> g = rmat(10, seed=3)
    >>> g.n, 5000 < g.m < 16 * 1024
    (1024, True)
    >>> int(g.degrees().max()) > 20 * g.m / g.n  # heavy-tailed degrees
    True
    """
    n, rng = 2**scale, np.random.default_rng(seed)
    u, v = _rmat_entries(scale, edge_factor, abcd, rng, "rmat")
    label = rng.permutation(n)
    edges = np.sort(np.stack([label[u], label[v]], axis=1), axis=1)
    edges = np.unique(edges[edges[:, 0] != edges[:, 1]], axis=0)
    return Graph.from_edges(n, edges, name=f"rmat_s{scale}")


def rmat_matrix(scale, edge_factor=8, abcd=(0.57, 0.19, 0.19, 0.05), seed=0):
    """A directed R-MAT matrix: ``2**scale`` square, power-law rows and columns, unsymmetric.

    The entries are drawn as in :func:`rmat`; the rows and the columns are
    then permuted independently and duplicates merged (pattern of ones,
    diagonal entries kept). Rows and columns that drew no entry stay empty.

    Parameters
    ----------
    scale : int
        log2 of the order (1 to 30).
    edge_factor : int
        Entries drawn per row before duplicates are merged.
    abcd : tuple of 4 floats
        Quadrant probabilities.
    seed : int
        Random seed; the same seed gives the same matrix.

    Returns
    -------
    scipy.sparse.csr_matrix

    Examples
    --------
    >>> a = rmat_matrix(10, seed=3)
    >>> a.shape, 6000 < a.nnz <= 8 * 1024
    ((1024, 1024), True)
    >>> int(a.getnnz(axis=0).max()) > 20 * a.nnz / 1024  # heavy-tailed columns
    True
    """
    import scipy.sparse as sp

    n, rng = 2**scale, np.random.default_rng(seed)
    u, v = _rmat_entries(scale, edge_factor, abcd, rng, "rmat_matrix")
    a = sp.csr_matrix((np.ones(u.size), (rng.permutation(n)[u], rng.permutation(n)[v])), shape=(n, n))
    a.sum_duplicates()
    a.data[:] = 1.0
    return a


def _rmat_entries(scale, edge_factor, abcd, rng, what):
    """Row and column of ``edge_factor * 2**scale`` R-MAT entries (quadrant by quadrant, one bit a level)."""
    a, b, c, d = (float(x) for x in abcd)
    if not 1 <= scale <= 30 or edge_factor < 1 or min(a, b, c, d) < 0 or abs(a + b + c + d - 1) > 1e-9:
        raise InputError(f"{what}: need 1 <= scale <= 30, edge_factor >= 1 and probabilities summing to 1 "
                         f"(got scale={scale}, edge_factor={edge_factor}, abcd={abcd})")
    count = edge_factor * 2**scale
    u = np.zeros(count, dtype=np.int64)
    v = np.zeros(count, dtype=np.int64)
    for bit in range(scale):
        r = rng.random(count)
        u |= (r >= a + b).astype(np.int64) << bit  # bottom half: quadrants c, d
        v |= ((r >= a) & (r < a + b) | (r >= a + b + c)).astype(np.int64) << bit  # right half: b, d
    return u, v


def barabasi_albert(n, m=3, seed=0):
    """A Barabási-Albert preferential-attachment graph (``networkx.barabasi_albert_graph``).

    Each new vertex attaches to ``m`` existing vertices chosen with
    probability proportional to their degree, giving a power-law degree
    distribution; the graph is connected and has ``m (n - m)`` edges.

    Parameters
    ----------
    n : int
        Number of vertices (more than ``m``).
    m : int
        Edges added with every new vertex (at least 1).
    seed : int
        Random seed; the same seed gives the same graph.

    Examples
    --------
    >>> g = barabasi_albert(1000, 3, seed=2)
    >>> g.n, g.m
    (1000, 2991)
    """
    import networkx as nx

    if m < 1 or n <= m:
        raise InputError(f"barabasi_albert: need m >= 1 and n > m (got n={n}, m={m})")
    nx_graph = nx.barabasi_albert_graph(n, m, seed=seed)
    edges = np.array(nx_graph.edges(), dtype=np.int64).reshape(-1, 2)
    return Graph.from_edges(n, edges, name=f"barabasi_albert_{n}_m{m}")


def components(n, isolated=0.1, sizes=(2, 50), seed=0):
    """A graph of many small connected components and isolated vertices.

    ``round(isolated * n)`` vertices are isolated; the others form components
    with sizes drawn uniformly from ``sizes`` (inclusive), each a random
    tree, a path or a clique with equal probability. Vertex labels are
    randomly permuted, so a component is scattered over the numbering, as in
    a matrix with many independent blocks in no particular order.

    Parameters
    ----------
    n : int
        Number of vertices.
    isolated : float
        Share of isolated vertices, in [0, 1].
    sizes : (int, int)
        Smallest and largest component size (2 <= smallest <= largest).
    seed : int
        Random seed; the same seed gives the same graph.

    Examples
    --------
    >>> from scipy.sparse.csgraph import connected_components
    >>> g = components(2000, isolated=0.1, seed=4)
    >>> int((g.degrees() == 0).sum())
    200
    >>> count, labels = connected_components(g.to_scipy())
    >>> sizes = np.bincount(labels)
    >>> int((sizes == 1).sum()), int(sizes.max()) <= 50, count > 60
    (200, True, True)
    """
    low, high = sizes
    lone = round(isolated * n)
    if not 0 <= isolated <= 1 or not 2 <= low <= high or (n - lone) and n - lone < low:
        raise InputError(f"components: need 0 <= isolated <= 1, 2 <= sizes[0] <= sizes[1] and room for one "
                         f"component (got n={n}, isolated={isolated}, sizes={sizes})")
    rng = np.random.default_rng(seed)
    rest = n - lone
    drawn = rng.integers(low, high + 1, size=rest // low + 1)
    keep = np.searchsorted(np.cumsum(drawn), rest, side="right")
    size = drawn[:keep].copy()
    left = rest - int(size.sum())
    if left >= low:
        size = np.append(size, left)
    elif left:  # too few for a component of its own: grow one that has room, if any
        room = np.flatnonzero(size + left <= high)
        if room.size:
            size[room[0]] += left
        else:
            size = np.append(size, left)
    start = np.concatenate([[0], np.cumsum(size)[:-1]])
    shape = rng.integers(0, 3, size=size.size)  # 0 tree, 1 path, 2 clique
    member = np.repeat(np.arange(size.size), size)
    local = np.arange(rest) - start[member]
    chain = (local > 0) & (shape[member] < 2)
    child = np.flatnonzero(chain)
    parent = np.where(shape[member[child]] == 0,
                      start[member[child]] + (rng.random(child.size) * local[child]).astype(np.int64), child - 1)
    edges = [np.stack([parent, child], axis=1)]
    for s in np.unique(size[shape == 2]):
        first = start[(shape == 2) & (size == s)]
        i, j = np.triu_indices(s, 1)
        edges.append(np.stack([(first[:, None] + i).ravel(), (first[:, None] + j).ravel()], axis=1))
    label = rng.permutation(n)
    return Graph.from_edges(n, label[np.concatenate(edges)], name=f"components_{n}")
