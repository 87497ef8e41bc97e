"""The machine description options (``--hierarchy``, ``--distance``, ``--topology``, ``--distance-file``)."""

from __future__ import annotations


def add_machine_arguments(parser, what):
    """Add the four options that describe a machine (:func:`partkit.machine.parse_machine`)."""
    group = parser.add_argument_group(
        "machine", f"{what}; k must equal its number of processing elements (PEs)")
    group.add_argument("--hierarchy", metavar="A1:A2:..",
                       help="a1 PEs share the innermost level, a2 such groups the next, ... (KaHIP/SharedMap: "
                            "4:8 is 8 nodes of 4 cores)")
    group.add_argument("--distance", metavar="D1:D2:..",
                       help="with --hierarchy: the distance between two PEs whose first common level is i")
    group.add_argument("--topology", metavar="KIND[:EXTENTS]",
                       help="torus2d:4x8, torus3d:4x4x4, mesh2d:.., mesh3d:.., ring:N, fattree:A1xA2.., full:N "
                            "(hop distances); without extents (torus3d) they are chosen for k")
    group.add_argument("--distance-file", metavar="FILE",
                       help="k lines of k distances (symmetric, zero diagonal)")


def has_machine(args):
    """Whether any machine option was given."""
    return any(getattr(args, name) is not None for name in ("hierarchy", "distance", "topology", "distance_file"))


def machine_of(args, k=None, topology=None):
    """The :class:`partkit.machine.Machine` of the options (its PEs checked against ``k`` when given).

    ``topology`` (a machine file's) is used when no option describes the machine.
    """
    from partkit.machine import parse_machine

    return parse_machine(hierarchy=args.hierarchy, distance=args.distance,
                         topology=topology if not has_machine(args) else args.topology,
                         distance_file=args.distance_file, k=k)
