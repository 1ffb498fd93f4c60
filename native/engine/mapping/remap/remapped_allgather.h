// Allgather under a rank permutation (seed 004, Kurnosov): a base algorithm runs with its
// vertex v on physical rank pi[v], pi chosen so that the base's heavy edges stay inside nodes.
// Two ways to keep the result in the communicator's rank order:
//   exch:    each rank r first swaps its block with the rank that runs vertex r (r sends its
//            block to pi[r] and receives rank v's block, v = pi_inv[r]); then the base runs as
//            vertex v in place, and vertex w's block is rank w's: nothing to reorder. Where the
//            base's first step moves only own blocks (Bruck, recursive doubling on 2^k ranks),
//            the swap rides in it and costs no round of its own.
//   reorder: the base runs as vertex v on the rank's own block, into scratch in vertex order;
//            then the scratch is copied locally, vertex w's block to slot pi[w].
// Both are plain schedules: a builder wraps the base builder's schedule, mapping peers w -> pi[w]
// (and buffers, for reorder).
#pragma once

#include "schedule.h"

namespace topocoll::mapping {

// The allgather the remapped algorithm at registry index `algorithm` runs (its name without
// _exch/_reorder; ring when that algorithm has no builder in this build), or null when
// `algorithm` is not a remapped one. The engine computes pi for this base.
const char* remappedAllgatherBase(int algorithm);

// `self` is the remapped algorithm's registry name (bruck_exch ...).
Schedule buildExchangedAllgather(const BuildParams& bp, const char* self);
Schedule buildReorderedAllgather(const BuildParams& bp, const char* self);

}  // namespace topocoll::mapping
