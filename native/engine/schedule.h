// Schedule IR: what an algorithm produces and the executor runs.
//
// A collective moves *blocks*. The size of a block is a property of the buffer binding, not of
// the schedule: for allgather/alltoall a block is one rank's `count` elements, for bcast a block
// is one element of the vector (so builders can cut it into segments). Builders therefore never
// see bytes or datatypes, which keeps them pure and lets the TypeScript replayer check them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace topocoll {

enum class BufferId : uint8_t { None = 0, Send = 1, Recv = 2, Tmp = 3 };

// A run of consecutive blocks of one buffer.
struct BlockSpan {
  BufferId buf = BufferId::None;
  int64_t first = 0;
  int64_t count = 0;
};

enum class OpKind : uint8_t { Send = 0, Recv = 1, Copy = 2 };

struct Op {
  OpKind kind = OpKind::Copy;
  int peer = -1;   // Send/Recv: rank in the communicator
  BlockSpan src;   // Send, Copy
  BlockSpan dst;   // Recv, Copy
};

// All operations of a round are started together; the round ends when all have completed.
// Copies run after the round's receives complete, so a round may forward what it received.
struct Round {
  std::vector<Op> ops;
};

struct Schedule {
  std::vector<Round> rounds;
  int64_t tmp_blocks = 0;  // scratch buffer size, in blocks of the receive binding
  std::string note;        // a fallback taken inside the algorithm, reported by `explain`

  Round& newRound() { return rounds.emplace_back(); }
};

inline BlockSpan span(BufferId buf, int64_t first, int64_t count) { return {buf, first, count}; }

inline void addSend(Round& r, int peer, BlockSpan src) { r.ops.push_back({OpKind::Send, peer, src, {}}); }
inline void addRecv(Round& r, int peer, BlockSpan dst) { r.ops.push_back({OpKind::Recv, peer, {}, dst}); }
inline void addCopy(Round& r, BlockSpan src, BlockSpan dst) { r.ops.push_back({OpKind::Copy, -1, src, dst}); }

// Everything a builder may depend on. Builders are pure functions of this.
struct BuildParams {
  int p = 1;             // communicator size
  int rank = 0;          // my rank
  int root = 0;          // bcast
  int64_t count = 0;     // elements per block (allgather/alltoall) or of the vector (bcast)
  bool in_place = false; // MPI_IN_PLACE: my contribution already sits in the receive buffer
  int max_outstanding = 32;     // bound on requests in flight (isend_irecv)
  int64_t segment_blocks = 0;   // pipelining/tiling unit in blocks, 0 = algorithm default
};

using ScheduleBuilder = Schedule (*)(const BuildParams&);

}  // namespace topocoll
