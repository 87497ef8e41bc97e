"""The hypergraph model in the commands: ``--model`` / ``--vertex-weights`` and what they load."""

from __future__ import annotations

MODEL_CHOICES = ["graph", "hypergraph", "hypergraph-rows"]


def add_model_arguments(parser, what):
    """``--model`` and ``--vertex-weights``; ``what`` ends the ``--model`` help text."""
    parser.add_argument("--model", choices=MODEL_CHOICES, default="graph",
                        help="graph: edge cut of the symmetrised graph (default); hypergraph: column-net "
                             "model, rows are vertices, λ-1 = words a row-parallel SpMV sends (any matrix "
                             "shape; .hgr files too); hypergraph-rows: row-net model, columns are vertices "
                             f"(column partition, fold volume); {what}")
    parser.add_argument("--vertex-weights", choices=["nnz", "unit"],
                        help="hypergraph models: vertex weight = nonzeros of the row/column (SpMV work, "
                             "default for matrices and graphs) or 1 (default: an .hgr file's own weights)")


def load_hypergraph(args):
    """The hypergraph of ``args.file`` under ``args.model``."""
    from partkit.hypergraph.load import MODELS, read_hypergraph

    return read_hypergraph(args.file, model=MODELS[args.model], vertex_weights=args.vertex_weights,
                           ncommon=getattr(args, "ncommon", None))


def print_summary(h, result, extra=""):
    """The text report of a hypergraph partition (``result`` from ``partkit.hypergraph.metrics.summary``)."""
    print(f"{h.name}: n={h.n} nets={h.num_nets} pins={h.num_pins} k={result['k']}{extra}")
    print(f"  λ-1 {result['connectivity_minus_one']}  cut nets {result['cut_nets']}  "
          f"imbalance {result['imbalance']:.4f}  max part volume {result['max_volume']}  "
          f"empty parts {result['empty_parts']}")


def _boolean(text):
    words = {"true": True, "1": True, "false": False, "0": False}
    if text.lower() not in words:
        raise ValueError(text)
    return words[text.lower()]


def context_options(context, pairs, what):
    """``context`` (a frozen dataclass of parameters) with ``-O KEY=VALUE`` pairs applied.

    A value is parsed as the type of the field's current value (int, float,
    str, or bool: ``true``/``false``, ``1``/``0``); an unknown key or a value of the wrong type or sign is an
    :class:`~partkit.InputError` naming the option.
    """
    from dataclasses import fields, replace

    from partkit.errors import InputError

    kinds = {f.name: type(getattr(context, f.name)) for f in fields(context)}
    changes = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or key not in kinds:
            raise InputError(f"{what} has no option {pair!r} (KEY=VALUE with KEY one of: {', '.join(sorted(kinds))})")
        try:
            value = _boolean(text) if kinds[key] is bool else kinds[key](text)
        except ValueError:
            raise InputError(f"-O {pair}: {key} must be of type {kinds[key].__name__}") from None
        if isinstance(value, (int, float)) and not (0 <= value < 2**31):
            raise InputError(f"-O {pair}: {key} must be a non-negative number below 2**31")
        changes[key] = value
    return replace(context, **changes)
