"""hMETIS hypergraph files (``.hgr``): read and write.

The format (hMETIS manual, also read by PaToH, KaHyPar and Mt-KaHyPar):
``%`` lines are comments; the header is ``nets vertices [fmt]``; then one
line per net with its pins numbered from 1, preceded by the net's weight
when ``fmt`` is 1 or 11; then, when ``fmt`` is 10 or 11, one line per
vertex with its weight.

Examples
--------
>>> import tempfile, os
>>> from partkit.hypergraph import Hypergraph, read_hgr, write_hgr
>>> h = Hypergraph.from_nets(3, [[0, 1], [1, 2]], vwgt=[1, 2, 1])
>>> path = os.path.join(tempfile.mkdtemp(), "h.hgr")
>>> write_hgr(path, h)
>>> print(open(path).read(), end="")
2 3 10
1 2
2 3
1
2
1
>>> read_hgr(path).pins.tolist()
[0, 1, 1, 2]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from partkit.errors import InputError
from partkit.hypergraph.model import Hypergraph

FORMATS = (0, 1, 10, 11)


def read_hgr(path, name=None) -> Hypergraph:
    """Read an hMETIS ``.hgr`` file; malformed content raises :class:`partkit.InputError`."""
    path = Path(path)
    name = name or path.name
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None
    lines = [line for line in text.splitlines() if not line.startswith("%")]
    if not "".join(lines).strip():
        raise InputError(f"{path}: empty file, expected the header 'nets vertices [fmt]'")
    header = _integers(path, lines[0], "the header")
    if len(header) not in (2, 3) or min(header) < 0:
        raise InputError(f"{path}: header must be 'nets vertices [fmt]' with non-negative counts")
    nnets, n = header[0], header[1]
    fmt = header[2] if len(header) == 3 else 0
    if fmt not in FORMATS:
        raise InputError(f"{path}: fmt {fmt} is not one of {', '.join(map(str, FORMATS))}")
    expected = 1 + nnets + (n if fmt >= 10 else 0)
    while len(lines) > expected and not lines[-1].strip():  # blank lines at the end (an empty net is a blank line)
        lines.pop()
    if len(lines) != expected:
        raise InputError(f"{path}: {len(lines) - 1} lines after the header, expected {expected - 1}")
    net_lines = lines[1:1 + nnets]
    sizes = np.array([len(line.split()) for line in net_lines], dtype=np.int64)
    tokens = _integers(path, " ".join(net_lines), "the nets")
    starts = np.concatenate([[0], np.cumsum(sizes)])[:-1]
    net_cost = None
    if fmt in (1, 11):
        if np.any(sizes == 0):
            raise InputError(f"{path}: a net line has no weight")
        net_cost = tokens[starts]
        keep = np.ones(tokens.size, dtype=bool)
        keep[starts] = False
        tokens, sizes = tokens[keep], sizes - 1
    if tokens.size and (tokens.min() < 1 or tokens.max() > n):
        raise InputError(f"{path}: pin outside [1, {n}]")
    vwgt = None
    if fmt >= 10:
        vwgt = _integers(path, " ".join(lines[1 + nnets:]), "the vertex weights")
        if vwgt.size != n:
            raise InputError(f"{path}: expected one weight on each of the {n} vertex lines")
    net_ptr = np.concatenate([[0], np.cumsum(sizes)])
    try:
        return Hypergraph(n, net_ptr, tokens - 1, vwgt=vwgt, net_cost=net_cost, name=name)
    except InputError as exc:
        raise InputError(f"{path}: {str(exc).split(': ', 1)[-1]}") from None


def _integers(path, text, what) -> np.ndarray:
    try:
        return np.array(text.split(), dtype=np.int64)
    except (ValueError, OverflowError):
        raise InputError(f"{path}: {what} must be integers") from None


def write_hgr(path, h: Hypergraph, fmt=None) -> None:
    """Write ``h`` as an hMETIS ``.hgr`` file.

    Parameters
    ----------
    path : str or Path
    h : Hypergraph
    fmt : {0, 1, 10, 11}, optional
        Default: the smallest format that keeps every non-unit weight
        (1: net weights, 10: vertex weights, 11: both).
    """
    if fmt is None:
        fmt = (1 if np.any(h.net_cost != 1) else 0) + (10 if np.any(h.vwgt != 1) else 0)
    if fmt not in FORMATS:
        raise InputError(f"{path}: fmt {fmt} is not one of {', '.join(map(str, FORMATS))}")
    pins = (h.pins + 1).astype(str)
    lines = [f"{h.num_nets} {h.n}" + (f" {fmt}" if fmt else "")]
    for e in range(h.num_nets):
        net = pins[h.net_ptr[e]:h.net_ptr[e + 1]]
        lines.append(" ".join([str(h.net_cost[e]), *net] if fmt in (1, 11) else net))
    if fmt >= 10:
        lines.extend(h.vwgt.astype(str))
    Path(path).write_text("\n".join(lines) + "\n")
