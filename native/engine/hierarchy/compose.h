// Helpers for builders that compose algorithms over the hierarchy: run a registered algorithm
// among a subset of the ranks (the node leaders), and read the hierarchy a builder was given.
#pragma once

#include <initializer_list>
#include <numeric>
#include <vector>

#include "../algorithm_registry.h"
#include "../schedule.h"
#include "hierarchy.h"

namespace topocoll {

// The hierarchy of `bp`, or (tools without MPI) one node holding every rank, kept in *storage.
const Hierarchy& hierarchyOf(const BuildParams& bp, Hierarchy* storage);

// The leader of each node for a rooted collective: the root leads its own node.
std::vector<int> nodeLeaders(const Hierarchy& h, int root);

// Appends the schedule of the registered algorithm `name` of `coll`, run by `members` (comm
// ranks; `sub` has p = members.size(), rank = my index among them, and root an index too),
// with its peers renamed to comm ranks. One block of `sub` is `scale` units of the caller's
// schedule (its spans and scratch are scaled), so that a leader's allgather can move a whole
// node's blocks as one. Returns false (appending nothing) when this build has no builder for
// `name`, or its schedule cuts blocks or uses shared memory itself.
bool appendOnSubset(Schedule* out, Collective coll, const char* name, const BuildParams& sub, const std::vector<int>& members,
                    int64_t scale = 1);

// Where appendMoved() puts the spans of one buffer: buffer `to`, `offset` blocks on.
struct SpanMove {
  BufferId from = BufferId::None;
  BufferId to = BufferId::None;
  int64_t offset = 0;
};

// Appends `part` (its rounds, scratch and note) with the spans of each buffer a move names moved
// (from the buffers `part` names, not from each other's results): a composed algorithm then works
// on a piece of a buffer, or in scratch where its own buffer does not exist on this rank.
void appendMoved(Schedule* out, Schedule part, std::initializer_list<SpanMove> moves);

// The first of `names` that appendOnSubset() can append; its name, or null when none can. The
// inter-node steps of the hierarchical algorithms name the classic algorithms they want in order
// of preference, so that each is used as soon as the build has it.
const char* appendFirstOnSubset(Schedule* out, Collective coll, std::initializer_list<const char*> names, const BuildParams& sub,
                                const std::vector<int>& members, int64_t scale = 1);

// Last-resort steps among `members` for builds without any of the classic algorithms a
// composition asks for (each says so in the schedule's note):
// a barrier, as a ring allgather of empty blocks (p-1 steps, every rank hears from all) or, without
// ring either, a gather to and release from members[0];
void appendSubsetBarrier(Schedule* out, const BuildParams& sub, const std::vector<int>& members);
// a bcast of `data` from members[sub.root], sent by the root to every member.
void appendLinearBcast(Schedule* out, const BuildParams& sub, const std::vector<int>& members, BlockSpan data);

// A bcast of the whole vector (sub.count elements) among `members` with the first of `names`
// this build has, else appendLinearBcast().
void appendSubsetBcast(Schedule* out, std::initializer_list<const char*> names, const BuildParams& sub,
                       const std::vector<int>& members);

// True when every node holds a run of consecutive ranks (by-slot placement): then an algorithm
// combining the nodes' results in node order combines in rank order.
bool nodesAreRankRuns(const Hierarchy& h);

// K when every node holds K ranks, else 0.
int commonNodeSize(const Hierarchy& h);

// Index of `rank` in `members`, or -1.
int indexIn(const std::vector<int>& members, int rank);

// Adds `text` to the schedule's note ("; "-separated).
void addNote(Schedule* s, const std::string& text);

// bp for a builder run on a subset of the ranks or over all of them, without shared memory.
inline BuildParams withoutShm(BuildParams bp) {
  bp.hierarchy = nullptr;
  bp.shm_elements = 0;
  return bp;
}

// The ranks 0..p-1: a subset builder's members for a run over every rank.
inline std::vector<int> everyRank(int p) {
  std::vector<int> all(p);
  std::iota(all.begin(), all.end(), 0);
  return all;
}

}  // namespace topocoll
