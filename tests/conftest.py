"""Shared fixtures: generated graphs and the real inputs shipped in ``data/``."""

from pathlib import Path

import pytest

from partkit.generators import grid2d

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def data_dir():
    """Path of the project's ``data/`` folder (real graphs and matrices, malformed files in ``bad/``)."""
    return DATA


@pytest.fixture
def grid():
    """A 30x20 grid graph with 2D coordinates."""
    return grid2d(30, 20)
