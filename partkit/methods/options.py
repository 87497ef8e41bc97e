"""Every method's options in one table: name, type, range or choices, default, help.

:func:`partkit.partition` validates the options it is given against this
table once (:func:`validate`), the CLI parses ``-O KEY=VALUE`` with it
(:func:`parse_cli`) and prints it in ``partkit partition --help``
(:func:`describe`). ``tests/test_options.py`` checks that the defaults here
are those of the methods' signatures.

Examples
--------
>>> validate("fm", {"nstarts": 8})
{'nstarts': 8}
>>> parse_cli("fm", ["npasses=30", "init=greedy"])
{'npasses': 30, 'init': 'greedy'}
"""

from __future__ import annotations

import math
import numbers
import operator
import re
from dataclasses import dataclass

from partkit.errors import InputError

#: Largest repeat count (starts, passes, rounds, sweeps) a method accepts.
MAX_REPEATS = 10_000


@dataclass(frozen=True)
class Option:
    """One option of a method.

    ``kind`` is ``int``, ``bool``, ``str``, ``callable``, ``list`` or ``"machine"``; an
    ``int`` lies in ``[low, high]``; a ``str`` is one of ``choices``
    (``None`` among them means "not set", written ``none`` on the command
    line); a ``list`` is a sequence or array of finite numbers (its shape is
    checked against the graph by :func:`partkit.api.partition`); a
    ``"machine"`` is a :class:`partkit.machine.Machine`. Options with
    ``cli=False`` are not ``-O`` options: a progress callback, or the target
    weights that have their own flags (``--tpwgts``, ``--ubvec``).
    """

    name: str
    kind: object
    default: object
    help: str
    low: int | None = None
    high: int | None = None
    choices: tuple = ()
    cli: bool = True

    def check(self, method, value):
        """``value`` if it is valid for this option, else InputError naming the method and option."""
        where = f"method {method!r}: option {self.name}"
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise InputError(f"{where} must be an integer, got {value!r}")
            if not self.low <= value <= self.high:
                raise InputError(f"{where} must be in [{self.low}, {self.high}], got {value}")
        elif self.kind is bool:
            if not isinstance(value, bool) and not (value is None and None in self.choices):
                raise InputError(f"{where} must be true or false, got {value!r}")
        elif self.kind is str:
            if value not in self.choices:
                shown = ", ".join("none" if c is None else c for c in self.choices)
                raise InputError(f"{where} must be one of {shown}, got {value!r}")
        elif self.kind is list:
            if value is not None and not _numbers(value):
                raise InputError(f"{where} must be a sequence of finite numbers, got {value!r}")
        elif self.kind == "machine":
            from partkit.machine import Machine

            if value is not None and not isinstance(value, Machine):
                raise InputError(f"{where} must be a partkit.machine.Machine, got {value!r}")
        elif value is not None and not callable(value):
            raise InputError(f"{where} must be callable, got {value!r}")
        return value

    def parse(self, method, text):
        """The value of ``-O name=text``, checked."""
        lowered = text.strip().lower()
        if lowered == "none" and None in self.choices:
            return None
        if self.kind is int:
            if not re.fullmatch(r"[+-]?[0-9]+", text.strip()):
                raise InputError(f"method {method!r}: option {self.name} must be an integer, got {text!r}")
            return self.check(method, int(text))
        if self.kind is bool:
            words = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}
            if lowered not in words:
                raise InputError(f"method {method!r}: option {self.name} must be true or false, got {text!r}")
            return words[lowered]
        return self.check(method, text.strip())

    def describe(self):
        if self.kind is int:
            kind = f"integer {self.low}..{self.high}"
        elif self.kind is bool:
            kind = "true/false" + ("/none" if None in self.choices else "")
        else:
            kind = "|".join("none" if c is None else c for c in self.choices)
        return f"{self.name} ({kind}, default {'none' if self.default is None else self.default}): {self.help}"


def _numbers(value):
    """Whether ``value`` is a non-empty sequence or array (of any depth) of finite real numbers."""
    import numpy as np

    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        return False
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return array.size > 0 and bool(np.all(np.isfinite(array)))


#: Target part weights and per-constraint imbalance (METIS ``tpwgts``, ``ubvec``), for the methods that take them.
TARGETS = (
    Option("tpwgts", list, None, "target share of every part: k fractions, or k x ncon, each column summing to 1",
           cli=False),
    Option("ubvec", list, None, "allowed imbalance per constraint as in METIS (1.05 allows 5 percent); replaces imbalance",
           cli=False),
)

_INIT = Option("init", str, "bfs", "initial bisection grown by BFS, greedily, or at random",
               choices=("bfs", "greedy", "random"))
_REFINE = Option("refine", str, None, "refine every bisection with FM", choices=(None, "fm"))


def _count(name, default, help, low=1, high=MAX_REPEATS):
    return Option(name, int, default, help, low=low, high=high)


#: Method name -> its options beyond ``imbalance`` and ``seed``, in signature order.
OPTIONS = {
    "multilevel": (
        Option("preset", str, "default", "speed/quality trade-off", choices=("fast", "default", "strong")),
        Option("coarsening", str, "auto", "heavy-edge matching, label-propagation clustering, or auto: "
               "clustering on graphs with skewed degrees or many triangles",
               choices=("auto", "matching", "clustering")),
        Option("progress", callable, None, "called with phase messages", cli=False),
        *TARGETS,
        Option("threads", int, 0, "threads (0: every core this process may use; the partition is the same "
               "for any count)", low=0, high=4096),
        Option("topology", "machine", None, "a partkit.machine.Machine with k PEs: lower the mapping cost on it",
               cli=False),
    ),
    "block": (),
    "metis": (Option("recursive", bool, False, "recursive bisection instead of k-way"), *TARGETS),
    "fm": (_INIT, _count("nstarts", 4, "initial bisections tried"), _count("npasses", 20, "FM passes at most")),
    "spectral": (_REFINE, Option("multilevel", bool, None, "multilevel eigensolver (none: above 50,000 "
                                 "vertices)", choices=(None, True, False))),
    "inertial": (_REFINE,),
    "rcb": (_REFINE,),
    "kl": (_INIT, _count("npasses", 10, "KL passes at most"),
           _count("max_vertices", 20_000, "largest graph KL accepts (O(n^2) per pass)", low=2, high=10**6),
           _REFINE),
    "labelprop": (_count("nstarts", 4, "independent runs, the best kept"),
                  _count("rounds", 3, "label propagation rounds"),
                  _count("balance_sweeps", 2, "balancing sweeps per round", low=0),
                  _count("cut_sweeps", 6, "cut-improving sweeps per round", low=0)),
}


def _table(method):
    if method not in OPTIONS:
        raise InputError(f"unknown method {method!r}; available: {', '.join(OPTIONS)}")
    return {option.name: option for option in OPTIONS[method]}


def _unknown(method, name, table, cli):
    accepted = [o.name for o in table.values() if o.cli or not cli]
    hint = f"; give the {name} with --{name}" if cli and name in ("seed", "imbalance") else ""
    hint = "; k is the -k argument" if cli and name == "k" else hint
    return InputError(f"method {method!r} has no option {name!r} (it accepts: {', '.join(accepted) or 'none'})"
                      f"{hint}")


def validate(method, options) -> dict:
    """``options`` checked against the table of ``method``.

    Raises
    ------
    InputError
        For an unknown option or a value of the wrong type, out of range,
        or not among the choices.
    """
    table = _table(method)
    for name, value in options.items():
        if name not in table:
            raise _unknown(method, name, table, cli=False)
        table[name].check(method, value)
    return dict(options)


def parse_cli(method, pairs) -> dict:
    """The options of ``-O KEY=VALUE`` arguments, parsed and checked for ``method``."""
    table = _table(method)
    options = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.isidentifier():
            raise InputError(f"option {pair!r} must look like KEY=VALUE")
        if name not in table or not table[name].cli:
            raise _unknown(method, name, table, cli=True)
        options[name] = table[name].parse(method, text)
    return options


def accepts(method, name) -> bool:
    """True when ``method`` has the option ``name``."""
    return name in _table(method)


def describe() -> str:
    """All methods' command-line options, for ``--help``."""
    parts = []
    for method, options in OPTIONS.items():
        shown = [o.describe() for o in options if o.cli]
        parts.append(f"{method}: {'; '.join(shown) if shown else 'no options'}.")
    return " ".join(parts)


def check_seed(seed) -> int:
    """``seed`` as an int in ``[0, 2^63 - 1]``, else InputError."""
    try:
        if isinstance(seed, bool):
            raise TypeError
        seed = operator.index(seed)
    except TypeError:
        raise InputError(f"seed must be an integer, got {seed!r}") from None
    if not 0 <= seed < 2**63:
        raise InputError(f"seed must be in [0, 2^63 - 1], got {seed}")
    return seed


def check_imbalance(imbalance) -> float:
    """``imbalance`` as a float in ``[0, 1)``, else InputError naming both conventions.

    partkit's ε is the fraction a part may exceed its target by (0.05 for
    5 %); METIS's ``ubvec`` writes the same bound as the tolerance 1.05, and
    a value of 1 or more taken as ε would allow parts twice their target.

    Examples
    --------
    >>> check_imbalance(0.05)
    0.05
    >>> check_imbalance(1.05)
    Traceback (most recent call last):
    ...
    partkit.errors.InputError: imbalance is a fraction in [0, 1) (0.05 allows 5 %), got 1.05; METIS's tolerance 1.05 is ubvec: --ubvec 1.05 or ubvec=[1.05] (a value per constraint)
    """
    if isinstance(imbalance, bool) or not isinstance(imbalance, numbers.Real) \
            or not math.isfinite(imbalance) or imbalance < 0:
        raise InputError(f"imbalance must be a non-negative fraction (0.05 allows 5 %), got {imbalance!r}")
    if imbalance >= 1:
        raise InputError(f"imbalance is a fraction in [0, 1) (0.05 allows 5 %), got {imbalance!r}; METIS's "
                         f"tolerance {imbalance!r} is ubvec: --ubvec {imbalance!r} or ubvec=[{imbalance!r}] "
                         "(a value per constraint)")
    return float(imbalance)
