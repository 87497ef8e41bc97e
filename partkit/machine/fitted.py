"""The machine file from calibration timings: the fits of one calibration, or of the median of several.

:func:`machine_from_timings` turns what ``partkit calibrate`` measured (ping-pong
per level, halo exchanges, AllReduce phases, collectives) into the machine
file's fits; :func:`combine` refits the per-configuration medians of several
calibrations of the same machine (``partkit calibrate --combine``). On a
virtual machine a shared-memory exchange's speed changes from one ``mpiexec``
launch to the next (4 KB exchanges took 7.3 to 12.6 µs, 1 MB exchanges 254
to 689 µs, over the calibrations of one afternoon on the development
machine); a median over launches describes the machine, one launch may not.
No mpi4py here.
"""

from __future__ import annotations

import numpy as np

from partkit.errors import InputError
from partkit.machine.fit import fit_alpha_beta, fit_exchange, fit_segments


def predicted_collective(kind, n, size, alpha, beta, topology):
    """The model's time of one collective: best AllReduce algorithm, Bcast lower bound, Alltoallv as a halo."""
    from partkit.collectives import best_allreduce, lower_bound

    if kind == "allreduce":
        return best_allreduce(n, max(8, size), alpha, beta, 1, topology)[1]
    if kind == "bcast":
        return lower_bound("broadcast", n, size, alpha, beta, 1, topology).total
    return (n - 1) * (alpha + size / beta)  # n - 1 messages of size bytes, one port


def machine_from_timings(timings):
    """The machine dict of calibration ``timings``.

    Parameters
    ----------
    timings : dict
        ``sizes`` (bytes of the ping-pong and collectives), ``levels`` (list
        of ``(level, [a, b], seconds)``, innermost first: the ping-pong per
        level), ``exchange`` and ``allreduce`` (``(counts, sizes, seconds)``
        of the halo exchanges and of the AllReduce phases), ``collectives``
        (``{kind: seconds}``, may be empty), ``ranks``, ``placement`` (with
        ``node``), ``mpi``.
    """
    from partkit.collectives import make_topology

    sizes = timings["sizes"]
    levels = []
    for level, pair, seconds in timings["levels"]:
        fit = fit_alpha_beta(sizes, seconds)
        levels.append({"level": level, "ranks": list(pair), **fit.to_dict(),
                       "worst_ratio_1KB_up": fit.worst_ratio(1024)})
    outer = levels[-1]
    pingpong_segments = fit_segments(sizes, outer["seconds"])
    halo = fit_exchange(*timings["exchange"])
    halo_segments = halo.segments
    nodes = len(set(timings["placement"]["node"]))
    topology = "full" if nodes == 1 else "fattree"
    ranks = timings["ranks"]
    machine = {"alpha": outer["alpha"], "beta": outer["beta"],
               "overhead": max(0.0, halo_segments.alphas[0] - pingpong_segments.alphas[0]),
               "topology": topology, "ports": 1,
               "pingpong_segments": pingpong_segments.to_list(), "halo_segments": halo_segments.to_list(),
               "halo_start": halo.start, "ranks": ranks, "nodes": nodes, "mpi": timings["mpi"], "levels": levels,
               "pingpong": {"ranks": outer["ranks"], "sizes": sizes, "seconds": outer["seconds"],
                            "predicted": pingpong_segments.seconds(sizes).tolist()},
               "exchange": {"ranks": outer["ranks"], **halo.to_dict()},
               "placement": timings["placement"]}
    topo = make_topology(topology, ranks)
    # CG's AllReduces as measure times them: phases of 1, 2, 4 calls of 8 and 16 bytes after a barrier
    phases = fit_exchange(*timings["allreduce"], max_segments=1)
    per_call = float(phases.segments.seconds(8))
    model = predicted_collective("allreduce", ranks, 8, *pingpong_segments.params(8), topo)
    machine["allreduce_start"] = phases.start
    machine["allreduce_overhead"] = max(0.0, per_call - model)
    machine["allreduce"] = {**phases.to_dict(), "per_call_8B": per_call, "model_8B": model}
    if timings["collectives"]:
        machine["collectives"] = {}
        for kind, measured in timings["collectives"].items():
            predicted = [predicted_collective(kind, ranks, s, *pingpong_segments.params(s), topo) for s in sizes]
            machine["collectives"][kind] = {"sizes": sizes, "seconds": list(measured), "predicted": predicted,
                                            "ratios": [p / m for p, m in zip(predicted, measured)]}
    return machine


def timings_of(machine):
    """The timings a machine dict written by ``partkit calibrate`` was fitted to (see :func:`machine_from_timings`)."""
    try:
        return {"sizes": machine["pingpong"]["sizes"],
                "levels": [(level["level"], level["ranks"], level["seconds"]) for level in machine["levels"]],
                "exchange": tuple(machine["exchange"][key] for key in ("counts", "sizes", "seconds")),
                "allreduce": tuple(machine["allreduce"][key] for key in ("counts", "sizes", "seconds")),
                "collectives": {kind: data["seconds"] for kind, data in machine.get("collectives", {}).items()},
                "ranks": machine["ranks"], "placement": machine["placement"], "mpi": machine["mpi"]}
    except (KeyError, TypeError) as exc:
        raise InputError(f"not a machine file written by partkit calibrate (no {exc})") from None


def combine(machines, names=None):
    """The machine of the per-configuration median timings of several calibrations of one machine.

    Every calibration must have measured the same configurations (sizes,
    message counts, levels, collectives) on the same number of ranks.

    Raises
    ------
    InputError
        When they differ, or a machine was not written by ``partkit calibrate``.
    """
    names = names or [f"machine {i}" for i in range(len(machines))]
    timings = []
    for name, machine in zip(names, machines):
        try:
            timings.append(timings_of(machine))
        except InputError as exc:
            raise InputError(f"{name}: {exc}") from None
    first = timings[0]

    def shape(t):
        return (t["sizes"], [(lv, list(pair), len(s)) for lv, pair, s in t["levels"]], t["exchange"][:2],
                t["allreduce"][:2], sorted(t["collectives"]), t["ranks"])

    for name, t in zip(names[1:], timings[1:]):
        if shape(t) != shape(first):
            raise InputError(f"{name}: measured other configurations than {names[0]} (sizes, message counts, "
                             f"levels, collectives or ranks differ); combine calibrations made with the same options")

    def median(get):
        return np.median(np.array([get(t) for t in timings], dtype=np.float64), axis=0).tolist()

    combined = dict(first)
    combined["levels"] = [(lv, pair, median(lambda t, i=i: t["levels"][i][2]))
                          for i, (lv, pair, _) in enumerate(first["levels"])]
    for key in ("exchange", "allreduce"):
        combined[key] = (*first[key][:2], median(lambda t, key=key: t[key][2]))
    combined["collectives"] = {kind: median(lambda t, kind=kind: t["collectives"][kind])
                               for kind in first["collectives"]}
    machine = machine_from_timings(combined)
    machine["combined"] = len(machines)
    return machine


def plot_calibration(machine, path):
    """Measured (points) against fitted (lines) seconds over message size, log-log; PNG by extension."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 5), dpi=100)
    ax = axes[0]
    for i, level in enumerate(machine["levels"]):
        sizes = np.array(level["sizes"], dtype=float)
        colour = f"C{i}"
        ax.loglog(sizes, level["seconds"], "o", color=colour, label=f"ping-pong ({level['level']}), measured")
        ax.loglog(sizes, level["predicted"], "-", color=colour,
                  label=f"fit: alpha={level['alpha'] * 1e6:.2f} us, beta={level['beta'] / 1e9:.2f} GB/s")
    pp = machine["pingpong"]
    ax.loglog(pp["sizes"], pp["predicted"], ":", color="k", label="ping-pong, piecewise fit")
    ex = machine["exchange"]
    counts, ex_sizes = np.array(ex["counts"]), np.array(ex["sizes"], dtype=float)
    for j, count in enumerate(np.unique(counts)):
        on = counts == count
        ax.loglog(ex_sizes[on], np.array(ex["seconds"])[on], "s^D"[j % 3], color="C3", mfc="none",
                  label=f"halo exchange of {count} message(s) each way, measured")
        ax.loglog(ex_sizes[on], np.array(ex["predicted"])[on], "--", color="C3", lw=0.8 + 0.4 * j)
    ax.plot([], [], "--", color="C3", label=f"exchange fit: start {machine['halo_start'] * 1e6:.1f} us + "
                                             f"messages x {len(machine['halo_segments'])}-segment cost")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("seconds (ping-pong: one message; halo: one exchange)")
    ax.set_title("point to point")
    ax.legend(fontsize=8)
    ax = axes[1]
    for i, (kind, data) in enumerate(machine.get("collectives", {}).items()):
        colour = f"C{i + 4}"
        ax.loglog(data["sizes"], data["seconds"], "o", color=colour, label=f"{kind}, measured")
        ax.loglog(data["sizes"], data["predicted"], "-", color=colour, label=f"{kind}, model")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("seconds")
    ax.set_title(f"collectives on {machine['ranks']} ranks" if machine.get("collectives") else
                 "collectives: not measured (--no-collectives)")
    if machine.get("collectives"):
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
