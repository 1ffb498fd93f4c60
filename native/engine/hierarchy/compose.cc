#include "compose.h"

#include <algorithm>

namespace topocoll {

const Hierarchy& hierarchyOf(const BuildParams& bp, Hierarchy* storage) {
  if (bp.hierarchy && bp.hierarchy->size() == bp.p) return *bp.hierarchy;
  *storage = Hierarchy::singleNode(bp.p, bp.rank);
  return *storage;
}

std::vector<int> nodeLeaders(const Hierarchy& h, int root) {
  std::vector<int> leaders = h.leaders();
  leaders[h.nodeOf(root)] = root;
  return leaders;
}

int indexIn(const std::vector<int>& members, int rank) {
  auto it = std::find(members.begin(), members.end(), rank);
  return it == members.end() ? -1 : static_cast<int>(it - members.begin());
}

bool appendOnSubset(Schedule* out, Collective coll, const char* name, const BuildParams& sub, const std::vector<int>& members) {
  int index = algorithmIndex(coll, name);
  ScheduleBuilder build = index < 0 ? nullptr : findBuilder(coll, index);
  if (!build) return false;
  Schedule s = build(sub);
  if (s.units_per_block != 1 || s.shm != ShmUse::None) return false;  // not composable here
  for (Round& round : s.rounds) {
    for (Op& op : round.ops) {
      if (op.kind == OpKind::Send || op.kind == OpKind::Recv) op.peer = members[op.peer];
    }
    out->rounds.push_back(std::move(round));
  }
  out->tmp_blocks = std::max(out->tmp_blocks, s.tmp_blocks);
  if (!s.note.empty()) out->note += (out->note.empty() ? "" : "; ") + s.note;
  return true;
}

}  // namespace topocoll
