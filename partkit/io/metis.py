"""METIS graph (``.graph``) and mesh (``.mesh``) files.

The body is tokenized in two compiled passes straight into the graph's
arrays (no per-line Python objects), so reading peaks at about twice the
graph's own memory plus the file's bytes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from partkit._jit import njit
from partkit.errors import InputError
from partkit.graph import INDEX_DTYPE, MAX_ADJACENCY_ENTRIES, WEIGHT_DTYPE, Graph
from partkit.io import _text
from partkit.io._output import write_text
from partkit.io._source import base_name, read_source, token_budget

GRAPH_SUFFIXES = (".graph", ".mgraph", ".metis", ".chaco")
MESH_SUFFIXES = (".mesh",)
PERCENT = 37

#: METIS 4 mesh header ``etype`` -> (cell type, nodes per element).
METIS4_ETYPES = {1: ("triangle", 3), 2: ("tetra", 4), 3: ("hexahedron", 8), 4: ("quad", 4)}
#: Cell type of an element by its node count when the header gives no type (4: see :func:`read_metis_mesh`).
ELEMENT_BY_SIZE = {2: "line", 3: "triangle", 4: "tetra", 5: "pyramid", 6: "wedge", 8: "hexahedron"}
#: Nodes an element may have (a 27-node hexahedron is the largest common one).
MAX_ELEMENT_NODES = 64

# Error codes of _fill_graph beyond those of partkit.io._text.
_NEGATIVE_LEAD, _OUT_OF_RANGE, _SELF_LOOP, _NEGATIVE_WEIGHT = 10, 11, 12, 13


# ------------------------------------------------------------------ graph
def read_metis_graph(path) -> Graph:
    """Read a METIS graph file.

    The header is ``n m [fmt [ncon]]``: ``fmt`` is up to three digits, the
    hundreds for vertex sizes, the tens for vertex weights (``ncon`` per
    vertex, default 1) and the units for edge weights. Lines starting with
    ``%`` are comments; an empty line is a vertex without neighbours.
    Vertex sizes (communication sizes) are kept in ``graph.vsize``.

    Raises
    ------
    InputError
        On a malformed header, sizes the file cannot hold, a wrong number of
        vertex lines or edges, a malformed number, an out-of-range neighbour,
        a self loop, a negative weight, weights whose sum leaves int64 or an
        asymmetric adjacency.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "triangle.graph"
    >>> _ = path.write_text("3 3\\n2 3\\n1 3\\n1 2\\n")
    >>> read_metis_graph(path)
    Graph(name='triangle.graph', n=3, m=3, ncon=1)
    """
    path = Path(path)
    return parse_metis_graph(path, read_source(path, budget=lambda head: graph_budget(path, head)))


def graph_budget(path, head):
    """Largest plausible content size, from the header in the first bytes ``head``."""
    number, text, _ = _first_data_line(path, head)
    n, m, has_size, has_vwgt, has_ewgt, ncon = _parse_header(path, number, text)
    lead = int(has_size) + (ncon if has_vwgt else 0)
    return token_budget(n * (lead + 1) + 2 * m * (1 + has_ewgt))


def parse_metis_graph(path, data) -> Graph:
    """The graph in ``data`` (the content of ``path``); see :func:`read_metis_graph`."""
    number, text, offset = _first_data_line(path, data)
    n, m, has_size, has_vwgt, has_ewgt, ncon = _parse_header(path, number, text)
    lead = int(has_size) + (ncon if has_vwgt else 0)
    per_neighbour = 2 if has_ewgt else 1
    body = len(data) - offset
    if n > body + 1:  # every vertex takes a line; the arrays are sized by what is found, not by m
        raise InputError(f"{path}: line {number}: the header declares {n} vertices, more than the "
                         f"{body} bytes after it can hold")
    buf = np.frombuffer(data, dtype=np.uint8)
    counts, found, extra = _text.line_tokens(buf, offset, n, False, PERCENT, -1)
    line_of = lambda vertex: number + 1 + _text.data_line_offset(buf, offset, vertex, False, PERCENT, -1)  # noqa: E731
    if found != n:
        where = f"line {number + 1 + extra}: " if extra >= 0 else ""
        raise InputError(f"{path}: {where}the header declares {n} vertices, found {found} vertex lines")
    bad = np.flatnonzero((counts < lead) | ((counts - lead) % per_neighbour != 0))
    if bad.size:
        raise InputError(f"{path}: line {line_of(bad[0])}: expected {lead} vertex field(s) then "
                         f"{'(neighbour, weight) pairs' if has_ewgt else 'neighbours'}, "
                         f"found {counts[bad[0]]} tokens")
    degrees = (counts - lead) // per_neighbour
    del counts
    entries = int(degrees.sum())
    xadj = np.zeros(n + 1, dtype=INDEX_DTYPE)
    np.cumsum(degrees, out=xadj[1:])
    del degrees
    adjncy = np.empty(entries, dtype=INDEX_DTYPE)
    adjwgt = np.empty(entries if has_ewgt else 0, dtype=WEIGHT_DTYPE)
    lead_values = np.empty((n, lead), dtype=WEIGHT_DTYPE)
    code, vertex, token, value = fill_graph(buf, offset, has_ewgt, xadj, adjncy, adjwgt, lead_values, n, 0)
    if code != _text.OK:
        line = line_of(vertex)
        raise InputError(fill_problem(path, line, _text.line_tokens_of(data, line), code, token, value, has_size, n))
    if entries != 2 * m:
        raise InputError(f"{path}: the header declares {m} edges, the adjacency lists hold "
                         f"{entries} entries ({entries / 2:g} edges)")
    del data, buf
    graph = Graph(xadj, adjncy, vwgt=lead_values[:, int(has_size):] if has_vwgt else None,
                  adjwgt=adjwgt if has_ewgt else None, vsize=lead_values[:, 0] if has_size else None,
                  name=str(path))  # validation errors name the path
    graph.name = base_name(path)
    return graph


def fill_problem(path, line, tokens, code, token, value, has_size, n):
    """The message of an error of :func:`fill_graph` on line ``line`` of ``path``, whose tokens are ``tokens``."""
    where = f"{path}: line {line}:"
    if code in (_text.BAD_TOKEN, _text.OVERFLOW):
        reason = "does not fit in 64 bits" if code == _text.OVERFLOW else "is not an integer"
        return f"{where} entry {tokens[token]!r} {reason}"
    messages = {_NEGATIVE_LEAD: f"negative vertex {'size or ' if has_size else ''}weight",
                _OUT_OF_RANGE: f"neighbour {value} is outside 1..{n}",
                _SELF_LOOP: f"self loop (vertex {value} lists itself)",
                _NEGATIVE_WEIGHT: "negative edge weight"}
    return f"{where} {messages[code]}"


@njit(cache=True)
def fill_graph(buf, start, has_ewgt, xadj, adjncy, adjwgt, lead_values, n, first):
    """Parse the vertex lines from byte ``start`` into ``lead_values``, ``adjncy`` and ``adjwgt`` (sized by
    ``xadj``), skipping ``%`` comment lines.

    The lines are those of the vertices ``first + 1 ..`` of a graph of
    ``n`` vertices (the whole graph: ``first`` 0, ``xadj.size - 1 == n``;
    a rank's block in :mod:`partkit.distributed.io`). Returns ``(code,
    vertex, token, value)``: the first error, the vertex line it is on
    (counted from ``start``), the token's index in that line and the
    offending value.
    """
    rows = xadj.size - 1
    lead = lead_values.shape[1]
    v = 0
    i = start
    while v < rows:
        end = _text._line_end(buf, i)
        if _text._is_data_line(buf, i, end, False, PERCENT, -1):
            p = _text._skip_blanks(buf, i, end)
            token = 0
            e = xadj[v]
            while p < end:
                q = _text._token_end(buf, p, end)
                value, code = _text.parse_int(buf, p, q)
                if code != _text.OK:
                    return code, v, token, 0
                if token < lead:
                    if value < 0:
                        return _NEGATIVE_LEAD, v, token, value
                    lead_values[v, token] = value
                elif not has_ewgt or (token - lead) % 2 == 0:
                    if value < 1 or value > n:
                        return _OUT_OF_RANGE, v, token, value
                    if value == first + v + 1:
                        return _SELF_LOOP, v, token, value
                    adjncy[e] = value - 1
                else:
                    if value < 0:
                        return _NEGATIVE_WEIGHT, v, token, value
                    adjwgt[e] = value
                    e += 1
                if token >= lead and not has_ewgt:
                    e += 1
                token += 1
                p = _text._skip_blanks(buf, q, end)
            v += 1
        i = end + 1
    return _text.OK, 0, 0, 0


def _first_data_line(path, data):
    """``(number, text, next_offset)`` of the first line that is neither blank nor a ``%`` comment."""
    start, number = 0, 1
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        text = bytes(data[start:end]).decode("ascii")
        stripped = text.strip(" \t\r")
        if stripped and not stripped.startswith("%"):
            return number, text, end + 1
        start, number = end + 1, number + 1
    raise InputError(f"{path}: empty file")


def _strict_int(path, number, token, what):
    value, code = _text.parse_int(np.frombuffer(token.encode(), dtype=np.uint8), 0, len(token))
    if code != _text.OK:
        raise InputError(f"{path}: line {number}: {what} {token!r} is not an integer")
    return value


def _parse_header(path, number, header):
    tokens = _text.split_line(header)
    if not 2 <= len(tokens) <= 4:
        raise InputError(f"{path}: line {number}: header must be 'n m [fmt [ncon]]', found {len(tokens)} tokens")
    try:
        n, m = (_strict_int(path, number, token, "header") for token in tokens[:2])
    except InputError:
        raise InputError(f"{path}: line {number}: header 'n m' must be integers, "
                         f"got {header.strip()!r}") from None
    if n < 0 or m < 0:
        raise InputError(f"{path}: line {number}: negative vertex or edge count")
    if 2 * m > MAX_ADJACENCY_ENTRIES:
        raise InputError(f"{path}: line {number}: {m} edges exceed the supported maximum "
                         f"of {MAX_ADJACENCY_ENTRIES // 2} (64-bit edge counts are not supported)")
    if n > MAX_ADJACENCY_ENTRIES:
        raise InputError(f"{path}: line {number}: {n} vertices exceed the supported maximum "
                         f"of {MAX_ADJACENCY_ENTRIES} (64-bit vertex counts are not supported)")
    fmt = tokens[2] if len(tokens) > 2 else "0"
    if len(fmt) > 3 or any(c not in "01" for c in fmt):
        raise InputError(f"{path}: line {number}: fmt {fmt!r} must be up to three 0/1 digits (e.g. 1, 10, 11, 100)")
    fmt = fmt.zfill(3)
    has_size, has_vwgt, has_ewgt = fmt[0] == "1", fmt[1] == "1", fmt[2] == "1"
    ncon = 1
    if len(tokens) == 4:
        ncon = _strict_int(path, number, tokens[3], "ncon")
        if not 1 <= ncon <= 1000:
            raise InputError(f"{path}: line {number}: ncon must be between 1 and 1000, got {ncon}")
        if not has_vwgt:
            raise InputError(f"{path}: line {number}: ncon={ncon} given but fmt {fmt} has no vertex weights")
    return n, m, has_size, has_vwgt, has_ewgt, ncon


def write_metis_graph(path, graph) -> None:
    """Write ``graph`` in METIS graph format (with weights only where they are not all one)."""
    has_vwgt = graph.ncon > 1 or bool(np.any(graph.vwgt != 1))
    has_ewgt = bool(np.any(graph.adjwgt != 1))
    fmt = f"{int(has_vwgt)}{int(has_ewgt)}"
    header = f"{graph.n} {graph.m}" + (f" {fmt}" if fmt != "00" else "") + (f" {graph.ncon}" if graph.ncon > 1 else "")
    lines = [header]
    for v in range(graph.n):
        start, end = graph.xadj[v], graph.xadj[v + 1]
        fields = graph.vwgt[v].tolist() if has_vwgt else []
        neighbours = (graph.adjncy[start:end] + 1).tolist()
        if has_ewgt:
            for u, w in zip(neighbours, graph.adjwgt[start:end].tolist()):
                fields.extend((u, w))
        else:
            fields.extend(neighbours)
        lines.append(" ".join(map(str, fields)))
    write_text(path, "\n".join(lines) + "\n")


# ------------------------------------------------------------------- mesh
def read_mesh(path, *, ncommon=None, node_coords=None, graph="dual") -> Graph:
    """Read a METIS mesh file and return its dual (or nodal) graph.

    See :func:`read_metis_mesh` for the format and the element types, and
    :meth:`partkit.io.meshes.Mesh.dual_graph` for the adjacency.

    Parameters
    ----------
    path : str or path-like
    ncommon : int, optional
        METIS's rule: two elements are adjacent when they share at least
        ``ncommon`` nodes. By default they are adjacent when they share a
        facet of their type (an edge in 2-D, a face in 3-D).
    node_coords : str or path-like or array, optional
        Node coordinates (a file for :func:`partkit.io.read_coordinates` or an
        array, row ``i`` for node ``i + 1``); element coordinates are then the
        centroids of their nodes.
    graph : {"dual", "nodal"}
        The dual graph (a vertex per element) or the nodal graph (a vertex
        per node, edges along element edges).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "two.mesh"
    >>> _ = path.write_text("2\\n1 2 3\\n2 3 4\\n")
    >>> read_mesh(path).m
    1
    """
    return read_metis_mesh(path, node_coords=node_coords, untyped=ncommon is not None).graph(graph, ncommon)


def read_metis_mesh(path, *, node_coords=None, untyped=False):
    """Read a METIS mesh file as a :class:`partkit.io.meshes.Mesh`.

    The first line is ``ne``, ``ne ncon`` (METIS 5: each element line starts
    with ``ncon`` element weights) or ``ne etype`` (METIS 4, ``etype`` 1
    triangles, 2 tetrahedra, 3 hexahedra, 4 quadrilaterals). The second
    field is read as METIS 4's ``etype`` when it is 1 to 4 and every element
    line has exactly that type's node count, else as ``ncon``. Each element
    line lists (after its weights) the 1-based nodes of one element, a node
    at most once. Node ids are kept: the mesh has a node for every id up to
    the largest, as mpmetis numbers them (an id in no element is a node
    without a part). Without ``etype`` the type follows the node count:
    3 triangle, 5 pyramid, 6 wedge, 8 hexahedron, 10 a second-order
    tetrahedron (``tetra10``, when the node coordinates are 3-D; else
    untyped), and 4 a quadrilateral when the mesh also has triangles, the
    coordinates are 2-D, or no two 4-node elements share three nodes (as
    tetrahedra sharing a face would), else a tetrahedron. Mixed meshes may
    list elements of several types.

    Parameters
    ----------
    path : str or path-like
    node_coords : str or path-like or array, optional
        See :func:`read_mesh`.
    untyped : bool
        Accept element sizes without a known type (for a dual graph by ``ncommon``).

    Raises
    ------
    InputError
        On a malformed header or element line (one without a node after its
        weights), a negative weight, an element whose size has no type
        (unless ``untyped``) or that repeats a node.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "quads.mesh"
    >>> _ = path.write_text("2\\n1 2 5 4\\n2 3 6 5\\n")
    >>> read_metis_mesh(path)
    Mesh(name='quads.mesh', elements=2 (quad), nodes=6)
    >>> _ = path.write_text("2 1\\n5 1 2 5 4\\n1 2 3 6 5\\n")  # METIS 5: a weight, then the nodes
    >>> read_metis_mesh(path).weights.ravel().tolist()
    [5, 1]
    """
    from partkit.io.meshes import TYPE_NAMES, Mesh

    path = Path(path)
    data = read_source(path, budget=lambda head: token_budget(
        MAX_ELEMENT_NODES * _mesh_header(path, head)[1]))
    number, ne, second, offset = _mesh_header(path, data)
    buf = np.frombuffer(data, dtype=np.uint8)
    if ne > len(data) - offset + 1:
        raise InputError(f"{path}: line {number}: the header declares {ne} elements, more than the "
                         f"{len(data) - offset} bytes after it can hold")
    counts, found, _ = _text.line_tokens(buf, offset, ne, True, PERCENT, -1)
    if found != ne:
        raise InputError(f"{path}: the header declares {ne} elements, found {found} element lines")
    line_of = lambda element: number + 1 + _text.data_line_offset(buf, offset, element, True, PERCENT, -1)  # noqa: E731
    etype = second if second in METIS4_ETYPES and np.all(counts == METIS4_ETYPES[second][1]) else None
    ncon = 0 if second is None or etype is not None else second
    short = np.flatnonzero(counts <= ncon)
    if short.size:
        raise InputError(f"{path}: line {line_of(int(short[0]))}: the header's second field {ncon} is the number "
                         f"of element weights (METIS 5; as METIS 4's etype the lines would all have its node "
                         f"count), and this line has {counts[short[0]]} tokens: no node after them")
    sizes = counts - ncon
    if ne and sizes.max() > MAX_ELEMENT_NODES:
        big = int(np.argmax(sizes))
        raise InputError(f"{path}: line {line_of(big)}: an element of {sizes[big]} nodes "
                         f"(at most {MAX_ELEMENT_NODES})")
    starts = np.concatenate([[0], np.cumsum(counts)])
    element_at = lambda token: int(np.searchsorted(starts, token, side="right")) - 1  # noqa: E731
    tokens, bad, code = _text.parse_int_tokens(buf, offset, int(starts[-1]), True, PERCENT, -1)
    if bad >= 0:
        element = element_at(bad)
        text = _text.line_tokens_of(data, line_of(element))[bad - starts[element]]
        reason = "does not fit in 64 bits" if code == _text.OVERFLOW else "is not an integer"
        what = "weight" if bad - starts[element] < ncon else "node"
        raise InputError(f"{path}: line {line_of(element)}: {what} {text!r} {reason}")
    is_weight = np.zeros(tokens.size, dtype=bool)
    if ncon:
        is_weight[(starts[:-1, None] + np.arange(ncon)).ravel()] = True
    weights = tokens[is_weight].reshape(ne, ncon) if ncon else None
    if ncon and weights.size and weights.min() < 0:
        raise InputError(f"{path}: line {line_of(int(np.argmin(weights.min(axis=1))))}: negative element weight")
    nodes = tokens[~is_weight]
    del tokens, is_weight
    starts = np.concatenate([[0], np.cumsum(sizes)])
    element_at = lambda token: int(np.searchsorted(starts, token, side="right")) - 1  # noqa: E731
    if nodes.size and nodes.min() < 1:
        raise InputError(f"{path}: line {line_of(element_at(int(np.argmin(nodes))))}: node ids are "
                         f"1-based, found {nodes.min()}")
    element_of = np.repeat(np.arange(ne), sizes)
    order = np.lexsort((nodes, element_of))
    repeated = np.flatnonzero((nodes[order][1:] == nodes[order][:-1]) & (element_of[order][1:] == element_of[order][:-1]))
    if repeated.size:
        i = order[repeated[0]]
        raise InputError(f"{path}: line {line_of(int(element_of[i]))}: the element lists node {nodes[i]} twice")
    nnodes = int(nodes.max()) if nodes.size else 0
    if nnodes > MAX_ADJACENCY_ENTRIES:
        raise InputError(f"{path}: node id {nnodes} exceeds the supported maximum of {MAX_ADJACENCY_ENTRIES}")
    coords = None
    if node_coords is not None:
        from partkit.io.vectors import read_coordinates

        xyz = node_coords if isinstance(node_coords, np.ndarray) else read_coordinates(node_coords)
        if xyz.shape[0] < nnodes:
            raise InputError(f"{path}: {xyz.shape[0]} node coordinates for nodes up to {nnodes}")
        coords = np.asarray(xyz, dtype=np.float64)[:nnodes]
    codes = np.full(ne, -1, dtype=INDEX_DTYPE)
    for size, name in ELEMENT_BY_SIZE.items():
        codes[sizes == size] = TYPE_NAMES.index(name)
    if coords is not None and coords.shape[1] == 3:
        codes[sizes == 10] = TYPE_NAMES.index("tetra")  # tetra10: corners first
    if etype is not None:
        codes[:] = TYPE_NAMES.index(METIS4_ETYPES[etype][0])
    unknown = np.flatnonzero(codes < 0)
    if unknown.size and not untyped:
        hint = " or 3-D --coords (10 nodes: tetra10)" if sizes[unknown[0]] == 10 else ""
        raise InputError(f"{path}: line {line_of(int(unknown[0]))}: elements of {sizes[unknown[0]]} nodes "
                         f"have no known type: give ncommon explicitly{hint}")
    eptr = starts.astype(INDEX_DTYPE)
    mesh = Mesh(eptr, (nodes - 1).astype(INDEX_DTYPE), codes, nnodes, coords, base_name(path), weights=weights)
    if etype is None and np.any(sizes == 4) and not unknown.size:
        quad = (np.any(sizes == 3) or (coords is not None and coords.shape[1] == 2)) \
            and not np.any(np.isin(sizes, (5, 6, 8, 10)))
        if not quad and not np.any(np.isin(sizes, (3, 5, 6, 8, 10))) and not mesh.shared_facets().size:
            mesh.etype[sizes == 4] = TYPE_NAMES.index("quad")
            quad = mesh.shared_facets().size > 0
        mesh.etype[sizes == 4] = TYPE_NAMES.index("quad" if quad else "tetra")
    return mesh


def _mesh_header(path, data):
    """``(line number, ne, second field or None, body offset)`` of a mesh file."""
    number, text, offset = _first_data_line(path, data)
    tokens = _text.split_line(text)
    if not 1 <= len(tokens) <= 2 or not all(t.isdigit() and t.isascii() for t in tokens):
        raise InputError(f"{path}: line {number}: mesh header must be 'ne', 'ne ncon' (METIS 5) or "
                         "'ne etype' (METIS 4)")
    second = int(tokens[1]) if len(tokens) == 2 else None
    if second is not None and second > 1000:
        raise InputError(f"{path}: line {number}: ncon {second} must be at most 1000")
    return number, int(tokens[0]), second, offset
