"""``njit`` for partkit's kernels: Numba's ``njit`` with one set of options for all of them.

Every kernel of partkit (the engine's ``partkit.multilevel.kernels``, the
methods', ordering's, balance's, the hypergraph's, the distributed stages',
the readers', the heap, the random streams, the graph check) imports
``njit`` from here, never from Numba; ``@njit(cache=True)`` then means
``@numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True)``, and options
given at the decorator (``inline="always"``, ...) are added. The options cut
the compile time of the first call in a process with an empty cache:

- ``nogil=True`` on every kernel, not only on those that run on threads:
  Numba compiles the library functions a kernel calls (``np.zeros``,
  ``np.full``, ``min``, array ``[:] =``) once per set of options of the
  calling kernels, so kernels with and without ``nogil`` compile each of
  them twice. Releasing the GIL is harmless for a kernel that holds no
  Python object.
- ``no_cfunc_wrapper=True``: Numba adds to every compiled function a
  C-callable wrapper, used only when the function is passed as a
  first-class function value to another compiled function, which no kernel
  does; it costs code to generate and optimize for every kernel.

Examples
--------
>>> import numpy as np
>>> from partkit._jit import njit
>>> @njit
... def total(a):
...     return a.sum()
>>> int(total(np.arange(4)))
6
"""

from __future__ import annotations

import numba

#: The options every kernel is compiled with (a decorator's own options take precedence).
KERNEL_OPTIONS = {"nogil": True, "no_cfunc_wrapper": True}


def njit(*args, **options):
    """``numba.njit`` with :data:`KERNEL_OPTIONS` added; used as ``@njit`` or ``@njit(cache=True, ...)``."""
    return numba.njit(*args, **{**KERNEL_OPTIONS, **options})
