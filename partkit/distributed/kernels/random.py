"""Counter-based randomness for the kernels: a hash of (seed, global id, salt).

The same seed gives the same draws on every rank and for every rank count
that owns the vertex, because the draw depends on the vertex's global id,
not on a stream position.
"""

import numpy as np
from numba import njit


@njit(cache=True)
def mix(seed, a, b):
    """A 63-bit hash of three integers (SplitMix64 finaliser rounds)."""
    x = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(a)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9) + np.uint64(b)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    return np.int64(x >> np.uint64(1))


@njit(cache=True)
def batch_of(global_ids, batches, seed):
    """Batch number in ``[0, batches)`` of every vertex, from its global id."""
    batch = np.empty(global_ids.size, dtype=np.int64)
    for v in range(global_ids.size):
        batch[v] = mix(seed, global_ids[v], 7) % batches
    return batch
