"""Hypergraphs of sparse matrices: models, metrics, .hgr files and a multilevel partitioner.

* :class:`Hypergraph` (:mod:`~partkit.hypergraph.model`): column-net and
  row-net models of a matrix, or nets given as lists;
* metrics (:mod:`~partkit.hypergraph.metrics`): cut-net, connectivity-1
  (λ-1) and the exact expand-phase communication of ``y = A x``;
* hMETIS ``.hgr`` files (:mod:`~partkit.hypergraph.hgr`);
* :func:`partition` (:mod:`~partkit.hypergraph.partitioner`): multilevel
  k-way partitioning minimising λ-1.
"""

from partkit.hypergraph.hgr import read_hgr, write_hgr
from partkit.hypergraph.metrics import (SpMVCommunication, connectivity_minus_one, cut_nets,
                                        net_connectivity, part_volumes, spmv_communication)
from partkit.hypergraph.model import Hypergraph
from partkit.hypergraph.partitioner import Context, partition

__all__ = ["Context", "Hypergraph", "SpMVCommunication", "connectivity_minus_one", "cut_nets", "net_connectivity",
           "part_volumes", "partition", "read_hgr", "spmv_communication", "write_hgr"]
