// What the reduction builders (allreduce, reduce, reduce_scatter) share: the schedule of one rank,
// a rank's running combination of the vector (the accumulator), and MPICH's fold-in of a
// non-power-of-two communicator onto 2^floor(log p) ranks. Spans count elements of the vector (a
// reduction's block is one element).
#pragma once

#include <algorithm>
#include <string>
#include <utility>

#include "../schedule.h"

namespace topocoll::reduction {

// On one rank the result is the operand: copied from the send buffer, nothing to do in place.
inline Schedule alone(bool in_place, int64_t n) {
  Schedule s;
  if (!in_place && n > 0) addCopy(s.newRound(), span(BufferId::Send, 0, n), span(BufferId::Recv, 0, n));
  return s;
}

// Where a rank combines: element e of the vector at acc[acc_first + e]. Until the first
// combination my operand stays where the caller passed it (mine[mine_first + e]): the first peer
// operand is received straight into the accumulator and mine combined into it, no copy. Once the
// accumulator holds mine (from the start under MPI_IN_PLACE, when it is mine's own place), a
// peer's operand lands in tmp[scratch...] first.
struct Accumulator {
  BufferId acc;
  int64_t acc_first;
  BufferId mine;
  int64_t mine_first;
  int64_t scratch;  // tmp element where a received operand waits to be combined
  bool holds_mine;

  BlockSpan at(int64_t first, int64_t n) const { return span(acc, acc_first + first, n); }
  // at(), for a write: sizes the schedule's tmp to hold it when the accumulator is there.
  BlockSpan into(Schedule& s, int64_t first, int64_t n) const {
    if (acc == BufferId::Tmp) s.tmp_blocks = std::max(s.tmp_blocks, acc_first + first + n);
    return at(first, n);
  }
  // My operand of elements [first, first + n), combined with what I have received so far.
  BlockSpan operand(int64_t first, int64_t n) const { return holds_mine ? at(first, n) : span(mine, mine_first + first, n); }

  // Receives `peer`'s operand of [first, first + n) and combines it with mine, the lower rank's on
  // the left (rank order, and the same expression on every rank). From here on the accumulator
  // holds mine: a caller combines first a range that holds every element it uses later.
  void receiveAndCombine(Schedule& s, Round& round, int peer, bool peer_is_lower, int64_t first, int64_t n) {
    if (holds_mine) {
      const BlockSpan theirs = span(BufferId::Tmp, scratch, n);
      s.tmp_blocks = std::max(s.tmp_blocks, scratch + n);
      addRecv(round, peer, theirs);
      addReduce(round, theirs, into(s, first, n), peer_is_lower ? ReduceOrder::SrcFirst : ReduceOrder::DstFirst);
    } else {
      addRecv(round, peer, into(s, first, n));
      addReduce(round, span(mine, mine_first + first, n), at(first, n), peer_is_lower ? ReduceOrder::DstFirst : ReduceOrder::SrcFirst);
    }
    holds_mine = true;
  }
};

// An allreduce's accumulator: the receive buffer (holding mine from the start in place), peers'
// operands waiting in tmp.
inline Accumulator inReceiveBuffer(bool in_place) {
  return {BufferId::Recv, 0, in_place ? BufferId::Recv : BufferId::Send, 0, 0, in_place};
}

// A reduce's: the root combines in its receive buffer, the others (which have none) in tmp, peers'
// operands waiting after the n elements of the accumulator there.
inline Accumulator towardRoot(bool at_root, bool in_place, int64_t n) {
  return {at_root ? BufferId::Recv : BufferId::Tmp, 0, in_place ? BufferId::Recv : BufferId::Send, 0, at_root ? 0 : n, in_place};
}

// Elements of a segment of a pipelined reduction (ring, multi_leader): `asked`
// (BuildParams::segment_blocks) when positive, else 32 KiB of them, below the TCP transports'
// eager limit so that a send completes without a rendezvous (docs/benchmarks.md: 16 KiB was
// slower, 64 KiB 1.6-2.5x slower on the emulated cluster); at most `longest`, the longest block.
inline int64_t segmentElements(int64_t asked, int64_t element_bytes, int64_t longest) {
  constexpr int64_t kSegmentBytes = 32 * 1024;
  const int64_t segment = asked > 0 ? asked : std::max<int64_t>(1, kSegmentBytes / std::max<int64_t>(1, element_bytes));
  return std::min(segment, std::max<int64_t>(longest, 1));
}

// Segment i of the block of `count` elements from `first`, cut every `segment` elements: its
// first element and length (0 past the end of a block shorter than the longest).
inline std::pair<int64_t, int64_t> segmentOf(int64_t first, int64_t count, int64_t segment, int64_t i) {
  const int64_t from = first + i * segment;
  return {from, std::max<int64_t>(0, std::min(segment, first + count - from))};
}

// MPICH's fold-in: with q = 2^floor(log p) and rem = p - q, each even rank of the first 2 rem
// hands its whole operand to the odd rank above it and sits out; that one combines both (rank
// order kept) and joins the q ranks as newrank r / 2, the others as r - rem. Newranks keep the
// ranks' order, so aligned groups of newranks are runs of consecutive ranks.
struct FoldIn {
  int q = 1, rem = 0;
  int newrank = -1;  // -1: this rank sat out
  int rankOf(int newr) const { return newr < rem ? 2 * newr + 1 : newr + rem; }
  // Newrank i stands for ranks [firstRankOf(i), firstRankOf(i + 1)).
  int firstRankOf(int newr) const { return newr < rem ? 2 * newr : newr + rem; }
};

// An allreduce's fold-in ends: the rank that sat out receives the result from its partner, which
// sends it last. The round of each (none off the fold-in's ranks).
inline void receiveUnfolded(Schedule& s, int r, const FoldIn& f, int64_t n) {
  if (f.newrank < 0) addRecv(s.newRound(), r + 1, span(BufferId::Recv, 0, n));
}
inline void sendUnfolded(Schedule& s, int r, const FoldIn& f, int64_t n) {
  if (r < 2 * f.rem && r % 2 == 1) addSend(s.newRound(), r - 1, span(BufferId::Recv, 0, n));
}

// Adds the fold-in round for the n elements of the vector (none on a power of two).
inline FoldIn foldIn(Schedule& s, int p, int r, Accumulator& acc, int64_t n) {
  FoldIn f;
  while (f.q * 2 <= p) f.q *= 2;
  f.rem = p - f.q;
  if (f.rem > 0) s.note = "non-power-of-two p: fold-in (ranks 0.." + std::to_string(2 * f.rem - 1) + " in pairs)";
  if (r >= 2 * f.rem) {
    f.newrank = r - f.rem;
    return f;
  }
  Round& round = s.newRound();
  if (r % 2 == 0) {
    addSend(round, r + 1, acc.operand(0, n));
    return f;
  }
  acc.receiveAndCombine(s, round, r - 1, true, 0, n);
  f.newrank = r / 2;
  return f;
}

}  // namespace topocoll::reduction
