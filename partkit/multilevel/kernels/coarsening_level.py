"""One level of coarsening by matching in one compiled call, for levels that run on one thread.

On a small level the kernels of a coarsening step take a few microseconds
each, and the Python between them (allocations, wrappers) as long again:
:func:`matched_level` makes the whole step, matching, coarse map and
contraction, in one call, with the same kernels and the same result
(:func:`partkit.multilevel.coarsening.matched` calls it).
"""

from partkit._jit import njit
from partkit.multilevel.kernels.coarsening_contraction import contract_one_range
from partkit.multilevel.kernels.coarsening_matching import matching_map, sequential_matching

@njit(cache=True)
def matched_level(xadj, adjncy, adjwgt, vwgt, maxvw, group, key, matching_key, max_rounds, two_hop_share):
    """A coarsening step by matching and its contraction: ``(cmap, nc, cxadj, cadjncy, cadjwgt, cvwgt)``.

    The matching of stream ``matching_key``
    (:func:`kernels.coarsening_matching.sequential_matching`), its coarse
    map (:func:`kernels.coarsening_matching.matching_map`, visiting order
    of stream ``key``) and the contraction
    (:func:`kernels.coarsening_contraction.contract_one_range`).
    """
    match = sequential_matching(xadj, adjncy, adjwgt, vwgt, maxvw, group, matching_key, max_rounds)
    cmap, nc = matching_map(xadj, adjncy, adjwgt, vwgt, maxvw, group, match, key, two_hop_share)
    cxadj, cadjncy, cadjwgt, cvwgt = contract_one_range(xadj, adjncy, adjwgt, vwgt, cmap, nc)
    return cmap, nc, cxadj, cadjncy, cadjwgt, cvwgt
