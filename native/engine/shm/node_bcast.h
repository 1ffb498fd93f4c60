// The intra-node half of seed 001's bcast, as schedule ops: the source (the node's leader)
// copies the message into the node segment's data area, cut into segments that lie each in one
// NUMA part; the readers are grouped (at most k per group, a group within one NUMA node) and
// at step t group g reads segment (start(g) + t) mod S, starting with a segment on its own NUMA
// node. A group reads a segment only after the group before it on that segment has finished,
// so at most k ranks read one segment at a time. Readers start as soon as the source has copied
// their segment in (pipelining); messages larger than the data area go through it in chunks,
// alternating between its two halves, the source waiting for the readers of chunk c-2.
//
// Flags (one slot): the source's counts segments copied in (c*S + s + 1 after segment s of
// chunk c); a reader's counts its steps (c*S + t + 1 after step t of chunk c).
#pragma once

#include <vector>

#include "../schedule.h"

namespace topocoll {

struct NodeBcastPlan {
  int source = 0;                  // comm rank holding the data
  std::vector<int> readers;        // the other ranks of the node
  std::vector<int> reader_part;    // per reader: the data-area part on its NUMA node
  BlockSpan data;                  // units of the receive buffer to broadcast
  int64_t capacity = 0;            // units the data area holds, all parts together
  int parts = 1;                   // parts of the data area, one per NUMA node of the node's ranks
  int concurrency = 0;             // k: readers of one segment at a time; 0 = no limit
  int min_segments = 4;            // segments per chunk at least, for pipelining
  int slot = 2;                    // the flag slot it uses
};

// True when the data area can carry the plan (at least one unit per segment and half-part,
// and stages within kShmMaxStage).
bool nodeBcastFits(const NodeBcastPlan& plan);

// Segments per chunk for a message of `bytes`: 1 for small messages (latency), up to 4 for
// pipelining the source's copy-in with the readers' copy-out.
int pipelineSegments(int64_t bytes);

// Appends the rounds of rank `me` (none when it is neither the source nor a reader). The plan
// must fit (nodeBcastFits).
void appendNodeBcast(Schedule* s, int me, const NodeBcastPlan& plan);

}  // namespace topocoll
