// Information graph of any schedule (seed 004): every Send of every rank's schedule is a message
// of its span's bytes, so any registered algorithm (built through the registry) yields a graph
// that the partitioner can place. Bruck and recursive doubling also have closed forms in
// mapping/allgather_graphs.h, O(n log n) without building n schedules.
#pragma once

#include <cstdint>
#include <vector>

#include "generated/registry.h"
#include "mapping/graph.h"
#include "schedule.h"

namespace topocoll::mapping {

// The sends of `rank`'s schedule as messages of block_bytes per block (spans count units of
// 1/units_per_block block). Appends to *out. O(ops).
void appendScheduleMessages(const Schedule& schedule, int rank, int64_t block_bytes, std::vector<Message>* out);

// The graph of the schedules of ranks 0..p-1 of a registered algorithm; `params` gives everything
// but the rank (hierarchy, count, ...). Throws std::invalid_argument when the algorithm has no
// builder. O(sum of the schedules' ops + n + |E| log deg).
Graph buildScheduleGraph(generated::Collective coll, int algorithm, const BuildParams& params, int64_t block_bytes);

}  // namespace topocoll::mapping
