// The timing model of collectives, the one implementation behind TOPOCOLL_SELECT=model, `explain`
// and `topocoll simulate`/`tune` (through the addon): every rank's schedule replayed with a cost
// model pricing each message at the level it crosses (intra-node or inter-node, a topology file's
// levels, or a profile's levels and switch hops). Cost models: Hockney (α + nβ), LogGP (L + 2o =
// α, G = β: α + (n-1)β to arrive, the port busy max(g, o + (n-1)β)) and seed 002's contention
// model (Hockney plus n x hops x the mean switch wait per byte). Timing rules:
// - a rank posts a round's sends when it enters the round, the round overhead (the executor's
//   own work) after leaving the previous one; a send starts when the sender's port is free and,
//   for a level that leaves the node, when the node's network port is free; it keeps both busy
//   for the model's occupancy and arrives the model's message time after it starts;
// - a receiver takes one message at a time: a message completes no earlier than its occupancy
//   after the previous one it received (fan-in);
// - a round ends when its last send has left and its last message (or flag) has arrived; its
//   copies then take bytes x copy β and its reduce ops bytes x γ, on the rank that combines (a
//   send to a rank the sender also receives from in the round costs the level's exchange β); a
//   flag signal reaches its waiters the signal latency of their level later (a cache line's
//   trip, which profiles may give apart from α);
// - messages match per (source, destination) pair in posting order, and ready ranks post their
//   next round in order of the time they enter it (first come, first served at shared ports:
//   time order when ranks enter a round together, as in the regular schedules of collectives,
//   an approximation otherwise).
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
  double overhead = 0;       // LogGP o: seconds the sender is busy besides (n-1)β
  double gap = 0;            // LogGP g: seconds between two sends of one port, at least
  int hops = 0;              // switches a message of this entry crosses (the contention model's waits)
  double signalAlpha() const { return signal_alpha < 0 ? alpha : signal_alpha; }
  double betaOf(bool exchange) const { return exchange && exchange_beta >= 0 ? exchange_beta : beta; }
};

// γ where the machine gives none: seconds per byte a reduce op combines (both operands read, the
// result written), the engine's float SUM kernel on 64 KiB-4 MiB from rotated buffers on the
// development VM. The TypeScript models take it from the engine (select_model.h's localWorkOf).
inline constexpr double kDefaultGamma = 0.2e-9;

enum class CostModel : uint8_t { Hockney, LogGP, Contention };

// A communicator's ranks on a machine: the level every pair of ranks talks through.
struct ModelMachine {
  CostModel cost = CostModel::Hockney;
  double switch_wait = 0;                 // contention: seconds of mean switch wait per byte and switch crossed
  std::vector<LinkCost> levels;
  std::function<int(int, int)> level_of;  // (rank a, rank b) -> index into levels
  std::vector<int> nic;                   // per rank: the network port it shares (its node)
  double copy_beta = 0;                   // seconds per byte of a local copy
  double gamma = kDefaultGamma;           // seconds per byte combined by a reduce op
  double round_overhead = 0;              // seconds the executor spends entering a round
};

// Two levels: ranks on one node (intra) and ranks on different nodes (inter, through the node's
// port). node_of_rank gives every rank's node; copies cost the intra-node β.
ModelMachine twoLevelMachine(std::vector<int> node_of_rank, LinkCost intra, LinkCost inter);

struct Prediction {
  bool ok = false;
  std::string error;     // a deadlock or a size mismatch, when !ok
  double seconds = 0;    // until the slowest rank finishes
  int rounds = 0;        // the longest schedule
  int64_t messages = 0;
  double bytes = 0;      // on the wire, all messages together
  double alcd = 0;       // average |src - dst| of the messages (seed 000)
};

// A schedule as the replay needs it, two words per op, the one flattening of schedules (the
// timing model here, the addon's simulateSchedules, and through the addon the TypeScript
// symbolic replay, src/model/replay.ts, which reads these codes from the addon's modelLayout): per
// round a header [ops, ops awaited], then per op [peer, units] for a send, [-1 - peer, units] for
// a receive, [kCopyCode | kReduceCode, units], or [kSignalCode | kWaitCode, flag owner]. An op is
// named by its slot (stream position / 2; round headers count). A pairwise alltoall on 8192
// ranks is 1 GB this way, against 9 GB of Schedule objects.
inline constexpr int32_t kCopyCode = INT32_MIN;
inline constexpr int32_t kSignalCode = INT32_MIN + 1;
inline constexpr int32_t kWaitCode = INT32_MIN + 2;
inline constexpr int32_t kReduceCode = INT32_MIN + 3;

// Flags a rank owns in the model: the executor has kShmFlagSlots, the replays accept more.
inline constexpr int kModelFlagSlots = 64;

struct CompactSchedule {
  std::vector<int32_t> stream;
  std::vector<uint8_t> flag_slot;    // per op slot, when the schedule has flag ops
  std::vector<int32_t> flag_stage;
  int rounds = 0;
  int64_t units_per_block = 1;
};

// Where every op slot's blocks are, for the symbolic replay (the timing needs none): the source
// span of sends, copies and reduce ops, the destination span of receives, copies and reduce ops
// (BufferId values; None where an op has no such span).
struct CompactSpans {
  std::vector<uint8_t> src_buf, dst_buf;
  std::vector<int32_t> src_first, dst_first;
  std::vector<uint8_t> dst_first_order;  // reduce ops: 1 when the destination is the left operand
};

// False with *error ("rank R round N op K (kind): ...") when an op cannot run: a peer that is not
// a rank of p, a span without a buffer or with counts that do not fit the compact form, a copy
// into a span of another size, a flag slot or stage out of range. `rank` names the schedule in
// messages; `spans`, when given, receives the ops' spans.
bool compact(const Schedule& s, int rank, int p, CompactSchedule* out, std::string* error, CompactSpans* spans = nullptr);

// False with *error when a compact schedule handed over from outside (the addon) is malformed:
// a round's ops past the stream's end, a peer that is not a rank of p, flag arrays too short.
bool checkCompact(const CompactSchedule& c, int p, std::string* error);

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
Prediction predict(const std::vector<PackedSchedule>& schedules, const ModelMachine& machine, double block_bytes,
                   const ReplayProgress& progress = nullptr);
Prediction predict(const std::vector<Schedule>& schedules, const ModelMachine& machine, double block_bytes);

// The progression's events, in the order they happen, for the symbolic replay
// (src/model/replay.ts), which follows every block through them. Ops are named by their slot in
// the CompactSchedule stream (round headers count). Records, one int32 per field:
//   [RoundStart, rank]                           the rank posts its next round
//   [Match, src, send slot, dst, recv slot]      a send meets its receive
//   [Signal, rank]                               a flag signal raises its flag: signal number n
//                                                for the n-th such record (from 0)
//   [FlagPass, rank, wait slot, signal number]   a flag wait passes, thanks to that signal
//   [RoundEnd, rank]                             the round's sends, receives and waits are done:
//                                                its copies run, then its signals
enum class ReplayEvent : int32_t { RoundStart, Match, Signal, FlagPass, RoundEnd };
// Words of each record, by kind (the kind included).
inline constexpr int32_t kReplayEventWords[] = {2, 5, 2, 4, 2};

// Receives the records in chunks that end on a record's end.
using ReplayEventSink = std::function<void(const int32_t* records, size_t words)>;

// The same progression as predict's, without timing: ready ranks post their next round in rank
// order (a sweep over the ranks, again and again), so the first error the symbolic replay meets
// does not depend on a machine. Returns "" when every rank finishes, else the deadlock or size
// mismatch (predict's text).
std::string replayEvents(const std::vector<PackedSchedule>& schedules, const ReplayEventSink& sink);

}  // namespace topocoll::model
