"""The Numba kernels of the multilevel engine, one module per job, named after their stage.

``coarsening_*`` build the hierarchy (matching, clustering, contraction),
``initial_*`` partition the coarsest graph (2-way FM and grown bisections,
subgraph splits, component packing), ``refinement_*`` improve the partition
on every level (moves and label propagation, k-way FM, balancing) by the
gains of ``objectives`` (cut, mapping cost, volume);
``bucket_queue`` and ``heap`` are the priority queues they share.
"""
