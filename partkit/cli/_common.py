"""Helpers shared by the subcommands: loading inputs, options, output, progress."""

from __future__ import annotations

import json
import sys



#: Largest count (tasks, bins, parts) a command accepts: beyond it the arrays would not fit in memory.
MAX_COUNT = 10**8


def integer(low, high=2**63 - 1):
    """An argparse type: a decimal integer in ``[low, high]`` (no ``_`` separators, no exponent)."""
    import argparse
    import re

    def parse(text):
        if not re.fullmatch(r"[+-]?[0-9]+", text.strip()):
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer")
        value = int(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is outside [{low}, {high}]")
        return value

    parse.__name__ = "integer"
    return parse


def real(low=float("-inf")):
    """An argparse type: a finite number, at least ``low``."""
    import argparse
    import math

    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if "_" in text or not math.isfinite(value) or value < low:
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number of at least {low:g}")
        return value

    parse.__name__ = "number"
    return parse


def add_graph_arguments(parser):
    """Arguments every command that reads a graph accepts."""
    parser.add_argument("file", help="graph: Matrix Market (.mtx, .mtx.gz), METIS graph (.graph), METIS mesh "
                                     "(.mesh) or a mesh meshio reads (.msh, .vtu, .vtk, .xdmf, .exo; needs "
                                     "partkit[mesh]); a mesh is partitioned as its dual or nodal graph")
    parser.add_argument("--coords", metavar="FILE",
                        help="coordinates, one vertex per line (for a METIS mesh: one node per line); "
                             "default for a graph file, where the method or command uses them (rcb, "
                             "inertial, plot): FILE's name with .xyz for its suffix, when that exists "
                             "(what partkit generate writes)")
    parser.add_argument("--edge-weights", choices=["unit", "abs"], default="unit",
                        help="Matrix Market only: unit edge weights (default) or from |a_ij|")
    parser.add_argument("--ncommon", type=integer(1), metavar="N",
                        help="mesh only: nodes two elements share to be adjacent (default: a shared facet, "
                             "an edge in 2-D and a face in 3-D, by element type)")
    parser.add_argument("--mesh-graph", choices=["dual", "nodal"], default="dual",
                        help="mesh only: a vertex per element (dual, default) or per node (nodal)")


def output_path(args, default, inputs):
    """The output file of ``-o`` (or ``default`` when not given), checked before any work.

    A default derived from a stream input (``/dev/stdin``, ``<(...)``) goes
    to the current folder instead of next to the stream.
    """
    import os

    from partkit.io import check_output

    output = args.output
    if output is None:
        source = str(inputs[0])
        if not os.path.isfile(source) or source.startswith(("/dev/", "/proc/")):
            default = os.path.basename(default)
        output = default
    check_output(output, inputs=inputs, option="-o" if args.output is not None else "output")
    return output


def is_mesh_file(path):
    """Whether ``path`` names a mesh file (METIS ``.mesh`` or a meshio format) by its suffix."""
    from partkit.io import file_kind

    return file_kind(path) in ("mesh", "meshio")


def load_graph(args, coordinates=False):
    """Read the graph named by the arguments of :func:`add_graph_arguments` (see :func:`load_input`)."""
    return load_input(args, coordinates)[0]


def coordinates_file(args):
    """The coordinates file of the arguments: ``--coords``, else the ``.xyz`` file beside a graph file
    (same name, ``.xyz`` for its suffix, as ``partkit generate`` writes it) when it exists, else None.

    A mesh carries its own node coordinates (or takes ``--coords``), so none is looked for beside it.
    """
    import os
    from pathlib import Path

    if args.coords is not None or is_mesh_file(args.file):
        return args.coords
    beside = Path(args.file).with_suffix(".xyz")
    return str(beside) if beside != Path(args.file) and os.path.isfile(beside) else None


def load_input(args, coordinates=False):
    """``(graph, mesh)``: the graph of the arguments of :func:`add_graph_arguments`, and the mesh it came
    from (a :class:`partkit.io.Mesh`, or None for a graph or matrix file).

    A graph file gets the coordinates of ``--coords``, and with ``coordinates`` (a command that uses them)
    those of :func:`coordinates_file` beside it: reading them took longer than partitioning for some
    methods (a Delaunay graph of 2^20 vertices: 0.5 s of text)."""
    from partkit.errors import InputError
    from partkit.io import read_any_mesh, read_graph

    if not is_mesh_file(args.file):
        if args.mesh_graph != "dual":
            raise InputError(f"--mesh-graph applies to mesh files, not {args.file}")
        coords = coordinates_file(args) if coordinates else args.coords
        try:
            return read_graph(args.file, edge_weights=None if args.edge_weights == "unit" else "abs",
                              coords=coords, ncommon=args.ncommon), None
        except InputError as exc:
            if coords is None or args.coords is not None or str(coords) not in str(exc):
                raise
            raise InputError(f"{exc} (the coordinates beside {args.file}; --coords names another file)") from None
    import warnings

    from partkit.io.meshes import MeshWarning

    mesh = read_any_mesh(args.file, coords=args.coords, untyped=args.ncommon is not None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", MeshWarning)
        graph = mesh.graph(args.mesh_graph, args.ncommon)
    for warning in caught:
        print(f"partkit: warning: {warning.message}", file=sys.stderr)
    return graph, mesh


def method_options(method, flags, pairs, progress=None):
    """The options of ``method`` from CLI flags (``None``: not given) and ``-O KEY=VALUE`` pairs.

    Checked against :data:`partkit.methods.options.OPTIONS`; ``progress`` is
    passed to the methods that take it.
    """
    from partkit.methods.options import accepts, parse_cli, validate

    options = validate(method, {name: value for name, value in flags.items() if value is not None})
    options.update(parse_cli(method, pairs))
    if progress is not None and accepts(method, "progress"):
        options["progress"] = progress
    return options


def print_json(payload):
    """Print one JSON object on one line."""
    print(json.dumps(payload, sort_keys=False))


#: Whether a progress line without its newline is on the terminal (a notice must clear it first).
_progress_open = False


def progress_printer(quiet):
    """A callable printing phase messages on a TTY stderr, or None when quiet or piped."""
    if quiet or not sys.stderr.isatty():
        return None

    def report(message):
        global _progress_open
        sys.stderr.write(f"\r\033[K{message}")
        sys.stderr.flush()
        _progress_open = True

    return report


def end_progress(printer):
    """Clear the progress line, if one was printed."""
    if printer is not None:
        end_open_progress()


def end_open_progress():
    """Clear the progress line on the terminal, if one is open (before a line of its own on stderr)."""
    global _progress_open
    if _progress_open:
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()
        _progress_open = False
