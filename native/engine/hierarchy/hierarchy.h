// The hierarchy of a communicator (seed 001's three layers): which node, socket, NUMA node and
// core each rank runs on, and the caches of this rank's CPU. Detected once per communicator
// (collective) and cached with it; builders read it through BuildParams::hierarchy.
//
// Degrades gracefully: unbound ranks are placed on the CPU they ran on when detected (the kernel
// may move them later; only speed depends on it, never correctness); machines with one socket
// or one NUMA node (or no libnuma) put every rank on socket 0 / NUMA node 0.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "machine.h"
#include "node_override.h"

namespace topocoll {

struct RankPlace {
  int node = 0;      // 0 ... nodeCount()-1, numbered in order of each node's lowest rank
  int socket = 0;
  int numa = 0;
  int core = 0;
  int cpu = 0;
  Binding binding = Binding::None;
  int virtual_node = -1;  // the override's node (-1: no override)
  std::string host;
};

// The world rank of each rank of `comm`, or an empty vector when some rank lies outside this
// process's MPI_COMM_WORLD. Every rank of comm finds the same: spawned or connected processes
// are outside each other's worlds.
int worldRanksOf(MPI_Comm comm, std::vector<int>* out);

// The world's ranks on this kernel and the CPUs they may run on: those any of them is allowed
// (sched_getaffinity), no more than its cgroup's CPU limit (cgroupCpuLimit). Known once
// Hierarchy::initializeWorld has run; {0, 0} before.
struct KernelShare {
  int ranks = 0;
  int cpus = 0;
};
const KernelShare& kernelShare();

// Whether the ranks on this kernel outnumber their CPUs (kernelShare; false before init).
bool kernelOversubscribed();

// What a rank does between two polls of something another rank must do: on an oversubscribed
// kernel it yields its core (sched_yield), which the rank it waits for may need; otherwise it
// only relaxes the CPU for a moment, as a yield would hand the core to whatever else runs here (a
// CPU hog, another job) for a whole time slice, milliseconds, while the peer runs on its own core.
void idleWhileWaiting();

class Hierarchy {
 public:
  // Nodes from MPI_Comm_split_type(SHARED) refined by `override`, each rank's place from its
  // CPU, known to every rank. A communicator within the world takes them from the world's
  // places (initializeWorld), without communicating; any other is collective over `comm` (an
  // intracommunicator).
  static int detect(MPI_Comm comm, const NodeOverride& override, Hierarchy* out, std::string* error);
  // Collective over MPI_COMM_WORLD, once at init: every world rank's node and place, so that a
  // communicator created and freed in a loop pays no split (a split creates a communicator: as
  // costly as the user's own MPI_Comm_dup) and no gather of its own.
  static int initializeWorld(const NodeOverride& override);
  // A hierarchy given rank by rank (tools and tests, no MPI). Nodes are renumbered in order of
  // first appearance.
  static Hierarchy fromPlaces(std::vector<RankPlace> places, int my_rank, std::vector<CacheInfo> caches = {});
  // p ranks on one node and one socket: what builders assume without a detected hierarchy.
  static Hierarchy singleNode(int p, int my_rank);

  int size() const { return static_cast<int>(places_.size()); }
  int rank() const { return rank_; }
  const RankPlace& place(int r) const { return places_[r]; }
  int nodeCount() const { return static_cast<int>(members_.size()); }
  int nodeOf(int r) const { return places_[r].node; }
  // Comm ranks of `node`, ascending; the first is the node's leader.
  const std::vector<int>& members(int node) const { return members_[node]; }
  int localIndex(int r) const { return local_index_[r]; }
  // The leader of every node, in node order.
  std::vector<int> leaders() const;
  // The NUMA nodes the ranks of `node` run on, ascending (at least one).
  std::vector<int> numaNodes(int node) const;
  bool virtualNodes() const { return virtual_; }

  // Caches of this rank's CPU, smallest level first.
  const std::vector<CacheInfo>& caches() const { return caches_; }
  // The last-level cache of this rank's CPU (bytes; 0 when unknown) and how many ranks of this
  // rank's node run on CPUs sharing it (at least 1).
  int64_t sharedCacheBytes() const;
  int sharedCacheRanks() const;

 private:
  void index();
  int rank_ = 0;
  bool virtual_ = false;
  std::vector<RankPlace> places_;
  std::vector<std::vector<int>> members_;
  std::vector<int> local_index_;
  std::vector<CacheInfo> caches_;
};

// The override in force for hierarchies detected from now on: the one set by setNodeOverride()
// (e.g. from a topology file), else TOPOCOLL_VIRTUAL_NODES of the loaded configuration.
NodeOverride nodeOverride();
void setNodeOverride(const NodeOverride& o);

}  // namespace topocoll
