// The machine above the nodes as the partitioner's PartTree (seed 004's levels): a topology
// file's levels (widest first, each with its link bandwidth b_l) group the communicator's nodes;
// two nodes meet at the narrowest level whose module holds both, and their traffic is weighed by
// that level's bandwidth in F = sum d_ij / b_z.
#pragma once

#include <vector>

#include "mapping/part_tree.h"

namespace topocoll::mapping {

// node_sizes[q]: ranks of node q (the leaf for part q). module_of[l][q]: the module of node q at
// level l (0 = widest). bandwidth[l]: of the links inside a module of level l. Inner tree nodes
// are modules where the nodes below split; leaves under one narrowest module are joined by that
// level's bandwidth. Throws std::invalid_argument on inconsistent sizes or bandwidths <= 0.
PartTree machineTree(const std::vector<int>& node_sizes, const std::vector<std::vector<int>>& module_of,
                     const std::vector<double>& bandwidth);

}  // namespace topocoll::mapping
