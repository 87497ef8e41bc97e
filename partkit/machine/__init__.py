"""The machine: its processing elements and the distances between them (:mod:`partkit.machine.topology`)."""

from partkit.machine.topology import Machine, parse_machine

__all__ = ["Machine", "parse_machine"]
