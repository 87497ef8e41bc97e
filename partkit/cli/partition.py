"""``partkit partition``: partition a graph file into k parts."""

from __future__ import annotations

import argparse
import sys
import warnings

from partkit.cli import EXIT_INFEASIBLE, EXIT_OK
from partkit.cli._compile import compiling, report_compilation
from partkit.cli._common import (MAX_COUNT, add_graph_arguments, coordinates_file, end_progress, integer,
                                 is_mesh_file, load_input, method_options, output_path, print_json,
                                 progress_printer, real)
from partkit.cli._hypergraph import add_model_arguments, context_options, load_hypergraph, print_summary
from partkit.cli._machine import add_machine_arguments, has_machine, machine_of


def register(subparsers):
    """Add the ``partition`` subcommand."""
    from partkit.methods import DEFAULT_METHOD, METHODS
    from partkit.methods.options import OPTIONS, TARGETS, describe

    methods = "; ".join(f"{name}: {description}" for name, (_, description) in METHODS.items())
    parser = subparsers.add_parser(
        "partition", help="partition a graph into k parts",
        description="Partition a graph into k balanced parts with a small edge cut and write one "
                    f"part id per line. Methods: {methods}.")
    add_graph_arguments(parser)
    parser.add_argument("-k", "--parts", dest="k", type=integer(1, MAX_COUNT), required=True, help="number of parts")
    add_model_arguments(parser, "the hypergraph models use partkit's multilevel hypergraph partitioner "
                                "(minimising λ-1; --preset and -O KEY=VALUE set its parameters)")
    parser.add_argument("--method", choices=list(METHODS),
                        help=f"partitioning method of the graph model (default {DEFAULT_METHOD})")
    parser.add_argument("--imbalance", type=real(0),
                        help="allowed imbalance, a fraction below 1: max part weight <= (1 + imbalance) * average "
                             "(default 0.03; METIS's tolerance 1.05 is --ubvec 1.05)")
    parser.add_argument("--seed", type=integer(0), default=0, help="random seed (default 0)")
    for name, help in (("preset", "speed/quality trade-off, for methods that have one"),
                       ("refine", "refine a bisection method's result with FM")):
        choices = next(o.choices for options in OPTIONS.values() for o in options if o.name == name)
        parser.add_argument(f"--{name}", choices=[c for c in choices if c is not None], help=help)
    for option, metavar, example in ((TARGETS[0], "F,F,...", " (e.g. 0.5,0.25,0.25; F:F per part with several "
                                                              "constraints)"),
                                     (TARGETS[1], "U,...", "")):
        takers = " and ".join(method for method, options in OPTIONS.items() if option in options)
        parser.add_argument(f"--{option.name}", type=fractions, metavar=metavar,
                            help=f"{option.help}{example}; methods {takers}")
    parser.add_argument("--threads", type=integer(0, 4096), default=None, metavar="N",
                        help="threads of the multilevel method (default: every core this process may use; "
                             "the partition is the same for any N)")
    parser.add_argument("--fixed", metavar="FILE",
                        help="fixed vertices: a partition file with the part of every fixed vertex and -1 for a "
                             "free one; every fixed vertex ends in its part")
    parser.add_argument("--contiguous", action="store_true",
                        help="make every part connected, as METIS -contig (the graph must be connected)")
    parser.add_argument("--objective", choices=["cut", "volume"], default="cut",
                        help="minimise the edge cut (default) or the total communication volume "
                             "(METIS -objtype=vol)")
    add_machine_arguments(parser, "place the parts on a machine: part i runs on processing element i, and the "
                                  "multilevel method lowers the mapping cost J = sum over cut edges of weight x "
                                  "distance between their PEs (docs/mapping.md)")
    parser.add_argument("-O", "--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a method option, e.g. -O nstarts=8 -O init=greedy (repeatable). "
                             + describe().replace("%", "%%"))
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="partition file (default FILE.part.K). A mesh input gets element and node parts: "
                             "FILE.epart.K and FILE.npart.K (FILE.nodal.epart.K and FILE.nodal.npart.K with "
                             "--mesh-graph nodal), plus the mesh with the part as cell and point data when OUT has "
                             "a mesh suffix (.vtu, .vtk, .xdmf: also OUT's .h5); any other OUT gets the parts of "
                             "the graph's vertices (elements, or nodes with --mesh-graph nodal) and OUT.npart "
                             "(OUT.epart) the others, unless OUT is a device or pipe")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--quiet", action="store_true", help="no progress messages")
    parser.set_defaults(func=run)


def run(args):
    """Partition, write the partition file, print the metrics (under mpiexec: :mod:`partkit.cli.distributed`)."""
    from partkit.errors import InputError
    from partkit.methods.options import check_imbalance

    if args.imbalance is not None and args.ubvec is not None:
        raise InputError("give --imbalance or --ubvec, not both (--ubvec 1.05 is --imbalance 0.05 per constraint)")
    args.imbalance = 0.03 if args.imbalance is None else check_imbalance(args.imbalance)
    if args.model != "graph":
        return run_hypergraph(args)
    from partkit.api import partition_report
    from partkit.io import read_partition, write_mesh_partition, write_partition
    from partkit.methods import COORDINATE_METHODS, DEFAULT_METHOD

    from partkit._threads import keep_freed_memory

    keep_freed_memory()  # a process that partitions and exits: see partkit._threads
    args.method = args.method or DEFAULT_METHOD
    machine = machine_of(args, k=args.k) if has_machine(args) else None
    if machine is not None and args.method != DEFAULT_METHOD:
        raise InputError(f"a machine (--hierarchy, --topology) needs method {DEFAULT_METHOD}; to place the parts "
                         f"of --method {args.method}, run partkit map on its partition file")
    outputs = output_files(args)
    with compiling("partition", not args.quiet, file=args.file, method=args.method, refine=args.refine,
                   k=args.k) as compiled:
        graph, mesh = load_input(args, coordinates=args.method in COORDINATE_METHODS)
        if "mesh" in outputs:
            mesh.cell_blocks()  # untyped elements are refused before the work
        printer = progress_printer(args.quiet or args.json)
        flags = {"preset": args.preset, "refine": args.refine, "threads": args.threads, "tpwgts": args.tpwgts,
                 "ubvec": args.ubvec, "topology": machine}
        options = method_options(args.method, flags, args.option, printer)
        fixed = None if args.fixed is None else read_partition(args.fixed, graph.n, args.k, free=True)
        start = compiled.clock()
        graph, part, report = partition_report(graph, args.k, args.method, imbalance=args.imbalance,
                                               seed=args.seed, fixed=fixed, contiguous=args.contiguous,
                                               objective=args.objective, **options)
    seconds = compiled.work(start)
    end_progress(printer)
    report_compilation(compiled, args.quiet)
    if mesh is None:
        write_partition(outputs["part"], part)
    else:
        epart, npart = mesh.parts(part, args.mesh_graph, args.k)
        for kind, values in (("epart", epart), ("npart", npart)):
            if kind in outputs:
                write_partition(outputs[kind], values)
        if "mesh" in outputs:
            write_mesh_partition(outputs["mesh"], mesh, epart, npart)
    output = ", ".join(outputs.values())
    warning, bound, balanced = (report.pop(key) for key in ("warning", "imbalance_bound", "balanced"))
    result = {"file": args.file, **report, "method": args.method, "imbalance_bound": bound, "balanced": balanced,
              "seconds": seconds, "compile_seconds": compiled.seconds, "output": output}
    if machine is not None:
        from partkit.mapping import mapping_cost

        result.update(machine=machine.name, J=mapping_cost(graph, part, machine))
    if args.json:
        print_json(result)
    else:
        print(f"{graph.name}: n={graph.n} m={graph.m} k={args.k} method={args.method}")
        print(f"  cut {result['cut']}  imbalance {result['imbalance']:.4f}  volume {result['volume']}  "
              f"time {seconds:.3f} s")
        if machine is not None:
            print(f"  mapping cost J {result['J']:.0f} on {machine.name} (part i on processing element i)")
        print(f"  wrote {output}")
    if warning is not None:
        print(f"partkit: warning: {warning}", file=sys.stderr)
    return EXIT_OK if warning is None else EXIT_INFEASIBLE


def output_files(args):
    """The files ``partition`` writes, by kind ("part"; or "epart", "npart", "mesh", "h5" for a mesh), checked.

    See the help of ``-o``: a mesh input writes element and node parts (named
    apart for the nodal graph, so that a dual and a nodal run keep both), an
    OUT with a mesh suffix adds the mesh (and the HDF5 file of XDMF), another
    OUT holds the parts of the partitioned graph's vertices.
    """
    import os
    from pathlib import Path

    from partkit.errors import InputError
    from partkit.io import check_output
    from partkit.io.meshes import check_mesh_output

    inputs = [args.file, coordinates_file(args)]
    mesh_output = args.output is not None and is_mesh_file(args.output)
    if mesh_output and not is_mesh_file(args.file):
        raise InputError(f"-o {args.output}: a mesh output needs a mesh input, not {args.file}")
    if not is_mesh_file(args.file):
        return {"part": output_path(args, f"{args.file}.part.{args.k}", inputs)}
    if args.output is not None and not mesh_output:
        own, other = ("epart", "npart") if args.mesh_graph == "dual" else ("npart", "epart")
        outputs = {own: output_path(args, None, inputs)}
        if os.path.isfile(args.output) or not os.path.exists(args.output):  # not a device or pipe
            check_output(f"{args.output}.{other}", inputs=inputs, option="-o")
            outputs[other] = f"{args.output}.{other}"
        return outputs
    tag = "" if args.mesh_graph == "dual" else ".nodal"
    outputs = {kind: output_path(argparse.Namespace(output=None), f"{args.file}{tag}.{kind}.{args.k}", inputs)
               for kind in ("epart", "npart")}
    if mesh_output:
        check_mesh_output(args.output, inputs)
        outputs["mesh"] = args.output
        if args.output.lower().endswith((".xdmf", ".xmf")):  # meshio writes the arrays beside it
            outputs["h5"] = str(Path(args.output).with_suffix(".h5"))
            check_output(outputs["h5"], inputs=inputs, option="-o")
    return outputs


def fractions(text):
    """An argparse type: comma-separated positive numbers, ``:`` between the constraints of one part."""
    rows = [[float(x) for x in part.split(":")] for part in text.split(",")]
    if len({len(row) for row in rows}) != 1:
        raise argparse.ArgumentTypeError(f"{text!r}: every part needs as many values")
    return rows if len(rows[0]) > 1 else [row[0] for row in rows]


fractions.__name__ = "list of numbers"


def run_hypergraph(args):
    """Partition the hypergraph model with :func:`partkit.hypergraph.partition`."""
    from partkit.errors import InfeasibleBalanceWarning, InputError
    from partkit.hypergraph import partition
    from partkit.hypergraph.metrics import summary
    from partkit.hypergraph.partitioner import PRESETS
    from partkit.io import write_partition

    for given, option in ((args.method, "--method"), (args.refine, "--refine"), (args.coords, "--coords"),
                          (args.tpwgts, "--tpwgts"), (args.ubvec, "--ubvec"), (args.fixed, "--fixed"),
                          (args.contiguous or None, "--contiguous"),
                          (None if args.objective == "cut" else args.objective, "--objective"),
                          (args.hierarchy or args.topology or args.distance_file, "a machine (--hierarchy, --topology)")):
        if given is not None:
            raise InputError(f"{option} applies to the graph model, not --model {args.model}")
    context = context_options(PRESETS[args.preset or "default"], args.option, f"--model {args.model}")
    output = output_path(args, f"{args.file}.part.{args.k}", [args.file])
    with warnings.catch_warnings(record=True) as caught, \
            compiling("hypergraph", not args.quiet, file=args.file) as compiled:
        h = load_hypergraph(args)
        warnings.simplefilter("always", InfeasibleBalanceWarning)
        start = compiled.clock()
        part = partition(h, args.k, imbalance=args.imbalance, seed=args.seed, context=context)
    seconds = compiled.work(start)
    report_compilation(compiled, args.quiet)
    infeasible = [w for w in caught if issubclass(w.category, InfeasibleBalanceWarning)]
    write_partition(output, part)
    result = {"file": args.file, "model": args.model, **summary(h, part, args.k),
              "imbalance_bound": args.imbalance, "balanced": not infeasible, "seconds": seconds,
              "compile_seconds": compiled.seconds, "output": output}
    if args.json:
        print_json(result)
    else:
        print_summary(h, result, f" model={args.model}")
        print(f"  time {seconds:.3f} s")
        print(f"  wrote {output}")
    for warning in infeasible:
        print(f"partkit: warning: {warning.message}", file=sys.stderr)
    return EXIT_INFEASIBLE if infeasible else EXIT_OK
