"""Reading and writing graphs, matrices, meshes, coordinates and partitions.

Supported inputs:

* Matrix Market (``.mtx``, ``.mtx.gz``): coordinate or array; real,
  double, integer, complex or pattern; general, symmetric, skew-symmetric or
  hermitian. A ``%%GraphBLAS type T`` comment line (LAGraph's extension) is
  honoured: values must fit the declared type. :func:`read_matrix` returns the matrix; :func:`read_graph`
  turns it into the graph of the pattern of ``A + A^T`` without the diagonal.
* METIS graph files (``.graph``, ``.mgraph``, ``.metis``): ``fmt`` 0, 1, 10,
  11, 100, 101, 110, 111 with ``ncon`` vertex weights.
* METIS mesh files (``.mesh``): elements given by their nodes, turned into
  the dual graph (elements adjacent when they share ``ncommon`` nodes).
* Partition files: one part id per line.
* Coordinates: one vertex (or mesh node) per line, 2 or 3 numbers.

Every malformed file raises :class:`partkit.InputError` with a one-line
message that names the file, the line when it is known, and the reason.
"""

from __future__ import annotations

import gzip
import os
import tempfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from partkit.errors import InputError
from partkit.graph import INDEX_DTYPE, MAX_ADJACENCY_ENTRIES, WEIGHT_DTYPE, Graph
from partkit.native.text import count_tokens, parse_integers

MATRIX_MARKET_SUFFIXES = (".mtx", ".mm")
METIS_GRAPH_SUFFIXES = (".graph", ".mgraph", ".metis", ".chaco")
METIS_MESH_SUFFIXES = (".mesh",)

_MM_FORMATS = ("coordinate", "array")
_MM_FIELDS = ("real", "double", "complex", "integer", "pattern")
_MM_SYMMETRIES = ("general", "symmetric", "skew-symmetric", "hermitian")

#: Value ranges of the types a ``%%GraphBLAS type T`` comment line may declare.
_GRAPHBLAS_INTEGER_RANGES = {
    "bool": (0, 1),
    "int8_t": (-2**7, 2**7 - 1), "int16_t": (-2**15, 2**15 - 1),
    "int32_t": (-2**31, 2**31 - 1), "int64_t": (-2**63, 2**63 - 1),
    "uint8_t": (0, 2**8 - 1), "uint16_t": (0, 2**16 - 1),
    "uint32_t": (0, 2**32 - 1), "uint64_t": (0, 2**64 - 1),
}
_GRAPHBLAS_REAL_TYPES = ("float", "double")
_GRAPHBLAS_COMPLEX_TYPES = ("float complex", "double complex")

#: Largest dense Matrix Market array partkit reads (entries).
MAX_DENSE_ENTRIES = 10**8


# ---------------------------------------------------------------- helpers
def _read_bytes(path, size=-1) -> bytes:
    """The file's bytes (decompressed for ``.gz``), or its first ``size`` bytes."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as handle:
            return handle.read(size)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a file") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None


def _decode_lines(path, data):
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise InputError(f"{path}: line {line}: not a text file (byte {data[exc.start]:#04x})") from None
    return text.splitlines()


def _base_name(path):
    name = Path(path).name
    for suffix in (".gz",):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def _parse_numbers(path, tokens, dtype, line_of_token, what):
    """Convert a flat list of tokens to ``dtype``; name the first bad token's line on failure."""
    try:
        values = np.array(tokens, dtype=np.float64 if dtype == "float" else np.int64)
    except (ValueError, OverflowError):
        for index, token in enumerate(tokens):
            label = what(index) if callable(what) else what
            try:
                value = float(token) if dtype == "float" else int(token)
            except (ValueError, OverflowError):
                expected = "an integer" if dtype == "int" or label == "index" else "a number"
                raise InputError(f"{path}: line {line_of_token(index)}: {label} {token!r} is not "
                                 f"{expected}") from None
            if dtype == "int" and not -2**63 <= value < 2**63:
                raise InputError(f"{path}: line {line_of_token(index)}: {label} {token!r} does not "
                                 "fit in 64 bits") from None
        raise
    if dtype == "float" and not np.all(np.isfinite(values)):
        index = int(np.argmin(np.isfinite(values)))
        label = what(index) if callable(what) else what
        raise InputError(f"{path}: line {line_of_token(index)}: {label} {tokens[index]!r} is not finite")
    return values


# ----------------------------------------------------------- Matrix Market
def read_matrix(path) -> sp.csr_matrix:
    """Read a Matrix Market file into a ``scipy.sparse.csr_matrix``.

    Symmetric, skew-symmetric and hermitian storage is expanded to the full
    matrix; pattern matrices get ones; complex entries keep their complex
    value. Duplicate entries, out-of-range indices, missing or extra
    entries and non-numeric tokens are errors.

    Parameters
    ----------
    path : str or path-like
        A ``.mtx`` file, optionally gzip-compressed (``.mtx.gz``).

    Raises
    ------
    InputError
        With the file name, the line and the reason when the file is malformed.
    """
    path = Path(path)
    lines = _decode_lines(path, _read_bytes(path))
    if not lines or not any(line.strip() for line in lines):
        raise InputError(f"{path}: empty file")
    fmt, field, symmetry = _parse_banner(path, lines[0])
    position = 1
    graphblas_type = None
    while position < len(lines) and (not lines[position].strip() or lines[position].lstrip().startswith("%")):
        if lines[position].lower().startswith("%%graphblas type"):
            graphblas_type = _parse_graphblas_type(path, position + 1, lines[position], field, symmetry)
        position += 1
    if position == len(lines):
        raise InputError(f"{path}: missing the size line after the header")
    size_tokens = lines[position].split()
    expected_sizes = 3 if fmt == "coordinate" else 2
    if len(size_tokens) != expected_sizes:
        raise InputError(f"{path}: line {position + 1}: size line must have {expected_sizes} integers "
                         f"({'rows columns entries' if fmt == 'coordinate' else 'rows columns'}), "
                         f"found {len(size_tokens)} tokens")
    sizes = []
    for token in size_tokens:
        try:
            value = int(token)
        except ValueError:
            raise InputError(f"{path}: line {position + 1}: size {token!r} is not an integer") from None
        if value < 0:
            raise InputError(f"{path}: line {position + 1}: negative size {value}")
        sizes.append(value)
    nrows, ncols = sizes[0], sizes[1]
    if symmetry != "general" and nrows != ncols:
        raise InputError(f"{path}: line {position + 1}: a {symmetry} matrix must be square, "
                         f"got {nrows}x{ncols}")
    body_lines = [(number, line) for number, line in enumerate(lines[position + 1:], start=position + 2)
                  if (stripped := line.lstrip()) and stripped[0] != "%"]
    values_per_entry = 0 if field == "pattern" else (2 if field == "complex" else 1)
    if fmt == "coordinate":
        matrix = _read_coordinate_body(path, body_lines, nrows, ncols, sizes[2], field, symmetry,
                                       values_per_entry)
    else:
        matrix = _read_array_body(path, body_lines, nrows, ncols, field, symmetry, values_per_entry)
    if graphblas_type in _GRAPHBLAS_INTEGER_RANGES:
        low, high = _GRAPHBLAS_INTEGER_RANGES[graphblas_type]
        data = matrix.data
        outside = (data < low) | (data > high)
        if np.any(outside):
            raise InputError(f"{path}: value {data[np.argmax(outside)]:.17g} does not fit the declared "
                             f"GraphBLAS type {graphblas_type} [{low}, {high}]")
    return matrix


def _parse_graphblas_type(path, number, line, field, symmetry):
    """The type of a ``%%GraphBLAS type T`` line, checked against the header's field."""
    declared = " ".join(line.split()[2:]).lower()
    if declared in _GRAPHBLAS_INTEGER_RANGES:
        if field not in ("integer", "pattern"):
            raise InputError(f"{path}: line {number}: GraphBLAS type {declared} needs an integer "
                             f"or pattern matrix, the header says {field}")
        if symmetry == "skew-symmetric" and _GRAPHBLAS_INTEGER_RANGES[declared][0] == 0:
            raise InputError(f"{path}: line {number}: a skew-symmetric matrix cannot have the unsigned "
                             f"GraphBLAS type {declared}")
    elif declared in _GRAPHBLAS_REAL_TYPES:
        if field == "complex":
            raise InputError(f"{path}: line {number}: GraphBLAS type {declared} is real, the header says complex")
    elif declared in _GRAPHBLAS_COMPLEX_TYPES:
        if field != "complex":
            raise InputError(f"{path}: line {number}: GraphBLAS type {declared} needs a complex matrix, "
                             f"the header says {field}")
    else:
        raise InputError(f"{path}: line {number}: unknown GraphBLAS type {declared!r}")
    return declared


def _parse_banner(path, line):
    tokens = line.split()
    if not tokens or tokens[0].lower() != "%%matrixmarket":
        raise InputError(f"{path}: line 1: missing '%%MatrixMarket' header (not a Matrix Market file)")
    if len(tokens) != 5:
        raise InputError(f"{path}: line 1: header must be '%%MatrixMarket matrix FORMAT FIELD SYMMETRY'")
    obj, fmt, field, symmetry = (token.lower() for token in tokens[1:])
    if obj != "matrix":
        raise InputError(f"{path}: line 1: object {tokens[1]!r} is not supported (only 'matrix')")
    if fmt not in _MM_FORMATS:
        raise InputError(f"{path}: line 1: unknown format {tokens[2]!r} (expected coordinate or array)")
    if field not in _MM_FIELDS:
        raise InputError(f"{path}: line 1: unknown field {tokens[3]!r} "
                         "(expected real, double, complex, integer or pattern)")
    if symmetry not in _MM_SYMMETRIES:
        raise InputError(f"{path}: line 1: unknown symmetry {tokens[4]!r} "
                         "(expected general, symmetric, skew-symmetric or hermitian)")
    if fmt == "array" and field == "pattern":
        raise InputError(f"{path}: line 1: 'array pattern' is not a valid Matrix Market combination")
    if symmetry == "hermitian" and field != "complex":
        raise InputError(f"{path}: line 1: a hermitian matrix must be complex, not {field}")
    if symmetry == "skew-symmetric" and field == "pattern":
        raise InputError(f"{path}: line 1: a skew-symmetric matrix cannot be a pattern")
    return fmt, field, symmetry


def _tokens(path, numbered_lines, expected, what):
    """All tokens of the lines, after checking that every line holds ``expected`` of them."""
    text = "\n".join(line for _, line in numbered_lines)
    counts = count_tokens(np.frombuffer(text.encode("ascii"), dtype=np.uint8), len(numbered_lines))
    bad = np.flatnonzero(counts != expected)
    if bad.size:
        number, _ = numbered_lines[bad[0]]
        raise InputError(f"{path}: line {number}: found {counts[bad[0]]} tokens, expected "
                         f"{expected} for {what}")
    return text.split()


def _read_coordinate_body(path, body_lines, nrows, ncols, nnz, field, symmetry, values_per_entry):
    if len(body_lines) < nnz:
        raise InputError(f"{path}: truncated: the size line declares {nnz} entries, found {len(body_lines)}")
    if len(body_lines) > nnz:
        number, _ = body_lines[nnz]
        raise InputError(f"{path}: line {number}: more entries than the {nnz} the size line declares")
    per_entry = 2 + values_per_entry
    tokens = _tokens(path, body_lines, per_entry, f"a {field} entry")
    line_of = lambda index: body_lines[index // per_entry][0]  # noqa: E731
    what = lambda i: "index" if i % per_entry < 2 else "value"  # noqa: E731
    table = _parse_numbers(path, tokens, "float", line_of, what).reshape(nnz, per_entry)
    fractional = table[:, :2] != np.round(table[:, :2])
    if np.any(fractional):
        i = int(np.argmax(fractional.any(axis=1)))
        raise InputError(f"{path}: line {line_of(i * per_entry)}: index is not an integer")
    rows = table[:, 0].astype(np.int64) - 1
    cols = table[:, 1].astype(np.int64) - 1
    out_of_range = (rows < 0) | (rows >= nrows) | (cols < 0) | (cols >= ncols)
    if np.any(out_of_range):
        i = int(np.argmax(out_of_range))
        raise InputError(f"{path}: line {line_of(i * per_entry)}: index ({rows[i] + 1}, {cols[i] + 1}) "
                         f"is outside the {nrows}x{ncols} matrix")
    if field == "pattern":
        values = np.ones(nnz)
    elif field == "complex":
        values = table[:, 2] + 1j * table[:, 3]
    else:
        values = table[:, 2]
        if field == "integer" and np.any(values != np.round(values)):
            i = int(np.argmax(values != np.round(values)))
            raise InputError(f"{path}: line {line_of(i * per_entry)}: value of an integer matrix is not an integer")
    if symmetry == "skew-symmetric" and np.any(rows == cols):
        i = int(np.argmax(rows == cols))
        raise InputError(f"{path}: line {line_of(i * per_entry)}: a skew-symmetric matrix has no diagonal entries")
    if symmetry == "general":
        keys = rows * ncols + cols
    else:
        keys = np.maximum(rows, cols) * ncols + np.minimum(rows, cols)
    order = np.argsort(keys, kind="stable")
    repeated = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    if repeated.size:
        i = int(order[repeated[0] + 1])
        raise InputError(f"{path}: line {line_of(i * per_entry)}: duplicate entry ({rows[i] + 1}, {cols[i] + 1})")
    return _expand_symmetry(rows, cols, values, nrows, ncols, symmetry)


def _expand_symmetry(rows, cols, values, nrows, ncols, symmetry):
    if symmetry != "general":
        off = rows != cols
        mirror = {"symmetric": values[off], "skew-symmetric": -values[off],
                  "hermitian": np.conj(values[off])}[symmetry]
        rows, cols = np.concatenate([rows, cols[off]]), np.concatenate([cols, rows[off]])
        values = np.concatenate([values, mirror])
    matrix = sp.csr_matrix((values, (rows, cols)), shape=(nrows, ncols))
    matrix.sort_indices()
    return matrix


def _read_array_body(path, body_lines, nrows, ncols, field, symmetry, values_per_entry):
    if symmetry == "general":
        count = nrows * ncols
    elif symmetry == "skew-symmetric":
        count = nrows * (nrows - 1) // 2
    else:
        count = nrows * (nrows + 1) // 2
    if count > MAX_DENSE_ENTRIES:
        raise InputError(f"{path}: dense array of {count} entries is too large (limit {MAX_DENSE_ENTRIES})")
    if len(body_lines) < count:
        raise InputError(f"{path}: truncated: a {nrows}x{ncols} {symmetry} array needs {count} entries, "
                         f"found {len(body_lines)}")
    if len(body_lines) > count:
        raise InputError(f"{path}: line {body_lines[count][0]}: more entries than a {nrows}x{ncols} "
                         f"{symmetry} array holds ({count})")
    tokens = _tokens(path, body_lines, values_per_entry, f"a {field} array entry")
    values = _parse_numbers(path, tokens, "float", lambda i: body_lines[i // values_per_entry][0], "value")
    if field == "complex":
        values = values[0::2] + 1j * values[1::2]
    elif field == "integer" and np.any(values != np.round(values)):
        i = int(np.argmax(values != np.round(values)))
        raise InputError(f"{path}: line {body_lines[i][0]}: value of an integer matrix is not an integer")
    # Column-major order; symmetric storage lists the lower triangle column by column.
    if symmetry == "general":
        cols, rows = np.divmod(np.arange(count), nrows)
    else:
        first = 0 if symmetry != "skew-symmetric" else 1
        cols = np.concatenate([np.full(nrows - j - first, j) for j in range(ncols)]) if count else np.zeros(0, int)
        rows = np.concatenate([np.arange(j + first, nrows) for j in range(ncols)]) if count else np.zeros(0, int)
    keep = values != 0
    return _expand_symmetry(rows[keep].astype(np.int64), cols[keep].astype(np.int64), values[keep],
                            nrows, ncols, symmetry)


# -------------------------------------------------------------- METIS graph
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
        On a malformed header, a wrong number of vertex lines or edges, an
        out-of-range neighbour, a self loop, a negative weight or an
        asymmetric adjacency.
    """
    path = Path(path)
    lines = _decode_lines(path, _read_bytes(path))
    numbered = [(i + 1, line) for i, line in enumerate(lines) if not line.lstrip().startswith("%")]
    while numbered and not numbered[0][1].strip():
        numbered.pop(0)
    if not numbered:
        raise InputError(f"{path}: empty file")
    header_line, header = numbered[0]
    n, m, has_size, has_vwgt, has_ewgt, ncon = _parse_metis_header(path, header_line, header)
    vertex_lines = numbered[1:]
    while len(vertex_lines) > n and not vertex_lines[-1][1].strip():
        vertex_lines.pop()
    if len(vertex_lines) != n:
        where = f"line {vertex_lines[n][0]}: " if len(vertex_lines) > n else ""
        raise InputError(f"{path}: {where}the header declares {n} vertices, found {len(vertex_lines)} vertex lines")
    body = np.frombuffer("\n".join(line for _, line in vertex_lines).encode("ascii"), dtype=np.uint8)
    counts = count_tokens(body, n)
    lead = int(has_size) + (ncon if has_vwgt else 0)
    per_neighbour = 2 if has_ewgt else 1
    bad = np.flatnonzero((counts < lead) | ((counts - lead) % per_neighbour != 0))
    if bad.size:
        number = vertex_lines[bad[0]][0]
        raise InputError(f"{path}: line {number}: expected {lead} vertex field(s) then "
                         f"{'(neighbour, weight) pairs' if has_ewgt else 'neighbours'}, found {counts[bad[0]]} tokens")
    offsets = np.concatenate([[0], np.cumsum(counts)])
    line_of = lambda index: vertex_lines[int(np.searchsorted(offsets, index, side="right")) - 1][0]  # noqa: E731
    numbers, bad_token = parse_integers(body, int(offsets[-1]))
    if bad_token >= 0:  # Python's int() decides: a clear error, or a token it accepts ("1_000")
        flat = " ".join(line for _, line in vertex_lines).split()
        numbers = _parse_numbers(path, flat, "int", line_of, "entry")
    owner = np.repeat(np.arange(n), counts)
    position = np.arange(numbers.size) - offsets[owner]
    lead_mask = position < lead
    if np.any(numbers[lead_mask] < 0):
        index = int(np.flatnonzero(lead_mask & (numbers < 0))[0])
        raise InputError(f"{path}: line {line_of(index)}: negative vertex {'size or ' if has_size else ''}weight")
    lead_values = numbers[lead_mask].reshape(n, lead)
    vsize = lead_values[:, 0].copy() if has_size else None
    vwgt = lead_values[:, int(has_size):] if has_vwgt else None
    rest = ~lead_mask
    rest_index = np.flatnonzero(rest)
    neighbour_index = rest_index[(position[rest] - lead) % per_neighbour == 0]
    adjncy = numbers[neighbour_index] - 1
    adjwgt = numbers[neighbour_index + 1] if has_ewgt else None
    degrees = (counts - lead) // per_neighbour
    if adjncy.size != 2 * m:
        raise InputError(f"{path}: the header declares {m} edges, the adjacency lists hold "
                         f"{adjncy.size} entries ({adjncy.size / 2:g} edges)")
    bad = np.flatnonzero((adjncy < 0) | (adjncy >= n))
    if bad.size:
        index = int(neighbour_index[bad[0]])
        raise InputError(f"{path}: line {line_of(index)}: neighbour {adjncy[bad[0]] + 1} is outside 1..{n}")
    sources = owner[neighbour_index]
    loops = np.flatnonzero(adjncy == sources)
    if loops.size:
        raise InputError(f"{path}: line {line_of(int(neighbour_index[loops[0]]))}: self loop "
                         f"(vertex {sources[loops[0]] + 1} lists itself)")
    if adjwgt is not None and np.any(adjwgt < 0):
        index = int(neighbour_index[np.argmax(adjwgt < 0)] + 1)
        raise InputError(f"{path}: line {line_of(index)}: negative edge weight")
    xadj = np.concatenate([[0], np.cumsum(degrees)]).astype(INDEX_DTYPE)
    graph = Graph(xadj, adjncy, vwgt=vwgt, adjwgt=adjwgt, vsize=vsize, name=str(path))  # errors name the path
    graph.name = _base_name(path)
    return graph


def _parse_metis_header(path, number, header):
    tokens = header.split()
    if not 2 <= len(tokens) <= 4:
        raise InputError(f"{path}: line {number}: header must be 'n m [fmt [ncon]]', found {len(tokens)} tokens")
    try:
        n, m = int(tokens[0]), int(tokens[1])
    except ValueError:
        raise InputError(f"{path}: line {number}: header 'n m' must be integers, got {header.strip()!r}") from None
    if n < 0 or m < 0:
        raise InputError(f"{path}: line {number}: negative vertex or edge count")
    if 2 * m > MAX_ADJACENCY_ENTRIES:
        raise InputError(f"{path}: line {number}: {m} edges exceed the supported maximum "
                         f"of {MAX_ADJACENCY_ENTRIES // 2} (64-bit edge counts are not supported)")
    fmt = tokens[2] if len(tokens) > 2 else "0"
    if not fmt.isdigit() or len(fmt) > 3 or any(c not in "01" for c in fmt):
        raise InputError(f"{path}: line {number}: fmt {fmt!r} must be up to three 0/1 digits (e.g. 1, 10, 11, 100)")
    fmt = fmt.zfill(3)
    has_size, has_vwgt, has_ewgt = fmt[0] == "1", fmt[1] == "1", fmt[2] == "1"
    ncon = 1
    if len(tokens) == 4:
        try:
            ncon = int(tokens[3])
        except ValueError:
            raise InputError(f"{path}: line {number}: ncon {tokens[3]!r} is not an integer") from None
        if ncon < 1:
            raise InputError(f"{path}: line {number}: ncon must be at least 1, got {ncon}")
        if not has_vwgt:
            raise InputError(f"{path}: line {number}: ncon={ncon} given but fmt {fmt} has no vertex weights")
    return n, m, has_size, has_vwgt, has_ewgt, ncon


# --------------------------------------------------------------- METIS mesh
#: Default ``ncommon`` by nodes per element: triangles and quadrilaterals share
#: an edge (2 nodes), tetrahedra and wedges a face (3), hexahedra a face (4).
DEFAULT_NCOMMON = {2: 1, 3: 2, 4: 3, 6: 3, 8: 4}


def read_mesh(path, *, ncommon=None, node_coords=None) -> Graph:
    """Read a METIS mesh file and return its dual graph.

    The first line is ``ne`` (METIS 5) or ``ne etype`` (METIS 4); each of the
    next ``ne`` lines lists the 1-based nodes of one element. Two elements
    are adjacent in the dual graph when they share at least ``ncommon`` nodes.

    Parameters
    ----------
    path : str or path-like
    ncommon : int, optional
        Shared nodes that make two elements adjacent. By default from the
        element size: 3 nodes -> 2 (triangles sharing an edge), 4 -> 3
        (tetrahedra sharing a face; pass 2 for quadrilaterals), 6 -> 3,
        8 -> 4.
    node_coords : str or path-like or array, optional
        Node coordinates (a file for :func:`read_coordinates` or an array);
        element coordinates are then the centroids of their nodes.
    """
    path = Path(path)
    lines = _decode_lines(path, _read_bytes(path))
    numbered = [(i + 1, line) for i, line in enumerate(lines)
                if line.strip() and not line.lstrip().startswith("%")]
    if not numbered:
        raise InputError(f"{path}: empty file")
    header_number, header = numbered[0]
    tokens = header.split()
    if not 1 <= len(tokens) <= 2 or not all(t.isdigit() for t in tokens):
        raise InputError(f"{path}: line {header_number}: mesh header must be 'ne' or 'ne etype'")
    ne = int(tokens[0])
    elements = numbered[1:]
    if len(elements) != ne:
        raise InputError(f"{path}: the header declares {ne} elements, found {len(elements)} element lines")
    token_lists = [line.split() for _, line in elements]
    sizes = np.fromiter(map(len, token_lists), dtype=np.int64, count=ne)
    if ne and sizes.min() == 0:
        raise InputError(f"{path}: an element has no nodes")
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    line_of = lambda index: elements[int(np.searchsorted(offsets, index, side="right")) - 1][0]  # noqa: E731
    nodes = _parse_numbers(path, [t for ts in token_lists for t in ts], "int", line_of, "node")
    if nodes.size and nodes.min() < 1:
        raise InputError(f"{path}: line {line_of(int(np.argmin(nodes)))}: node ids are 1-based, found {nodes.min()}")
    nodes -= 1
    if ncommon is None:
        smallest = int(sizes.min()) if ne else 3
        if smallest not in DEFAULT_NCOMMON:
            raise InputError(f"{path}: elements of {smallest} nodes: give ncommon explicitly")
        ncommon = DEFAULT_NCOMMON[smallest]
    nnodes = int(nodes.max()) + 1 if nodes.size else 0
    element_of = np.repeat(np.arange(ne), sizes)
    incidence = sp.csr_matrix((np.ones(nodes.size, dtype=np.int64), (element_of, nodes)), shape=(ne, nnodes))
    incidence.sum_duplicates()
    shared = (incidence @ incidence.T).tocoo()
    keep = (shared.row != shared.col) & (shared.data >= ncommon)
    dual = sp.csr_matrix((np.ones(int(keep.sum()), dtype=WEIGHT_DTYPE), (shared.row[keep], shared.col[keep])),
                         shape=(ne, ne))
    dual.sort_indices()
    coords = None
    if node_coords is not None:
        xyz = node_coords if isinstance(node_coords, np.ndarray) else read_coordinates(node_coords)
        if xyz.shape[0] < nnodes:
            raise InputError(f"{path}: {xyz.shape[0]} node coordinates for {nnodes} nodes")
        coords = (incidence @ xyz[:nnodes]) / sizes[:, None]
    return Graph(dual.indptr.astype(INDEX_DTYPE), dual.indices.astype(INDEX_DTYPE), coords=coords,
                 name=_base_name(path), validate=False)


# ------------------------------------------------- coordinates, partitions
def read_coordinates(path, n=None) -> np.ndarray:
    """Read coordinates, one point per line with 2 or 3 numbers; shape ``(count, d)``.

    Parameters
    ----------
    path : str or path-like
    n : int, optional
        Expected number of points; a different count is an error.
    """
    path = Path(path)
    numbered = [(i + 1, line) for i, line in enumerate(_decode_lines(path, _read_bytes(path)))
                if line.strip() and not line.lstrip().startswith(("%", "#"))]
    if not numbered:
        raise InputError(f"{path}: empty coordinates file")
    d = len(numbered[0][1].split())
    if d not in (2, 3):
        raise InputError(f"{path}: line {numbered[0][0]}: coordinates need 2 or 3 numbers per line, found {d}")
    tokens = _tokens(path, numbered, d, "a point")
    values = _parse_numbers(path, tokens, "float", lambda i: numbered[i // d][0], "coordinate")
    if n is not None and len(numbered) != n:
        raise InputError(f"{path}: {len(numbered)} points for {n} vertices")
    return values.reshape(-1, d)


def read_vertex_weights(path, n) -> np.ndarray:
    """Read ``n`` rows of non-negative integer vertex weights, shape ``(n, ncon)``.

    Each non-comment line holds the ``ncon >= 1`` weights of one vertex
    (several columns: multi-constraint weights, as in a METIS graph with
    ``fmt`` 10). Lines starting with ``%`` or ``#`` are comments. An optional
    first line ``n`` or ``n ncon`` (a METIS-like header) is recognised when
    the file has ``n + 1`` rows.

    Raises
    ------
    InputError
        Naming the file, the line and the reason, for an unreadable file, a
        wrong number of rows or columns, or a weight that is not a
        non-negative integer.
    """
    path = Path(path)
    lines = _decode_lines(path, _read_bytes(path))
    rows = [(number, line) for number, line in enumerate(lines, start=1)
            if not line.lstrip().startswith(("%", "#"))]
    while rows and not rows[-1][1].strip():
        rows.pop()
    if not rows:
        raise InputError(f"{path}: no vertex weights")
    if len(rows) == n + 1 > 1:
        header, width = rows[0][1].split(), len(rows[1][1].split())
        if header[:1] == [str(n)] and (len(header) == 1 or header[1:] == [str(width)]):
            rows = rows[1:]
    if len(rows) != n:
        raise InputError(f"{path}: {len(rows)} rows of weights for {n} vertices")
    ncon = len(rows[0][1].split())
    tokens = _tokens(path, rows, ncon, "the weights of a vertex (as on the first row)")
    values = _parse_numbers(path, tokens, "int", lambda i: rows[i // ncon][0], "weight")
    if values.size and values.min() < 0:
        bad = int(np.argmin(values))
        raise InputError(f"{path}: line {rows[bad // ncon][0]}: negative weight {values[bad]}")
    return values.reshape(n, ncon)


def read_partition(path, n=None, k=None) -> np.ndarray:
    """Read a partition file: one non-negative integer part id per line.

    Parameters
    ----------
    path : str or path-like
    n : int, optional
        Expected number of vertices.
    k : int, optional
        Number of parts; ids must be below it.
    """
    path = Path(path)
    numbered = [(i + 1, line) for i, line in enumerate(_decode_lines(path, _read_bytes(path)))
                if line.strip()]
    if not numbered:
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        raise InputError(f"{path}: empty partition file")
    tokens = _tokens(path, numbered, 1, "a part id")
    part = _parse_numbers(path, tokens, "int", lambda i: numbered[i][0], "part id")
    if part.min() < 0:
        raise InputError(f"{path}: line {numbered[int(np.argmin(part))][0]}: negative part id")
    if n is not None and part.size != n:
        raise InputError(f"{path}: {part.size} part ids for {n} vertices")
    if k is not None and part.max() >= k:
        raise InputError(f"{path}: line {numbered[int(np.argmax(part))][0]}: part id {part.max()} is not below k={k}")
    return part


def write_partition(path, part) -> None:
    """Write one part id per line, atomically (temporary file, then rename).

    An interrupted write never leaves a truncated file in place of a good one.
    """
    text = "\n".join(map(str, np.asarray(part, dtype=np.int64).tolist()))
    _write_text_atomically(path, text + ("\n" if text else ""))


def _write_text_atomically(path, text):
    path = Path(path)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


# --------------------------------------------------------------- dispatcher
def file_kind(path) -> str:
    """``"matrixmarket"``, ``"metis"`` or ``"mesh"`` from the file name, else from the first line."""
    name = _base_name(path).lower()
    if name.endswith(MATRIX_MARKET_SUFFIXES):
        return "matrixmarket"
    if name.endswith(METIS_MESH_SUFFIXES):
        return "mesh"
    if name.endswith(METIS_GRAPH_SUFFIXES):
        return "metis"
    head = _read_bytes(path, 15).lower()
    return "matrixmarket" if head.startswith(b"%%matrixmarket") else "metis"


def read_graph(path, *, edge_weights=None, coords=None, ncommon=None) -> Graph:
    """Read any supported file as a :class:`partkit.Graph`.

    Parameters
    ----------
    path : str or path-like
        Matrix Market (``.mtx``, ``.mtx.gz``), METIS graph (``.graph``) or
        METIS mesh (``.mesh``, read as its dual graph). Other names are
        sniffed: a ``%%MatrixMarket`` first line means Matrix Market,
        anything else is read as a METIS graph.
    edge_weights : {None, "abs"}
        For Matrix Market input: unit weights (default) or weights from
        ``|a_ij|`` (see :meth:`Graph.from_scipy`). METIS files carry their own.
    coords : str, path-like or array, optional
        Vertex coordinates (for a mesh: node coordinates, giving element centroids).
    ncommon : int, optional
        For meshes: nodes two elements share to be adjacent.
    """
    kind = file_kind(path)
    name = _base_name(path)
    if kind == "mesh":
        return read_mesh(path, ncommon=ncommon, node_coords=coords)
    if kind == "matrixmarket":
        matrix = read_matrix(path)
        if matrix.shape[0] != matrix.shape[1]:
            raise InputError(f"{path}: matrix is {matrix.shape[0]}x{matrix.shape[1]}; "
                             "a graph needs a square matrix")
        graph = Graph.from_scipy(matrix, edge_weights=edge_weights, name=name)
    else:
        graph = read_metis_graph(path)
    if coords is not None:
        xyz = coords if isinstance(coords, np.ndarray) else read_coordinates(coords, graph.n)
        if xyz.shape[0] != graph.n:
            raise InputError(f"{path}: {xyz.shape[0]} coordinates for {graph.n} vertices")
        graph.coords = np.ascontiguousarray(xyz, dtype=np.float64)
    return graph


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
    _write_text_atomically(path, "\n".join(lines) + "\n")


def write_coordinates(path, coords) -> None:
    """Write coordinates, one point per line."""
    _write_text_atomically(path, "".join(" ".join(f"{x:.10g}" for x in row) + "\n" for row in coords))
