"""Batches of vertices drawn from their global ids (partkit's counter-based streams).

The same seed gives the same batches on every rank and for every rank count
that owns the vertex, because the draw depends on the vertex's global id,
not on a stream position (:mod:`partkit._random`).
"""

import numpy as np

from partkit._jit import njit
from partkit._random import below


@njit(cache=True)
def batch_of(global_ids, batches, key):
    """Batch number in ``[0, batches)`` of every vertex: draw ``global_id`` of stream ``key``."""
    batch = np.empty(global_ids.size, dtype=np.int64)
    for v in range(global_ids.size):
        batch[v] = below(key, global_ids[v], batches)
    return batch
