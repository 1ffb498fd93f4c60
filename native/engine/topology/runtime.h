// The process's topology: TOPOCOLL_TOPOLOGY read at MPI_Init and resolved for MPI_COMM_WORLD,
// for the engine's rank mapping and hierarchy detection to look up.
//
// Two ways in: a preloaded C/Fortran program has no Node, so initialize() reads the file itself
// (JSON); a Node program's TypeScript reads it first (before MPI_Init), converting YAML to JSON
// with a line map, and hands it to install(), so initialize() does not read the file again.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "topology/topology.h"

namespace topocoll::topology {

// Installs a topology given as JSON by the Node side; `source` names the original file, and
// `lines` (null for a JSON file) is the line map of one converted from YAML (json::LineMap).
// Before initialize(); false with *error on a bad topology.
bool install(const std::string& json_text, const std::string& source, const std::vector<int>* lines, std::string* error);

// Called by engine::initialize() after MPI_Init; collective over `world`, and every rank returns
// the same result. Without a topology (no TOPOCOLL_TOPOLOGY, nothing installed) it does nothing.
// Otherwise: rank 0 reads the file and broadcasts it (all ranks parse the same text), the hosts
// of all ranks are gathered (MPI_Get_processor_name), the topology is resolved for them, and its
// virtual node map becomes the hierarchy's node override (see hierarchy/node_override.h). On
// error returns MPI_ERR_ARG with *error = "file:line: key: message".
int initialize(MPI_Comm world, std::string* error);

// The topology in force, or null.
const Topology* current();
// Resolved for MPI_COMM_WORLD (ranks are world ranks), or null before initialize() or without one.
const Resolved* resolvedWorld();
// The virtual node of a world rank under the topology file's map; -1 when it has none.
int virtualNodeOf(int world_rank);

}  // namespace topocoll::topology
