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

bool nodesAreRankRuns(const Hierarchy& h) {
  for (int node = 0; node < h.nodeCount(); ++node) {
    const std::vector<int>& m = h.members(node);
    if (m.back() - m.front() + 1 != static_cast<int>(m.size())) return false;
  }
  return true;
}

int commonNodeSize(const Hierarchy& h) {
  const size_t k = h.members(0).size();
  for (int node = 1; node < h.nodeCount(); ++node) {
    if (h.members(node).size() != k) return 0;
  }
  return static_cast<int>(k);
}

int indexIn(const std::vector<int>& members, int rank) {
  auto it = std::find(members.begin(), members.end(), rank);
  return it == members.end() ? -1 : static_cast<int>(it - members.begin());
}

void addNote(Schedule* s, const std::string& text) {
  if (!text.empty()) s->note += (s->note.empty() ? "" : "; ") + text;
}

bool appendOnSubset(Schedule* out, Collective coll, const char* name, const BuildParams& sub, const std::vector<int>& members,
                    int64_t scale) {
  int index = algorithmIndex(coll, name);
  ScheduleBuilder build = index < 0 ? nullptr : findBuilder(coll, index);
  if (!build) return false;
  Schedule s = build(sub);
  if (s.units_per_block != 1 || s.shm != ShmUse::None) return false;  // not composable here
  auto scaled = [scale](BlockSpan b) { return span(b.buf, b.first * scale, b.count * scale); };
  for (Round& round : s.rounds) {
    for (Op& op : round.ops) {
      if (op.kind == OpKind::Send || op.kind == OpKind::Recv) op.peer = members[op.peer];
      op.src = scaled(op.src);
      op.dst = scaled(op.dst);
    }
    out->rounds.push_back(std::move(round));
  }
  out->tmp_blocks = std::max(out->tmp_blocks, s.tmp_blocks * scale);
  addNote(out, s.note);
  return true;
}

void appendMoved(Schedule* out, Schedule part, std::initializer_list<SpanMove> moves) {
  int64_t tmp = part.tmp_blocks;
  auto moved = [&](BlockSpan b) {
    for (const SpanMove& m : moves) {
      if (b.buf != m.from || b.buf == BufferId::None) continue;
      b = span(m.to, b.first + m.offset, b.count);
      if (b.buf == BufferId::Tmp) tmp = std::max(tmp, b.first + b.count);
      break;
    }
    return b;
  };
  for (const SpanMove& m : moves) {
    if (m.from == BufferId::Tmp && m.to == BufferId::Tmp) tmp = part.tmp_blocks + m.offset;
  }
  for (Round& round : part.rounds) {
    for (Op& op : round.ops) {
      op.src = moved(op.src);
      op.dst = moved(op.dst);
    }
    out->rounds.push_back(std::move(round));
  }
  out->tmp_blocks = std::max(out->tmp_blocks, tmp);
  addNote(out, part.note);
}

const char* appendFirstOnSubset(Schedule* out, Collective coll, std::initializer_list<const char*> names, const BuildParams& sub,
                                const std::vector<int>& members, int64_t scale) {
  for (const char* name : names) {
    if (appendOnSubset(out, coll, name, sub, members, scale)) return name;
  }
  return nullptr;
}

void appendSubsetBarrier(Schedule* out, const BuildParams& sub, const std::vector<int>& members) {
  // A barrier moves no data: a ring allgather whose blocks are scaled to nothing only orders.
  BuildParams ring = sub;
  ring.in_place = true;
  if (appendOnSubset(out, Collective::Allgather, "ring", ring, members, 0)) {
    addNote(out, "no barrier algorithm among the leaders in this build: ring of empty messages");
    return;
  }
  const int n = static_cast<int>(members.size());
  if (n == 1) return;
  const BlockSpan none = span(BufferId::Recv, 0, 0);
  for (bool gathering : {true, false}) {
    Round& r = out->newRound();
    for (int i = 1; i < n; ++i) {
      if (sub.rank != 0) break;
      if (gathering) addRecv(r, members[i], none);
      else addSend(r, members[i], none);
    }
    if (sub.rank != 0) {
      if (gathering) addSend(r, members[0], none);
      else addRecv(r, members[0], none);
    }
  }
  addNote(out, "no barrier algorithm among the leaders in this build: gather and release at one leader");
}

void appendLinearBcast(Schedule* out, const BuildParams& sub, const std::vector<int>& members, BlockSpan data) {
  const int n = static_cast<int>(members.size());
  if (n == 1 || data.count == 0) return;
  Round& r = out->newRound();
  if (sub.rank == sub.root) {
    for (int i = 0; i < n; ++i) {
      if (i != sub.root) addSend(r, members[i], data);
    }
  } else {
    addRecv(r, members[sub.root], data);
  }
  addNote(out, "no bcast algorithm among the leaders in this build: the root sends to each");
}

void appendSubsetBcast(Schedule* out, std::initializer_list<const char*> names, const BuildParams& sub,
                       const std::vector<int>& members) {
  if (!appendFirstOnSubset(out, Collective::Bcast, names, sub, members)) {
    appendLinearBcast(out, sub, members, span(BufferId::Recv, 0, sub.count));
  }
}

}  // namespace topocoll
