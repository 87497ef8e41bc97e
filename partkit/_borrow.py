"""Borrowed arrays: array views without a reference count, for the hot loops of the range kernels.

Numba counts references to every array it passes to a compiled function
that it does not inline: the callee increments the count of each array
argument on entry and decrements it on exit, with atomic instructions.
A kernel that calls a helper such as
:func:`partkit.multilevel.kernels.refinement_moves.best_move` once per
vertex pays two atomic operations per array argument per vertex (three
times the rating itself), and threads working on the same arrays contend
for the cache lines of the counts. A borrowed view (the same data, shape
and strides, no count) makes those operations no-ops, as in the loop
bodies of Numba's own ``prange``.

A borrowed view must not outlive the array it borrows from. Borrow only
a kernel's arguments (its caller holds them for the whole call), never an
array the kernel allocates itself (Numba frees that after its last use,
which may come before the view's), and never return or store a view.
"""

from numba.core import cgutils, types
from numba.extending import intrinsic


@intrinsic
def borrow(typingctx, array):
    """A view of ``array`` without a reference count (see the module docstring); None stays None (the cut's
    objective data, :mod:`partkit.multilevel.kernels.objectives`)."""
    if isinstance(array, types.NoneType):
        return array(array), lambda context, builder, signature, args: args[0]

    def codegen(context, builder, signature, args):
        view = context.make_array(array)(context, builder, value=args[0])
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        return view._getvalue()

    return array(array), codegen
