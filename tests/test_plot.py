from pathlib import Path

import numpy as np
import pytest

import partkit
from partkit.cli import main
from partkit.generators import delaunay, grid2d
from partkit.io import read_graph, write_partition
from partkit.layout import spectral_layout
from partkit.plot import plot_partition, spy_partition


def image_colours(path):
    import matplotlib.image

    pixels = matplotlib.image.imread(str(path))
    rgb = (pixels[..., :3] * 255).round().astype(np.int64)
    return pixels.shape, np.unique(rgb.reshape(-1, 3), axis=0).shape[0]


def test_plot_with_coordinates(tmp_path):
    g = grid2d(20, 20)
    part = partkit.partition(g, 4, "block")
    out = tmp_path / "grid.png"
    plot_partition(g, part, out, size=(4, 3))
    shape, colours = image_colours(out)
    assert shape[:2] == (300, 400) and colours > 4


def test_plot_without_coordinates_is_refused(tmp_path):
    g = grid2d(5, 5)
    g.coords = None
    with pytest.raises(partkit.InputError, match="no coordinates"):
        plot_partition(g, np.zeros(25, dtype=int), tmp_path / "x.png")


def test_spectral_layout_of_a_mesh_keeps_neighbours_close():
    g = delaunay(2000, seed=3)
    xy = spectral_layout(g)
    sources = np.repeat(np.arange(g.n), np.diff(g.xadj))
    edge_length = np.linalg.norm(xy[sources] - xy[g.adjncy], axis=1).mean()
    shuffled = np.random.default_rng(0).permutation(g.n)
    random_pairs = np.linalg.norm(xy - xy[shuffled], axis=1).mean()
    assert edge_length < 0.2 * random_pairs


def test_cli_plots_4elt_and_bcsstk13_spy(data_dir, tmp_path, capsys):
    for name, extra, kind in [("4elt.graph", ["--layout", "spectral"], "partition drawing"),
                              ("bcsstk13.mtx", [], "spy plot")]:
        graph = read_graph(data_dir / name)
        partfile = tmp_path / f"{name}.part"
        write_partition(partfile, partkit.partition(graph, 8, "block"))
        out = tmp_path / f"{name}.png"
        assert main(["plot", str(data_dir / name), str(partfile), "-o", str(out), *extra]) == 0
        assert kind in capsys.readouterr().out
        shape, colours = image_colours(out)
        assert shape[:2] == (800, 800) and colours > 8


def test_spy_partition(tmp_path):
    g = grid2d(10, 10)
    out = tmp_path / "spy.png"
    spy_partition(g, partkit.partition(g, 3, "block"), out, size=(3, 3))
    shape, colours = image_colours(out)
    assert shape[:2] == (300, 300) and colours > 3


def test_committed_pictures_of_4elt_and_bcsstk13():
    root = Path(__file__).resolve().parents[1] / "docs" / "img"
    for name in ("4elt_k8.png", "bcsstk13_k8_spy.png"):
        shape, colours = image_colours(root / name)
        assert shape[:2] == (800, 800) and colours > 8
