"""Shared fixtures: generated graphs and the optional ../shared/data inputs."""

from pathlib import Path

import pytest

from partkit.generators import grid2d

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture
def shared_data():
    """Path of ../shared/data; the test is skipped when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


@pytest.fixture
def grid():
    """A 30x20 grid graph with 2D coordinates."""
    return grid2d(30, 20)
