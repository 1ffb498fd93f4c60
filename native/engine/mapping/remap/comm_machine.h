// The machine tree of a communicator's nodes from the topology file (TOPOCOLL_TOPOLOGY), for the
// rank mappings to minimise seed 004's F over every level rather than the cut at the nodes.
#pragma once

#include <mpi.h>

#include <memory>

#include "hierarchy/hierarchy.h"
#include "mapping/part_tree.h"

namespace topocoll::mapping {

// Null without a topology, or when the nodes meet at a single level (then F is the cut divided
// by one bandwidth, and the flat partition is the same). Local: the world's resolution is known
// to every rank; `comm` only translates ranks to world ranks.
std::unique_ptr<PartTree> commMachineTree(MPI_Comm comm, const Hierarchy& hierarchy);

}  // namespace topocoll::mapping
