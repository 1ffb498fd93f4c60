// Per-level Hockney cost of a collective: every rank's schedule replayed through α + nβ, with α
// and β those of the level a message crosses (intra-node or inter-node, or the topology file's
// levels). The timing rules are those of the TypeScript simulator (src/model/simulate.ts with
// the hockney model), so that `topocoll simulate` and TOPOCOLL_SELECT=model agree:
// - a rank posts a round's sends when it enters the round; a send starts when the sender's port
//   is free and, for a level that leaves the node, when the node's network port is free; it keeps
//   both busy α + nβ and arrives α + nβ after it starts;
// - a receiver takes one message at a time: a message completes no earlier than α + nβ after
//   the previous one it received;
// - a round ends when its last send has left and its last message (or flag) has arrived; its
//   copies then take bytes x copy β and its reduce ops bytes x γ, on the rank that combines (a
//   send to a rank the sender also receives from in the round costs the level's exchange β); a
//   flag signal reaches its waiters the signal latency of their level later (a cache line's
//   trip, which profiles may give apart from α);
// - messages match per (source, destination) pair in posting order, and ready ranks post their
//   next round in order of the time they enter it (first come, first served at shared ports).
#pragma once

#include <climits>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "schedule.h"

namespace topocoll::model {

struct LinkCost {
  double alpha = 0;        // seconds
  double beta = 0;         // seconds per byte
  bool uses_nic = false;   // the messages of this level leave the node through its shared port
  double signal_alpha = -1;  // seconds for a shared-memory flag to reach a reader; < 0: alpha
  double exchange_beta = -1;  // beta while the pair also sends the other way in the round; < 0: beta
  double signalAlpha() const { return signal_alpha < 0 ? alpha : signal_alpha; }
  double betaOf(bool exchange) const { return exchange && exchange_beta >= 0 ? exchange_beta : beta; }
};

// γ where the machine gives none: seconds per byte a reduce op combines (both operands read, the
// result written), the engine's float SUM kernel on 64 KiB-4 MiB from rotated buffers on the
// development VM. The TypeScript models default to the same (DEFAULT_GAMMA, src/model/machine.ts).
inline constexpr double kDefaultGamma = 0.2e-9;

// A communicator's ranks on a machine: the level every pair of ranks talks through.
struct HockneyMachine {
  std::vector<LinkCost> levels;
  std::function<int(int, int)> level_of;  // (rank a, rank b) -> index into levels
  std::vector<int> nic;                   // per rank: the network port it shares (its node)
  double copy_beta = 0;                   // seconds per byte of a local copy
  double gamma = kDefaultGamma;           // seconds per byte combined by a reduce op
  double round_overhead = 0;              // seconds the executor spends entering a round
};

// Two levels: ranks on one node (intra) and ranks on different nodes (inter, through the node's
// port). node_of_rank gives every rank's node; copies cost the intra-node β.
HockneyMachine twoLevelMachine(std::vector<int> node_of_rank, LinkCost intra, LinkCost inter);

struct Prediction {
  bool ok = false;
  std::string error;     // a deadlock or a size mismatch, when !ok
  double seconds = 0;    // until the slowest rank finishes
  int rounds = 0;        // the longest schedule
  int64_t messages = 0;
  double bytes = 0;      // on the wire, all messages together
  double alcd = 0;       // average |src - dst| of the messages (seed 000)
};

// A schedule as the replay needs it, two words per op (the layout of src/model/compiled.ts): per
// round a header [ops, ops awaited], then per op [peer, units] for a send, [-1 - peer, units] for
// a receive, [kCopyCode | kReduceCode, units], or [kSignalCode | kWaitCode, flag owner]. A pairwise
// alltoall on 8192 ranks is 1 GB this way, against 9 GB of Schedule objects.
inline constexpr int32_t kCopyCode = INT32_MIN;
inline constexpr int32_t kSignalCode = INT32_MIN + 1;
inline constexpr int32_t kWaitCode = INT32_MIN + 2;
inline constexpr int32_t kReduceCode = INT32_MIN + 3;

struct CompactSchedule {
  std::vector<int32_t> stream;
  std::vector<uint8_t> flag_slot;    // per op slot, when the schedule has flag ops
  std::vector<int32_t> flag_stage;
  int rounds = 0;
  int64_t units_per_block = 1;
};

// False with *error when a count or stage does not fit the compact form or a peer is not a rank.
bool compact(const Schedule& s, int p, CompactSchedule* out, std::string* error);

// The replay's own form of a CompactSchedule, a few bytes per op where the compact form takes
// eight: varints, each peer as the difference from the previous peer of its kind, and a count
// left out when it repeats the previous one of its kind. Every rank of a pairwise alltoall on
// 8192 ranks holds its 8191 rounds at once: 1.6 GB compact, about 0.27 GB packed.
struct PackedSchedule {
  std::vector<uint8_t> bytes;
  int rounds = 0;
  int64_t units_per_block = 1;
};

// `rank` is the schedule's own rank (the first peer of each kind is taken relative to it).
void pack(const CompactSchedule& c, int rank, PackedSchedule* out);

// Called now and then by a long replay: rounds replayed so far, of all ranks' rounds together.
using ReplayProgress = std::function<void(int64_t done, int64_t total)>;

// Replays the schedules of ranks 0 ... p-1 (schedules[r] is rank r's). block_bytes: bytes of one
// block (allgather/alltoall: one rank's block; bcast: one element).
Prediction predict(const std::vector<PackedSchedule>& schedules, const HockneyMachine& machine, double block_bytes,
                   const ReplayProgress& progress = nullptr);
Prediction predict(const std::vector<Schedule>& schedules, const HockneyMachine& machine, double block_bytes);

}  // namespace topocoll::model
