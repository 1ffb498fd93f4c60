// Helpers for builders that compose algorithms over the hierarchy: run a registered algorithm
// among a subset of the ranks (the node leaders), and read the hierarchy a builder was given.
#pragma once

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
// with its peers renamed to comm ranks. Returns false (appending nothing) when this build has
// no builder for `name` (or its schedule uses units or shared memory itself). Units of spans are those of `sub`; the caller keeps them consistent.
bool appendOnSubset(Schedule* out, Collective coll, const char* name, const BuildParams& sub, const std::vector<int>& members);

// Index of `rank` in `members`, or -1.
int indexIn(const std::vector<int>& members, int rank);

}  // namespace topocoll
