// Virtual nodes: an override of the node each rank belongs to, so that the multi-node paths of
// the hierarchical algorithms run (and are tested) on one host. Any source may fill it:
// TOPOCOLL_VIRTUAL_NODES (parsed here) or a topology file's rank -> virtual node map.
// Ranks are MPI_COMM_WORLD ranks. A virtual node never spans hosts: the node of a rank is the
// pair (host, virtual node), so shared memory stays real.
#pragma once

#include <string>
#include <vector>

namespace topocoll {

struct NodeOverride {
  enum class Kind { None, Block, Cyclic, List };
  Kind kind = Kind::None;
  int param = 0;           // Block: ranks per node; Cyclic: number of nodes
  std::vector<int> nodes;  // List: the node of each world rank

  bool active() const { return kind != Kind::None; }
  bool operator==(const NodeOverride& o) const { return kind == o.kind && param == o.param && nodes == o.nodes; }
  // The virtual node of `world_rank`, or -1 when a List does not cover it.
  int nodeOf(int world_rank) const;
  // Checks the override against the job's size; false with *error naming the problem.
  bool covers(int world_size, std::string* error) const;
};

// Parses "block:K" (K consecutive ranks per node), "cyclic:N" (round-robin over N nodes) or a
// list "0,0,1,1,..." (the node of each world rank); empty means none. `what` names the source
// in errors (e.g. "TOPOCOLL_VIRTUAL_NODES").
bool parseNodeOverride(const std::string& text, const char* what, NodeOverride* out, std::string* error);

}  // namespace topocoll
