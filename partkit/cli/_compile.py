"""The one-time compilation of the Numba kernels, told to the user on a terminal."""

from __future__ import annotations

import contextlib
import glob
import os
import sys


def kernels_cached():
    """Whether the multilevel kernels are in Numba's on-disk cache (a warm start).

    Looks for the cache index of the k-way FM kernel, which every
    multilevel run uses, where Numba keeps it (beside the module, or in
    ``NUMBA_CACHE_DIR``).
    """
    from partkit.multilevel.kernels.refinement_fm import fm_pass

    pattern = os.path.join(fm_pass._cache.cache_path, "refinement_fm.fm_pass-*.nbi")
    return bool(glob.glob(pattern))


@contextlib.contextmanager
def compile_notice(enabled, stream=None):
    """Say, before a cold first call, that the kernels compile once, and afterwards how long it took.

    Does nothing when ``enabled`` is false (not a terminal, ``--quiet`` or
    ``--json``) or when the kernels are already cached.
    """
    stream = sys.stderr if stream is None else stream
    if not enabled or kernels_cached():
        yield
        return
    from numba.core.event import install_timer

    print("partkit: compiling the Numba kernels on first use (once; later runs load them from the cache)",
          file=stream, flush=True)
    seconds = []
    with install_timer("numba:compile", seconds.append):
        yield
    if seconds:
        print(f"partkit: compiled the kernels in {seconds[0]:.1f} s", file=stream, flush=True)
