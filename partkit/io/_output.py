"""Writing outputs safely: checked before the work, complete or not at all.

:func:`check_output` is called before anything is computed, so a bad ``-o``
costs nothing. :func:`write_text` writes a regular file through a
temporary file in the same folder and a rename (an interrupted write never
leaves a partial file at the path; the temporary file is removed on any
exception, and by :func:`remove_pending` when the CLI's SIGINT or SIGTERM
handler ends the process); it follows symlinks to
their target, writes devices and pipes (``/dev/null``, ``/dev/stdout``)
directly, keeps an existing file's mode and gives a new file the mode the
umask allows.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from partkit.errors import InputError


def _is_special(path):
    """True when ``path`` exists (after symlinks) and is not a regular file."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


#: Temporary files being written, for a signal handler that ends the process at once.
PENDING = set()


def _temporary_name(folder):
    return os.path.join(folder, f".partkit-{secrets.token_hex(6)}.tmp")


def remove_pending():
    """Remove the temporary files of writes in progress (called before an immediate exit)."""
    for temporary in list(PENDING):
        try:
            os.unlink(temporary)
        except OSError:
            pass


def check_output(path, inputs=(), option="-o"):
    """Refuse an output path that cannot be written, before any work is done.

    Raises
    ------
    InputError
        When ``path`` is one of ``inputs``, a directory, in a missing or
        unwritable folder, or not writable.
    """
    name = f"{option} {path}"
    for source in inputs:
        if source is not None and os.path.exists(path) and os.path.exists(source) \
                and os.path.samefile(path, source) and not _is_special(path):
            raise InputError(f"{name}: is the input file {source}; choose another output")
    if os.path.isdir(path):
        raise InputError(f"{name}: is a directory")
    if _is_special(path):
        if not os.access(path, os.W_OK):
            raise InputError(f"{name}: permission denied")
        return
    target = Path(os.path.realpath(path))
    if not target.parent.is_dir():
        raise InputError(f"{name}: folder {target.parent} does not exist")
    if len(target.name.encode()) > os.pathconf(target.parent, "PC_NAME_MAX"):
        raise InputError(f"{name}: file name too long")
    if target.exists() and not os.access(target, os.W_OK):
        raise InputError(f"{name}: permission denied")
    probe = _temporary_name(target.parent)
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as exc:
        raise InputError(f"{name}: cannot write in {target.parent} ({exc.strerror})") from None
    os.unlink(probe)


def _new_file_mode():
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_text(path, text) -> None:
    """Write ``text`` to ``path``: atomically for a regular file, directly for a device or pipe."""
    if _is_special(path):
        with open(path, "w") as handle:
            handle.write(text)
        return
    target = os.path.realpath(path)
    mode = stat.S_IMODE(os.stat(target).st_mode) if os.path.exists(target) else _new_file_mode()
    temporary = _temporary_name(os.path.dirname(target))
    PENDING.add(temporary)
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        raise
    finally:
        PENDING.discard(temporary)
