"""One level of coarsening by matching in one compiled call, for levels that run on one thread.

On a small level the kernels of a coarsening step take a few microseconds
each, and the Python between them (allocations, wrappers, the checks of
:func:`partkit.multilevel.coarsening.coarse_level`) as long again:
:func:`matched_level` makes the whole step, matching, coarse map and
contraction, in one call, with the same kernels and the same result.
"""

from partkit._jit import njit
from partkit.multilevel.kernels.coarsening_contraction import contract_one_range
from partkit.multilevel.kernels.coarsening_matching import matching_map, sequential_matching

#: What :func:`matched_level` did: contracted the matching, found it shrinks the graph too little for
#: coarsening to go on, or too little for a matching (label propagation is to cluster the level instead).
MATCHED, STALLED, TO_CLUSTER = 0, 1, 2


@njit(cache=True)
def matched_level(xadj, adjncy, adjwgt, vwgt, maxvw, group, key, matching_key, max_rounds, two_hop_share,
                  cluster_fallback, stall_ratio):
    """A coarsening step by matching and its contraction: ``(status, cmap, nc, cxadj, cadjncy, cadjwgt, cvwgt)``.

    The matching of stream ``matching_key``
    (:func:`kernels.coarsening_matching.sequential_matching`), its coarse
    map (:func:`kernels.coarsening_matching.matching_map`, visiting order
    of stream ``key``) and, when the map keeps at most ``cluster_fallback``
    and at most ``stall_ratio`` of the ``n`` vertices, the contraction
    (:func:`kernels.coarsening_contraction.contract_one_range`). ``status``
    is :data:`MATCHED`, else :data:`TO_CLUSTER` or :data:`STALLED` (checked
    in that order) with empty coarse arrays.
    """
    n = xadj.size - 1
    match = sequential_matching(xadj, adjncy, adjwgt, vwgt, maxvw, group, matching_key, max_rounds)
    cmap, nc = matching_map(xadj, adjncy, adjwgt, vwgt, maxvw, group, match, key, two_hop_share)
    status = MATCHED
    if nc > cluster_fallback * n:
        status = TO_CLUSTER
    elif nc > stall_ratio * n:
        status = STALLED
    if status != MATCHED:
        return status, cmap, nc, xadj[:0], adjncy[:0], adjwgt[:0], vwgt[:0]
    cxadj, cadjncy, cadjwgt, cvwgt = contract_one_range(xadj, adjncy, adjwgt, vwgt, cmap, nc)
    return status, cmap, nc, cxadj, cadjncy, cadjwgt, cvwgt
