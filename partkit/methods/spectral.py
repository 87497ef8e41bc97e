"""Spectral bisection: split at the weighted median of the Fiedler vector.

The Fiedler vector is the eigenvector of the second smallest eigenvalue of
the weighted graph Laplacian ``L = D - A``. Two solvers:

* direct: ARPACK Lanczos (:func:`scipy.sparse.linalg.eigsh`) in
  shift-invert mode around a small negative shift, so ``L - sigma I`` is
  positive definite and factorisable; used up to ``ML_THRESHOLD`` vertices;
* multilevel: coarsen by the multilevel engine's size-constrained label
  propagation clustering (:mod:`partkit.multilevel.kernels.label_propagation`), contract ``A_c = P^T A P``, solve the
  coarsest generalised problem ``L_c x = lambda M_c x`` (``M_c`` = number of
  fine vertices per coarse vertex, so that it is the Galerkin projection of
  the fine problem), interpolate ``x = P x_c`` level by level and refine on
  each level by Rayleigh quotient iteration with MINRES inner solves.

Disconnected graphs are handled component by component
(:func:`scipy.sparse.csgraph.connected_components`): whole components are
packed onto side 0 largest first while they fit; the first one that does
not fit is set aside, the smaller ones after it are packed while they fit,
and the set-aside component is cut by its own Fiedler vector to fill side
0 exactly. The split
point is the weighted median (first constraint) at the requested fraction,
taken from whichever end of the sorted vector gives the smaller cut.
k parts come from recursive bisection; ``refine="fm"`` refines every split
with FM.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import eigsh, minres

from partkit._random import derive, permutation
from partkit.multilevel.context import CoarseningContext
from partkit.multilevel.kernels.label_propagation import parallel_label_propagation_clustering
from partkit.multilevel.recursive import check_refine, make_bisector, prefix_split, recursive_bisection

#: Graphs with more vertices use the multilevel solver when ``multilevel`` is None.
ML_THRESHOLD = 50_000
#: The multilevel solver coarsens until at most this many vertices remain.
COARSEST = 1_000


def partition(graph, k, *, imbalance=0.03, seed=0, refine=None, multilevel=None):
    """Partition ``graph`` into ``k`` parts by recursive spectral bisection.

    Parameters
    ----------
    graph : partkit.Graph
    k : int
    imbalance : float
    seed : int
        Seeds the Lanczos start vector and the coarsening.
    refine : {None, "fm"}
        Refine every bisection with FM.
    multilevel : bool, optional
        Force (True) or forbid (False) the multilevel eigensolver; default:
        multilevel above ``ML_THRESHOLD`` vertices.

    Returns
    -------
    numpy.ndarray of int64
    """
    refine = check_refine(refine)

    def split(sub, fraction0, bseed):
        return spectral_split(sub, fraction0, bseed, multilevel=multilevel)

    return recursive_bisection(graph, k, make_bisector(split, refine), imbalance=imbalance, seed=seed)


def laplacian(adjacency):
    """The Laplacian ``D - A`` of a symmetric sparse adjacency matrix (CSR)."""
    a = sp.csr_matrix(adjacency, dtype=np.float64)
    return (sp.diags(np.asarray(a.sum(axis=1)).ravel()) - a).tocsr()


def fiedler_vector(graph, seed=0, multilevel=None):
    """The Fiedler vector of a connected ``graph`` (length n, unit norm).

    Parameters
    ----------
    graph : partkit.Graph
        Must be connected (see :func:`spectral_split` for the general case).
    seed : int
    multilevel : bool, optional
        As in :func:`partition`.
    """
    n = graph.n
    if n <= 2:
        return np.arange(n, dtype=np.float64) - (n - 1) / 2.0
    a = graph.to_scipy().astype(np.float64)
    if multilevel is None:
        multilevel = n > ML_THRESHOLD
    if multilevel and n > COARSEST:
        return _multilevel_fiedler(a, seed)
    return _lanczos_fiedler(laplacian(a), np.ones(n), seed)


def _lanczos_fiedler(lap, mass, seed):
    """Second eigenvector of ``lap x = lambda diag(mass) x`` by shift-invert Lanczos."""
    n = lap.shape[0]
    if n <= 200:
        _, vecs = scipy.linalg.eigh(lap.toarray(), np.diag(mass), subset_by_index=[0, 1])
        return vecs[:, 1]
    scale = max(float(lap.diagonal().max()), 1.0)
    m = None if np.all(mass == 1) else sp.diags(mass).tocsc()
    # three vectors: the Fiedler value is often (nearly) double on square-ish domains
    vals, vecs = eigsh(lap.tocsc(), k=3, M=m, sigma=-1e-3 * scale, which="LM",
                       v0=np.random.default_rng(derive(seed, "lanczos")).standard_normal(n), tol=1e-6)
    return vecs[:, np.argsort(vals)[1]]


def _rayleigh(lap, mass, x):
    return float(x @ (lap @ x)) / max(float(x @ (mass * x)), 1e-300)


def _multilevel_fiedler(a, seed):
    """Fiedler vector by coarsening, a coarse solve, interpolation and RQI refinement."""
    counts = np.ones(a.shape[0], dtype=np.int64)
    levels = []  # (adjacency, counts, prolongation to this level from the next)
    while a.shape[0] > COARSEST:
        labels = _cluster(a, counts, derive(seed, "cluster", len(levels)))
        nc = int(labels.max()) + 1
        if nc > 0.9 * a.shape[0]:
            break
        p = sp.csr_matrix((np.ones(a.shape[0]), (np.arange(a.shape[0]), labels)), shape=(a.shape[0], nc))
        levels.append((a, counts, p))
        ac = (p.T @ a @ p).tocsr()
        ac.setdiag(0)
        ac.eliminate_zeros()
        a, counts = ac, np.bincount(labels, weights=counts).astype(np.int64)
    x = _lanczos_fiedler(laplacian(a), counts.astype(np.float64), derive(seed, "coarse"))
    for fine_a, fine_counts, p in reversed(levels):
        x = _rqi(laplacian(fine_a), fine_counts.astype(np.float64), p @ x)
    return x


def _cluster(a, counts, seed):
    """Size-constrained label propagation clustering of a weighted adjacency matrix (the engine's,
    :func:`~partkit.multilevel.kernels.label_propagation.parallel_label_propagation_clustering`), numbered
    from 0. The clustering runs on the vertices numbered at random, so that its ties between equally
    connected clusters (the first listed wins) fall at random, not along the numbering of a mesh."""
    n = a.shape[0]
    shuffle = permutation(n, derive(seed, "numbering"))
    b = a[shuffle][:, shuffle].tocsr()
    b.sort_indices()
    vw = counts[shuffle].reshape(-1, 1).astype(np.int64)
    maxsize = np.array([max(int(vw.max()), int(np.ceil(4.0 * vw.sum() / n)))], dtype=np.int64)
    ctx = CoarseningContext()
    clusters = parallel_label_propagation_clustering(b.indptr.astype(np.int64), b.indices.astype(np.int64),
                                                     np.maximum(np.rint(b.data), 1).astype(np.int64), vw, maxsize,
                                                     permutation(n, seed), np.zeros(n, dtype=np.int64),
                                                     ctx.cluster_rounds, ctx.cluster_batches)
    labels = np.empty(n, dtype=np.int64)
    labels[shuffle] = clusters
    _, labels = np.unique(labels, return_inverse=True)
    return labels.astype(np.int64)


def _rqi(lap, mass, x, iterations=2, inner=30):
    """Rayleigh quotient iteration for ``lap x = lambda diag(mass) x``, deflating constants."""
    ones_mass = mass / np.sqrt(mass.sum())
    ones = np.ones_like(mass) / np.sqrt(mass.sum())
    m = sp.diags(mass)

    def project(y):
        y = y - ones * (ones_mass @ y)
        return y / np.sqrt(max(float(y @ (mass * y)), 1e-300))

    x = project(x)
    for _ in range(iterations):
        rho = _rayleigh(lap, mass, x)
        y, _ = minres(lap - rho * m, mass * x, maxiter=inner)
        if not np.all(np.isfinite(y)) or not np.any(y):
            break
        x = project(y)
    return x


def spectral_split(graph, fraction0, seed, multilevel=None):
    """A bisection putting ``fraction0`` of the weight on side 0, by Fiedler vectors per component."""
    n = graph.n
    w = graph.vwgt[:, 0]
    part = np.ones(n, dtype=np.int64)
    need = fraction0 * float(w.sum())
    ncomp, comp = connected_components(graph.to_scipy(), directed=False)
    if ncomp == 1:
        return prefix_split(graph, fiedler_vector(graph, seed, multilevel), need)
    cw = np.bincount(comp, weights=w, minlength=ncomp)
    order = np.argsort(-cw, kind="stable")
    take = np.zeros(ncomp, dtype=bool)
    fits = int(np.searchsorted(np.cumsum(cw[order]), need + 1e-9, side="right"))
    take[order[:fits]] = True
    need -= cw[order[:fits]].sum()
    if fits < ncomp:
        cut_comp = order[fits]
        rest = order[fits + 1:]
        more = int(np.searchsorted(np.cumsum(cw[rest]), need + 1e-9, side="right"))
        take[rest[:more]] = True
        need -= cw[rest[:more]].sum()
    part[take[comp]] = 0
    if fits < ncomp and need > 0:
        ids = np.flatnonzero(comp == cut_comp)
        sub = graph.subgraph(ids)
        part[ids] = prefix_split(sub, fiedler_vector(sub, seed, multilevel), need)
    return part
