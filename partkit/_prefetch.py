"""Software prefetch: ask the CPU to bring an array element into the cache before it is read.

A loop that reaches memory through an index it has just read (a vertex's
partner, then its adjacency) waits for each miss in turn; touching the
addresses some iterations ahead lets the misses overlap. A prefetch never
faults, so an index past the end is harmless.

Only graphs of more than :data:`MIN_VERTICES` vertices are prefetched: on
smaller ones the arrays read at random stay in the cache and the prefetch
loops only cost instructions (the matching, whose loop does least per
neighbour, sets a higher bound of its own). The size is tested once, before a kernel's
loop, and the prefetches of an iteration run under ``if fetch:`` (the same
test as an early return inside an inlined helper made the contraction of
small graphs twice as slow). A kernel that calls an inlined prefetch
helper passes it borrowed views of its arrays (:mod:`partkit._borrow`):
otherwise every call pays reference counting on each array, which made
the matching of a 2^20-vertex mesh 20 % slower instead of 12 % faster.
"""

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from partkit._jit import njit


@intrinsic
def prefetch(typingctx, array, index):
    """Prefetch element ``index`` of the contiguous ``array`` (flat index) for reading.

    Examples
    --------
    A sum over ``values[order[i]]`` that fetches the entry four steps ahead:

    >>> import numpy as np
    >>> from partkit._jit import njit
    >>> @njit
    ... def gathered_sum(values, order):
    ...     s = 0
    ...     for i in range(order.size):
    ...         if i + 4 < order.size:
    ...             prefetch(values, order[i + 4])
    ...         s += values[order[i]]
    ...     return s
    >>> int(gathered_sum(np.arange(10), np.array([9, 3, 5, 0, 2, 2, 7])))
    28
    """

    def codegen(context, builder, signature, args):
        data = context.make_array(array)(context, builder, value=args[0]).data
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                            "llvm.prefetch")
        address = builder.bitcast(builder.gep(data, [args[1]]), i8p)
        builder.call(fn, [address, i32(0), i32(3), i32(1)])  # read, keep in all levels, data cache
        return context.get_dummy_value()

    return types.void(array, types.intp), codegen


#: Graphs with at most this many vertices are not prefetched (their vertex arrays fit in a core's cache).
MIN_VERTICES = 1 << 16

#: How many iterations ahead a loop prefetches the last read of a chain (an entry per neighbour);
#: the reads that lead to it go twice (the adjacency and weights) and four times (the ``xadj`` entry)
#: as far ahead.
AHEAD = 4


@njit(cache=True, inline="always")
def prefetch_adjacency(xadj, adjncy, adjwgt, vwgt, per_vertex, vertices, i, end):
    """In a loop over ``vertices[i]`` (``i < end``) in random order: prefetch, along one chain of reads,
    what the iterations ahead of ``i`` will read of their vertex (its ``xadj`` entry, then its adjacency
    and weights), and the entries of ``per_vertex`` (the parts, the matching, ...) at its neighbours.
    Call it only on graphs of more than :data:`MIN_VERTICES` vertices, testing that before the loop."""
    if i + 4 * AHEAD < end:
        prefetch(xadj, vertices[i + 4 * AHEAD])
    if i + 2 * AHEAD < end:
        start = xadj[vertices[i + 2 * AHEAD]]
        prefetch(adjncy, start)
        prefetch(adjwgt, start)
        prefetch(vwgt, vertices[i + 2 * AHEAD] * vwgt.shape[1])
    prefetch_neighbours(xadj, adjncy, per_vertex, vertices, i, end)


@njit(cache=True, inline="always")
def prefetch_neighbours(xadj, adjncy, per_vertex, vertices, i, end):
    """The last link of :func:`prefetch_adjacency`'s chain alone: the entries of ``per_vertex`` at the
    neighbours of ``vertices[i + AHEAD]``, for a loop that reads a second per-vertex array there."""
    if i + AHEAD < end:
        v = vertices[i + AHEAD]
        for e in range(xadj[v], xadj[v + 1]):
            prefetch(per_vertex, adjncy[e])
