"""Kernel of the distributed symmetry check: a fingerprint of the edge entries, either way round."""

import numpy as np

from partkit._jit import njit
from partkit._random import pair_draw, subkey

#: The stream of the fingerprint's hashes (any fixed key).
_SALT = 0x5EED_ED6E


@njit(cache=True)
def entry_fingerprints(first, xadj, adjncy, adjwgt):
    """Sums of a hash of every entry ``(v, u, w)`` of the block, and of its mirror ``(u, v, w)``.

    Returns an int64 array ``[forward low, forward high, mirror low,
    mirror high]``: the sums of the low and the high 31 bits of the 62-bit
    hashes (each sum fits an int64 for fewer than 2**32 entries). Summed
    over all ranks, the forward and the mirror sums are equal when every
    entry is listed from both ends with the same weight (the multiset of
    entries equals the multiset of mirrors); a graph that is not symmetric
    gives equal sums with probability about 2**-62.
    """
    sums = np.zeros(4, dtype=np.int64)
    low = np.int64((1 << 31) - 1)
    for row in range(xadj.size - 1):
        v = first + row
        for e in range(xadj[row], xadj[row + 1]):
            u = adjncy[e]
            key = subkey(_SALT, adjwgt[e])
            forward = pair_draw(key, v, u) >> 1
            mirror = pair_draw(key, u, v) >> 1
            sums[0] += forward & low
            sums[1] += forward >> 31
            sums[2] += mirror & low
            sums[3] += mirror >> 31
    return sums
