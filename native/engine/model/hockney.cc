#include "model/hockney.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <queue>
#include <tuple>
#include <utility>

namespace topocoll::model {

HockneyMachine twoLevelMachine(std::vector<int> node_of_rank, LinkCost intra, LinkCost inter) {
  HockneyMachine m;
  intra.uses_nic = false;
  inter.uses_nic = true;
  m.levels = {intra, inter};
  m.nic = node_of_rank;
  m.copy_beta = intra.beta;
  m.level_of = [node = std::move(node_of_rank)](int a, int b) { return node[a] == node[b] ? 0 : 1; };
  return m;
}

bool compact(const Schedule& s, int p, CompactSchedule* out, std::string* error) {
  size_t slots = s.rounds.size();
  bool has_flags = false;
  for (const Round& round : s.rounds) {
    slots += round.ops.size();
    for (const Op& op : round.ops) has_flags |= op.kind == OpKind::FlagSignal || op.kind == OpKind::FlagWait;
  }
  out->stream.assign(2 * slots, 0);
  out->flag_slot.assign(has_flags ? slots : 0, 0);
  out->flag_stage.assign(has_flags ? slots : 0, 0);
  out->rounds = static_cast<int>(s.rounds.size());
  out->units_per_block = s.units_per_block;
  int32_t* w = out->stream.data();
  size_t slot = 0;
  for (const Round& round : s.rounds) {
    size_t header = slot++;
    int32_t awaited = 0;
    w[2 * header] = static_cast<int32_t>(round.ops.size());
    for (const Op& op : round.ops) {
      if (op.kind != OpKind::Copy && op.kind != OpKind::Reduce && (op.peer < 0 || op.peer >= p)) {
        *error = "peer " + std::to_string(op.peer) + " is not a rank of " + std::to_string(p);
        return false;
      }
      int64_t units = op.kind == OpKind::Recv ? op.dst.count : op.src.count;
      if (op.kind != OpKind::FlagSignal && op.kind != OpKind::FlagWait && (units < 0 || units > INT32_MAX)) {
        *error = "a span of " + std::to_string(units) + " units does not fit the model's 32-bit counts";
        return false;
      }
      switch (op.kind) {
        case OpKind::Send:
          w[2 * slot] = op.peer;
          w[2 * slot + 1] = static_cast<int32_t>(units);
          ++awaited;
          break;
        case OpKind::Recv:
          w[2 * slot] = -1 - op.peer;
          w[2 * slot + 1] = static_cast<int32_t>(units);
          ++awaited;
          break;
        case OpKind::Copy:
        case OpKind::Reduce:
          w[2 * slot] = op.kind == OpKind::Copy ? kCopyCode : kReduceCode;
          w[2 * slot + 1] = static_cast<int32_t>(units);
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
      ++slot;
    }
    w[2 * header + 1] = awaited;
  }
  return true;
}

namespace {

bool isRecv(int32_t code) { return code < 0 && code > kReduceCode; }

// The progression of src/model/engine.ts with the timing hooks of src/model/simulate.ts.
class Replay {
 public:
  Replay(const std::vector<CompactSchedule>& schedules, const HockneyMachine& machine, double block_bytes)
      : s_(schedules), m_(machine), block_bytes_(block_bytes), p_(static_cast<int>(schedules.size())),
        header_(p_, 0), round_(p_, 0), pending_(p_, 0), round_start_(p_, 0.0), round_end_(p_, 0.0), port_free_(p_, 0.0),
        recv_free_(p_, 0.0), sends_to_(p_), recvs_at_(p_) {
    streams_.reserve(p_);
    rounds_.reserve(p_);
    units_per_block_.reserve(p_);
    for (const CompactSchedule& c : s_) {
      streams_.push_back(c.stream.data());
      rounds_.push_back(c.rounds);
      units_per_block_.push_back(static_cast<double>(c.units_per_block));
    }
    int nics = 0;
    for (int r = 0; r < p_ && r < static_cast<int>(m_.nic.size()); ++r) nics = std::max(nics, m_.nic[r] + 1);
    nic_free_.assign(nics, 0.0);
  }

  Prediction run() {
    Prediction out;
    for (int r = 0; r < p_; ++r) {
      out.rounds = std::max(out.rounds, rounds_[r]);
      if (rounds_[r] == 0) ++finished_;
      else markReady(r);
    }
    while (!ready_.empty() && error_.empty()) {
      int r = std::get<2>(ready_.top());
      ready_.pop();
      postRound(r);
    }
    if (error_.empty() && finished_ < p_) error_ = "deadlock: " + std::to_string(p_ - finished_) + " of " + std::to_string(p_) + " ranks cannot finish";
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
    double start;   // sends: when the message started
    bool exchange;  // sends: the sender also receives from the destination in its round
  };
  struct Flag {
    int64_t value = 0;
    std::vector<std::pair<int64_t, double>> raises;  // (stage, when visible)
    std::vector<std::pair<int, int64_t>> waiters;    // (rank, stage wanted)
  };

  double bytesOf(int r, int64_t units) const {
    return static_cast<double>(units) * block_bytes_ / units_per_block_[r];
  }
  const LinkCost& link(int a, int b) const { return m_.levels[m_.level_of(a, b)]; }
  int nicOf(int r) const { return r < static_cast<int>(m_.nic.size()) ? m_.nic[r] : -1; }

  // The replay sweeps all ranks in time order, so each rank's next round is a cache miss (a
  // pairwise alltoall on 8192 ranks is 1 GB of streams): fetch it while other ranks run.
  void markReady(int r) {
    const int32_t* next = streams_[r] + 2 * header_[r];
    __builtin_prefetch(next);
    __builtin_prefetch(next + 16);
    ready_.emplace(round_start_[r], sequence_++, r);
  }

  void postRound(int r) {
    const int32_t* w = streams_[r];
    const size_t first = header_[r] + 1, end = first + w[2 * header_[r]];
    const int32_t awaited = w[2 * header_[r] + 1];
    round_start_[r] += m_.round_overhead;
    round_end_[r] = round_start_[r];
    pending_[r] = awaited;
    if (awaited == 0) {
      finishing_.push_back(r);
    } else {
      for (size_t slot = first; slot < end && error_.empty(); ++slot) {
        int32_t code = w[2 * slot];
        if (code >= 0) postSend(r, code, w[2 * slot + 1], receivesFrom(w, first, end, code));
        else if (isRecv(code)) postRecv(r, -1 - code, w[2 * slot + 1]);
        else if (code == kWaitCode) postWait(r, slot, w[2 * slot + 1]);
      }
    }
    drainFinishing();
  }

  // Whether the round [first, end) of a stream receives from `peer`: sends to it are then exchanges.
  static bool receivesFrom(const int32_t* w, size_t first, size_t end, int peer) {
    for (size_t slot = first; slot < end; ++slot)
      if (isRecv(w[2 * slot]) && -1 - w[2 * slot] == peer) return true;
    return false;
  }

  void postSend(int r, int dst, int32_t units, bool exchange) {
    double bytes = bytesOf(r, units);
    const LinkCost& l = link(r, dst);
    double cost = l.alpha + bytes * l.betaOf(exchange);
    int nic = l.uses_nic ? nicOf(r) : -1;
    double start = std::max(round_start_[r], port_free_[r]);
    if (nic >= 0) start = std::max(start, nic_free_[nic]);
    double busy_until = start + cost;
    port_free_[r] = busy_until;
    if (nic >= 0) nic_free_[nic] = busy_until;
    round_end_[r] = std::max(round_end_[r], busy_until);
    Entry e{-1, 0, 0, false};
    if (take(recvs_at_[dst], r, &e)) {
      matched(r, units, dst, e.units, start, exchange);
    } else {
      sends_to_[dst].push_back({r, units, start, exchange});
    }
  }

  void postRecv(int r, int src, int32_t units) {
    Entry e{-1, 0, 0, false};
    if (take(sends_to_[r], src, &e)) {
      matched(src, e.units, r, units, e.start, e.exchange);
    } else {
      recvs_at_[r].push_back({src, units, 0, false});
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

  void matched(int src, int32_t sent, int dst, int32_t expected, double start, bool exchange) {
    if (sent != expected) {
      fail("rank " + std::to_string(dst) + " expects " + std::to_string(expected) + " units from " + std::to_string(src) +
           ", which sends " + std::to_string(sent));
      return;
    }
    double bytes = bytesOf(src, sent);
    const LinkCost& l = link(src, dst);
    double cost = l.alpha + bytes * l.betaOf(exchange);
    double done = std::max(start + cost, recv_free_[dst] + cost);
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

  void postWait(int r, size_t slot, int owner) {
    const CompactSchedule& s = s_[r];
    int64_t stage = s.flag_stage[slot];
    Flag& f = flag(owner, s.flag_slot[slot]);
    if (f.value >= stage) {
      for (const auto& [raised, visible] : f.raises) {
        if (raised < stage) continue;
        round_end_[r] = std::max(round_end_[r], visible);
        break;
      }
      completeOp(r);
    } else {
      f.waiters.emplace_back(r, stage);
    }
  }

  void signal(int r, size_t slot, int owner) {
    const CompactSchedule& s = s_[r];
    int64_t stage = s.flag_stage[slot];
    double visible = round_start_[r] + link(r, owner).signalAlpha();
    Flag& f = flag(owner, s.flag_slot[slot]);
    if (stage <= f.value) return;  // flags only grow
    f.value = stage;
    f.raises.emplace_back(stage, visible);
    for (size_t i = 0; i < f.waiters.size();) {
      auto [waiter, wanted] = f.waiters[i];
      if (wanted > stage) {
        ++i;
        continue;
      }
      round_end_[waiter] = std::max(round_end_[waiter], visible);
      f.waiters.erase(f.waiters.begin() + static_cast<std::ptrdiff_t>(i));
      completeOp(waiter);
    }
  }

  void drainFinishing() {
    while (!finishing_.empty() && error_.empty()) {
      int r = finishing_.back();
      finishing_.pop_back();
      const int32_t* w = streams_[r];
      const size_t first = header_[r] + 1, end = first + w[2 * header_[r]];
      int64_t copied = 0, combined = 0;
      for (size_t slot = first; slot < end; ++slot) {
        if (w[2 * slot] == kCopyCode) copied += w[2 * slot + 1];
        else if (w[2 * slot] == kReduceCode) combined += w[2 * slot + 1];
      }
      round_start_[r] = round_end_[r] + bytesOf(r, copied) * m_.copy_beta + bytesOf(r, combined) * m_.gamma;
      for (size_t slot = first; slot < end; ++slot) if (w[2 * slot] == kSignalCode) signal(r, slot, w[2 * slot + 1]);
      header_[r] = end;
      if (++round_[r] < rounds_[r]) markReady(r);
      else ++finished_;
    }
  }

  void fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
  }

  const std::vector<CompactSchedule>& s_;
  const HockneyMachine& m_;
  double block_bytes_;
  int p_;
  // Per rank, apart from the CompactSchedule objects: one pointer chase less per round.
  std::vector<const int32_t*> streams_;
  std::vector<int> rounds_;
  std::vector<double> units_per_block_;
  std::vector<size_t> header_;  // slot of the current round's header
  std::vector<int> round_, pending_;
  std::vector<double> round_start_, round_end_, port_free_, recv_free_, nic_free_;
  std::vector<std::vector<Entry>> sends_to_, recvs_at_;  // unmatched, listed under the receiver
  std::map<std::pair<int, int>, Flag> flags_;
  // Ready ranks by the time they enter their next round, then in the order they became ready.
  using Ready = std::tuple<double, uint64_t, int>;
  std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> ready_;
  uint64_t sequence_ = 0;
  std::vector<int> finishing_;
  int finished_ = 0;
  int64_t messages_ = 0;
  double bytes_ = 0, distance_ = 0;
  std::string error_;
};

}  // namespace

Prediction predict(const std::vector<CompactSchedule>& schedules, const HockneyMachine& machine, double block_bytes) {
  if (schedules.empty()) return Prediction{true, "", 0, 0, 0, 0, 0};
  return Replay(schedules, machine, block_bytes).run();
}

Prediction predict(const std::vector<Schedule>& schedules, const HockneyMachine& machine, double block_bytes) {
  const int p = static_cast<int>(schedules.size());
  std::vector<CompactSchedule> compacted(p);
  for (int r = 0; r < p; ++r) {
    Prediction failed;
    if (!compact(schedules[r], p, &compacted[r], &failed.error)) {
      failed.error = "rank " + std::to_string(r) + ": " + failed.error;
      return failed;
    }
  }
  return predict(compacted, machine, block_bytes);
}

}  // namespace topocoll::model
