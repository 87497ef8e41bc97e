"""A writable Numba cache folder, or a temporary one with a note (read-only installs); whether a kernel is in it.

Kernels are ``@njit(cache=True)``: Numba refuses to even decorate them when
neither the package's ``__pycache__`` folders nor the user's cache folder
(``$XDG_CACHE_HOME/numba``, ``~/.cache/numba``) nor ``NUMBA_CACHE_DIR`` can be
written. Then partkit compiles into a private folder in the temporary
directory (``partkit-numba-cache-UID``, mode 0700, reused by later runs)
and says so on stderr.
"""

from __future__ import annotations

import glob
import os
import sys
import tempfile
from pathlib import Path


def _writable(folder) -> bool:
    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _candidates():
    if os.environ.get("NUMBA_CACHE_DIR"):
        return [Path(os.environ["NUMBA_CACHE_DIR"])]
    cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [Path(__file__).resolve().parent / "__pycache__", Path(cache_home) / "numba"]


def ensure_numba_cache() -> str | None:
    """Point Numba at a temporary cache folder when no usual one is writable; returns it, or None."""
    if any(_writable(folder) for folder in _candidates()):
        return None
    folder = _private_folder()
    os.environ["NUMBA_CACHE_DIR"] = folder
    if "numba" in sys.modules:
        sys.modules["numba"].config.CACHE_DIR = folder
    print(f"partkit: note: no writable Numba cache folder; caching compiled kernels in {folder} "
          "(set NUMBA_CACHE_DIR to choose the folder)", file=sys.stderr)
    return folder


def _private_folder():
    """``$TMPDIR/partkit-numba-cache-UID`` if it is ours (not a symlink, mode 0700), else a fresh one."""
    folder = os.path.join(tempfile.gettempdir(), f"partkit-numba-cache-{os.getuid()}")
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        info = os.lstat(folder)
        if os.path.islink(folder) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            return tempfile.mkdtemp(prefix="partkit-numba-cache-")
    except OSError:
        return tempfile.mkdtemp(prefix="partkit-numba-cache-")
    return folder


def in_cache(dispatcher) -> bool:
    """Whether the Numba kernel ``dispatcher`` has a compiled version in the on-disk cache.

    Reads the kernel's cache index where Numba keeps it (beside the module,
    or in ``NUMBA_CACHE_DIR``); an index written for another version of the
    source file counts as missing, as Numba then compiles again.
    """
    try:
        return bool(dispatcher._cache._cache_file._load_index())
    except Exception:  # noqa: BLE001 - Numba's private cache API moved: fall back to the index file
        name = dispatcher.py_func.__qualname__
        module = dispatcher.py_func.__module__.rsplit(".", 1)[-1]
        return bool(glob.glob(os.path.join(dispatcher._cache.cache_path, f"{module}.{name}-*.nbi")))
