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
