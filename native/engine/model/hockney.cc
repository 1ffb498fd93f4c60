#include "model/hockney.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <queue>
#include <tuple>
#include <utility>

namespace topocoll::model {

ModelMachine twoLevelMachine(std::vector<int> node_of_rank, LinkCost intra, LinkCost inter) {
  ModelMachine m;
  intra.uses_nic = false;
  inter.uses_nic = true;
  m.levels = {intra, inter};
  m.nic = node_of_rank;
  m.copy_beta = intra.beta;
  m.level_of = [node = std::move(node_of_rank)](int a, int b) { return node[a] == node[b] ? 0 : 1; };
  return m;
}

namespace {

bool isFlag(OpKind k) { return k == OpKind::FlagSignal || k == OpKind::FlagWait; }

// Why a span cannot be compacted, or "". Its first block matters only to the spans' readers.
std::string spanProblem(const BlockSpan& span, bool with_first) {
  if (span.buf == BufferId::None) return "missing block span";
  if (span.first < 0 || span.count < 0) return "span first/count must be non-negative integers, got " + std::to_string(span.first) + "/" + std::to_string(span.count);
  if ((with_first && span.first > INT32_MAX) || span.count > INT32_MAX) {
    return "span first/count " + std::to_string(span.first) + "/" + std::to_string(span.count) + " does not fit the model's 32-bit counts";
  }
  return "";
}

// The problem of one op, or "".
std::string opProblem(const Op& op, int p, bool with_first) {
  if (op.kind != OpKind::Copy && op.kind != OpKind::Reduce && (op.peer < 0 || op.peer >= p)) {
    return "peer " + std::to_string(op.peer) + " is not a rank of a " + std::to_string(p) + "-rank communicator";
  }
  if (isFlag(op.kind)) {
    if (op.slot < 0 || op.slot >= kModelFlagSlots) return "flag slot " + std::to_string(op.slot) + " is not in [0, " + std::to_string(kModelFlagSlots) + ")";
    if (op.stage < 1 || op.stage > kShmMaxStage) return "flag stage " + std::to_string(op.stage) + " is not in [1, " + std::to_string(kShmMaxStage) + "]";
    return "";
  }
  std::string problem;
  if (op.kind != OpKind::Recv && !(problem = spanProblem(op.src, with_first)).empty()) return problem;
  if (op.kind != OpKind::Send && !(problem = spanProblem(op.dst, with_first)).empty()) return problem;
  if ((op.kind == OpKind::Copy || op.kind == OpKind::Reduce) && op.src.count != op.dst.count) {
    return std::string(op.kind == OpKind::Copy ? "copies " : "combines ") + std::to_string(op.src.count) + " units into a " +
           std::to_string(op.dst.count) + "-unit span";
  }
  return "";
}

}  // namespace

bool compact(const Schedule& s, int rank, int p, CompactSchedule* out, std::string* error, CompactSpans* spans) {
  if (s.units_per_block < 1 || s.units_per_block > INT32_MAX) {
    *error = "rank " + std::to_string(rank) + ": unitsPerBlock must be a positive integer, got " + std::to_string(s.units_per_block);
    return false;
  }
  size_t slots = s.rounds.size();
  bool has_flags = false;
  for (const Round& round : s.rounds) {
    slots += round.ops.size();
    for (const Op& op : round.ops) has_flags |= isFlag(op.kind);
  }
  out->stream.assign(2 * slots, 0);
  out->flag_slot.assign(has_flags ? slots : 0, 0);
  out->flag_stage.assign(has_flags ? slots : 0, 0);
  out->rounds = static_cast<int>(s.rounds.size());
  out->units_per_block = s.units_per_block;
  if (spans) {
    spans->src_buf.assign(slots, 0);
    spans->dst_buf.assign(slots, 0);
    spans->src_first.assign(slots, 0);
    spans->dst_first.assign(slots, 0);
    spans->dst_first_order.assign(slots, 0);
  }
  int32_t* w = out->stream.data();
  size_t slot = 0;
  for (size_t r = 0; r < s.rounds.size(); ++r) {
    const std::vector<Op>& ops = s.rounds[r].ops;
    size_t header = slot++;
    int32_t awaited = 0;
    w[2 * header] = static_cast<int32_t>(ops.size());
    for (size_t k = 0; k < ops.size(); ++k, ++slot) {
      const Op& op = ops[k];
      if (std::string problem = opProblem(op, p, spans != nullptr); !problem.empty()) {
        *error = "rank " + std::to_string(rank) + " round " + std::to_string(r) + " op " + std::to_string(k) + " (" + opKindName(op.kind) + "): " + problem;
        return false;
      }
      switch (op.kind) {
        case OpKind::Send:
        case OpKind::Recv:
          w[2 * slot] = op.kind == OpKind::Send ? op.peer : -1 - op.peer;
          w[2 * slot + 1] = static_cast<int32_t>(op.kind == OpKind::Send ? op.src.count : op.dst.count);
          ++awaited;
          break;
        case OpKind::Copy:
        case OpKind::Reduce:
          w[2 * slot] = op.kind == OpKind::Copy ? kCopyCode : kReduceCode;
          w[2 * slot + 1] = static_cast<int32_t>(op.src.count);
          break;
        case OpKind::FlagSignal:
        case OpKind::FlagWait:
          w[2 * slot] = op.kind == OpKind::FlagSignal ? kSignalCode : kWaitCode;
          w[2 * slot + 1] = op.peer;
          out->flag_slot[slot] = static_cast<uint8_t>(op.slot);
          out->flag_stage[slot] = static_cast<int32_t>(op.stage);
          awaited += op.kind == OpKind::FlagWait;
          break;
      }
      if (spans) {
        spans->src_buf[slot] = static_cast<uint8_t>(op.src.buf);
        spans->src_first[slot] = static_cast<int32_t>(op.src.first);
        spans->dst_buf[slot] = static_cast<uint8_t>(op.dst.buf);
        spans->dst_first[slot] = static_cast<int32_t>(op.dst.first);
        spans->dst_first_order[slot] = op.kind == OpKind::Reduce && op.order == ReduceOrder::DstFirst;
      }
    }
    w[2 * header + 1] = awaited;
  }
  return true;
}

namespace {

bool isRecv(int32_t code) { return code < 0 && code > kReduceCode; }

}  // namespace

bool checkCompact(const CompactSchedule& c, int p, std::string* error) {
  const size_t slots = c.stream.size() / 2;
  const bool has_flags = !c.flag_slot.empty();
  if (c.units_per_block < 1) return *error = "unitsPerBlock must be positive", false;
  if (has_flags && (c.flag_slot.size() != slots || c.flag_stage.size() != slots)) {
    return *error = "flag slots and stages must have one entry per op slot", false;
  }
  int rounds = 0;
  for (size_t header = 0; header < slots; ++rounds) {
    const int32_t ops = c.stream[2 * header], awaited = c.stream[2 * header + 1];
    const auto badHeader = [&] {
      return *error = "round " + std::to_string(rounds) + " has a bad header [" + std::to_string(ops) + ", " + std::to_string(awaited) + "]", false;
    };
    if (ops < 0 || static_cast<size_t>(ops) > slots - header - 1) return badHeader();
    int32_t waits_for = 0;  // sends, receives and flag waits: what the round awaits
    for (size_t slot = header + 1; slot <= header + static_cast<size_t>(ops); ++slot) {
      const int32_t code = c.stream[2 * slot], word = c.stream[2 * slot + 1];
      const bool flag = code == kSignalCode || code == kWaitCode;
      const int64_t peer = code >= 0 ? code : isRecv(code) ? -1 - static_cast<int64_t>(code) : flag ? word : 0;
      if (peer < 0 || peer >= p) return *error = "round " + std::to_string(rounds) + ": peer " + std::to_string(peer) + " is not a rank of " + std::to_string(p), false;
      if (!flag && word < 0) return *error = "round " + std::to_string(rounds) + ": negative count " + std::to_string(word), false;
      if (flag && !has_flags) return *error = "round " + std::to_string(rounds) + " has flag ops but no flag slots", false;
      waits_for += code >= 0 || isRecv(code) || code == kWaitCode;
    }
    if (awaited != waits_for) return badHeader();
    header += 1 + static_cast<size_t>(ops);
  }
  if (rounds != c.rounds) return *error = "the stream holds " + std::to_string(rounds) + " rounds, not " + std::to_string(c.rounds), false;
  return true;
}

namespace {

// PackedSchedule: per round varint(ops), varint(ops awaited); per op varint(head), head =
// zigzag(peer - previous peer of the kind) << 4 | same count << 3 | kind, then varint(count)
// unless it repeats the kind's previous one; flag ops then varint(flag slot) and the stage as
// the count is (zigzag of its difference from the kind's previous stage).
enum PackedKind : uint8_t { kSend, kRecv, kCopy, kReduce, kSignal, kWait, kKinds };

// What a packed stream's deltas are taken from: the same at the writer and at the reader.
struct PackState {
  int64_t peer[kKinds];
  int64_t count[kKinds];
  explicit PackState(int rank = 0) {
    for (int k = 0; k < kKinds; ++k) peer[k] = rank, count[k] = -1;
  }
};

uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
int64_t unzigzag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

void putVarint(std::vector<uint8_t>& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

uint64_t getVarint(const uint8_t*& in) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    uint8_t b = *in++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
}

// One op of a packed round, as the replay reads it.
struct PackedOp {
  PackedKind kind;
  int peer;        // send, receive: the other rank; flags: the flag's owner
  int32_t units;   // send, receive, copy, reduce
  uint8_t slot;    // flags
  int32_t stage;   // flags
};

// Reads the round at `in` (advanced past it) with the deltas of `state`; returns ops awaited.
int32_t unpackRound(const uint8_t*& in, PackState& state, std::vector<PackedOp>& ops) {
  ops.resize(getVarint(in));
  const int32_t awaited = static_cast<int32_t>(getVarint(in));
  for (PackedOp& op : ops) {
    uint64_t head = getVarint(in);
    op.kind = static_cast<PackedKind>(head & 7);
    int64_t& peer = state.peer[op.kind];
    int64_t& count = state.count[op.kind];
    peer += unzigzag(head >> 4);
    op.peer = static_cast<int>(peer);
    bool flag = op.kind == kSignal || op.kind == kWait;
    if (flag) op.slot = static_cast<uint8_t>(getVarint(in));
    if (!(head & 8)) count = flag ? count + unzigzag(getVarint(in)) : static_cast<int64_t>(getVarint(in));
    if (flag) op.stage = static_cast<int32_t>(count);
    else op.units = static_cast<int32_t>(count);
  }
  return awaited;
}

// The progression of the schedules: in time order with the timing model's costs (predict), or
// in rank order handing its events to a sink (replayEvents).
class Replay {
 public:
  Replay(const std::vector<PackedSchedule>& schedules, const ModelMachine& machine, double block_bytes, const ReplayProgress& progress,
         const ReplayEventSink* events = nullptr)
      : s_(schedules), m_(machine), block_bytes_(block_bytes), p_(static_cast<int>(schedules.size())), progress_(progress), events_(events),
        cursor_(p_), state_(p_), round_(p_, 0), pending_(p_, 0), header_(p_, 0), copied_(p_, 0), combined_(p_, 0), round_start_(p_, 0.0),
        round_end_(p_, 0.0), port_free_(p_, 0.0), recv_free_(p_, 0.0), sends_to_(p_), recvs_at_(p_), signals_(p_) {
    if (events_) ready_bits_.assign((p_ + 31) / 32, 0);
    for (int r = 0; r < p_; ++r) {
      cursor_[r] = s_[r].bytes.data();
      state_[r] = PackState(r);
      total_rounds_ += s_[r].rounds;
    }
    int nics = 0;
    for (int r = 0; r < p_ && r < static_cast<int>(m_.nic.size()); ++r) nics = std::max(nics, m_.nic[r] + 1);
    nic_free_.assign(nics, 0.0);
  }

  Prediction run() {
    Prediction out;
    for (int r = 0; r < p_; ++r) {
      out.rounds = std::max(out.rounds, s_[r].rounds);
      if (s_[r].rounds == 0) ++finished_;
      else markReady(r);
    }
    for (int r = 0; error_.empty() && nextReady(&r);) {
      postRound(r);
      // Every 2^16 rounds: a few calls a second at most.
      if (progress_ && (++posted_ & 0xffff) == 0) progress_(posted_, total_rounds_);
    }
    if (error_.empty() && finished_ < p_) error_ = describeDeadlock();
    flushEvents();
    if (!error_.empty()) {
      out.error = error_;
      return out;
    }
    out.ok = true;
    for (int r = 0; r < p_; ++r) out.seconds = std::max(out.seconds, round_start_[r]);
    out.messages = messages_;
    out.bytes = bytes_;
    out.alcd = messages_ == 0 ? 0 : distance_ / static_cast<double>(messages_);
    return out;
  }

 private:
  struct Entry {
    int peer;       // sends: the sender; receives: the source awaited
    int32_t units;
    int32_t slot;   // the op's slot in its compact stream
    int round;      // the poster's round
    double start;   // sends: when the message started
    bool exchange;  // sends: the sender also receives from the destination in its round
  };
  struct Raise {
    int64_t stage;
    double visible;   // when waiters see it
    int32_t signal;   // its number among the raising signals (events)
  };
  struct Waiter {
    int rank;
    int64_t wanted;   // the stage
    int32_t slot;     // the wait's slot
  };
  struct Flag {
    int64_t value = 0;
    std::vector<Raise> raises;
    std::vector<Waiter> waiters;
  };
  struct Signal {
    int owner;
    uint8_t slot;
    int32_t stage;
  };

  void emit(ReplayEvent kind, std::initializer_list<int32_t> fields) {
    event_buffer_.push_back(static_cast<int32_t>(kind));
    event_buffer_.insert(event_buffer_.end(), fields);
    if (event_buffer_.size() >= kEventChunk) flushEvents();
  }
  void flushEvents() {
    if (events_ && !event_buffer_.empty()) (*events_)(event_buffer_.data(), event_buffer_.size());
    event_buffer_.clear();
  }

  double bytesOf(int r, int64_t units) const {
    return static_cast<double>(units) * block_bytes_ / static_cast<double>(s_[r].units_per_block);
  }
  const LinkCost& link(int a, int b) const { return m_.levels[m_.level_of(a, b)]; }

  // Seconds from the start of a send until the receiver holds all its bytes.
  double messageTime(const LinkCost& l, double bytes, bool exchange) const {
    const double beta = l.betaOf(exchange);
    switch (m_.cost) {
      case CostModel::LogGP: return l.alpha + std::max(bytes - 1, 0.0) * beta;
      case CostModel::Contention: return l.alpha + bytes * beta + bytes * l.hops * m_.switch_wait;
      default: return l.alpha + bytes * beta;
    }
  }

  // Seconds the send keeps the sender's port (and the node's, between nodes) busy.
  double occupancy(const LinkCost& l, double bytes, bool exchange) const {
    if (m_.cost != CostModel::LogGP) return messageTime(l, bytes, exchange);
    return std::max(l.gap, l.overhead + std::max(bytes - 1, 0.0) * l.betaOf(exchange));
  }
  int nicOf(int r) const { return r < static_cast<int>(m_.nic.size()) ? m_.nic[r] : -1; }

  // The replay sweeps all ranks in time order, so each rank's next round is a cache miss (a
  // pairwise alltoall on 8192 ranks is 0.27 GB of streams): fetch it while other ranks run.
  void markReady(int r) {
    if (events_) {
      ready_bits_[r >> 5] |= 1u << (r & 31);
      return;
    }
    __builtin_prefetch(cursor_[r]);
    __builtin_prefetch(cursor_[r] + 64);
    ready_.emplace(round_start_[r], sequence_++, r);
  }

  // The next rank to post a round. Rank order: the lowest ready rank of the 32-rank word the
  // sweep is at (read again after every round: posting one can make a lower rank ready), then
  // the next words, round and round; the order of src/model/replay.ts's reports.
  bool nextReady(int* r) {
    if (!events_) {
      if (ready_.empty()) return false;
      *r = std::get<2>(ready_.top());
      ready_.pop();
      return true;
    }
    for (size_t tried = 0; tried < ready_bits_.size(); ++tried, sweep_ = (sweep_ + 1) % ready_bits_.size()) {
      uint32_t& bits = ready_bits_[sweep_];
      if (bits == 0) continue;
      const int low = __builtin_ctz(bits);
      bits &= bits - 1;
      *r = static_cast<int>(sweep_ * 32) + low;
      return true;
    }
    return false;
  }

  // Reads the rank's next round (its cursor moves past it) and posts its sends, receives and
  // flag waits; its copies and signals wait for the round's end (drainFinishing).
  void postRound(int r) {
    if (events_) emit(ReplayEvent::RoundStart, {r});
    const int32_t awaited = unpackRound(cursor_[r], state_[r], ops_);
    const int32_t first = header_[r] + 1;  // the slot of the round's first op
    header_[r] = first + static_cast<int32_t>(ops_.size());
    round_start_[r] += m_.round_overhead;
    round_end_[r] = round_start_[r];
    pending_[r] = awaited;
    copied_[r] = combined_[r] = 0;
    signals_[r].clear();
    for (const PackedOp& op : ops_) {
      if (op.kind == kCopy) copied_[r] += op.units;
      else if (op.kind == kReduce) combined_[r] += op.units;
      else if (op.kind == kSignal) signals_[r].push_back({op.peer, op.slot, op.stage});
    }
    if (awaited == 0) {
      finishing_.push_back(r);
    } else {
      for (size_t i = 0; i < ops_.size() && error_.empty(); ++i) {
        const PackedOp& op = ops_[i];
        const int32_t slot = first + static_cast<int32_t>(i);
        if (op.kind == kSend) postSend(r, slot, op.peer, op.units, receivesFrom(op.peer));
        else if (op.kind == kRecv) postRecv(r, slot, op.peer, op.units);
        else if (op.kind == kWait) postWait(r, slot, op.peer, op.slot, op.stage);
      }
    }
    drainFinishing();
  }

  // Whether the round being posted receives from `peer`: sends to it are then exchanges.
  bool receivesFrom(int peer) const {
    for (const PackedOp& op : ops_)
      if (op.kind == kRecv && op.peer == peer) return true;
    return false;
  }

  void postSend(int r, int32_t slot, int dst, int32_t units, bool exchange) {
    double bytes = bytesOf(r, units);
    const LinkCost& l = link(r, dst);
    int nic = l.uses_nic ? nicOf(r) : -1;
    double start = std::max(round_start_[r], port_free_[r]);
    if (nic >= 0) start = std::max(start, nic_free_[nic]);
    double busy_until = start + occupancy(l, bytes, exchange);
    port_free_[r] = busy_until;
    if (nic >= 0) nic_free_[nic] = busy_until;
    round_end_[r] = std::max(round_end_[r], busy_until);
    Entry e{};
    if (take(recvs_at_[dst], r, &e)) {
      matched(r, slot, units, round_[r], dst, e.slot, e.units, start, exchange);
    } else {
      sends_to_[dst].push_back({r, units, slot, round_[r], start, exchange});
    }
  }

  void postRecv(int r, int32_t slot, int src, int32_t units) {
    Entry e{};
    if (take(sends_to_[r], src, &e)) {
      matched(src, e.slot, e.units, e.round, r, slot, units, e.start, e.exchange);
    } else {
      recvs_at_[r].push_back({src, units, slot, round_[r], 0, false});
    }
  }

  static bool take(std::vector<Entry>& list, int peer, Entry* out) {
    for (size_t i = 0; i < list.size(); ++i) {
      if (list[i].peer != peer) continue;
      *out = list[i];
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    }
    return false;
  }

  void matched(int src, int32_t send_slot, int32_t sent, int src_round, int dst, int32_t recv_slot, int32_t expected, double start, bool exchange) {
    if (sent != expected) {
      fail("rank " + std::to_string(dst) + " round " + std::to_string(round_[dst]) + ": receive from " + std::to_string(src) + " expects " +
           std::to_string(expected) + " units but the matching send (rank " + std::to_string(src) + " round " + std::to_string(src_round) +
           ") carries " + std::to_string(sent));
      return;
    }
    if (events_) emit(ReplayEvent::Match, {src, send_slot, dst, recv_slot});
    double bytes = bytesOf(src, sent);
    const LinkCost& l = link(src, dst);
    double done = std::max(start + messageTime(l, bytes, exchange), recv_free_[dst] + occupancy(l, bytes, exchange));
    recv_free_[dst] = done;
    round_end_[dst] = std::max(round_end_[dst], done);
    ++messages_;
    bytes_ += bytes;
    distance_ += std::abs(src - dst);
    completeOp(src);
    completeOp(dst);
  }

  void completeOp(int r) {
    if (--pending_[r] == 0) finishing_.push_back(r);
  }

  Flag& flag(int owner, int slot) { return flags_[{owner, slot}]; }

  void postWait(int r, int32_t wait_slot, int owner, uint8_t slot, int64_t stage) {
    Flag& f = flag(owner, slot);
    if (f.value >= stage) {
      for (const Raise& raise : f.raises) {
        if (raise.stage < stage) continue;
        round_end_[r] = std::max(round_end_[r], raise.visible);
        if (events_) emit(ReplayEvent::FlagPass, {r, wait_slot, raise.signal});
        break;
      }
      completeOp(r);
    } else {
      f.waiters.push_back({r, stage, wait_slot});
    }
  }

  void signal(int r, const Signal& s) {
    double visible = round_start_[r] + link(r, s.owner).signalAlpha();
    Flag& f = flag(s.owner, s.slot);
    if (s.stage <= f.value) return;  // flags only grow
    f.value = s.stage;
    const int32_t number = signals_raised_++;
    if (events_) emit(ReplayEvent::Signal, {r});
    f.raises.push_back({s.stage, visible, number});
    for (size_t i = 0; i < f.waiters.size();) {
      const Waiter w = f.waiters[i];
      if (w.wanted > s.stage) {
        ++i;
        continue;
      }
      round_end_[w.rank] = std::max(round_end_[w.rank], visible);
      if (events_) emit(ReplayEvent::FlagPass, {w.rank, w.slot, number});
      f.waiters.erase(f.waiters.begin() + static_cast<std::ptrdiff_t>(i));
      completeOp(w.rank);
    }
  }

  void drainFinishing() {
    while (!finishing_.empty() && error_.empty()) {
      int r = finishing_.back();
      finishing_.pop_back();
      if (events_) emit(ReplayEvent::RoundEnd, {r});
      round_start_[r] = round_end_[r] + bytesOf(r, copied_[r]) * m_.copy_beta + bytesOf(r, combined_[r]) * m_.gamma;
      for (const Signal& s : signals_[r]) signal(r, s);
      if (++round_[r] < s_[r].rounds) markReady(r);
      else ++finished_;
    }
  }

  // Which ranks cannot finish and why (the first four): the message, the send or the flag each
  // one waits for.
  std::string describeDeadlock() const {
    auto state = [&](int r) {
      return round_[r] >= s_[r].rounds ? "rank " + std::to_string(r) + " has finished" : "rank " + std::to_string(r) + " is in round " + std::to_string(round_[r]);
    };
    std::vector<int> send_dst(p_, -1);  // per sender: the destination of its first unmatched send
    std::vector<int32_t> send_units(p_, 0);
    for (int dst = 0; dst < p_; ++dst) {
      for (const Entry& e : sends_to_[dst]) {
        if (send_dst[e.peer] < 0) send_dst[e.peer] = dst, send_units[e.peer] = e.units;
      }
    }
    std::vector<std::string> first_wait(p_);
    for (const auto& [key, f] : flags_) {
      for (const Waiter& w : f.waiters) {
        if (!first_wait[w.rank].empty()) continue;
        first_wait[w.rank] = "waits for flag " + std::to_string(key.second) + " of rank " + std::to_string(key.first) + " to reach stage " +
                             std::to_string(w.wanted) + " (it holds " + std::to_string(f.value) + ")";
      }
    }
    std::string stuck;
    int n_stuck = 0;
    for (int r = 0; r < p_; ++r) {
      if (round_[r] >= s_[r].rounds || ++n_stuck > 4) continue;
      std::string why = "waits";
      if (!recvs_at_[r].empty()) why = "waits for a message from " + std::to_string(recvs_at_[r].front().peer) + " (" + state(recvs_at_[r].front().peer) + ")";
      else if (send_dst[r] >= 0) why = "its send of " + std::to_string(send_units[r]) + " units to " + std::to_string(send_dst[r]) + " is never received (" + state(send_dst[r]) + ")";
      else if (!first_wait[r].empty()) why = first_wait[r];
      stuck += (stuck.empty() ? "" : "; ") + ("rank " + std::to_string(r) + " round " + std::to_string(round_[r]) + " " + why);
    }
    return "deadlock: " + std::to_string(n_stuck) + " of " + std::to_string(p_) + " ranks cannot finish; " + stuck + (n_stuck > 4 ? "; \xe2\x80\xa6" : "");
  }

  void fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
  }

  const std::vector<PackedSchedule>& s_;
  const ModelMachine& m_;
  double block_bytes_;
  int p_;
  const ReplayProgress& progress_;
  const ReplayEventSink* events_;  // null: no events, time order
  static constexpr size_t kEventChunk = 1 << 16;  // words handed to the sink at a time
  std::vector<int32_t> event_buffer_;
  int32_t signals_raised_ = 0;
  int64_t total_rounds_ = 0, posted_ = 0;
  // Per rank: where its next round starts and the deltas it is read with.
  std::vector<const uint8_t*> cursor_;
  std::vector<PackState> state_;
  std::vector<PackedOp> ops_;  // the round being posted
  std::vector<int> round_, pending_;
  std::vector<int32_t> header_;  // per rank: the slot of its next round's header
  std::vector<int64_t> copied_;    // units the current round copies
  std::vector<int64_t> combined_;  // units the current round reduces (γ instead of the copy's β)
  std::vector<double> round_start_, round_end_, port_free_, recv_free_, nic_free_;
  std::vector<std::vector<Entry>> sends_to_, recvs_at_;  // unmatched, listed under the receiver
  std::vector<std::vector<Signal>> signals_;             // the current round's, sent at its end
  std::map<std::pair<int, int>, Flag> flags_;
  // Ready ranks by the time they enter their next round, then in the order they became ready.
  using Ready = std::tuple<double, uint64_t, int>;
  std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> ready_;
  uint64_t sequence_ = 0;
  std::vector<uint32_t> ready_bits_;  // rank order: bit r of word r / 32, rank r is ready
  size_t sweep_ = 0;                  // the word the sweep is at
  std::vector<int> finishing_;
  int finished_ = 0;
  int64_t messages_ = 0;
  double bytes_ = 0, distance_ = 0;
  std::string error_;
};

}  // namespace

void pack(const CompactSchedule& c, int rank, PackedSchedule* out) {
  std::vector<uint8_t>& b = out->bytes;
  b.clear();
  PackState state(rank);
  const int32_t* w = c.stream.data();
  const size_t slots = c.stream.size() / 2;
  for (size_t header = 0; header < slots;) {
    const size_t first = header + 1, end = first + static_cast<size_t>(w[2 * header]);
    putVarint(b, static_cast<uint64_t>(w[2 * header]));
    putVarint(b, static_cast<uint64_t>(w[2 * header + 1]));
    for (size_t slot = first; slot < end; ++slot) {
      const int32_t code = w[2 * slot], word = w[2 * slot + 1];
      PackedKind kind = code >= 0 ? kSend : isRecv(code) ? kRecv : code == kCopyCode ? kCopy : code == kReduceCode ? kReduce
                                                                  : code == kSignalCode ? kSignal : kWait;
      const bool flag = kind == kSignal || kind == kWait;
      int64_t peer = kind == kSend ? code : kind == kRecv ? -1 - code : flag ? word : state.peer[kind];
      int64_t count = flag ? c.flag_stage[slot] : word;
      uint64_t head = zigzag(peer - state.peer[kind]) << 4 | (count == state.count[kind] ? 8 : 0) | kind;
      putVarint(b, head);
      if (flag) putVarint(b, c.flag_slot[slot]);
      if (count != state.count[kind]) putVarint(b, flag ? zigzag(count - state.count[kind]) : static_cast<uint64_t>(count));
      state.peer[kind] = peer;
      state.count[kind] = count;
    }
    header = end;
  }
  b.shrink_to_fit();
  out->rounds = c.rounds;
  out->units_per_block = c.units_per_block;
}

Prediction predict(const std::vector<PackedSchedule>& schedules, const ModelMachine& machine, double block_bytes, const ReplayProgress& progress) {
  if (schedules.empty()) return Prediction{true, "", 0, 0, 0, 0, 0};
  return Replay(schedules, machine, block_bytes, progress).run();
}

std::string replayEvents(const std::vector<PackedSchedule>& schedules, const ReplayEventSink& sink) {
  if (schedules.empty()) return "";
  // No timing here: one level of zero cost for every pair of ranks.
  ModelMachine untimed;
  untimed.levels = {LinkCost{}};
  untimed.level_of = [](int, int) { return 0; };
  const ReplayProgress no_progress;
  return Replay(schedules, untimed, 0, no_progress, &sink).run().error;
}

Prediction predict(const std::vector<Schedule>& schedules, const ModelMachine& machine, double block_bytes) {
  const int p = static_cast<int>(schedules.size());
  std::vector<PackedSchedule> packed(p);
  CompactSchedule compacted;
  for (int r = 0; r < p; ++r) {
    Prediction failed;
    if (!compact(schedules[r], r, p, &compacted, &failed.error)) return failed;
    pack(compacted, r, &packed[r]);
  }
  return predict(packed, machine, block_bytes);
}

}  // namespace topocoll::model
