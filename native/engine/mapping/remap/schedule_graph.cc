#include "mapping/remap/schedule_graph.h"

#include <stdexcept>
#include <string>

#include "algorithm_registry.h"

namespace topocoll::mapping {

void appendScheduleMessages(const Schedule& schedule, int rank, int64_t block_bytes, std::vector<Message>* out) {
  const int64_t units = schedule.units_per_block > 0 ? schedule.units_per_block : 1;
  for (const Round& round : schedule.rounds)
    for (const Op& op : round.ops)
      if (op.kind == OpKind::Send && op.peer != rank && op.src.count > 0)
        out->push_back({rank, op.peer, op.src.count * block_bytes / units});
}

Graph buildScheduleGraph(generated::Collective coll, int algorithm, const BuildParams& params, int64_t block_bytes) {
  ScheduleBuilder build = algorithm >= 0 && algorithm < collectiveEntry(coll).algorithm_count ? findBuilder(coll, algorithm) : nullptr;
  if (!build)
    throw std::invalid_argument(std::string("buildScheduleGraph: ") + collectiveEntry(coll).name + " algorithm #" +
                                std::to_string(algorithm) + " has no builder in this build");
  if (block_bytes < 1) throw std::invalid_argument("buildScheduleGraph: block_bytes = " + std::to_string(block_bytes) + " (must be >= 1)");
  std::vector<Message> messages;
  BuildParams bp = params;
  for (int r = 0; r < params.p; ++r) {
    bp.rank = r;
    appendScheduleMessages(build(bp), r, block_bytes, &messages);
  }
  return buildGraphFromMessages(params.p, messages);
}

}  // namespace topocoll::mapping
