"""The Numba kernels of the multilevel engine, one module per job, named after their stage.

``coarsening_*`` build the hierarchy (matching, clustering, contraction),
``initial_*`` partition the coarsest graph (2-way FM and grown bisections,
subgraph splits, component packing), ``refinement_*`` improve the partition
on every level (moves and label propagation, k-way FM, balancing) by the
gains of ``objectives`` (cut, mapping cost, volume, migration), or of
``refinement_km1`` (λ-1 on hypergraphs, with its gain cache: label
propagation's ``KM1_REFINE`` rating and the hypergraph FM);
``bucket_queue`` is the priority queue they share.
"""
