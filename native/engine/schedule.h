// Schedule IR: what an algorithm produces and the executor runs.
//
// A collective moves *blocks*. The size of a block is a property of the buffer binding, not of
// the schedule: for allgather/alltoall a block is one rank's `count` elements, for bcast a block
// is one element of the vector (so builders can cut it into segments). Builders therefore never
// see bytes or datatypes, which keeps them pure and lets the TypeScript replayer check them.
// The engine runs every call with bytes of the type signature as elements (staging.h): a builder's
// element is then one byte, the unit every rank agrees on whatever datatype it passes.
// Reductions are the exception: their block is one element of the datatype (its signature bytes),
// so that no span splits an element the op combines; MPI has every rank pass the same datatype.
// Their buffers (engine.cc binds them, the replayer's layoutOf checks them): Send holds this
// rank's operand (absent in place); Recv the result: allreduce the vector (in place: the operand
// first); reduce the vector at the root only (nothing elsewhere: use Tmp); reduce_scatter_block
// and reduce_scatter this rank's part, or in place every part (the operand), the result going to
// its start.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace topocoll {

// Shm: the data area of the node's shared-memory segment for this call (shm/shm_context.h),
// laid out like the receive binding; every rank of a node sees the same bytes.
enum class BufferId : uint8_t { None = 0, Send = 1, Recv = 2, Tmp = 3, Shm = 4 };

// A run of consecutive blocks of one buffer.
struct BlockSpan {
  BufferId buf = BufferId::None;
  int64_t first = 0;
  int64_t count = 0;
};

// FlagSignal/FlagWait act on flags in the node's shared-memory segment: every rank of a node owns
// kShmFlagSlots flags (each on its own cache line); `peer` names the owner (a rank of the same
// node), `slot` the flag, `stage` (1 ... kShmMaxStage) the value. Flags only grow within a
// call: a wait passes once the flag holds `stage` or more of this call.
// Reduce combines src into dst element by element with the call's MPI_Op and datatype; `order`
// says which operand is on the left, which matters for ops that are not commutative (and for the
// bits of floating-point MIN/MAX on NaN and signed zeros). src and dst must not overlap.
enum class OpKind : uint8_t { Send = 0, Recv = 1, Copy = 2, FlagSignal = 3, FlagWait = 4, Reduce = 5 };

// SrcFirst: dst = src op dst (MPI_Reduce_local(src, dst)); DstFirst: dst = dst op src. A builder
// puts the operand of the lower ranks on the left to combine in rank order, into its own buffer
// whichever side that is.
enum class ReduceOrder : uint8_t { SrcFirst = 0, DstFirst = 1 };

inline constexpr int kMaxRoundsAhead = 4;            // Schedule::overlap_rounds
inline constexpr int kShmFlagSlots = 4;            // slot 0 is the barrier's, 1-3 free for data algorithms
inline constexpr int64_t kShmMaxStage = (int64_t(1) << 24) - 1;

// Under Schedule::overlap_rounds, the rounds in flight at once (the one being completed and those
// posted ahead of it): the places a buffer reused round after round needs.
inline constexpr int kRoundsInFlight = kMaxRoundsAhead + 1;

// Position `i` on a ring of `p` ranks, for any integer i (negative too).
inline int ringIndex(int i, int p) { return ((i % p) + p) % p; }

struct Op {
  OpKind kind = OpKind::Copy;
  int peer = -1;   // Send/Recv: rank in the communicator; FlagSignal/FlagWait: the flag's owner
  BlockSpan src;   // Send, Copy, Reduce
  BlockSpan dst;   // Recv, Copy, Reduce
  int slot = 0;        // FlagSignal/FlagWait
  int64_t stage = 0;   // FlagSignal/FlagWait
  ReduceOrder order = ReduceOrder::SrcFirst;  // Reduce
};

// All operations of a round are started together; the round ends when all have completed.
// Copies and reductions run after the round's receives complete, so a round may forward or
// combine what it received; they run in schedule order, so a copy may feed a later reduction.
// In a round: sends and receives are posted, then flag waits pass, then (requests complete)
// copies and reductions run, then flags are signalled: a signal announces the round's copies
// (release), a wait orders the round's copies after another rank's signal (acquire).
struct Round {
  std::vector<Op> ops;
};

// How a schedule uses the node's shared-memory segment. Every rank's schedule of an algorithm
// says the same (even a rank with no shm op), so that the ranks of a node agree on each call's
// channel. Data: the executor first waits until the previous call on the channel is done on
// every rank of the node; Flags: flags only, whose monotonic stages need no such wait.
enum class ShmUse : uint8_t { None = 0, Flags = 1, Data = 2 };

struct Schedule {
  std::vector<Round> rounds;
  int64_t tmp_blocks = 0;  // scratch buffer size, in blocks of the receive binding
  std::string note;        // a fallback taken inside the algorithm, reported by `explain`
  // Spans count units of 1/units_per_block block (a block is one rank's count elements): lets
  // a builder cut blocks into tiles or segments (units_per_block = count: spans of elements).
  int64_t units_per_block = 1;
  ShmUse shm = ShmUse::None;
  // The executor may post a round's messages while the rounds before it are in flight, up to
  // kMaxRoundsAhead rounds ahead, where they touch no span those rounds write and receive into
  // none they read: consecutive independent rounds (a ring's segments) then pipeline. Messages are
  // still posted in schedule order, so they match as in lockstep. Only for schedules without
  // shared memory whose buffers do not alias each other.
  bool overlap_rounds = false;

  Round& newRound() { return rounds.emplace_back(); }
};

// Names of buffers and op kinds, as messages and JavaScript (src/select/schedule.ts) spell them.
inline const char* bufferName(BufferId id) {
  switch (id) {
    case BufferId::Send: return "send";
    case BufferId::Recv: return "recv";
    case BufferId::Tmp: return "tmp";
    case BufferId::Shm: return "shm";
    default: return "none";
  }
}

inline const char* opKindName(OpKind k) {
  switch (k) {
    case OpKind::Send: return "send";
    case OpKind::Recv: return "recv";
    case OpKind::Copy: return "copy";
    case OpKind::FlagSignal: return "flag_signal";
    case OpKind::FlagWait: return "flag_wait";
    case OpKind::Reduce: return "reduce";
  }
  return "unknown";
}

inline BlockSpan span(BufferId buf, int64_t first, int64_t count) { return {buf, first, count}; }

inline void addSend(Round& r, int peer, BlockSpan src) { r.ops.push_back({OpKind::Send, peer, src, {}}); }
inline void addRecv(Round& r, int peer, BlockSpan dst) { r.ops.push_back({OpKind::Recv, peer, {}, dst}); }
inline void addCopy(Round& r, BlockSpan src, BlockSpan dst) { r.ops.push_back({OpKind::Copy, -1, src, dst}); }
inline void addReduce(Round& r, BlockSpan src, BlockSpan dst, ReduceOrder order) {
  r.ops.push_back({OpKind::Reduce, -1, src, dst, 0, 0, order});
}
inline void addFlagSignal(Round& r, int owner, int slot, int64_t stage) {
  r.ops.push_back({OpKind::FlagSignal, owner, {}, {}, slot, stage});
}
inline void addFlagWait(Round& r, int owner, int slot, int64_t stage) {
  r.ops.push_back({OpKind::FlagWait, owner, {}, {}, slot, stage});
}

class Hierarchy;  // hierarchy/hierarchy.h
namespace mapping {
struct RankMapping;  // mapping/rank_mapping.h
}

// Everything a builder may depend on. Builders are pure functions of this.
struct BuildParams {
  int p = 1;             // communicator size
  int rank = 0;          // my rank
  int root = 0;          // bcast, reduce
  // Elements per block (allgather/alltoall), of the vector (bcast; allreduce, reduce: a block being
  // one element), of one rank's part (reduce_scatter_block) or of all parts (reduce_scatter).
  int64_t count = 0;
  bool in_place = false; // MPI_IN_PLACE: my contribution already sits in the receive buffer
  // Reductions: false when the op is not commutative; the builder must then combine in rank
  // order (the registry's rankOrdered), or the engine does not run it for such an op.
  bool commutative = true;
  // reduce_scatter: the elements of every rank's part (p entries, the same on every rank);
  // null for the other collectives. Owned by the caller for the duration of the build.
  const std::vector<int64_t>* recv_counts = nullptr;
  int max_outstanding = 32;     // bound on requests in flight (isend_irecv)
  int64_t segment_blocks = 0;   // pipelining/tiling unit in blocks, 0 = algorithm default
  // Multi-core (seed 001), set by the engine per communicator; tools may leave them unset.
  const Hierarchy* hierarchy = nullptr;  // node/socket/NUMA of every rank; null: one node, one socket
  int64_t element_bytes = 0;   // memory one element spans (its extent; reductions: its signature bytes); 0 = unknown
  int64_t shm_elements = 0;    // elements the node segment's data area holds per call; 0 = no shared memory
  int bcast_concurrency = 0;   // readers of one shm segment at a time (TOPOCOLL_BCAST_CONCURRENCY); 0 = from the hierarchy
  int64_t tile_bytes = 0;      // alltoall tile (TOPOCOLL_ALLTOALL_TILE_BYTES); 0 = from the shared cache
  // Remapped allgathers (seed 004): pi of the communicator for the algorithm's base, computed once
  // per communicator by the engine; null: the builder computes it from `hierarchy`.
  const mapping::RankMapping* mapping = nullptr;
};

using ScheduleBuilder = Schedule (*)(const BuildParams&);

}  // namespace topocoll
