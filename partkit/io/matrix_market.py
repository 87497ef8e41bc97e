"""Matrix Market (``.mtx``, ``.mtx.gz``): the header checked here, real values parsed by scipy.

Coordinate or array; real, double, integer, complex or pattern; general,
symmetric, skew-symmetric or hermitian. A ``%%GraphBLAS type T`` comment
line (LAGraph's extension) is honoured: values must fit the declared type.

partkit checks the banner, the size line (against the file's size, before
anything is allocated) and, with one pass of :func:`partkit.io._text.check_entries`,
that every entry line holds well-formed tokens of the right count; that
pass also parses the integers (indices, integer values), so a pattern or
integer coordinate body is read by it alone, while the fast_matrix_market
backend of ``scipy.io.mmread`` converts a body of real or complex values
(or a dense array). One compiled pass then builds the CSR matrix
(symmetry expanded), refusing duplicates and diagonal entries of a
skew-symmetric matrix. Non-finite values and GraphBLAS ranges are checked
on the result. Every error is one line naming the file, the line when
known, and the reason."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np

from partkit._jit import njit
from partkit.errors import InputError
from partkit.io import _text
from partkit.io._source import read_source, token_budget

SUFFIXES = (".mtx", ".mm")

_FORMATS = ("coordinate", "array")
_FIELDS = ("real", "double", "complex", "integer", "pattern")
_SYMMETRIES = ("general", "symmetric", "skew-symmetric", "hermitian")

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
#: Rows or columns a file may declare: at most 2^31 - 1, and beyond 2^24 at most 16 per byte
#: of the file (a header of 2e9 rows in a tiny file is refused before allocating).
MAX_DIMENSION = 2**31 - 1
SMALL_DIMENSION = 2**24

_INTEGER = re.compile(r"[0-9]+\Z")


class _Header:
    """What the banner, the comments and the size line say."""

    def __init__(self, fmt, field, symmetry, graphblas, sizes, size_line, body_offset):
        self.fmt, self.field, self.symmetry, self.graphblas = fmt, field, symmetry, graphblas
        self.nrows, self.ncols = sizes[0], sizes[1]
        self.nnz = sizes[2] if fmt == "coordinate" else None
        self.size_line, self.body_offset = size_line, body_offset

    @property
    def values_per_entry(self):
        return 0 if self.field == "pattern" else (2 if self.field == "complex" else 1)

    @property
    def entries(self):
        """Entry lines the body must hold."""
        if self.fmt == "coordinate":
            return self.nnz
        n = self.nrows
        return {"general": n * self.ncols, "skew-symmetric": n * (n - 1) // 2}.get(self.symmetry, n * (n + 1) // 2)

    @property
    def kinds(self):
        value = _text.INTEGER if self.field == "integer" else _text.REAL
        indices = [_text.INDEX, _text.INDEX] if self.fmt == "coordinate" else []
        return np.array(indices + [value] * self.values_per_entry, dtype=np.int64)

    def canonical(self):
        """The header as scipy reads it (lower case, no comments, ``double`` spelled ``real``)."""
        field = "real" if self.field == "double" else self.field
        sizes = f"{self.nrows} {self.ncols}" + (f" {self.nnz}" if self.fmt == "coordinate" else "")
        return f"%%MatrixMarket matrix {self.fmt} {field} {self.symmetry}\n{sizes}\n".encode()


def read_matrix(path) -> sp.csr_matrix:
    """Read a Matrix Market file into a ``scipy.sparse.csr_matrix``.

    Symmetric, skew-symmetric and hermitian storage is expanded to the full
    matrix; pattern matrices get ones; complex entries keep their complex
    value. Duplicate entries, out-of-range indices, missing or extra
    entries and malformed tokens are errors.

    Parameters
    ----------
    path : str or path-like
        A ``.mtx`` file, optionally gzip-compressed (``.mtx.gz``), or a pipe.

    Raises
    ------
    InputError
        With the file name, the line and the reason when the file is malformed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.mtx"
    >>> _ = path.write_text("%%MatrixMarket matrix coordinate real symmetric\\n2 2 1\\n2 1 -1.5\\n")
    >>> read_matrix(path).toarray().tolist()
    [[0.0, -1.5], [-1.5, 0.0]]
    """
    path = Path(path)
    return parse_matrix(path, read_source(path, budget=lambda head: budget(path, head)))


def stored_symmetric(path, data) -> bool:
    """Whether the file in ``data`` stores one triangle of a symmetric, skew-symmetric or hermitian matrix."""
    return _parse_header(path, data).symmetry != "general"


def budget(path, head):
    """Largest plausible content size, from the header in the first bytes ``head``."""
    header = _parse_header(path, head)
    return token_budget(header.entries * max(1, len(header.kinds)))


def parse_matrix(path, data) -> sp.csr_matrix:
    """The matrix in ``data`` (the content of ``path``, a writable buffer); see :func:`read_matrix`."""
    # scipy (imported here: a METIS input never needs it) parses real and complex values with the
    # fast_matrix_market backend of mmread, called below its symmetry expansion so that the stored
    # entries can be checked for duplicates while the CSR matrix is built. Indices, integers and
    # patterns are exact: the checking pass parses them, and a pattern or integer body needs nothing more.
    from scipy.io._fast_matrix_market import _get_read_cursor, _read_body_array, _read_body_coo
    header = _parse_header(path, data)
    _check_sizes(path, header, len(data))
    buf = np.frombuffer(data, dtype=np.uint8)
    expected = header.entries
    exact = header.fmt == "coordinate" and header.field in ("pattern", "integer")
    entries, code, offset, token, ints = _text.check_entries(buf, header.body_offset, header.kinds, expected,
                                                             len(header.kinds) if exact else 0)
    line = header.size_line + 1 + offset
    if code != _text.OK:
        raise InputError(entry_problem(path, header, code, line, _text.line_tokens_of(data, line), token))
    if entries < expected:
        raise InputError(f"{path}: truncated: the header declares {expected} entries, found {entries}")
    if exact:
        values = ints[2] if header.field == "integer" else np.empty(0)
        matrix = _to_csr(path, header, data, ints[0], ints[1], values, base=1)
        _check_values(path, header, data, matrix)
        return matrix
    body = header.canonical() + memoryview(data)[header.body_offset:]
    try:
        cursor, _ = _get_read_cursor(io.BytesIO(body))
        if header.fmt == "array":
            import scipy.sparse as sp

            matrix = sp.csr_matrix(_read_body_array(cursor))
        else:
            (values, (rows, cols)), _ = _read_body_coo(cursor, generalize_symmetry=False)
            matrix = _to_csr(path, header, data, rows, cols, values)
    except InputError:
        raise
    except (ValueError, OverflowError) as exc:
        raise InputError(f"{path}: {_scipy_message(header, data, exc)}") from None
    _check_values(path, header, data, matrix)
    return matrix


_MIRROR = {"general": 0, "symmetric": 1, "skew-symmetric": 2, "hermitian": 3}
_DIAGONAL, _DUPLICATE, _OUTSIDE = 1, 2, 3


def _to_csr(path, header, data, rows, cols, values, base=0):
    """The CSR matrix of the stored triplets (``base``-based indices; ``values`` empty for a pattern: ones).

    Symmetry expanded; an index outside the matrix, a duplicate and a
    diagonal entry of a skew-symmetric matrix are refused. The rows are
    filled in ranges of about equal entries at once, on the threads in
    effect (each range takes its rows' entries in file order: the same
    matrix for any count).
    """
    import scipy.sparse as sp

    from partkit._threads import chunk_count, run_calls
    rows, cols = rows.astype(np.int64, copy=False), cols.astype(np.int64, copy=False)
    mirror = _MIRROR[header.symmetry]
    indptr, code, entry = _row_starts(rows, cols, base, header.nrows, header.ncols, mirror)
    if code == _OUTSIDE:
        line = _entry_line(header, data, entry)
        raise InputError(f"{path}: {outside_problem(header, line, _text.line_tokens_of(data, line))}")
    if code == _DIAGONAL:
        raise InputError(f"{path}: line {_entry_line(header, data, entry)}: a skew-symmetric matrix "
                         "has no diagonal entries")
    nnz = int(indptr[-1])
    indices = np.empty(nnz, dtype=np.int32)  # a dimension is below 2^31 (MAX_DIMENSION)
    weighted = values.size == rows.size and rows.size > 0
    out = np.empty(nnz, dtype=values.dtype)
    nranges = chunk_count(nnz >> 4)  # at least 16k entries a range
    cuts = np.searchsorted(indptr, np.arange(nranges + 1) * nnz // nranges)
    cuts[0], cuts[-1] = 0, header.nrows
    codes = run_calls(_fill_rows, [(rows, cols, values, weighted, base, mirror, indptr, indices, out, int(lo),
                                    int(hi)) for lo, hi in zip(cuts[:-1], cuts[1:]) if hi > lo])
    if _DUPLICATE in codes:
        _duplicate_error(path, header, data, rows - base, cols - base)
    if nnz < 2**31:  # scipy keeps int32 indices with an int32 indptr
        indptr = indptr.astype(np.int32)
    matrix = sp.csr_matrix((out, indices, indptr), shape=(header.nrows, header.ncols))
    matrix.has_sorted_indices = True
    return matrix


@njit(cache=True)
def _row_starts(rows, cols, base, nrows, ncols, mirror):
    """``(indptr, code, entry)``: the row starts of the CSR matrix of the triplets (indices from ``base``).

    ``mirror``: 0 none, 1 symmetric, 2 skew-symmetric (no diagonal
    allowed), 3 hermitian. Code 0, or _OUTSIDE or _DIAGONAL at triplet ``entry``.
    """
    counts = np.zeros(nrows + 1, dtype=np.int64)
    for e in range(rows.size):
        r, c = rows[e] - base, cols[e] - base
        if r < 0 or r >= nrows or c < 0 or c >= ncols:
            return counts, _OUTSIDE, e
        if mirror == 2 and r == c:
            return counts, _DIAGONAL, e
        counts[r + 1] += 1
        if mirror and r != c:
            counts[c + 1] += 1
    for r in range(nrows):
        counts[r + 1] += counts[r]
    return counts, 0, -1


@njit(cache=True, nogil=True)
def _fill_rows(rows, cols, values, weighted, base, mirror, indptr, indices, data, lo, hi):
    """Fill rows ``lo..hi-1`` of ``indices`` and ``data`` (ones unless ``weighted``), each row sorted.

    The mirror of an entry is negated (``mirror`` 2) or conjugated (3).
    Returns _DUPLICATE when a row lists a column twice, else 0.
    """
    if not weighted:
        for i in range(indptr[lo], indptr[hi]):
            data[i] = 1
    fill = indptr[lo:hi].copy()
    for e in range(rows.size):
        r, c = rows[e] - base, cols[e] - base
        if lo <= r < hi:
            indices[fill[r - lo]] = c
            if weighted:
                data[fill[r - lo]] = values[e]
            fill[r - lo] += 1
        if mirror and r != c and lo <= c < hi:
            indices[fill[c - lo]] = r
            if weighted:
                v = values[e]
                data[fill[c - lo]] = -v if mirror == 2 else (np.conj(v) if mirror == 3 else v)
            fill[c - lo] += 1
    for r in range(lo, hi):
        start, end = indptr[r], indptr[r + 1]
        if end - start > 32:
            order = np.argsort(indices[start:end]) + start
            row_indices = indices[order]
            for i in range(end - start):  # not a slice assignment: its shape check compiles slowly
                indices[start + i] = row_indices[i]
            if weighted:
                row_data = data[order]
                for i in range(end - start):
                    data[start + i] = row_data[i]
        else:
            for i in range(start + 1, end):  # insertion sort of a short row
                key = indices[i]
                value = data[i] if weighted else 0
                j = i - 1
                while j >= start and indices[j] > key:
                    indices[j + 1] = indices[j]
                    if weighted:
                        data[j + 1] = data[j]
                    j -= 1
                indices[j + 1] = key
                if weighted:
                    data[j + 1] = value
        for i in range(start + 1, end):
            if indices[i] == indices[i - 1]:
                return _DUPLICATE
    return 0


def _duplicate_error(path, header, data, rows, cols):
    if header.symmetry == "general":
        keys = rows * header.ncols + cols
    else:
        keys = np.maximum(rows, cols) * header.ncols + np.minimum(rows, cols)
    order = np.argsort(keys, kind="stable")
    i = int(order[np.flatnonzero(keys[order][1:] == keys[order][:-1])[0] + 1])
    raise InputError(f"{path}: line {_entry_line(header, data, i)}: duplicate entry "
                     f"({rows[i] + 1}, {cols[i] + 1})")


def _check_values(path, header, data, matrix):
    values = matrix.data
    if header.field in ("real", "double", "complex") and not np.all(np.isfinite(values)):
        raise InputError(f"{path}: a value overflows to infinity (beyond 1.8e308)")
    if header.graphblas in _GRAPHBLAS_INTEGER_RANGES:
        low, high = _GRAPHBLAS_INTEGER_RANGES[header.graphblas]
        outside = (values < low) | (values > high)
        if np.any(outside):
            raise InputError(f"{path}: value {values[np.argmax(outside)]:.17g} does not fit the declared "
                             f"GraphBLAS type {header.graphblas} [{low}, {high}]")


def _entry_line(header, data, index):
    """Line number of entry ``index`` (0-based) of the body."""
    offset = _text.data_line_offset(np.frombuffer(data, dtype=np.uint8), header.body_offset, index, True, -1, -1)
    return header.size_line + 1 + offset


def entry_problem(path, header, code, line, tokens, token):
    """The message of an error ``code`` of :func:`partkit.io._text.check_entries` on line ``line`` of
    ``path``, whose tokens are ``tokens``."""
    where = f"{path}: line {line}:"
    if code == _text.COMMENT:
        return f"{where} comment line among the entries (comments go before the size line)"
    if code == _text.EXTRA_LINE:
        return f"{where} more entries than the {header.entries} the header declares"
    what = f"a {header.field} {'entry' if header.fmt == 'coordinate' else 'array entry'}"
    if code == _text.TOKEN_COUNT:
        return f"{where} found {token} tokens, expected {len(header.kinds)} for {what}"
    text = tokens[token]
    if code == _text.OVERFLOW:
        return f"{where} {'index' if header.kinds[token] == _text.INDEX else 'value'} {text!r} does not fit in 64 bits"
    if header.kinds[token] == _text.INDEX:
        return f"{where} index {text!r} is not an integer"
    if header.field == "integer":
        return f"{where} value {text!r} of an integer matrix is not an integer"
    if text.lower().lstrip("+-") in ("nan", "inf", "infinity"):
        return f"{where} value {text!r} is not finite"
    return f"{where} value {text!r} is not a number"


def outside_problem(header, line, tokens):
    """The message for an entry on ``line``, whose tokens are ``tokens``, with an index outside the matrix."""
    return f"line {line}: index ({tokens[0]}, {tokens[1]}) is outside the {header.nrows}x{header.ncols} matrix"


def _scipy_message(header, data, exc):
    """scipy's error, with the line counted in the original file and partkit's wording."""
    message = str(exc)
    match = re.match(r"Line (\d+): (.*)", message)
    if not match:
        return f"cannot parse the entries ({message})"
    line = header.size_line + int(match.group(1)) - 2
    reason = match.group(2)
    if "index out of bounds" in reason:
        return outside_problem(header, line, _text.line_tokens_of(data, line))
    if "out of range" in reason:
        return f"line {line}: value does not fit in 64 bits"
    return f"line {line}: {reason[0].lower()}{reason[1:].rstrip('.')}"


# ------------------------------------------------------------------ header
def _header_lines(data):
    """``(number, text, next_offset)`` of the lines of ``data``, lazily, from the first."""
    start, number = 0, 1
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        yield number, bytes(data[start:end]).decode("ascii", "replace"), end + 1
        start, number = end + 1, number + 1


def _parse_header(path, data) -> _Header:
    lines = _header_lines(data)
    first = next(lines, None)
    if first is None or (not first[1].strip() and not bytes(data).strip()):
        raise InputError(f"{path}: empty file")
    fmt, field, symmetry = _parse_banner(path, first[1])
    graphblas = None
    for number, text, offset in lines:
        stripped = text.strip(" \t\r")
        if not stripped:
            continue
        if stripped.startswith("%"):
            if text.lower().startswith("%%graphblas type"):
                graphblas = _parse_graphblas_type(path, number, text, field, symmetry)
            continue
        sizes = _parse_sizes(path, number, stripped, fmt)
        if symmetry != "general" and sizes[0] != sizes[1]:
            raise InputError(f"{path}: line {number}: a {symmetry} matrix must be square, "
                             f"got {sizes[0]}x{sizes[1]}")
        return _Header(fmt, field, symmetry, graphblas, sizes, number, offset)
    raise InputError(f"{path}: missing the size line after the header")


def _parse_sizes(path, number, text, fmt):
    tokens = _text.split_line(text)
    expected = 3 if fmt == "coordinate" else 2
    if len(tokens) != expected:
        raise InputError(f"{path}: line {number}: size line must have {expected} integers "
                         f"({'rows columns entries' if fmt == 'coordinate' else 'rows columns'}), "
                         f"found {len(tokens)} tokens")
    sizes = []
    for token in tokens:
        if token.startswith("-") and _INTEGER.match(token[1:]):
            raise InputError(f"{path}: line {number}: negative size {token}")
        if not _INTEGER.match(token):
            raise InputError(f"{path}: line {number}: size {token!r} is not an integer")
        sizes.append(int(token))
    return sizes


def _check_sizes(path, header, nbytes):
    """Refuse declared sizes the file cannot hold, before anything is allocated."""
    where = f"{path}: line {header.size_line}:"
    limit = min(MAX_DIMENSION, max(SMALL_DIMENSION, 16 * nbytes))
    if max(header.nrows, header.ncols) > limit:
        raise InputError(f"{where} {header.nrows}x{header.ncols} is too large for a {nbytes}-byte file "
                         f"(at most {limit} rows and columns)")
    if header.fmt == "array" and header.entries > MAX_DENSE_ENTRIES:
        raise InputError(f"{where} dense array of {header.entries} entries is too large "
                         f"(limit {MAX_DENSE_ENTRIES})")
    if header.fmt == "coordinate" and header.nnz > nbytes:
        raise InputError(f"{path}: truncated: the header declares {header.nnz} entries, more than "
                         f"the {nbytes}-byte file can hold")


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
    if fmt not in _FORMATS:
        raise InputError(f"{path}: line 1: unknown format {tokens[2]!r} (expected coordinate or array)")
    if field not in _FIELDS:
        raise InputError(f"{path}: line 1: unknown field {tokens[3]!r} "
                         "(expected real, double, complex, integer or pattern)")
    if symmetry not in _SYMMETRIES:
        raise InputError(f"{path}: line 1: unknown symmetry {tokens[4]!r} "
                         "(expected general, symmetric, skew-symmetric or hermitian)")
    if fmt == "array" and field == "pattern":
        raise InputError(f"{path}: line 1: 'array pattern' is not a valid Matrix Market combination")
    if symmetry == "hermitian" and field != "complex":
        raise InputError(f"{path}: line 1: a hermitian matrix must be complex, not {field}")
    if symmetry == "skew-symmetric" and field == "pattern":
        raise InputError(f"{path}: line 1: a skew-symmetric matrix cannot be a pattern")
    return fmt, field, symmetry
