"""Dynamic load balancing: what to do when costs are unknown in advance or change.

* :mod:`partkit.balance.schedule` -- a discrete-event simulator of ``p``
  workers running independent tasks under self scheduling, fixed chunks,
  guided self scheduling and randomized work stealing, with worker noise.
* :mod:`partkit.balance.dag` -- task DAGs (fork-join trees, unbalanced tree
  search, tiled Cholesky and SPD inversion), their exact work and span, and
  work stealing / greedy scheduling on them.
* :mod:`partkit.balance.bins` -- balls into bins with one or ``d`` random
  choices.
* :mod:`partkit.balance.repartition` -- restoring the balance of an existing
  partition after its vertex weights changed, moving little weight.
"""
