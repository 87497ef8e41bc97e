"""Random permutations inside Numba kernels without a call or an allocation per draw.

A Mersenne Twister (MT19937) state kept in a uint64 array, seeded and drawn
exactly as Numba's ``np.random.seed`` and ``np.random.permutation`` do, so a
kernel that keeps its own state makes the same permutations as the global
generator would, at a fraction of the cost in tight loops (2-way FM passes).
"""

import numpy as np
from numba import njit

STATE_SIZE = 625  # 624 words and the read position

_MASK32 = np.uint64(0xFFFFFFFF)


@njit(cache=True)
def seed_state(mt, seed):
    """Seed the Mersenne Twister state ``mt`` (uint64 array of 625: 624 words and
    the index) exactly as ``np.random.seed(seed)`` seeds Numba's generator."""
    s = np.uint64(seed) & _MASK32
    for pos in range(624):
        mt[pos] = s
        s = (np.uint64(1812433253) * (s ^ (s >> np.uint64(30))) + np.uint64(pos + 1)) & _MASK32
    mt[624] = 624


@njit(cache=True)
def fill_permutation(order, mt):
    """Fill ``order`` with a random permutation of ``0..n-1`` drawn from the state ``mt``.

    Makes exactly the draws of ``np.random.permutation(n)`` in Numba (a
    Fisher-Yates shuffle of ``arange(n)`` with ``np.random.randint(i + 1)``,
    masked rejection sampling), so after :func:`seed_state` it gives the same
    permutation as ``np.random.seed`` followed by ``np.random.permutation``,
    without the call per draw and the allocation.
    """
    n = order.size
    for i in range(n):
        order[i] = i
    idx = np.int64(mt[624])
    i = n - 1
    while i > 0:
        nbits = 0
        x = i
        while x > 0:
            nbits += 1
            x >>= 1
        # 32-bit draws; more than 32 bits take the high word first
        words = 1 if nbits <= 32 else 2
        while True:
            r = np.uint64(0)
            for w in range(words):
                if idx >= 624:
                    # regenerate the 624 words (the reference MT19937 twist)
                    for q in range(624):
                        y = (mt[q] & np.uint64(0x80000000)) | (mt[(q + 1) % 624] & np.uint64(0x7FFFFFFF))
                        z = mt[(q + 397) % 624] ^ (y >> np.uint64(1))
                        if y & np.uint64(1):
                            z ^= np.uint64(0x9908B0DF)
                        mt[q] = z
                    idx = 0
                y = mt[idx]
                idx += 1
                y ^= y >> np.uint64(11)
                y ^= (y << np.uint64(7)) & np.uint64(0x9D2C5680)
                y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
                y ^= y >> np.uint64(18)
                y &= _MASK32
                if words == 1:
                    r = y & (_MASK32 >> np.uint64(32 - nbits))
                elif w == 0:
                    r = (y & (_MASK32 >> np.uint64(64 - nbits))) << np.uint64(32)
                else:
                    r |= y
            if np.int64(r) <= i:
                break
        j = np.int64(r)
        t = order[i]
        order[i] = order[j]
        order[j] = t
        i -= 1
    mt[624] = idx
