#include "node_bcast.h"

#include <algorithm>

#include "../hierarchy/compose.h"

namespace topocoll {
namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The shape of a plan, the same on every rank.
struct Layout {
  struct Group {
    int start = 0;  // first segment it reads
    std::vector<int> members;
  };
  std::vector<Group> groups;
  int segments = 0;        // S, per chunk
  int per_part = 0;        // segment slots per part and half
  int64_t part_units = 0;  // units of one part
  int64_t half_units = 0;  // units of one half of a part
  int64_t seg = 0;         // units per segment
  int64_t chunks = 0;

  bool ok = false;

  explicit Layout(const NodeBcastPlan& plan) {
    const int P = std::max(1, plan.parts);
    const int R = static_cast<int>(plan.readers.size());
    const int k = plan.concurrency <= 0 || plan.concurrency >= R ? std::max(R, 1) : plan.concurrency;
    // Readers by part, then rank; groups of at most k within a part.
    std::vector<std::vector<int>> by_part(P);
    for (int i = 0; i < R; ++i) by_part[std::clamp(plan.reader_part[i], 0, P - 1)].push_back(plan.readers[i]);
    int most = 1;
    for (int part = 0; part < P; ++part) {
      auto& list = by_part[part];
      std::sort(list.begin(), list.end());
      int j = 0;
      for (size_t i = 0; i < list.size(); i += k, ++j) {
        Group g;
        g.start = part + P * j;
        g.members.assign(list.begin() + i, list.begin() + std::min(list.size(), i + k));
        groups.push_back(std::move(g));
      }
      most = std::max(most, j);
    }
    per_part = std::max<int>(most, static_cast<int>(ceilDiv(std::max(plan.min_segments, 1), P)));
    segments = P * per_part;
    part_units = plan.capacity / P;
    half_units = part_units / 2;
    int64_t max_seg = half_units / per_part;
    int64_t n = plan.data.count;
    if (max_seg < 1 || n <= 0) return;
    seg = n <= segments * max_seg ? ceilDiv(n, segments) : max_seg;
    chunks = ceilDiv(n, segments * seg);
    ok = chunks * segments <= kShmMaxStage;
  }

  // Where segment s of chunk c lies in the data area, and which units of the message it holds.
  BlockSpan shmSpan(int64_t c, int s, int64_t len) const {
    const int P = segments / per_part;
    return span(BufferId::Shm, (s % P) * part_units + (c % 2) * half_units + (s / P) * seg, len);
  }
  BlockSpan dataSpan(const BlockSpan& data, int64_t c, int s) const {
    int64_t offset = (c * segments + s) * seg;
    return span(data.buf, data.first + offset, std::clamp<int64_t>(data.count - offset, 0, seg));
  }
};

}  // namespace

int pipelineSegments(int64_t bytes) { return static_cast<int>(std::clamp<int64_t>(bytes / 16384, 1, 4)); }

bool nodeBcastFits(const NodeBcastPlan& plan) { return plan.readers.empty() || plan.data.count == 0 || Layout(plan).ok; }

void appendNodeBcast(Schedule* s, int me, const NodeBcastPlan& plan) {
  if (plan.readers.empty() || plan.data.count == 0) return;
  const Layout L(plan);
  const int S = L.segments;
  if (me == plan.source) {
    for (int64_t c = 0; c < L.chunks; ++c) {
      for (int seg = 0; seg < S; ++seg) {
        Round& r = s->newRound();
        // Half c % 2 is free again once every reader has finished chunk c - 2.
        if (c >= 2 && seg == 0) {
          for (int reader : plan.readers) addFlagWait(r, reader, plan.slot, (c - 1) * S);
        }
        BlockSpan from = L.dataSpan(plan.data, c, seg);
        if (from.count > 0) addCopy(r, from, L.shmSpan(c, seg, from.count));
        addFlagSignal(r, plan.source, plan.slot, c * S + seg + 1);
      }
    }
    return;
  }
  const Layout::Group* mine = nullptr;
  for (const auto& g : L.groups) {
    if (indexIn(g.members, me) >= 0) mine = &g;
  }
  if (!mine) return;
  for (int64_t c = 0; c < L.chunks; ++c) {
    for (int t = 0; t < S; ++t) {
      const int seg = (mine->start + t) % S;
      Round& r = s->newRound();
      addFlagWait(r, plan.source, plan.slot, c * S + seg + 1);
      // The group that read this segment last before us must be done with it.
      const Layout::Group* before = nullptr;
      int before_t = -1;
      for (const auto& g : L.groups) {
        int gt = ((seg - g.start) % S + S) % S;
        if (&g != mine && gt < t && gt > before_t) {
          before = &g;
          before_t = gt;
        }
      }
      if (before) {
        for (int m : before->members) addFlagWait(r, m, plan.slot, c * S + before_t + 1);
      }
      BlockSpan to = L.dataSpan(plan.data, c, seg);
      if (to.count > 0) addCopy(r, L.shmSpan(c, seg, to.count), to);
      addFlagSignal(r, me, plan.slot, c * S + t + 1);
    }
  }
}

}  // namespace topocoll
