// Graph partitioning into parts of exact sizes (seed 004, step 2): multilevel recursive
// bisection. Each bisection coarsens by heavy-edge matching, bisects the coarsest graph by
// levelized nested dissection and refines with Fiduccia–Mattheyses while uncoarsening; the
// recursion splits the list of parts into two halves (side sizes = sums of the halves).
// Objective: the cut weight, or seed 004's F = sum over cut edges of d_ij / b_z(i,j) when parts
// are grouped in a PartTree: the tree is split top-down along its groups, so the cut across the
// slowest links is minimised first and never traded for cheaper ones.
//
// Deterministic: the same graph, sizes and seed give the same parts, whatever `threads` is.
// Errors: std::invalid_argument with a message naming the function and the problem, raised
// before any work: an invalid graph (see validateGraph), a vertex weight other than 1, part
// sizes that are negative or do not sum to n, an invalid tree (see validatePartTree).
// Nothing else is thrown for valid input (std::bad_alloc aside).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mapping/graph.h"
#include "mapping/part_tree.h"

namespace topocoll::mapping {

struct PartitionOptions {
  uint64_t seed = 1;
  int threads = 1;          // > 1 runs independent halves of the recursion on worker threads
  int coarsen_to = 16;      // coarsest graph size of each bisection
  int initial_tries = 4;    // LND bisections (2 grow directions per root) on the coarsest graph
  int refined_tries = 2;    // how many of the best of those get FM refinement
  int refine_passes = 8;    // FM passes per level
};

// part[v] in 0..h-1 with exactly part_sizes[u] vertices in part u. O((|E| + n) log h).
std::vector<int> partitionGraph(const Graph& g, const std::vector<int>& part_sizes,
                                const PartitionOptions& options = {});

// part[v] = a leaf's part id; leaf sizes are exact.
std::vector<int> partitionHierarchical(const Graph& g, const PartTree& tree, const PartitionOptions& options = {});

}  // namespace topocoll::mapping
