"""The machine file: what ``partkit calibrate`` measured, read by ``estimate``, ``compare`` and ``measure``.

A JSON object with at least

* ``alpha``: message latency in seconds (finite, ``>= 0``);
* ``beta``: bandwidth in bytes per second (finite, ``> 0``);

and optionally ``overhead`` (seconds a rank spends on each halo message it
sends or receives, beyond ``alpha``; finite, ``>= 0``, default 0),
``allreduce_overhead`` (seconds an AllReduce call takes beyond its
algorithm's cost; finite, ``>= 0``, default 0), ``halo_start`` and
``allreduce_start`` (seconds a halo exchange and a phase of AllReduces pay
once; finite, ``>= 0``, default 0),
``topology`` (a name of :data:`partkit.collectives.TOPOLOGIES`), ``ports``
(a positive integer), ``pingpong_segments`` and ``halo_segments``
(piecewise fits ``[{"from": bytes, "alpha": s, "beta": B/s}, ...]`` of a
ping-pong message and of a halo-exchange message, see
:class:`partkit.machine.fit.Segments`), ``levels`` (one alpha-beta fit per level of the
machine's hierarchy), and the timings they were fitted to
(``pingpong``, ``collectives``, ...). Every number given is checked.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from partkit.errors import InputError

#: Fields every machine file must hold.
REQUIRED = ("alpha", "beta")


def _number(data, key, where, positive=False, optional=False):
    if key not in data:
        if optional:
            return
        raise InputError(f"{where}: missing field {key!r} (a machine file needs {', '.join(REQUIRED)}; "
                         "write one with: mpiexec -n 2 partkit calibrate -o machine.json)")
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{where}: field {key!r} must be a finite number, got {value!r}")
    if value < 0 or (positive and value == 0):
        kind = "positive" if positive else "non-negative"
        raise InputError(f"{where}: field {key!r} must be {kind}, got {value!r}")


def validate_machine(data, where="machine file") -> dict:
    """Check a machine description (a dict); return it. Raises :class:`InputError` naming the field."""
    from partkit.collectives import TOPOLOGIES

    if not isinstance(data, dict):
        raise InputError(f"{where}: must hold a JSON object, not {type(data).__name__}")
    _number(data, "alpha", where)
    _number(data, "beta", where, positive=True)
    _number(data, "overhead", where, optional=True)
    for key in ("allreduce_overhead", "halo_start", "allreduce_start"):
        _number(data, key, where, optional=True)
    if "topology" in data and data["topology"] not in TOPOLOGIES:
        raise InputError(f"{where}: topology {data['topology']!r} is not one of {', '.join(TOPOLOGIES)}")
    if "ports" in data:
        ports = data["ports"]
        if isinstance(ports, bool) or not isinstance(ports, int) or ports < 1:
            raise InputError(f"{where}: field 'ports' must be a positive integer, got {ports!r}")
    from partkit.machine.fit import Segments

    for key in ("pingpong_segments", "halo_segments"):
        if key in data:
            Segments.from_list(data[key], f"{where}: {key}")
    levels = data.get("levels", [])
    if not isinstance(levels, list):
        raise InputError(f"{where}: field 'levels' must be a list")
    for i, level in enumerate(levels):
        if not isinstance(level, dict):
            raise InputError(f"{where}: levels[{i}] must be an object")
        _number(level, "alpha", f"{where}: levels[{i}]")
        _number(level, "beta", f"{where}: levels[{i}]", positive=True)
    return data


def load_machine(path) -> dict:
    """Read and check a machine file.

    Raises
    ------
    InputError
        Unreadable file, not JSON, missing ``alpha``/``beta``, a negative or
        non-finite value, an unknown topology.
    """
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise InputError(f"{path}: cannot read machine file ({exc.strerror or exc})") from None
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a JSON machine file ({exc})") from None
    return validate_machine(data, str(path))


def write_machine(path, data):
    """Write a machine description (checked first) as indented JSON."""
    validate_machine(data, str(path))
    Path(path).write_text(json.dumps(data, indent=1) + "\n")
