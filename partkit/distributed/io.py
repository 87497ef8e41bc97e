"""Parallel reading: every rank reads only its own byte range of the file.

A METIS graph file is split into ``size`` byte ranges of its body; each
rank moves its range's start forward to the next line start, so the ranges
are whole lines and every vertex line is read by exactly one rank. The
ranks own the vertices of the lines they read (``vtxdist`` from the line
counts), so the blocks hold about equal numbers of bytes, hence of edges.
A Matrix Market file is split the same way into entry lines; the entries
then travel (Alltoallv) to the ranks owning their rows in an even split.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

from partkit.distributed.comm import Channel
from partkit.distributed.graph import DistributedGraph, agree
from partkit.distributed.halo import owner_of
from partkit.distributed.kernels.contraction import merge_edges
from partkit.io import file_kind
# the serial readers' tokenizer, body kernels and messages
from partkit.io._text import OK, check_entries, data_line_offset, line_tokens, line_tokens_of
from partkit.io.matrix_market import _Header, _parse_banner, _parse_graphblas_type, entry_problem, outside_problem
from partkit.io.metis import PERCENT, fill_graph, fill_problem
from partkit.io.metis import _parse_header as _parse_metis_header

_HEAD_BYTES = 1 << 16


def read_graph(comm, path):
    """Read this rank's row block of a METIS graph or Matrix Market file.

    No rank reads more than its share of the file (plus the header and one
    partial line). METIS files keep their weights (one vertex weight
    constraint); a Matrix Market matrix gives the graph of the symmetrised
    pattern ``A + A^T`` without the diagonal, with unit weights.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    path : str or path-like
        ``.graph`` (METIS) or ``.mtx`` (Matrix Market coordinate); not compressed.

    Returns
    -------
    DistributedGraph

    Raises
    ------
    InputError
        On every rank, naming the file and line, when the file is malformed.
    """
    channel = Channel(comm)
    path = Path(path)
    problem = None
    if not path.is_file():
        problem = f"{path}: no such file"
    elif path.suffix == ".gz":
        problem = f"{path}: compressed files cannot be read by byte ranges; decompress it first"
    agree(channel, problem)
    kind = file_kind(path)
    if kind == "mesh":
        agree(channel, f"{path}: METIS meshes are not read in parallel; convert to a graph first")
    with open(path, "rb") as handle:
        if kind == "matrixmarket":
            return _read_matrix_market(channel, path, handle)
        return _read_metis(channel, path, handle)


# ------------------------------------------------------------ byte ranges
def _header(path, handle, is_header):
    """(line number, text, body offset) of the first line satisfying ``is_header``."""
    handle.seek(0)
    offset, number = 0, 0
    while True:
        line = handle.readline(_HEAD_BYTES)
        if not line:
            return None, None, offset
        number += 1
        offset += len(line)
        if is_header(line):
            return number, line.rstrip(b"\n").decode("ascii", errors="replace"), offset


def _my_lines(channel, handle, body_start):
    """This rank's whole lines of the body.

    Returns
    -------
    data : bytes
    lines : int
        Number of lines in ``data`` (a last line without a newline counts).
    before : int
        Lines of the body held by the lower ranks (for line numbers in errors).
    """
    size = os.fstat(handle.fileno()).st_size
    body = size - body_start
    start = body_start + body * channel.rank // channel.size
    if channel.rank > 0 and start < size:
        handle.seek(start - 1)
        start += len(handle.readline()) - 1  # to the next line start
    starts, _ = channel.allgather(np.array([min(start, size)]))
    end = int(starts[channel.rank + 1]) if channel.rank + 1 < channel.size else size
    start = int(starts[channel.rank])
    handle.seek(start)
    data = handle.read(max(end - start, 0))
    newlines = data.count(b"\n")
    lines = newlines + (1 if data and not data.endswith(b"\n") else 0)
    before = int(channel.exscan(np.array([lines]))[0])
    return data, lines, before


# ------------------------------------------------------------------- METIS
def _read_metis(channel, path, handle):
    number, header, body_start = _header(path, handle, lambda line: line.strip() and not line.lstrip().startswith(b"%"))
    if header is None:
        agree(channel, f"{path}: empty file")
    n, m, has_size, has_vwgt, has_ewgt, ncon = _parse_metis_header(path, number, header)
    if has_vwgt and ncon > 1:
        agree(channel, f"{path}: {ncon} vertex weight constraints; the distributed partitioner takes one")
    data, lines, before = _my_lines(channel, handle, body_start)
    buf = np.frombuffer(data, dtype=np.uint8)
    counts, nlines, _ = line_tokens(buf, 0, max(lines, 1), False, PERCENT, -1)  # the vertex lines: no comments
    counts = counts[:nlines]

    def line_number(i):  # in the file, of this rank's vertex line i
        return number + before + 1 + data_line_offset(buf, 0, i, False, PERCENT, -1)

    sizes, _ = channel.allgather(np.array([nlines]))
    first = int(sizes[:channel.rank].sum())
    # lines past the n-th may only be blank (trailing empty lines)
    surplus = max(0, min(nlines, first + nlines - n))
    problem = None
    if surplus and np.any(counts[nlines - surplus:]):
        problem = f"{path}: line {line_number(nlines - surplus)}: the header declares {n} vertices, found more vertex lines"
    if problem is None and sizes.sum() < n:
        problem = f"{path}: the header declares {n} vertices, found {int(sizes.sum())} vertex lines"
    lead = int(has_size) + (ncon if has_vwgt else 0)
    step = 2 if has_ewgt else 1
    mine = nlines - surplus
    counts = counts[:mine]
    bad = np.flatnonzero((counts < lead) | ((counts - lead) % step != 0))
    if problem is None and bad.size:
        problem = (f"{path}: line {line_number(int(bad[0]))}: expected {lead} vertex field(s) then "
                   f"{'(neighbour, weight) pairs' if has_ewgt else 'neighbours'}, found {counts[bad[0]]} tokens")
    agree(channel, problem)
    owned = np.clip(n - (np.cumsum(sizes) - sizes), 0, sizes)
    vtxdist = np.concatenate([[0], np.cumsum(owned)]).astype(np.int64)
    xadj = np.zeros(mine + 1, dtype=np.int64)
    np.cumsum((counts - lead) // step, out=xadj[1:])
    del counts
    adjncy = np.empty(xadj[-1], dtype=np.int64)
    adjwgt = np.empty(xadj[-1] if has_ewgt else 0, dtype=np.int64)
    leads = np.empty((mine, lead), dtype=np.int64)
    code, vertex, token, value = fill_graph(buf, 0, has_ewgt, xadj, adjncy, adjwgt, leads, n, first)
    if code != OK:
        line = data_line_offset(buf, 0, vertex, False, PERCENT, -1) + 1
        problem = fill_problem(path, number + before + line, line_tokens_of(data, line), code, token, value,
                               has_size, n)
    agree(channel, problem)
    entries = int(channel.allreduce(np.array([adjncy.size]))[0])
    if entries != 2 * m:
        agree(channel, f"{path}: the header declares {m} edges, the adjacency lists hold {entries} entries")
    vwgt = leads[:, int(has_size)].copy() if has_vwgt else None
    return DistributedGraph(vtxdist, xadj, adjncy, vwgt, adjwgt if has_ewgt else None, name=path.name)


# ----------------------------------------------------------- Matrix Market
def _read_matrix_market(channel, path, handle):
    handle.seek(0)
    fmt, field, symmetry = _parse_banner(path, handle.readline(_HEAD_BYTES).decode("ascii", errors="replace"))
    if fmt != "coordinate":
        agree(channel, f"{path}: line 1: only coordinate Matrix Market files are read in parallel")
    handle.seek(0)
    for number, line in enumerate(iter(lambda: handle.readline(_HEAD_BYTES), b""), start=1):
        if line.lower().startswith(b"%%graphblas type"):
            _parse_graphblas_type(path, number, line.decode("ascii", errors="replace"), field, symmetry)
        if line.strip() and not line.lstrip().startswith(b"%"):
            break
    number, header, body_start = _header(path, handle, lambda line: line.strip() and not line.lstrip().startswith(b"%"))
    sizes = header.split() if header else []
    if len(sizes) != 3 or not all(s.isdigit() for s in sizes):
        agree(channel, f"{path}: line {number}: size line must be 'rows columns entries'")
    nrows, ncols, nnz = map(int, sizes)
    if nrows != ncols:
        agree(channel, f"{path}: matrix is {nrows}x{ncols}; a graph needs a square matrix")
    header = _Header(fmt, field, symmetry, None, (nrows, ncols, nnz), number, body_start)
    data, _, before = _my_lines(channel, handle, body_start)
    buf = np.frombuffer(bytearray(data), dtype=np.uint8)  # writable: check_entries may rewrite a '+'
    # the serial reader's check of the entry lines; it parses their two indices
    entries, code, offset, token, ij = check_entries(buf, 0, header.kinds, nnz, 2)
    problem = None
    if code != OK:
        line = offset + 1
        problem = entry_problem(path, header, code, number + before + line, line_tokens_of(data, line), token)
    agree(channel, problem)  # before the count: a rank's count stops at its first bad line
    total = int(channel.allreduce(np.array([entries]))[0])
    if total != nnz:
        problem = f"{path}: the size line declares {nnz} entries, found {total}"
    outside = np.flatnonzero((ij < 1) | (ij > nrows))
    if problem is None and outside.size:
        line = data_line_offset(buf, 0, int(outside[0]) % max(entries, 1), True, -1, -1) + 1
        problem = f"{path}: {outside_problem(header, number + before + line, line_tokens_of(data, line))}"
    agree(channel, problem)
    del data, buf
    ij = ij[:, ij[0] != ij[1]] - 1
    # both directions of every entry, with a unit weight, to the owners of their sources, merged there
    ones = np.ones(ij.shape[1], dtype=np.int64)
    edges = np.concatenate([np.stack([ij[0], ij[1], ones], axis=1), np.stack([ij[1], ij[0], ones], axis=1)])
    del ij, ones
    vtxdist = (np.arange(channel.size + 1, dtype=np.int64) * nrows) // channel.size
    received, _, _, _ = channel.route(owner_of(vtxdist, edges[:, 0]), edges)
    del edges
    first = int(vtxdist[channel.rank])
    xadj, adjncy, _ = merge_edges(received, first, int(vtxdist[channel.rank + 1]) - first)
    return DistributedGraph(vtxdist, xadj, adjncy, None, None, name=path.name)


def write_partition(comm, path, part):
    """Write the one partition file: every rank its own lines, at its offset, then one rename.

    Rank 0 creates a temporary file beside ``path``; each rank writes the
    text of its part ids at the byte offset that the ranks before it fill
    (an exclusive prefix sum of the text sizes), so the file lists the
    vertices in global order; after a barrier rank 0 syncs it and renames
    it over ``path`` atomically. An interrupted run never leaves a
    truncated partition file in place of a good one.
    """
    channel = Channel(comm)
    path = Path(path)
    ids = np.asarray(part, dtype=np.int64)
    text = ("\n".join(map(str, ids.tolist())) + "\n" if ids.size else "").encode("ascii")
    offset = int(channel.exscan(np.array([len(text)]))[0])
    temporary, problem = None, None
    if channel.rank == 0:
        try:
            descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
            os.close(descriptor)
        except OSError as exc:
            problem = f"{path}: cannot write ({exc.strerror})"
    agree(channel, problem)
    temporary = comm.bcast(temporary, root=0)
    descriptor = os.open(temporary, os.O_WRONLY)
    try:
        os.pwrite(descriptor, text, offset)
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    comm.Barrier()
    if channel.rank == 0:
        os.replace(temporary, path)
    comm.Barrier()
