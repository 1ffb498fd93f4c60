#include "node_reduce.h"

#include <algorithm>

#include "../hierarchy/compose.h"

namespace topocoll {
namespace {

constexpr int64_t kPut = 1, kSocketDone = 2, kNodeDone = 3, kDone = 4, kStagesPerChunk = 4;

int64_t stageOf(int64_t chunk, int64_t step) { return chunk * kStagesPerChunk + step; }

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The shape of a plan, the same on every rank of the node: slot j of chunk t is `per_slot`
// elements at (t mod 2) * half + j * per_slot; scattered, a slot is K pieces of `piece` elements,
// the j-th from part j.
struct Layout {
  int64_t per_slot = 0, half = 0, chunks = 0, piece = 0;
  bool ok = false;

  explicit Layout(const NodeReducePlan& plan) {
    const int64_t k = static_cast<int64_t>(plan.members.size()), n = plan.operand.count;
    if (k < 2 || n <= 0) return;
    // What a chunk carries of each rank's operand: all of it in one chunk, else a slot of a half.
    const int64_t pieces = plan.scatter ? k : 1, longest = ceilDiv(n, pieces);
    if (k * pieces * longest <= plan.capacity) {
      piece = longest;
    } else {
      piece = plan.capacity / (2 * k * pieces);
      if (piece < 1) return;
      half = k * pieces * piece;
    }
    per_slot = pieces * piece;
    chunks = ceilDiv(longest, piece);
    ok = stageOf(chunks - 1, kDone) <= kShmMaxStage;
  }
};

// Elements [first, end) of the i-th of `parts` slices of `len` elements.
int64_t sliceStart(int64_t len, int i, int parts) { return len * i / parts; }

bool sameSpan(const BlockSpan& a, const BlockSpan& b) { return a.buf == b.buf && a.first == b.first && a.count == b.count; }

}  // namespace

bool nodeReduceFits(const NodeReducePlan& plan) { return Layout(plan).ok; }

BlockSpan nodePart(int64_t n, int j, int parts) {
  const int64_t first = sliceStart(n, j, parts);
  return span(BufferId::None, first, sliceStart(n, j + 1, parts) - first);
}

bool nodeReduceFitsEveryNode(const Hierarchy& h, int64_t n, int64_t capacity) {
  NodeReducePlan plan;
  plan.capacity = capacity;
  plan.operand = span(BufferId::Send, 0, n);
  for (int node = 0; node < h.nodeCount(); ++node) {
    plan.members = h.members(node);
    if (plan.members.size() > 1 && !nodeReduceFits(plan)) return false;
  }
  return true;
}

std::vector<int> socketGroups(const Hierarchy& h, const std::vector<int>& members, bool commutative) {
  std::vector<int> sockets, group;  // sockets in order of their first member
  for (int r : members) {
    if (h.place(r).binding == Binding::None) return {};
    const int socket = h.place(r).socket;
    auto it = std::find(sockets.begin(), sockets.end(), socket);
    // Not commutative: a socket seen before must be the current run's.
    if (it != sockets.end() && !commutative && it != sockets.end() - 1) return {};
    if (it == sockets.end()) it = sockets.insert(sockets.end(), socket);
    group.push_back(static_cast<int>(it - sockets.begin()));
  }
  if (sockets.size() < 2 || sockets.size() == members.size()) return {};
  return group;
}

// Scattered: chunk t holds piece t of every part in every slot; the j-th rank combines piece t of
// part j across the slots straight into its result, its own piece from its buffer.
static void appendScatteredReduce(Schedule* s, int me, const NodeReducePlan& plan, const Layout& L, bool in_place) {
  const std::vector<int>& members = plan.members;
  const int k = static_cast<int>(members.size()), li = indexIn(members, me);
  const int64_t n = plan.operand.count;
  auto pieceOf = [&](int part, int64_t t) {  // elements of the vector and of the piece
    const BlockSpan p = nodePart(n, part, k);
    return span(BufferId::None, p.first + t * L.piece, std::clamp<int64_t>(p.count - t * L.piece, 0, L.piece));
  };
  auto in = [](const BlockSpan& buf, const BlockSpan& piece) { return span(buf.buf, buf.first + piece.first, piece.count); };
  auto slotPiece = [&](int64_t t, int j, int part, int64_t len) {
    return span(BufferId::Shm, (t % 2) * L.half + j * L.per_slot + part * L.piece, len);
  };
  for (int64_t t = 0; t < L.chunks; ++t) {
    // No wait: as in the sliced reduction (appendNodeReduce), chunk t - 2's half is free.
    Round& put = s->newRound();
    for (int part = 0; part < k; ++part) {
      const BlockSpan p = pieceOf(part, t);
      if (p.count > 0) addCopy(put, in(plan.operand, p), slotPiece(t, li, part, p.count));
    }
    addFlagSignal(put, me, plan.slot, stageOf(t, kPut));
    Round& r = s->newRound();
    for (int m : members) {
      if (m != me) addFlagWait(r, m, plan.slot, stageOf(t, kPut));
    }
    const BlockSpan mine = pieceOf(li, t), result = in(plan.result, mine);
    if (mine.count > 0) {
      if (li != 0) addCopy(r, slotPiece(t, 0, li, mine.count), result);
      else if (!in_place) addCopy(r, in(plan.operand, mine), result);
      for (int j = 1; j < k; ++j) {
        const BlockSpan src = j == li && !in_place ? in(plan.operand, mine) : slotPiece(t, j, li, mine.count);
        addReduce(r, src, result, ReduceOrder::DstFirst);
      }
    }
    addFlagSignal(r, me, plan.slot, stageOf(t, kDone));
  }
}

void appendNodeAllgather(Schedule* s, int me, const NodeReducePlan& plan, int slot) {
  const std::vector<int>& members = plan.members;
  const int k = static_cast<int>(members.size()), li = indexIn(members, me);
  const int64_t n = plan.result.count, longest = ceilDiv(n, k);
  // Every member waits until all are done with the reduction's area.
  const int64_t reduced = stageOf(Layout(plan).chunks - 1, kDone);
  int64_t piece = longest, half = 0;
  if (k * longest > plan.capacity) {
    piece = plan.capacity / (2 * k);
    half = k * piece;
  }
  const int64_t chunks = ceilDiv(longest, piece);
  for (int64_t u = 0; u < chunks; ++u) {
    auto pieceOf = [&](int part) {
      const BlockSpan p = nodePart(n, part, k);
      return span(plan.result.buf, plan.result.first + p.first + u * piece, std::clamp<int64_t>(p.count - u * piece, 0, piece));
    };
    auto slotOf = [&](int j, int64_t len) { return span(BufferId::Shm, (u % 2) * half + j * piece, len); };
    Round& put = s->newRound();
    if (u == 0) {
      for (int m : members) {
        if (m != me) addFlagWait(put, m, plan.slot, reduced);
      }
    }
    const BlockSpan mine = pieceOf(li);
    if (mine.count > 0) addCopy(put, mine, slotOf(li, mine.count));
    addFlagSignal(put, me, slot, 2 * u + 1);
    Round& read = s->newRound();
    for (int j = 0; j < k; ++j) {
      if (j == li) continue;
      addFlagWait(read, members[j], slot, 2 * u + 1);
      const BlockSpan theirs = pieceOf(j);
      if (theirs.count > 0) addCopy(read, slotOf(j, theirs.count), theirs);
    }
    addFlagSignal(read, me, slot, 2 * u + 2);
  }
}

void appendNodeReduce(Schedule* s, int me, const NodeReducePlan& plan) {
  const Layout L(plan);
  const std::vector<int>& members = plan.members;
  const int k = static_cast<int>(members.size()), li = indexIn(members, me);
  const int64_t n = plan.operand.count;
  const bool collects = plan.collector < 0 || plan.collector == me;
  auto slotSpan = [&](int64_t chunk, int j, int64_t from, int64_t len) {
    return span(BufferId::Shm, (chunk % 2) * L.half + j * L.per_slot + from, len);
  };
  auto waitAll = [&](Round& r, int64_t stage) {
    for (int m : members) {
      if (m != me) addFlagWait(r, m, plan.slot, stage);
    }
  };
  auto piece = [](const BlockSpan& b, int64_t from, int64_t len) { return span(b.buf, b.first + from, len); };

  // The socket level: my group's members (indices), and the first member of every group.
  const bool two_level = !plan.group.empty();
  std::vector<int> my_group, firsts;
  for (int j = 0; j < k; ++j) {
    if (two_level && plan.group[j] == plan.group[li]) my_group.push_back(j);
    if (two_level && plan.group[j] == static_cast<int>(firsts.size())) firsts.push_back(j);
  }
  if (!two_level) {
    for (int j = 0; j < k; ++j) firsts.push_back(j);
  }

  const bool in_place = sameSpan(plan.operand, plan.result);
  if (plan.scatter) {
    appendScatteredReduce(s, me, plan, L, in_place);
    return;
  }
  // Whole, one collector: nobody reads its slot, unless it holds what the result overwrites.
  const bool own_slot = !(plan.whole && plan.collector == me) || (in_place && li != 0);
  for (int64_t t = 0; t < L.chunks; ++t) {
    const int64_t at = t * L.per_slot, len = std::min(L.per_slot, n - at);
    const BlockSpan mine = piece(plan.operand, at, len), result = piece(plan.result, at, len);
    // Before this chunk every collector waited, in chunk t - 1, for the others to put it in,
    // which each did once done with chunk t - 2, the last one in this half; a whole reduction
    // to one collector waits for it to be done with chunk t - 2.
    if (own_slot) {
      Round& put = s->newRound();
      if (plan.whole && !collects && t >= 2) addFlagWait(put, plan.collector, plan.slot, stageOf(t - 2, kDone));
      addCopy(put, mine, slotSpan(t, li, 0, len));
      addFlagSignal(put, me, plan.slot, stageOf(t, kPut));
    }

    if (plan.whole) {
      if (!collects) continue;
      Round& r = s->newRound();
      waitAll(r, stageOf(t, kPut));
      if (li != 0) addCopy(r, slotSpan(t, 0, 0, len), result);
      else if (!in_place) addCopy(r, mine, result);
      for (int j = 1; j < k; ++j) {
        // My own operand from my buffer where the result has not overwritten it.
        const BlockSpan src = j == li && !in_place ? mine : slotSpan(t, j, 0, len);
        addReduce(r, src, result, ReduceOrder::DstFirst);
      }
      if (plan.collector >= 0) addFlagSignal(r, me, plan.slot, stageOf(t, kDone));
      continue;
    }

    if (two_level) {
      Round& r = s->newRound();
      for (int j : my_group) {
        if (j != li) addFlagWait(r, members[j], plan.slot, stageOf(t, kPut));
      }
      const int g = static_cast<int>(my_group.size()), mine = indexIn(my_group, li);
      const int64_t from = sliceStart(len, mine, g), count = sliceStart(len, mine + 1, g) - from;
      for (int i = 1; i < g && count > 0; ++i) {
        addReduce(r, slotSpan(t, my_group[i], from, count), slotSpan(t, my_group[0], from, count), ReduceOrder::DstFirst);
      }
      addFlagSignal(r, me, plan.slot, stageOf(t, kSocketDone));
    }

    Round& r = s->newRound();
    waitAll(r, stageOf(t, two_level ? kSocketDone : kPut));
    const int64_t from = sliceStart(len, li, k), count = sliceStart(len, li + 1, k) - from;
    for (size_t i = 1; i < firsts.size() && count > 0; ++i) {
      addReduce(r, slotSpan(t, firsts[i], from, count), slotSpan(t, 0, from, count), ReduceOrder::DstFirst);
    }
    addFlagSignal(r, me, plan.slot, stageOf(t, collects ? kNodeDone : kDone));

    if (collects) {
      Round& out = s->newRound();
      waitAll(out, stageOf(t, kNodeDone));
      addCopy(out, slotSpan(t, 0, 0, len), result);
      addFlagSignal(out, me, plan.slot, stageOf(t, kDone));
    }
  }
}

}  // namespace topocoll
