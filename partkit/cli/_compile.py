"""The one-time compilation of the Numba kernels: said before it starts, timed apart from the work.

A command's first run in a fresh environment compiles the kernels of its
family (partition, order, hypergraph, distributed) for 10-20 s; later runs
load them from Numba's on-disk cache in well under a second. Whether a
family is cold is read from the cache indexes of kernels every run of it
uses (:data:`FAMILIES`); a cold family gets a notice on stderr on its own
line before the work, on a terminal and when piped, and the command prints
the compile time apart from the time of the work.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import time

from partkit._numba_cache import in_cache

#: The kernels of the reader of a file kind (:func:`partkit.io.file_kind`), compiled when a command
#: reads its input; the tokenizer for the kinds not named.
READERS = {
    "metis": (("partkit.io._text", "line_tokens"), ("partkit.io.metis", "fill_graph")),
    "matrixmarket": (("partkit.io._text", "_check_entries"), ("partkit.io.matrix_market", "_fill_rows")),
    None: (("partkit.io._text", "line_tokens"),),
}
#: The same for the parallel readers (:func:`partkit.distributed.read_graph`): a Matrix Market body is
#: checked and its indices parsed, its values never converted.
DISTRIBUTED_READERS = {**READERS, "matrixmarket": (("partkit.io._text", "_check_entries"),)}

_FM = ("partkit.multilevel.kernels.initial_fm", "bisection_tries")  # grown starts and 2-way FM
_LP = "partkit.multilevel.kernels.label_propagation"  # the engine's label propagation, a kernel per rating

#: Kernels that every run of a family compiles, as ``(module, function)``; the family is warm when
#: all of them are in Numba's cache. A partition method's own kernels are in :data:`METHOD_KERNELS`.
FAMILIES = {
    "partition": (),
    "order": (("partkit.ordering.kernels.amd", "approximate_minimum_degree"),  # separators: large graphs only
              ("partkit.ordering.kernels.symbolic", "column_counts")),
    "hypergraph": (("partkit.hypergraph.kernels.coarsening", "contract"),
                   ("partkit.hypergraph.kernels.initial", "grow_and_refine"),
                   ("partkit.hypergraph.kernels.refinement", "fm"), (_LP, "_km1_sweeps")),
    "distributed": (("partkit.distributed.kernels.clustering", "choose_clusters"),
                    ("partkit.distributed.kernels.refinement", "choose_moves"),
                    _FM),  # its stages, the serial engine's bisections
}

#: The kernels a graph partitioning method compiles on its first call (``--refine fm`` adds 2-way FM).
#: Every multilevel run bisects its coarsest graph; k > 2 adds the k-way FM of :data:`KWAY_KERNELS`.
METHOD_KERNELS = {
    "multilevel": (_FM,),
    "fm": (_FM,),
    "kl": (("partkit.methods.kernels.kl", "kl_refine"),),
    "labelprop": ((_LP, "_balance_sweeps"), (_LP, "_refine_sweeps")),
    "spectral": ((_LP, "_cluster_sweeps"),),
}
KWAY_KERNELS = (("partkit.multilevel.kernels.refinement_fm", "fm_pass"),)

#: A compilation that took longer than this is reported even when the family looked warm.
REPORT_SECONDS = 2.0


def family_kernels(family, file=None, method=None, refine=None, k=2):
    """The ``(module, function)`` pairs whose cache decides whether ``family`` is warm.

    ``file`` adds its reader's kernels; ``method``, ``refine`` and ``k``
    (for ``partition``) the method's.
    """
    kernels = FAMILIES[family]
    if file is not None:
        from partkit.io import file_kind

        readers = DISTRIBUTED_READERS if family == "distributed" else READERS
        kernels += readers.get(file_kind(file), readers[None])
    if family == "partition":
        kernels += METHOD_KERNELS.get(method, ()) + ((_FM,) if refine == "fm" else ())
        kernels += KWAY_KERNELS if method == "multilevel" and k > 2 else ()
    return kernels


def kernels_cached(family="partition", file=None, method="multilevel", refine=None, k=2):
    """Whether the kernels of ``family`` are in Numba's on-disk cache (a warm start).

    Reads the cache index of each kernel of :func:`family_kernels` where
    Numba keeps it (beside the module, or in ``NUMBA_CACHE_DIR``); an index
    written for another version of the source file counts as missing, as
    Numba then compiles again.
    """
    return all(in_cache(getattr(importlib.import_module(module), name))
               for module, name in family_kernels(family, file, method, refine, k))


def notice(message, stream=None):
    """Print ``message`` on stderr on a line of its own, ending a progress line first."""
    from partkit.cli._common import end_open_progress

    stream = sys.stderr if stream is None else stream
    if stream is sys.stderr:
        end_open_progress()
    print(message, file=stream, flush=True)


class Compilation:
    """The Numba compilation during a block: whether the family was cold, and the seconds so far.

    ``seconds`` is the wall time spent compiling (outermost compilations
    only: a kernel compiling the functions it calls counts once); loading
    from the cache is not compilation.
    """

    def __init__(self, family, cold):
        self.family, self.cold = family, cold
        self.seconds = 0.0
        self._depth, self._start = 0, 0.0

    def on_start(self):
        if self._depth == 0:
            self._start = time.perf_counter()
        self._depth += 1

    def on_end(self):
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.perf_counter() - self._start

    def clock(self):
        """A start mark for :meth:`work`."""
        return time.perf_counter(), self.seconds

    def work(self, since):
        """Seconds since the mark ``since`` of :meth:`clock`, without the compilation in them."""
        start, compiled = since
        return max(time.perf_counter() - start - (self.seconds - compiled), 0.0)

    def report(self):
        """The line that says how long the compilation took, or None when there is nothing to say."""
        if not (self.cold and self.seconds > 0) and self.seconds <= REPORT_SECONDS:
            return None
        return f"partkit: compiled the kernels in {self.seconds:.1f} s (once; later runs reuse them)"


@contextlib.contextmanager
def compiling(family, enabled=True, stream=None, **kernels):
    """Time the compilation of the block; say before it when the kernels of ``family`` are not cached.

    Yields a :class:`Compilation`. ``enabled`` false (``--quiet``, a rank
    other than 0) prints nothing; the time is kept either way. ``kernels``
    (``file=``, ``method=``, ``refine=``, ``k=``: see
    :func:`family_kernels`) name the input and the partition method.
    """
    from numba.core import event

    compilation = Compilation(family, not kernels_cached(family, **kernels))
    if enabled and compilation.cold:
        notice(f"partkit: compiling the {family} kernels on first use, which takes a while "
               "(once; later runs load them from the cache)", stream)
    with event.install_listener("numba:compile", _timer(event.Listener, compilation)):
        yield compilation


def _timer(listener, compilation):
    """A Numba event listener (``listener`` is Numba's base class, imported late) feeding ``compilation``."""

    class Timer(listener):
        def on_start(self, event):
            compilation.on_start()

        def on_end(self, event):
            compilation.on_end()

    return Timer()


def report_compilation(compilation, quiet=False, stream=None):
    """Say on stderr how long the compilation took (:meth:`Compilation.report`), unless ``quiet``."""
    line = compilation.report()
    if line is not None and not quiet:
        notice(line, stream)
