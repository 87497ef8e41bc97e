"""The tokenizer of every text format: lines, tokens and numbers, on a uint8 buffer.

A line ends at ``\\n`` only (a ``\\r`` before it is blank); within a line,
tokens are separated by spaces, tabs and ``\\r``. Form feed, vertical tab
and the other control characters are neither line breaks nor separators,
so a token holding them is malformed. A *data line* is a line that is not
a comment (first non-blank character ``c1`` or ``c2``; pass -1 for none)
and, when ``skip_blank``, not blank. Numbers follow C, not Python: no
``_`` separators, no hexadecimal, no ``nan``.

Kernels take the buffer, the byte offset ``start`` where the section
begins and return plain values; the Python readers turn error codes into
messages (a *line offset* counts physical lines from ``start``).
"""

import re

import numpy as np

from partkit._jit import njit

NEWLINE = 10

#: Token kinds for :func:`check_entries`.
INDEX = 0     # digits only (Matrix Market indices)
INTEGER = 1   # [+-]digits
REAL = 2      # [+-](digits[.digits] | .digits)[(e|E)[+-]digits]

#: Error codes.
OK = 0
BAD_TOKEN = 1
OVERFLOW = 2
TOKEN_COUNT = 3
COMMENT = 4
EXTRA_LINE = 5

INT64_MAX = np.iinfo(np.int64).max
_TENTH = INT64_MAX // 10  # 922337203685477580; INT64_MAX ends in 7
_BLANKS = re.compile(r"[ \t\r]+")


def split_line(text):
    """The tokens of one line of text, as the kernels see them (for messages)."""
    return [token for token in _BLANKS.split(text) if token]


def line_tokens_of(data, line):
    """The tokens of line ``line`` (1-based) of ``data``, for an error message."""
    start = 0
    for _ in range(line - 1):
        start = data.index(b"\n", start) + 1
    end = data.find(b"\n", start)
    return split_line(bytes(data[start:end if end >= 0 else len(data)]).decode("ascii"))


@njit(cache=True)
def _is_blank(c):
    return c == 32 or c == 9 or c == 13


@njit(cache=True)
def _line_end(buf, i):
    while i < buf.size and buf[i] != NEWLINE:
        i += 1
    return i


@njit(cache=True)
def _skip_blanks(buf, i, end):
    while i < end and _is_blank(buf[i]):
        i += 1
    return i


@njit(cache=True)
def _token_end(buf, i, end):
    while i < end and not _is_blank(buf[i]):
        i += 1
    return i


@njit(cache=True)
def _digits(buf, i, j):
    """Index after the run of decimal digits starting at ``i`` (before ``j``)."""
    while i < j and 48 <= buf[i] <= 57:
        i += 1
    return i


@njit(cache=True, inline='always')
def _overflows(value, d):
    """Whether ``value * 10 + d`` (a digit) leaves int64."""
    return value >= _TENTH and (value > _TENTH or d > 7)


@njit(cache=True, inline='always')  # inlined into the readers' loops, as _entry_token
def parse_int(buf, i, j):
    """``(value, code)`` of the token ``buf[i:j]``: ``[+-]digits`` within int64.

    One pass, no division per digit (a METIS graph of 2^20 vertices parsed
    in about half the time): a non-digit anywhere is BAD_TOKEN, before
    OVERFLOW.
    """
    negative = False
    if i < j and (buf[i] == 45 or buf[i] == 43):
        negative = buf[i] == 45
        i += 1
    if i == j:
        return 0, BAD_TOKEN
    value = 0
    overflow = False
    for p in range(i, j):
        d = np.int64(buf[p]) - 48
        if d < 0 or d > 9:
            return 0, BAD_TOKEN
        if _overflows(value, d):
            overflow = True
        if not overflow:
            value = value * 10 + d
    if overflow:
        return 0, OVERFLOW
    return -value if negative else value, OK


@njit(cache=True)
def _is_real(buf, i, j):
    if i < j and (buf[i] == 45 or buf[i] == 43):
        i += 1
    k = _digits(buf, i, j)
    mantissa = k - i
    if k < j and buf[k] == 46:
        after = _digits(buf, k + 1, j)
        mantissa += after - k - 1
        k = after
    if mantissa == 0:
        return False
    if k < j and (buf[k] == 101 or buf[k] == 69):
        k += 1
        if k < j and (buf[k] == 45 or buf[k] == 43):
            k += 1
        exponent = _digits(buf, k, j)
        if exponent == k:
            return False
        k = exponent
    return k == j


@njit(cache=True)
def _is_data_line(buf, i, end, skip_blank, c1, c2):
    first = _skip_blanks(buf, i, end)
    if first == end:
        return not skip_blank
    return buf[first] != c1 and buf[first] != c2


@njit(cache=True)
def _count_tokens(buf, i, end):
    count = 0
    i = _skip_blanks(buf, i, end)
    while i < end:
        i = _skip_blanks(buf, _token_end(buf, i, end), end)
        count += 1
    return count


@njit(cache=True)
def line_tokens(buf, start, limit, skip_blank, c1, c2):
    """Tokens on each of the first ``limit`` data lines.

    Returns
    -------
    counts : int64 array, shape (limit,)
    found : int
        Data lines up to ``limit``, plus the non-blank data lines after it.
    extra : int
        Line offset of the first non-blank data line after ``limit`` of
        them, or -1.
    """
    counts = np.zeros(limit, dtype=np.int64)
    found = 0
    extra = -1
    line = 0
    i = start
    while i < buf.size:
        end = _line_end(buf, i)
        if _is_data_line(buf, i, end, skip_blank, c1, c2):
            tokens = _count_tokens(buf, i, end)
            if found < limit:
                counts[found] = tokens
                found += 1
            elif tokens:
                if extra < 0:
                    extra = line
                found += 1
        i = end + 1
        line += 1
    return counts, found, extra


@njit(cache=True)
def data_line_offset(buf, start, index, skip_blank, c1, c2):
    """Line offset of data line ``index`` (0-based), or -1 past the end."""
    found = 0
    line = 0
    i = start
    while i < buf.size:
        end = _line_end(buf, i)
        if _is_data_line(buf, i, end, skip_blank, c1, c2):
            if found == index:
                return line
            found += 1
        i = end + 1
        line += 1
    return -1


@njit(cache=True)
def parse_int_tokens(buf, start, total, skip_blank, c1, c2):
    """The first ``total`` tokens of the data lines as int64.

    Returns ``(values, bad, code)``: ``bad`` is the index of the first token
    that is not ``[+-]digits`` (code BAD_TOKEN) or leaves int64 (OVERFLOW),
    or -1.
    """
    values = np.empty(total, dtype=np.int64)
    token = 0
    i = start
    while i < buf.size and token < total:
        end = _line_end(buf, i)
        if _is_data_line(buf, i, end, skip_blank, c1, c2):
            p = _skip_blanks(buf, i, end)
            while p < end and token < total:
                q = _token_end(buf, p, end)
                value, code = parse_int(buf, p, q)
                if code != OK:
                    return values, token, code
                values[token] = value
                token += 1
                p = _skip_blanks(buf, q, end)
        i = end + 1
    return values, -1, OK


@njit(cache=True)
def first_bad_real(buf, start, skip_blank, c1, c2):
    """Index of the first token of the data lines that is not a decimal number, or -1."""
    token = 0
    i = start
    while i < buf.size:
        end = _line_end(buf, i)
        if _is_data_line(buf, i, end, skip_blank, c1, c2):
            p = _skip_blanks(buf, i, end)
            while p < end:
                q = _token_end(buf, p, end)
                if not _is_real(buf, p, q):
                    return token
                token += 1
                p = _skip_blanks(buf, q, end)
        i = end + 1
    return -1


@njit(cache=True)
def _restore_pluses(buf, pluses, signs):
    """Put back the ``+`` of the current line, so that an error message quotes its tokens as in the file."""
    for s in range(signs):
        buf[pluses[s]] = 43


@njit(cache=True, inline='always')
def _is_end(buf, j):
    """Whether a token ends at ``j``: the end of the buffer, a blank or a newline."""
    return j == buf.size or buf[j] == 32 or buf[j] == 9 or buf[j] == 13 or buf[j] == NEWLINE


@njit(cache=True, inline='always')
def _scan_digits(buf, j, keep, value):
    """``(end, value, overflow)`` of the digits from ``j``, added to ``value`` when ``keep``."""
    while j < buf.size and 48 <= buf[j] <= 57:
        if keep:
            d = buf[j] - 48
            if _overflows(value, d):
                return j, value, True
            value = value * 10 + d
        j += 1
    return j, value, False


@njit(cache=True, inline='always')  # inlined: about 1.5x faster
def _entry_token(buf, i, kind, keep):
    """``(end, value, code)`` of the token at ``i`` of ``kind`` (its value parsed when ``keep``)."""
    if kind == INDEX:  # the common case first: digits only
        j, value, overflow = _scan_digits(buf, i, keep, 0)
        if overflow:
            return j, 0, OVERFLOW
        return j, value, OK if j > i and _is_end(buf, j) else BAD_TOKEN
    j = i
    negative = False
    if buf[j] == 43 or buf[j] == 45:
        negative = buf[j] == 45
        j += 1
    digits = j
    j, value, overflow = _scan_digits(buf, j, keep and kind != REAL, 0)
    if overflow:
        return j, 0, OVERFLOW
    mantissa = j - digits
    if kind == REAL:
        if j < buf.size and buf[j] == 46:
            fraction = j + 1
            j, _, _ = _scan_digits(buf, fraction, False, 0)
            mantissa += j - fraction
        if mantissa and j < buf.size and (buf[j] == 101 or buf[j] == 69):
            j += 1
            if j < buf.size and (buf[j] == 43 or buf[j] == 45):
                j += 1
            exponent = j
            j, _, _ = _scan_digits(buf, exponent, False, 0)
            if j == exponent:
                return j, 0, BAD_TOKEN
    if mantissa == 0 or not _is_end(buf, j):
        return j, 0, BAD_TOKEN
    return j, -value if negative else value, OK


@njit(cache=True)
def _newlines(buf, start, end):
    """The line breaks in ``buf[start:end]``."""
    count = 0
    for i in range(start, end):
        count += buf[i] == NEWLINE
    return count


@njit(cache=True, nogil=True)
def _check_entries(buf, start, end, kinds, limit, ints, first):
    """:func:`check_entries` on the lines of ``buf[start:end]``, whose entries are ``first, first + 1, ...``."""
    per_line = kinds.size
    kept = ints.shape[0]  # the first tokens of a line, parsed into ints
    pluses = np.empty(per_line, dtype=np.int64)  # where a leading + became 0 on this line
    n = end
    entries = 0
    line = 0
    i = start
    while True:  # a line
        while i < n and _is_blank(buf[i]):
            i += 1
        if i == n or buf[i] == NEWLINE:  # blank
            if i == n:
                return entries, OK, 0, 0
            i += 1
            line += 1
            continue
        if buf[i] == 37:
            return entries, COMMENT, line, 0
        if entries == limit:
            return entries, EXTRA_LINE, line, 0
        count = 0
        signs = 0
        while True:  # a token at i, then the blanks after it
            if count < per_line:
                q, value, code = _entry_token(buf, i, kinds[count], count < kept)
                if code != OK:
                    _restore_pluses(buf, pluses, signs)
                    return entries, code, line, count
                if count < kept:
                    ints[count, first + entries] = value
                if buf[i] == 43:
                    buf[i] = 48
                    pluses[signs] = i
                    signs += 1
                i = q
            else:
                while not _is_end(buf, i):
                    i += 1
            count += 1
            while i < n and _is_blank(buf[i]):
                i += 1
            if i == n or buf[i] == NEWLINE:
                if count != per_line:
                    return entries, TOKEN_COUNT, line, count
                entries += 1
                if i == n:
                    return entries, OK, 0, 0
                i += 1
                line += 1
                break


def check_entries(buf, start, kinds, limit, kept=0):
    """Check the entry lines of a Matrix Market body, for a parser that trusts them, and parse its integers.

    Every non-blank line must hold one token of each of ``kinds``; comment
    lines are not allowed. A leading ``+`` of a value becomes ``0`` (in
    place: the buffer must be writable), so that a parser without ``+``
    reads the same value; on an error the line's ``+`` are put back, so
    that the message quotes the tokens as they are in the file (an index
    has no sign). The first ``kept`` tokens of every line (of an integer
    kind: the indices, and an integer value) are parsed. One pass, token by
    token; a body of a MiB or more is cut at line breaks into ranges checked
    at once on the threads in effect, and checked again in one range when
    one of them finds an error (the results do not depend on the threads).

    Returns
    -------
    entries : int
        Entry lines (counting stops at ``limit + 1``).
    code : int
        OK, TOKEN_COUNT, BAD_TOKEN, OVERFLOW (a parsed integer beyond int64),
        COMMENT or EXTRA_LINE (more than ``limit``).
    line : int
        Line offset of the error.
    token : int
        Index in its line of the bad token (BAD_TOKEN, OVERFLOW), or the token count (TOKEN_COUNT).
    ints : int64 array of shape (kept, entries)
        The parsed tokens, a column per entry.
    """
    from partkit._threads import chunk_count, run_calls

    start = min(start, buf.size)  # a size line without a newline ends the file: start is then past it
    nchunks = chunk_count((buf.size - start) >> 10)  # at least a MiB a range
    cuts = [start] + [_after_newline(buf, start + (buf.size - start) * c // nchunks) for c in range(1, nchunks)]
    cuts = sorted(set(cuts)) + [buf.size]
    if len(cuts) > 2:
        room = np.array([_newlines(buf, a, b) + 1 for a, b in zip(cuts[:-1], cuts[1:])])  # entries a range may hold
        firsts = np.concatenate([[0], np.cumsum(room)[:-1]])
        ints = np.empty((kept, int(room.sum())), dtype=np.int64)
        results = run_calls(_check_entries, [(buf, a, b, kinds, int(r), ints, int(f))
                                             for a, b, r, f in zip(cuts[:-1], cuts[1:], room, firsts)])
        found = np.array([entries for entries, _, _, _ in results])
        if all(code == OK for _, code, _, _ in results) and found.sum() <= limit:
            if np.array_equal(found[:-1], room[:-1]):  # no blank line before the last range: in place
                return int(found.sum()), OK, 0, 0, ints[:, :found.sum()]
            return int(found.sum()), OK, 0, 0, np.concatenate(
                [ints[:, f:f + e] for f, e in zip(firsts, found)], axis=1)
    ints = np.empty((kept, limit), dtype=np.int64)  # one range, or the exact first error
    entries, code, line, token = _check_entries(buf, start, buf.size, kinds, limit, ints, 0)
    return entries, code, line, token, ints[:, :entries]


def _after_newline(buf, i):
    """The position after the first line break at or after ``i`` (the end of ``buf`` when none)."""
    while i < buf.size:
        found = np.flatnonzero(buf[i:i + (1 << 16)] == NEWLINE)
        if found.size:
            return i + int(found[0]) + 1
        i += 1 << 16
    return buf.size
