"""The method options table: in step with the methods, used by the API and the CLI."""

import inspect

import pytest

import partkit
from partkit import InputError
from partkit.generators import grid2d
from partkit.methods import METHODS, get_method
from partkit.methods.options import OPTIONS, check_seed, describe, parse_cli, validate


@pytest.mark.parametrize("method", sorted(METHODS))
def test_table_matches_the_method_signature(method):
    if method == "metis":
        pytest.importorskip("pymetis")
    parameters = inspect.signature(get_method(method)).parameters
    declared = {p.name: p.default for p in parameters.values() if p.name not in ("graph", "k", "imbalance", "seed")}
    assert declared == {option.name: option.default for option in OPTIONS[method]}


@pytest.mark.parametrize("method, options, message", [
    ("fm", {"nstarts": 2**70}, "must be in \\[1, 10000\\]"),
    ("fm", {"nstarts": 1.5}, "must be an integer"),
    ("fm", {"nstarts": True}, "must be an integer"),
    ("fm", {"init": "dfs"}, "must be one of bfs, greedy, random"),
    ("labelprop", {"rounds": -3}, "must be in"),
    ("spectral", {"multilevel": "maybe"}, "true or false"),
    ("fm", {"bogus": 5}, "has no option 'bogus'"),
])
def test_api_refuses_bad_options_before_running(method, options, message):
    with pytest.raises(InputError, match=message):
        partkit.partition(grid2d(4, 4), 2, method, **options)


def test_seed_range():
    for seed in (-1, 2**63, 1.0, True, "3"):
        with pytest.raises(InputError, match="seed"):
            check_seed(seed)
    assert check_seed(2**63 - 1) == 2**63 - 1


def test_cli_values_are_parsed_by_declared_type():
    assert parse_cli("spectral", ["multilevel=none", "refine=fm"]) == {"multilevel": None, "refine": "fm"}
    assert parse_cli("metis", ["recursive=yes"]) == {"recursive": True}
    for pair, message in [("npasses=1e300", "must be an integer"), ("k=3", "k is the -k argument"),
                          ("seed=5", "give the seed with --seed"), ("nstarts=1_0", "must be an integer")]:
        with pytest.raises(InputError, match=message):
            parse_cli("fm", [pair])
    with pytest.raises(InputError, match="has no option 'progress'"):
        parse_cli("multilevel", ["progress=1"])
    assert validate("multilevel", {"progress": print})["progress"] is print
    assert "nstarts (integer 1..10000, default 4)" in describe()
