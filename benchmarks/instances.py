"""The benchmark inputs of ``benchmarks/compare.py``, as data: the TUNING set and the EVALUATION set.

* ``TUNING``: the 13 graphs the defaults of :mod:`partkit.multilevel.context`
  were chosen on (seed 0 of :mod:`partkit.generators`, and five files of
  ``data/``). Defaults may be tuned on these, and only on these; their
  results are not published.
* ``EVALUATION``: graphs the tuning never saw (other generators, other
  seeds and sizes, the files of ``data/`` that are not in the tuning set),
  in nine classes. The published figures (README "How good",
  docs/benchmarks.md) come from these only.

A graph is ``Instance(cls, name, source, tight)``: ``source`` is a file of
``data/`` (a path relative to the project) or ``(builder, arguments)``,
where the builder is a function of this module (most call
:mod:`partkit.generators`; the mesh, road, 3D and weighted generators that
partkit lacks are written here). Every builder is deterministic: the seed is
among its arguments. ``tight`` graphs are also run at ε = 0: one small
graph of each mesh-like class (fem2d, fem3d, delaunay, grid, road), none of
the others: KaHIP eco at ε = 0 spends minutes in its balancing cycle
refinement on a 20 000-vertex Barabási-Albert graph, and 54 s on
rgg_n16_s41 at k = 64 (0.5 s at ε = 0.03). ``skip`` names tools not run on the graph.
"""

from __future__ import annotations

import json
from collections import namedtuple
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

Instance = namedtuple("Instance", "cls name source tight skip", defaults=((),))

#: KaHIP eco takes minutes a call on power-law graphs (on a loaded 2-core machine: 95 s on rmat_s15_ef16_s33
#: and more than 4 minutes on ba_100k_m2_s31 at k = 64, against seconds for the others): it is not run on them.
SLOW_KAHIP = ("kahip",)


# ------------------------------------------------------------------ builders
def _graph(n, edges, name, coords=None, weights=None, vwgt=None):
    from partkit.graph import Graph

    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    edges = np.unique(np.sort(edges, axis=1), axis=0)
    return Graph.from_edges(n, edges, weights=weights, vwgt=vwgt, coords=coords, name=name)


def generator(function, *arguments, **keywords):
    """A graph of :mod:`partkit.generators`."""
    from partkit import generators

    return getattr(generators, function)(*arguments, **keywords)


def _inside(points, domain):
    x, y = points[:, 0], points[:, 1]
    if domain == "annulus":  # centre (0.5, 0.5), radii 0.2 and 0.5
        r = np.hypot(x - 0.5, y - 0.5)
        return (r >= 0.2) & (r <= 0.5)
    if domain == "lshape":  # the unit square without its upper-right quarter
        return ~((x > 0.5) & (y > 0.5))
    raise ValueError(domain)


def triangle_mesh(points, domain, graph, seed):
    """A triangle mesh of a non-square 2D domain: the Delaunay triangulation of ``points`` random points
    (rejection-sampled inside the domain, plus its corners or circles), the triangles whose centroid lies
    outside the domain dropped. ``graph``: "nodal" (mesh vertices joined by triangle sides) or "dual" (one
    vertex per triangle, an edge per shared side)."""
    from scipy.spatial import Delaunay

    rng = np.random.default_rng(seed)
    pts = np.empty((0, 2))
    while len(pts) < points:
        batch = rng.random((2 * points, 2))
        pts = np.concatenate([pts, batch[_inside(batch, domain)]])[:points]
    if domain == "annulus":
        angles = np.linspace(0, 2 * np.pi, 256, endpoint=False)
        rim = [0.5 + r * np.stack([np.cos(angles), np.sin(angles)], axis=1) for r in (0.2, 0.5 - 1e-9)]
        pts = np.concatenate([pts] + rim)
    mesh = Delaunay(pts)
    keep = _inside(pts[mesh.simplices].mean(axis=1), domain)
    tris = mesh.simplices[keep].astype(np.int64)
    name = f"tri_{domain}_{graph}_{points}_s{seed}"
    if graph == "nodal":
        used = np.unique(tris)
        number = np.full(len(pts), -1, dtype=np.int64)
        number[used] = np.arange(len(used))
        tris = number[tris]
        edges = np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [0, 2]]])
        return _graph(len(used), edges, name, coords=pts[used])
    number = np.full(len(mesh.simplices), -1, dtype=np.int64)
    number[keep] = np.arange(int(keep.sum()))
    neighbours = mesh.neighbors[keep].astype(np.int64)
    own = np.repeat(np.arange(len(tris)), 3)
    other = np.where(neighbours.ravel() >= 0, number[np.maximum(neighbours.ravel(), 0)], -1)
    pairs = np.stack([own, other], axis=1)
    pairs = pairs[(pairs[:, 1] >= 0) & (pairs[:, 0] < pairs[:, 1])]
    return _graph(len(tris), pairs, name, coords=pts[tris].mean(axis=1))


def quad_mesh_holes(nx, ny, holes, seed):
    """The nodal graph of a structured quad mesh of a plate with ``holes`` random circular holes, its nodes
    perturbed: nodes of a quad are all joined (sides and diagonals, as a bilinear element couples them)."""
    rng = np.random.default_rng(seed)
    centres, radii = rng.random((holes, 2)) * [nx, ny], rng.uniform(0.03, 0.08, holes) * min(nx, ny)
    cx, cy = np.meshgrid(np.arange(nx - 1) + 0.5, np.arange(ny - 1) + 0.5)
    cells = np.stack([cx.ravel(), cy.ravel()], axis=1)
    out = np.zeros(len(cells), dtype=bool)
    for c, r in zip(centres, radii):
        out |= np.hypot(*(cells - c).T) < r
    i, j = np.floor(cells[~out]).astype(np.int64).T
    corners = np.stack([i + nx * j, i + 1 + nx * j, i + 1 + nx * (j + 1), i + nx * (j + 1)], axis=1)
    pairs = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (1, 3)]
    edges = np.concatenate([corners[:, list(p)] for p in pairs])
    used = np.unique(corners)
    number = np.full(nx * ny, -1, dtype=np.int64)
    number[used] = np.arange(len(used))
    xs, ys = used % nx, used // nx
    coords = np.stack([xs, ys], axis=1) + rng.uniform(-0.3, 0.3, (len(used), 2))
    return _graph(len(used), number[edges], f"quad_holes_{nx}x{ny}_s{seed}", coords=coords)


def hex_mesh_nodal(nx, ny, nz, hole):
    """The nodal graph of a structured hex mesh of an ``nx x ny x nz`` box with a cylindrical hole of radius
    ``hole * min(nx, ny)`` along z: the 8 nodes of a hexahedron are all joined (27-point stencil)."""
    ci, cj, ck = np.meshgrid(np.arange(nx - 1), np.arange(ny - 1), np.arange(nz - 1), indexing="ij")
    ci, cj, ck = ci.ravel(), cj.ravel(), ck.ravel()
    keep = np.hypot(ci + 0.5 - nx / 2, cj + 0.5 - ny / 2) >= hole * min(nx, ny)
    ci, cj, ck = ci[keep], cj[keep], ck[keep]
    corners = np.stack([(ci + a) + nx * ((cj + b) + ny * (ck + c))
                        for a in (0, 1) for b in (0, 1) for c in (0, 1)], axis=1)
    edges = np.concatenate([corners[:, [p, q]] for p in range(8) for q in range(p + 1, 8)])
    used = np.unique(corners)
    number = np.full(nx * ny * nz, -1, dtype=np.int64)
    number[used] = np.arange(len(used))
    coords = np.stack([used % nx, (used // nx) % ny, used // (nx * ny)], axis=1).astype(float)
    return _graph(len(used), number[edges], f"hex_hole_{nx}x{ny}x{nz}", coords=coords)


def delaunay3d(n, seed):
    """The 3D Delaunay graph (edges of the tetrahedralisation) of ``n`` uniform random points in the unit cube."""
    from scipy.spatial import Delaunay

    points = np.random.default_rng(seed).random((n, 3))
    simplices = Delaunay(points).simplices.astype(np.int64)
    edges = np.concatenate([simplices[:, [p, q]] for p in range(4) for q in range(p + 1, 4)])
    return _graph(n, edges, f"delaunay3d_{n}_s{seed}", coords=points)


def road(n, extra, seed):
    """A road-like planar graph: the Gabriel graph of ``n`` random points, thinned to a random spanning tree
    plus a share ``extra`` of its other edges (average degree about ``2 + 2 extra``)."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import minimum_spanning_tree
    from scipy.spatial import Delaunay

    rng = np.random.default_rng(seed)
    points = rng.random((n, 2))
    tris = Delaunay(points).simplices.astype(np.int64)
    edges, obtuse = [], []
    for a, b, c in ((0, 1, 2), (1, 2, 0), (0, 2, 1)):  # side (a, b), opposite vertex c
        u, v, w = points[tris[:, a]], points[tris[:, b]], points[tris[:, c]]
        edges.append(np.sort(tris[:, [a, b]], axis=1))
        obtuse.append(np.einsum("ij,ij->i", u - w, v - w) < 0)  # w inside the circle on the side: not Gabriel
    edges, obtuse = np.concatenate(edges), np.concatenate(obtuse)
    bad = {tuple(e) for e in edges[obtuse].tolist()}
    edges = np.unique(edges, axis=0)
    edges = edges[[tuple(e) not in bad for e in edges.tolist()]]
    weights = rng.random(len(edges)) + 1e-3
    matrix = sp.coo_matrix((weights, (edges[:, 0], edges[:, 1])), shape=(n, n)).tocsr()
    tree = minimum_spanning_tree(matrix).tocoo()
    tree_edges = np.sort(np.stack([tree.row, tree.col], axis=1).astype(np.int64), axis=1)
    in_tree = np.zeros(len(edges), dtype=bool)
    order = np.lexsort((edges[:, 1], edges[:, 0]))
    keys = edges[order, 0] * n + edges[order, 1]
    in_tree[order[np.searchsorted(keys, tree_edges[:, 0] * n + tree_edges[:, 1])]] = True
    keep = in_tree | (rng.random(len(edges)) < extra)
    return _graph(n, edges[keep], f"road_gabriel_{n}_s{seed}", coords=points)


def grid_deleted(nx, ny, share, seed):
    """A planar ``nx x ny`` grid with a random ``share`` of its edges deleted (street-grid like)."""
    g = generator("grid2d", nx, ny)
    rows = np.repeat(np.arange(g.n), np.diff(g.xadj))
    edges = np.stack([rows, g.adjncy], axis=1)
    edges = edges[edges[:, 0] < edges[:, 1]]
    keep = np.random.default_rng(seed).random(len(edges)) >= share
    return _graph(g.n, edges[keep], f"grid_deleted_{nx}x{ny}_s{seed}", coords=g.coords)


def powerlaw_cluster(n, m, p, seed):
    """Holme-Kim power-law graph with clustering (``networkx.powerlaw_cluster_graph``)."""
    import networkx as nx

    edges = np.array(nx.powerlaw_cluster_graph(n, m, p, seed=seed).edges(), dtype=np.int64)
    return _graph(n, edges, f"holme_kim_{n}_m{m}_s{seed}")


def rgg3d(n, degree, seed):
    """A 3D random geometric graph: ``n`` random points in the unit cube, radius for an average degree of
    about ``degree``."""
    from scipy.spatial import cKDTree

    points = np.random.default_rng(seed).random((n, 3))
    radius = (3 * degree / (4 * np.pi * n)) ** (1 / 3)
    edges = cKDTree(points).query_pairs(radius, output_type="ndarray").astype(np.int64)
    return _graph(n, edges, f"rgg3d_{n}_s{seed}", coords=points)


def mesh_union(count, low, high, seed):
    """A matrix of ``count`` independent 2D Delaunay meshes of ``low`` to ``high`` vertices, randomly numbered."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(low, high + 1, count)
    parts, offset = [], 0
    for i, size in enumerate(sizes):
        g = generator("delaunay", int(size), seed=seed * 1000 + i)
        rows = np.repeat(np.arange(g.n), np.diff(g.xadj))
        parts.append(np.stack([rows, g.adjncy], axis=1) + offset)
        offset += g.n
    label = rng.permutation(offset)
    return _graph(offset, label[np.concatenate(parts)], f"mesh_union_{count}_s{seed}")


def weighted(base, vertex, edge, seed):
    """``base`` (a builder call) with random weights: vertex weights ``vertex`` ("lognormal": 1 + lognormal
    rounded, at most 100; "degree": the degree, at least 1; "two": 2 constraints, 1 and a 0/4 indicator of a
    random half-plane), edge weights ``edge`` ("uniform": 1 to 10, or None)."""
    g = build(base)
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(g.n), np.diff(g.xadj))
    edges = np.stack([rows, g.adjncy], axis=1)
    edges = edges[edges[:, 0] < edges[:, 1]]
    weights = rng.integers(1, 11, len(edges)) if edge == "uniform" else None
    if vertex == "lognormal":
        vwgt = np.minimum(1 + np.round(rng.lognormal(0.0, 1.0, g.n)), 100).astype(np.int64)
    elif vertex == "degree":
        vwgt = np.maximum(np.diff(g.xadj), 1).astype(np.int64)
    elif vertex == "two":
        normal = rng.normal(size=g.coords.shape[1])
        side = (g.coords - g.coords.mean(axis=0)) @ normal > 0
        vwgt = np.stack([np.ones(g.n, dtype=np.int64), 4 * side.astype(np.int64)], axis=1)
    else:
        raise ValueError(vertex)
    return _graph(g.n, edges, f"{g.name}_w{vertex}_{edge or 'unit'}", coords=g.coords, weights=weights,
                  vwgt=vwgt)


# --------------------------------------------------------------------- sets
def G(function, *arguments):
    """A :mod:`partkit.generators` call as a source."""
    return ("generator", [function, *arguments])


def B(builder, *arguments):
    """A call of a builder of this module as a source."""
    return (builder, list(arguments))


#: What the defaults were tuned on (``partkit/multilevel/context.py`` names them): seed 0, the files of data/.
TUNING = [
    Instance("delaunay2d", "delaunay_n15", G("delaunay", 2**15), True),
    Instance("delaunay2d", "delaunay_n17", G("delaunay", 2**17), True),
    Instance("delaunay2d", "delaunay_n20", G("delaunay", 2**20), True),
    Instance("tet3d", "tet3d_n17", G("tet_mesh3d", 2**17), True),
    Instance("grid3d", "grid3d_64", G("grid3d", 64, 64, 64), True),
    Instance("powerlaw", "ba_60k_m3", G("barabasi_albert", 60000, 3), True),
    Instance("powerlaw", "rmat_s16_ef8", G("rmat", 16, 8), True),
    Instance("components", "components_50k", G("components", 50000), True),
    Instance("shared", "4elt.graph", "data/4elt.graph", True),
    Instance("shared", "rgg_n_2_15_s0.graph", "data/rgg_n_2_15_s0.graph", True),
    Instance("shared", "power.graph", "data/power.graph", True),
    Instance("shared", "bcsstk13.mtx", "data/bcsstk13.mtx", True),
    Instance("shared", "jagmesh7.mtx", "data/jagmesh7.mtx", True),
]

#: Graphs the tuning never saw: other generators, seeds (all >= 1) and sizes, and data/'s other files.
EVALUATION = [
    # 2D FEM meshes: non-square domains, nodal and dual (element) graphs, a real one
    Instance("fem2d", "tri_annulus_dual", B("triangle_mesh", 16000, "annulus", "dual", 11), True),
    Instance("fem2d", "tri_lshape_nodal", B("triangle_mesh", 60000, "lshape", "nodal", 12), False),
    Instance("fem2d", "quad_holes", B("quad_mesh_holes", 400, 250, 12, 13), False),
    Instance("fem2d", "metis.mesh", "data/metis.mesh", False),
    # 3D FEM meshes: tetrahedral dual graphs (other seeds and sizes), a hex mesh with a hole (nodal)
    Instance("fem3d", "tet3d_n15_s5", G("tet_mesh3d", 2**15, 5), True),
    Instance("fem3d", "tet3d_300k_s7", G("tet_mesh3d", 300000, 7), False),
    Instance("fem3d", "hex_hole_nodal", B("hex_mesh_nodal", 50, 40, 20, 0.2), False),
    # Delaunay: 2D (other seeds and sizes) and 3D
    Instance("delaunay", "delaunay_n14_s1", G("delaunay", 2**14, 1), False),
    Instance("delaunay", "delaunay_n16_s2", G("delaunay", 2**16, 2), True),
    Instance("delaunay", "delaunay_n18_s3", G("delaunay", 2**18, 3), False),
    Instance("delaunay", "delaunay_n20_s4", G("delaunay", 2**20, 4), False),
    Instance("delaunay", "delaunay3d_n15_s5", B("delaunay3d", 2**15, 5), False),
    # grids of other shapes (2D and 3D, not cubes)
    Instance("grid", "grid2d_40x25", G("grid2d", 40, 25), True),
    Instance("grid", "grid2d_1000x250", G("grid2d", 1000, 250), False),
    Instance("grid", "grid3d_128x64x16", G("grid3d", 128, 64, 16), False),
    Instance("grid", "grid3d_200x20x20", G("grid3d", 200, 20, 20), False),
    # road-like planar graphs of average degree about 2.5-3
    Instance("road", "road_gabriel_n16", B("road", 2**16, 0.35, 21), True),
    Instance("road", "road_gabriel_n18", B("road", 2**18, 0.25, 22), False),
    Instance("road", "grid_deleted_300", B("grid_deleted", 300, 300, 0.3, 23), False),
    # power-law and social graphs
    Instance("powerlaw", "ba_100k_m2_s31", G("barabasi_albert", 100000, 2, 31), False, SLOW_KAHIP),
    Instance("powerlaw", "ba_20k_m8_s32", G("barabasi_albert", 20000, 8, 32), False, SLOW_KAHIP),
    Instance("powerlaw", "rmat_s15_ef16_s33", G("rmat", 15, 16, (0.57, 0.19, 0.19, 0.05), 33), False, SLOW_KAHIP),
    Instance("powerlaw", "rmat_s17_ef4_s34", G("rmat", 17, 4, (0.45, 0.22, 0.22, 0.11), 34), False, SLOW_KAHIP),
    Instance("powerlaw", "holme_kim_30k", B("powerlaw_cluster", 30000, 4, 0.5, 35), False, SLOW_KAHIP),
    # random geometric graphs (2D, 3D)
    Instance("rgg", "rgg_n16_s41", G("random_geometric", 2**16, None, 41), False),
    Instance("rgg", "rgg_n18_s42", G("random_geometric", 2**18, None, 42), False),
    Instance("rgg", "rgg3d_n15_s43", B("rgg3d", 2**15, 12, 43), False),
    # matrices of many components
    Instance("components", "components_100k_s51", G("components", 100000, 0.2, (2, 50), 51), False),
    Instance("components", "components_20k_s52", G("components", 20000, 0.0, (2, 200), 52), False),
    Instance("components", "mesh_union_40", B("mesh_union", 40, 50, 3000, 53), False),
    # weighted (vertex weights from a distribution, edge weights) and 2-constraint graphs
    Instance("weighted", "delaunay_n16_lognormal", B("weighted", G("delaunay", 2**16, 61), "lognormal", "uniform", 61),
             False),
    Instance("weighted", "tet3d_n16_degree", B("weighted", G("tet_mesh3d", 2**16, 62), "degree", None, 62), False),
    Instance("weighted", "rgg_n15_edges", B("weighted", G("random_geometric", 2**15, None, 63), "lognormal",
                                             "uniform", 63), False),
    Instance("weighted", "grid2d_256_2con", B("weighted", G("grid2d", 256, 256), "two", None, 64), False),
    Instance("weighted", "test.mgraph", "data/test.mgraph", False),
]

SETS = {"tuning": TUNING, "evaluation": EVALUATION}

#: Graphs of each set for the targets that name one instance (time vs METIS and the thread speedups at
#: k = 64, the cold run, the CLI run); the evaluation's are graphs of its own.
TARGET_GRAPHS = {
    "tuning": {"big": "delaunay_n20", "threads": ["delaunay_n20", "tet3d_n17"], "cold": "delaunay_n20:64",
               "cli": "4elt.graph:8"},
    "evaluation": {"big": "delaunay_n20_s4", "threads": ["delaunay_n20_s4", "tet3d_300k_s7"],
                   "cold": "delaunay_n20_s4:64", "cli": "tri_annulus_dual:8"},
}

#: ``--quick``: a few small graphs of the evaluation set (a clean clone runs it in about a minute).
QUICK = ["tri_annulus_dual", "metis.mesh", "delaunay_n14_s1", "grid2d_40x25", "rgg3d_n15_s43", "test.mgraph"]
QUICK_TARGETS = {"big": "delaunay_n14_s1", "threads": ["delaunay_n14_s1"], "cold": "grid2d_40x25:8",
                 "cli": "tri_annulus_dual:8"}


def by_name(name):
    """The instance called ``name`` in either set."""
    for instance in TUNING + EVALUATION:
        if instance.name == name:
            return instance
    raise KeyError(name)


_BUILT = {}


def build(source):
    """The graph of a source (a file of the project, or a builder call); built once per process."""
    key = json.dumps(source)
    if key not in _BUILT:
        if isinstance(source, str):
            from partkit.io import read_graph

            path = Path(source)
            graph = read_graph(str(path if path.is_absolute() else ROOT / path))
        else:
            function, arguments = source
            graph = generator(*arguments) if function == "generator" else globals()[function](*arguments)
        _BUILT[key] = graph
    return _BUILT[key]


def describe(instances):
    """``(class, name, n, m, ncon, tight)`` of every instance (builds them)."""
    out = []
    for instance in instances:
        g = build(instance.source)
        out.append((instance.cls, instance.name, g.n, g.m, g.ncon, instance.tight))
    return out


if __name__ == "__main__":
    import sys

    for row in describe(SETS[sys.argv[1] if len(sys.argv) > 1 else "evaluation"]):
        print("{:<11}{:<26}{:>9}{:>10}{:>3}{:>3}".format(*row))
