"""One row per vertex: partition files, coordinates and vertex-weight files."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from partkit.errors import InputError
from partkit.graph import check_weight_sums
from partkit.io import _text
from partkit.io._output import write_text
from partkit.io._source import read_source, token_budget

PERCENT, HASH = 37, 35


class _Rows:
    """The data lines of a buffer: token counts and line numbers."""

    def __init__(self, path, data, limit, skip_blank, c1, c2):
        self.path, self.data, self.skip_blank, self.c1, self.c2 = path, data, skip_blank, c1, c2
        self.buf = np.frombuffer(data, dtype=np.uint8)
        if limit is None:
            limit = data.count(b"\n") + 1
        self.counts, self.found, self.extra = _text.line_tokens(self.buf, 0, limit, skip_blank, c1, c2)
        self.counts = self.counts[:min(self.found, limit)]

    def line(self, row):
        return 1 + _text.data_line_offset(self.buf, 0, row, self.skip_blank, self.c1, self.c2)

    def check_width(self, width, what, first=0):
        bad = np.flatnonzero(self.counts[first:] != width)
        if bad.size:
            row = first + int(bad[0])
            raise InputError(f"{self.path}: line {self.line(row)}: found {self.counts[row]} tokens, "
                             f"expected {width} for {what}")

    def integers(self, what):
        total = int(self.counts.sum())
        values, bad, code = _text.parse_int_tokens(self.buf, 0, total, self.skip_blank, self.c1, self.c2)
        if bad >= 0:
            row = int(np.searchsorted(np.cumsum(self.counts), bad, side="right"))
            line = self.line(row)
            start = int(self.counts[:row].sum())
            text = _text.line_tokens_of(self.data, line)[bad - start]
            reason = "does not fit in 64 bits" if code == _text.OVERFLOW else "is not an integer"
            raise InputError(f"{self.path}: line {line}: {what} {text!r} {reason}")
        return values


# -------------------------------------------------------------- partitions
def read_partition(path, n=None, k=None, *, free=False) -> np.ndarray:
    """Read a partition file: one non-negative integer part id per line.

    Parameters
    ----------
    path : str or path-like
    n : int, optional
        Expected number of vertices; ids must then be below ``n`` too.
    k : int, optional
        Number of parts; ids must be below it.
    free : bool
        Accept -1 for a vertex in no part: a file of fixed vertices
        (METIS style, the ``fixed`` of :func:`partkit.partition`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "p.part"
    >>> _ = path.write_text("0\\n1\\n1\\n")
    >>> read_partition(path, n=3).tolist()
    [0, 1, 1]
    """
    path = Path(path)
    if k is not None and n is not None and k > max(n, 1):
        raise InputError(f"k={k} exceeds the number of vertices n={n}")
    data = read_source(path, budget=None if n is None else lambda head: token_budget(n))
    rows = _Rows(path, data, n, True, -1, -1)
    if rows.found == 0:
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        raise InputError(f"{path}: empty partition file")
    if n is not None and rows.found != n:
        raise InputError(f"{path}: {rows.found} part ids for {n} vertices")
    rows.check_width(1, "a part id")
    part = rows.integers("part id")
    if part.min() < (-1 if free else 0):
        raise InputError(f"{path}: line {rows.line(int(np.argmin(part)))}: "
                         f"{'part id below -1 (-1 marks a free vertex)' if free else 'negative part id'}")
    for bound, label in ((k, f"k={k}"), (n, f"the number of vertices n={n}")):
        if bound is not None and part.max() >= bound:
            raise InputError(f"{path}: line {rows.line(int(np.argmax(part)))}: part id {part.max()} "
                             f"is not below {label}")
    return part


def write_partition(path, part) -> None:
    """Write one part id per line (atomically for a regular file, see :func:`partkit.io._output.write_text`)."""
    values = np.asarray(part, dtype=np.int64)
    write_text(path, "".join(f"{v}\n" for v in values.tolist()))


# ------------------------------------------------------------- coordinates
def read_coordinates(path, n=None) -> np.ndarray:
    """Read coordinates, one point per line with 2 or 3 numbers; shape ``(count, d)``.

    Lines starting with ``%`` or ``#`` are comments.

    Parameters
    ----------
    path : str or path-like
    n : int, optional
        Expected number of points; a different count is an error.
    """
    path = Path(path)
    data = read_source(path, budget=None if n is None else lambda head: token_budget(3 * n))
    rows = _Rows(path, data, n, True, PERCENT, HASH)
    if rows.found == 0:
        raise InputError(f"{path}: empty coordinates file")
    d = int(rows.counts[0])
    if d not in (2, 3):
        raise InputError(f"{path}: line {rows.line(0)}: coordinates need 2 or 3 numbers per line, found {d}")
    if n is not None and rows.found != n:
        raise InputError(f"{path}: {rows.found} points for {n} vertices")
    rows.check_width(d, "a point")
    bad = _text.first_bad_real(rows.buf, 0, True, PERCENT, HASH)
    if bad >= 0:
        row = bad // d
        text = _text.line_tokens_of(data, rows.line(row))[bad % d]
        raise InputError(f"{path}: line {rows.line(row)}: coordinate {text!r} is not a number")
    lines = bytes(data).split(b"\n")
    if b"%" in data or b"#" in data:
        lines = [line for line in lines if not line.lstrip(b" \t\r").startswith((b"%", b"#"))]
    values = np.array(b" ".join(lines).split(), dtype=np.float64)
    if not np.all(np.isfinite(values)):
        row = int(np.argmin(np.isfinite(values))) // d
        raise InputError(f"{path}: line {rows.line(row)}: coordinate overflows to infinity")
    return values.reshape(-1, d)


def write_coordinates(path, coords) -> None:
    """Write coordinates, one point per line."""
    write_text(path, "".join(" ".join(f"{x:.10g}" for x in row) + "\n" for row in coords))


# ---------------------------------------------------------- vertex weights
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
        wrong number of rows or columns, a weight that is not a
        non-negative integer, or weights whose sum leaves int64.
    """
    path = Path(path)
    data = read_source(path, budget=lambda head: token_budget(64 * (n + 1)))
    rows = _Rows(path, data, n + 1, False, PERCENT, HASH)
    found = min(rows.found, n + 1)
    while found and rows.counts[found - 1] == 0:
        found -= 1
    if found == 0:
        raise InputError(f"{path}: no vertex weights")
    if rows.found > n + 1:
        raise InputError(f"{path}: {rows.found} rows of weights for {n} vertices")
    first = 0
    if found == n + 1 > 1:
        width = int(rows.counts[1])
        header = rows.integers("weight")[:rows.counts[0]].tolist()
        if header[:1] == [n] and (len(header) == 1 or header[1:] == [width]):
            first = 1
    if found - first != n:
        raise InputError(f"{path}: {found - first} rows of weights for {n} vertices")
    rows.counts = rows.counts[:found]
    ncon = int(rows.counts[first])
    rows.check_width(ncon, "the weights of a vertex (as on the first row)", first)
    values = rows.integers("weight")[int(rows.counts[:first].sum()):]
    if values.size and values.min() < 0:
        bad = int(np.argmin(values))
        raise InputError(f"{path}: line {rows.line(first + bad // ncon)}: negative weight {values[bad]}")
    values = values.reshape(n, ncon)
    check_weight_sums(str(path), values, "vertex weights")
    return values
