// Weighted undirected graph in CSR form: the information graph of a collective algorithm
// (seed 004): vertex = rank of the algorithm, edge weight = bytes the pair exchanges,
// both directions summed.
//
// Errors: every function here throws std::invalid_argument with a message that names the
// function and the offending value; nothing else is thrown for valid input (std::bad_alloc aside).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace topocoll::mapping {

struct Graph {
  int n = 0;                     // vertices 0..n-1
  std::vector<int64_t> xadj;     // n+1 offsets into adjncy/adjwgt
  std::vector<int32_t> adjncy;   // neighbours; every edge {u,v} appears as u->v and v->u
  std::vector<int64_t> adjwgt;   // bytes exchanged by the pair (both directions summed), > 0
  std::vector<int32_t> vwgt;     // vertex weights; 1 per rank (the partitioner requires 1)

  int64_t numEdges() const { return static_cast<int64_t>(adjncy.size()) / 2; }
  int degree(int v) const { return static_cast<int>(xadj[v + 1] - xadj[v]); }
  int64_t totalEdgeWeight() const;  // sum over undirected edges, each counted once
};

// One point-to-point transfer of a schedule. src == dst (a local copy) adds no edge.
struct Message {
  int src = 0;
  int dst = 0;
  int64_t bytes = 0;
};

// Checks the CSR invariants: sizes, offsets, neighbour range, no self loops, no duplicate
// neighbours in a row, positive edge weights, positive vertex weights, and symmetry (u->v
// with weight w iff v->u with weight w). O(n + |E|). Symmetry is checked with a 64-bit
// multiset hash, so an asymmetric graph passes with probability about 2^-64.
void validateGraph(const Graph& g);

// Any schedule as a graph: sums bytes per unordered pair. O(|M| + n + sum deg log deg).
// Rows come out sorted by neighbour. Pairs whose total is 0 bytes get no edge.
Graph buildGraphFromMessages(int n, const std::vector<Message>& messages);

}  // namespace topocoll::mapping
