"""Reading an input once: files, pipes, ``/dev/stdin`` and gzip, with a size cap.

Every reader gets the whole (decompressed) content from :func:`read_source`
in one pass, so a pipe or process substitution works like a file. A
compressed or non-regular source is read in chunks and refused as soon as
it grows past what its header can need (a gzip bomb costs a few MiB, not
GiB).
"""

from __future__ import annotations

import os
import stat
import zlib
from pathlib import Path

import numpy as np

from partkit.errors import InputError

CHUNK = 1 << 20
#: Decompressed bytes handed to a format's header parser to learn the size cap.
HEAD = 1 << 20
#: Bytes one token (with its separator) may take in a well-formed file, and the slack for comments.
BYTES_PER_TOKEN = 64
SLACK = 1 << 20


def token_budget(tokens) -> int:
    """Largest content size a file of ``tokens`` tokens plausibly has (comments and spacing included)."""
    return SLACK + BYTES_PER_TOKEN * int(tokens)


def base_name(path) -> str:
    """The file name without a ``.gz`` suffix."""
    name = Path(path).name
    return name[:-3] if name.endswith(".gz") else name


def read_source(path, budget=None) -> bytearray:
    """The content of ``path``, decompressed when it is gzip (by magic bytes), as a writable buffer.

    Parameters
    ----------
    path : str or path-like
    budget : callable, optional
        ``budget(head) -> int or None``: the largest plausible size given the
        first bytes ``head`` of the content. A compressed or non-regular
        source that grows past it is refused.

    Raises
    ------
    InputError
        Missing, unreadable, a directory, a corrupt gzip stream, too large,
        or not ASCII text.
    """
    try:
        with open(path, "rb") as handle:
            regular = stat.S_ISREG(os.fstat(handle.fileno()).st_mode)
            data = _read_all(path, handle, regular, budget)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a file") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None
    view = np.frombuffer(data, dtype=np.uint8)
    if view.size and view.max() > 127:
        first = int(np.argmax(view > 127))
        line = data.count(b"\n", 0, first) + 1
        raise InputError(f"{path}: line {line}: not a text file (byte {view[first]:#04x})")
    return data


def _read_all(path, handle, regular, budget):
    if regular:  # one buffer of the file's size, filled in place
        data = bytearray(os.fstat(handle.fileno()).st_size)
        filled = handle.readinto(data)
        if data[:2] != b"\x1f\x8b":
            return data if filled == len(data) else data[:filled] + handle.read()
        handle.seek(0)
    first = handle.read(CHUNK)
    if first[:2] != b"\x1f\x8b":
        return _capped(path, _raw_chunks(handle, first), budget, "")
    return _capped(path, _gunzip(handle, first), budget, "decompresses to ")


def _raw_chunks(handle, first):
    chunk = first
    while chunk:
        yield chunk
        chunk = handle.read(CHUNK)


def _gunzip(handle, first):
    """Decompressed chunks of (possibly multi-member) gzip data, at most CHUNK at a time."""
    raw = first
    inflater = zlib.decompressobj(wbits=31)
    pending = False
    while raw:
        while raw:
            pending = True
            out = inflater.decompress(raw, CHUNK)
            raw = inflater.unconsumed_tail
            if inflater.eof:
                pending = False
                raw = inflater.unused_data + raw
                inflater = zlib.decompressobj(wbits=31)
            if out:
                yield out
        raw = handle.read(CHUNK)
    tail = inflater.flush()
    if tail:
        yield tail
    if pending and not inflater.eof:
        raise EOFError("compressed file ended before the end-of-stream marker was reached")


def _capped(path, chunks, budget, verb):
    data = bytearray()
    limit = None
    for chunk in chunks:
        data += chunk
        if limit is None and budget is not None and len(data) >= HEAD:
            limit = budget(bytes(data[:HEAD]))
        if limit is not None and len(data) > limit:
            raise InputError(f"{path}: {verb}more than {limit} bytes, more than its header "
                             "can need (refused before reading further)")
    if limit is None and budget is not None:
        limit = budget(bytes(data))
        if limit is not None and len(data) > limit:
            raise InputError(f"{path}: {verb}more than {limit} bytes, more than its header can need")
    return data
