"""Reading new vertex weights for repartitioning (``partkit repartition --weights``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from partkit.errors import InputError


def read_vertex_weights(path, n) -> np.ndarray:
    """Read ``n`` rows of non-negative integer vertex weights.

    Each non-comment line holds the ``ncon >= 1`` weights of one vertex,
    separated by blanks (one column: one weight per vertex; several columns:
    multi-constraint weights as in a METIS graph with ``fmt`` 10). Lines
    starting with ``%`` or ``#`` are comments. An optional first line
    ``n`` or ``n ncon`` (as in a METIS header) is recognised when the file
    has ``n + 1`` data lines.

    Returns
    -------
    numpy.ndarray of int64, shape (n, ncon)

    Raises
    ------
    InputError
        Naming the file, the line and the reason, for an unreadable file, a
        wrong number of rows or columns, or a weight that is not a
        non-negative integer.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="ascii")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a file") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text file of vertex weights") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    rows = [(number, line.split()) for number, line in enumerate(text.splitlines(), start=1)
            if not line.lstrip().startswith(("%", "#"))]
    while rows and not rows[-1][1]:
        rows.pop()
    if not rows:
        raise InputError(f"{path}: no vertex weights")
    if len(rows) == n + 1 and 1 <= len(rows[0][1]) <= 2 and len(rows) > 1:
        header = rows[0][1]
        width = len(rows[1][1])
        if header[0] == str(n) and (len(header) == 1 or header[1] == str(width)):
            rows = rows[1:]
    if len(rows) != n:
        raise InputError(f"{path}: {len(rows)} rows of weights for {n} vertices")
    ncon = len(rows[0][1])
    for number, tokens in rows:
        if len(tokens) != ncon:
            what = "an empty line" if not tokens else f"{len(tokens)} weights"
            raise InputError(f"{path}: line {number}: {what}, expected {ncon} (as on the first row)")
    flat = [token for _, tokens in rows for token in tokens]
    try:
        values = np.array(flat, dtype=np.int64)
    except (ValueError, OverflowError):
        bad = next(i for i, token in enumerate(flat) if not _is_int(token))
        raise InputError(f"{path}: line {rows[bad // ncon][0]}: weight {flat[bad]!r} is not an "
                         "integer") from None
    if values.size and values.min() < 0:
        bad = int(np.argmin(values))
        raise InputError(f"{path}: line {rows[bad // ncon][0]}: negative weight {values[bad]}")
    return values.reshape(n, ncon)


def _is_int(token):
    try:
        int(token)
    except ValueError:
        return False
    return abs(int(token)) < 2**63
