"""Tokenising text input: whitespace-separated integers, line by line."""

import numpy as np
from numba import njit

NEWLINE = 10


@njit(cache=True)
def _is_blank(c):
    # The ASCII characters str.split() treats as whitespace within a line.
    return c == 32 or c == 9 or 11 <= c <= 13 or 28 <= c <= 31


@njit(cache=True)
def count_tokens(buf, nlines):
    """Tokens on each of the ``nlines`` newline-separated lines of ``buf`` (uint8)."""
    counts = np.zeros(nlines, dtype=np.int64)
    line = 0
    inside = False
    for i in range(buf.size):
        c = buf[i]
        if c == NEWLINE:
            line += 1
            inside = False
        elif _is_blank(c):
            inside = False
        elif not inside:
            counts[line] += 1
            inside = True
    return counts


@njit(cache=True)
def parse_integers(buf, total):
    """Parse the ``total`` whitespace-separated tokens of ``buf`` as decimal int64.

    Returns
    -------
    values : int64 array, shape (total,)
    bad : int
        Index of the first token that is not ``[+-]digits`` with at most 18
        digits, or -1 when all are; values from that token on are unset.
    """
    values = np.empty(total, dtype=np.int64)
    token = -1
    inside = False
    value = 0
    sign = 1
    digits = 0
    for i in range(buf.size + 1):
        c = buf[i] if i < buf.size else NEWLINE
        if c == NEWLINE or _is_blank(c):
            if inside:
                if digits == 0 or digits > 18:
                    return values, token
                values[token] = sign * value
                inside = False
            continue
        if not inside:
            token += 1
            inside = True
            value = 0
            sign = 1
            digits = 0
            if c == 45 or c == 43:  # '-' or '+'
                sign = -1 if c == 45 else 1
                continue
        if 48 <= c <= 57:
            value = value * 10 + (c - 48)
            digits += 1
        else:
            return values, token
    return values, -1
