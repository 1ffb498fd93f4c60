// What a placement costs under an information graph (seed 004): the cut weight (bytes crossing
// parts) and F = sum over cut edges of d_ij / b_z(i,j), with b from the PartTree.
//
// Errors: std::invalid_argument when part has the wrong length or names a part outside the
// graph's or tree's range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mapping/graph.h"
#include "mapping/part_tree.h"

namespace topocoll::mapping {

// Sum of weights of edges whose ends lie in different parts, each edge once. O(n + |E|).
int64_t cutWeight(const Graph& g, const std::vector<int>& part);

// Seed 004's F: each cut edge weighs d_ij / bandwidth of the tree node where the two parts meet.
double hierarchicalCost(const Graph& g, const std::vector<int>& part, const PartTree& tree);

}  // namespace topocoll::mapping
