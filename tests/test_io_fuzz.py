"""Hostile inputs: mutated files either load as a valid graph or raise InputError, nothing else."""

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from partkit import InputError
from partkit.io import read_graph, read_partition

SEEDS = {
    "a.mtx": "%%MatrixMarket matrix coordinate real symmetric\n% comment\n4 4 5\n1 1 2.0\n2 1 -1\n3 2 4e-1\n"
             "4 3 1\n4 1 7\n",
    "b.mtx": "%%MatrixMarket matrix array real general\n2 2\n1\n0\n3\n4\n",
    "c.mtx": "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 1 0\n2 1 0 2\n",
    "d.graph": "% g\n4 4 11\n1 2 3 4 1\n2 1 3 3 1\n1 2 1 4 2\n2 1 1 3 2\n",
    "e.graph": "3 2 10 2\n1 2 2\n3 4 1 3\n5 6 2\n",
    "f.mesh": "3\n1 2 3\n2 3 4\n3 4 5\n",
}
ALPHABET = "0123456789 -+.e%\n\tx"


@st.composite
def mutated(draw):
    name = draw(st.sampled_from(sorted(SEEDS)))
    text = SEEDS[name]
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "insert", "replace", "truncate", "duplicate_line", "drop_line"]))
        lines = text.split("\n")
        if kind == "truncate":
            text = text[:draw(st.integers(0, len(text)))]
        elif kind in ("duplicate_line", "drop_line") and lines:
            i = draw(st.integers(0, len(lines) - 1))
            lines[i:i + 1] = [lines[i]] * 2 if kind == "duplicate_line" else []
            text = "\n".join(lines)
        else:
            i = draw(st.integers(0, len(text)))
            char = draw(st.sampled_from(ALPHABET))
            if kind == "delete":
                text = text[:i] + text[i + 1:]
            elif kind == "insert":
                text = text[:i] + char + text[i:]
            else:
                text = text[:i] + char + text[i + 1:]
    return name, text


@settings(max_examples=1000, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(case=mutated())
def test_mutated_files_load_or_raise_input_error(case):
    name, text = case
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text(text)
        try:
            graph = read_graph(path)
        except InputError as error:
            message = str(error)
            assert "\n" not in message and message.startswith(str(path))
            return
        graph.validate()
        try:
            read_partition(path, n=graph.n)
        except InputError:
            pass
