"""Pictures of a partition: coloured vertices with cut edges, or a permuted spy plot."""

from __future__ import annotations

import numpy as np

from partkit.metrics import check_partition, part_count


def _figure(size):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=size, dpi=100)


def part_colors(k):
    """``k`` distinct RGBA colours: tab10, tab20 (dark shades first), then a spread of hsv."""
    import matplotlib

    if k <= 10:
        return matplotlib.colormaps["tab10"](np.arange(k))
    if k <= 20:
        order = np.concatenate([np.arange(0, 20, 2), np.arange(1, 20, 2)])
        return matplotlib.colormaps["tab20"](order[:k])
    return matplotlib.colormaps["hsv"](np.linspace(0, 1, k, endpoint=False))


def plot_partition(graph, part, path, *, k=None, coords=None, title=None, size=(8, 8)):
    """Draw the graph with vertices coloured by part and cut edges highlighted.

    Parameters
    ----------
    graph : partkit.Graph
    part : array_like of int
    path : str or path-like
        Output image (PNG by extension).
    k : int, optional
        Number of parts (default: largest id + 1).
    coords : array_like, shape (n, 2) or (n, 3), optional
        Vertex positions (default ``graph.coords``; the first two columns are used).
    title : str, optional
    size : (float, float)
        Figure size in inches (100 dpi).

    Raises
    ------
    partkit.InputError
        If the graph has no coordinates and none are given.
    """
    from matplotlib.collections import LineCollection

    from partkit.errors import InputError

    part = check_partition(graph, part, k)
    k = part_count(part, k)
    xy = graph.coords if coords is None else np.asarray(coords, dtype=float)
    if xy is None:
        raise InputError(f"{graph.name}: no coordinates to draw; give --coords or use the spy plot")
    xy = xy[:, :2]
    sources = graph.edge_sources()
    upper = sources < graph.adjncy
    u, v = sources[upper], graph.adjncy[upper]
    cut = part[u] != part[v]
    fig, ax = _figure(size)
    colors = part_colors(k)
    ax.add_collection(LineCollection(np.stack([xy[u[~cut]], xy[v[~cut]]], axis=1),
                                     colors=colors[part[u[~cut]]], linewidths=0.4, alpha=0.6))
    ax.add_collection(LineCollection(np.stack([xy[u[cut]], xy[v[cut]]], axis=1),
                                     colors="black", linewidths=1.0))
    marker = max(0.5, min(20.0, 4000.0 / max(graph.n, 1)))
    ax.scatter(xy[:, 0], xy[:, 1], s=marker, c=colors[part], linewidths=0)
    ax.set_aspect("equal")
    ax.autoscale()
    ax.set_axis_off()
    ax.set_title(title or f"{graph.name}: k={k}, cut={int(graph.adjwgt[np.flatnonzero(upper)[cut]].sum())}")
    fig.tight_layout()
    fig.savefig(path)
    import matplotlib.pyplot as plt

    plt.close(fig)


def spy_partition(graph, part, path, *, k=None, title=None, size=(8, 8)):
    """Spy plot of the adjacency matrix with rows and columns ordered by part.

    Nonzeros inside a diagonal block (both ends in one part) take the part's
    colour, the others (cut edges) are black; part boundaries are drawn as lines.
    """
    part = check_partition(graph, part, k)
    k = part_count(part, k)
    order = np.argsort(part, kind="stable")
    position = np.empty(graph.n, dtype=np.int64)
    position[order] = np.arange(graph.n)
    sources = graph.edge_sources()
    rows, cols = position[sources], position[graph.adjncy]
    inside = part[sources] == part[graph.adjncy]
    fig, ax = _figure(size)
    colors = part_colors(k)
    marker = max(0.05, min(4.0, 2e5 / max(graph.adjncy.size, 1)))
    ax.scatter(cols[inside], rows[inside], s=marker, c=colors[part[sources[inside]]], marker="s",
               linewidths=0)
    ax.scatter(cols[~inside], rows[~inside], s=marker, c="black", marker="s", linewidths=0)
    boundaries = np.cumsum(np.bincount(part, minlength=k))[:-1] - 0.5
    for b in boundaries:
        ax.axhline(b, color="grey", linewidth=0.6)
        ax.axvline(b, color="grey", linewidth=0.6)
    ax.set_xlim(-0.5, graph.n - 0.5)
    ax.set_ylim(graph.n - 0.5, -0.5)
    ax.set_aspect("equal")
    ax.set_title(title or f"{graph.name}: matrix permuted by part (k={k}), cut entries in black")
    fig.tight_layout()
    fig.savefig(path)
    import matplotlib.pyplot as plt

    plt.close(fig)
