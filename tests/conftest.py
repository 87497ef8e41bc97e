"""Shared fixtures: generated graphs and the real inputs shipped in ``data/``."""

from pathlib import Path

import numpy as np
import pytest

from partkit.generators import grid2d
from partkit.metrics import edge_cut

DATA = Path(__file__).resolve().parents[1] / "data"


def package_modules():
    """Every module of ``partkit``, imported, but ``partkit.__main__`` (which runs the command line)."""
    import importlib
    import pkgutil

    import partkit

    return [importlib.import_module(module.name) for module in pkgutil.walk_packages(partkit.__path__, "partkit.")
            if module.name != "partkit.__main__"]


@pytest.fixture
def data_dir():
    """Path of the project's ``data/`` folder (real graphs and matrices, malformed files in ``bad/``)."""
    return DATA


@pytest.fixture
def grid():
    """A 30x20 grid graph with 2D coordinates."""
    return grid2d(30, 20)


@pytest.fixture
def metis_mean_cut():
    """``f(graph, k, seeds, imbalance=0.03)``: METIS 5's mean edge cut over the seeds, measured in this run.

    Quality tests compare with the live reference (pymetis, the ``compare`` extra), not with a number written
    down once: the same METIS k-way call the benchmarks make (``partkit.methods.metis``).
    """
    pytest.importorskip("pymetis")
    from partkit.methods.metis import partition

    def mean_cut(graph, k, seeds, imbalance=0.03):
        return float(np.mean([edge_cut(graph, partition(graph, k, imbalance=imbalance, seed=s)) for s in seeds]))

    return mean_cut
