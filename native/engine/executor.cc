#include "executor.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>

#include "shm/stream_copy.h"

namespace topocoll {
namespace {

// Bytes of a span, or -1 when they do not fit the int count of the MPI-3 calls.
int spanBytes(const BufferBinding& b, const BlockSpan& s) {
  int64_t n = b.blockBytes * s.count;
  return n > INT_MAX ? -1 : static_cast<int>(n);
}

char* spanAddress(const BufferBinding& b, const BlockSpan& s) { return b.base + s.first * b.blockBytes; }

int postOp(const Op& op, const Bindings& bindings, MPI_Comm comm, int tag, MPI_Request* req) {
  const BlockSpan& s = op.kind == OpKind::Send ? op.src : op.dst;
  const BufferBinding& b = bindings.of(s.buf);
  int n = spanBytes(b, s);
  if (n < 0) return MPI_ERR_COUNT;
  if (op.kind == OpKind::Send) return PMPI_Isend(spanAddress(b, s), n, MPI_BYTE, op.peer, tag, comm, req);
  return PMPI_Irecv(spanAddress(b, s), n, MPI_BYTE, op.peer, tag, comm, req);
}

int copySpan(const Op& op, const Bindings& bindings) {
  const BufferBinding& from = bindings.of(op.src.buf);
  char* src = spanAddress(from, op.src);
  char* dst = spanAddress(bindings.of(op.dst.buf), op.dst);
  if (src == dst) return MPI_SUCCESS;
  const size_t bytes = static_cast<size_t>(op.src.count * from.blockBytes);
  // Into the shared segment (never overlapping its source): streamed, see shm/stream_copy.h.
  if (op.dst.buf == BufferId::Shm && op.src.buf != BufferId::Shm && bytes >= kStreamCopyMinBytes) streamCopy(dst, src, bytes);
  else std::memmove(dst, src, bytes);
  return MPI_SUCCESS;
}

int reduceSpan(const Op& op, const Bindings& bindings, MPI_Comm comm) {
  const BufferBinding& from = bindings.of(op.src.buf);
  const int64_t bytes = op.src.count * from.blockBytes, element = bindings.reduction.elementBytes();
  if (element <= 0 || bytes % element != 0) return MPI_ERR_INTERN;
  return bindings.reduction.combine(spanAddress(from, op.src), spanAddress(bindings.of(op.dst.buf), op.dst), bytes / element, op.order, comm);
}

// A round's copies and reductions, in schedule order (a copy may feed a reduction).
int runLocalOps(const Round& round, const Bindings& bindings, MPI_Comm comm) {
  for (const Op& op : round.ops) {
    int rc = MPI_SUCCESS;
    if (op.kind == OpKind::Copy) rc = copySpan(op, bindings);
    else if (op.kind == OpKind::Reduce) rc = reduceSpan(op, bindings, comm);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

// Receives are posted before sends so that eager messages find their buffer.
int postRound(const Round& round, const Bindings& bindings, MPI_Comm comm, int tag, std::vector<MPI_Request>* reqs) {
  reqs->clear();
  for (OpKind kind : {OpKind::Recv, OpKind::Send}) {
    for (const Op& op : round.ops) {
      if (op.kind != kind) continue;
      reqs->push_back(MPI_REQUEST_NULL);
      int rc = postOp(op, bindings, comm, tag, &reqs->back());
      if (rc != MPI_SUCCESS) return rc;
    }
  }
  return MPI_SUCCESS;
}

// The common round of one send and one receive, as a single call: the latency path.
bool isExchange(const Round& round, const Op** send, const Op** recv) {
  if (round.ops.size() != 2) return false;
  const Op& a = round.ops[0];
  const Op& b = round.ops[1];
  if (a.kind == OpKind::Send && b.kind == OpKind::Recv) { *send = &a; *recv = &b; return true; }
  if (a.kind == OpKind::Recv && b.kind == OpKind::Send) { *send = &b; *recv = &a; return true; }
  return false;
}

bool spansOverlap(const BlockSpan& a, const BlockSpan& b) {
  return a.buf == b.buf && a.buf != BufferId::None && a.count > 0 && b.count > 0 && a.first < b.first + b.count &&
         b.first < a.first + a.count;
}

// Whether `next`'s messages may be posted while `current` is in flight (Schedule::overlap_rounds):
// none of its sends reads a span `current` writes (a receive, a copy, a reduction), none of its
// receives writes a span `current` reads or writes. Its copies and reductions still run after
// `current`'s, in order.
bool canPostEarly(const Round& current, const Round& next) {
  for (const Op& later : next.ops) {
    if (later.kind != OpKind::Send && later.kind != OpKind::Recv) continue;
    for (const Op& op : current.ops) {
      const bool writes = op.kind == OpKind::Recv || op.kind == OpKind::Copy || op.kind == OpKind::Reduce;
      if (later.kind == OpKind::Send && writes && spansOverlap(later.src, op.dst)) return false;
      if (later.kind == OpKind::Recv && (spansOverlap(later.dst, op.src) || spansOverlap(later.dst, op.dst))) return false;
    }
  }
  return true;
}

// How many rounds the executor may post ahead of the one it completes.
size_t roundsAhead(const Schedule& s) { return s.overlap_rounds && s.shm == ShmUse::None ? kMaxRoundsAhead : 0; }

// Whether round `later` may be posted while rounds [from, later) are in flight.
bool independentOf(const Schedule& s, size_t from, size_t later) {
  for (size_t q = from; q < later; ++q) {
    if (!canPostEarly(s.rounds[q], s.rounds[later])) return false;
  }
  return true;
}

// --- Shared memory (Schedule::shm): flags and the segment's data area -----------------------

bool hasFlagWaits(const Round& round) {
  for (const Op& op : round.ops) {
    if (op.kind == OpKind::FlagWait) return true;
  }
  return false;
}

bool flagsReached(const Round& round, const ShmContext* shm, const ShmContext::Call& call) {
  for (const Op& op : round.ops) {
    if (op.kind == OpKind::FlagWait && !shm->flagReached(call, op.peer, op.slot, op.stage)) return false;
  }
  return true;
}

void signalFlags(const Round& round, ShmContext* shm, const ShmContext::Call& call) {
  for (const Op& op : round.ops) {
    if (op.kind == OpKind::FlagSignal) shm->signalFlag(call, op.peer, op.slot, op.stage);
  }
}

// Binds the data area of the call's channel like the receive buffer, and applies the schedule's
// unit (Schedule::units_per_block) to every binding.
int prepareBindings(const Schedule& s, const ShmContext* shm, const ShmContext::Call& call, Bindings* b) {
  if (s.shm == ShmUse::Data && shm && shm->nodeSize() > 1) b->shm = {shm->data(call.channel), b->recv.blockBytes};
  if (s.units_per_block > 1) {
    for (BufferBinding* x : {&b->send, &b->recv, &b->tmp, &b->shm}) {
      if (x->blockBytes % s.units_per_block != 0) return MPI_ERR_INTERN;
      x->blockBytes /= s.units_per_block;
    }
  }
  return MPI_SUCCESS;
}

// Waits for a round's requests; polls instead of blocking in MPI while other shared-memory
// calls are in flight, since the node may be waiting for them to move.
int waitRequests(std::vector<MPI_Request>* reqs, ShmContext* shm, const CollectiveRequest* self) {
  if (reqs->empty()) return MPI_SUCCESS;
  if (!shm || !shm->othersInFlight(self)) return PMPI_Waitall(static_cast<int>(reqs->size()), reqs->data(), MPI_STATUSES_IGNORE);
  int rc = MPI_SUCCESS, flag = 0;
  int wait_rc = shm->waitUntil(
      [&] {
        rc = PMPI_Testall(static_cast<int>(reqs->size()), reqs->data(), &flag, MPI_STATUSES_IGNORE);
        return rc != MPI_SUCCESS || flag;
      },
      self);
  return rc != MPI_SUCCESS ? rc : wait_rc;
}

int runExchange(const Op& send, const Op& recv, const Bindings& bindings, MPI_Comm comm, int tag) {
  const BufferBinding& sb = bindings.of(send.src.buf);
  const BufferBinding& rb = bindings.of(recv.dst.buf);
  int ns = spanBytes(sb, send.src), nr = spanBytes(rb, recv.dst);
  if (ns < 0 || nr < 0) return MPI_ERR_COUNT;
  return PMPI_Sendrecv(spanAddress(sb, send.src), ns, MPI_BYTE, send.peer, tag, spanAddress(rb, recv.dst), nr, MPI_BYTE,
                       recv.peer, tag, comm, MPI_STATUS_IGNORE);
}

}  // namespace

void ScratchBuffer::allocate(const BufferBinding& like, int64_t blocks, BufferBinding* out) {
  size_t bytes = static_cast<size_t>(blocks * like.blockBytes);
  if (storage_.size() < bytes) storage_.resize(bytes);
  *out = {bytes ? storage_.data() : nullptr, like.blockBytes};
}

int executeSchedule(const Schedule& schedule, const Bindings& in, MPI_Comm comm, int tag, ShmContext* shm) {
  Bindings bindings = in;
  // Kept per thread between calls: a blocking call never runs inside another on its thread, and a
  // loop of small calls would otherwise allocate (and zero) its scratch and request list each time.
  thread_local ScratchBuffer scratch;
  scratch.allocate(in.recv, schedule.tmp_blocks, &bindings.tmp);
  int rc = MPI_SUCCESS;
  ShmContext::Call call;
  if (schedule.shm != ShmUse::None) {
    if (!shm) return MPI_ERR_INTERN;
    call = shm->beginCall(schedule.shm);
    if ((rc = shm->waitUntil([&] { return shm->channelFree(call); }, nullptr)) != MPI_SUCCESS) {
      return rc;
    }
  }
  if ((rc = prepareBindings(schedule, shm, call, &bindings)) != MPI_SUCCESS) return rc;
  // Rounds posted ahead of the one being completed (Schedule::overlap_rounds): their requests, by
  // round index modulo the window.
  thread_local std::array<std::vector<MPI_Request>, kRoundsInFlight> posted;
  const size_t n = schedule.rounds.size();
  const size_t ahead = roundsAhead(schedule);
  size_t next = 0;  // the first round not posted
  for (size_t i = 0; i < n && rc == MPI_SUCCESS; ++i) {
    const Round& round = schedule.rounds[i];
    const Op *send, *recv;
    if (next == i && !(ahead > 0 && i + 1 < n && independentOf(schedule, i, i + 1)) && isExchange(round, &send, &recv)) {
      rc = runExchange(*send, *recv, bindings, comm, tag);
      next = i + 1;
      continue;
    }
    std::vector<MPI_Request>& reqs = posted[i % posted.size()];
    if (next == i) {
      rc = postRound(round, bindings, comm, tag, &reqs);
      next = i + 1;
    }
    while (rc == MPI_SUCCESS && next < n && next <= i + ahead && independentOf(schedule, i, next)) {
      rc = postRound(schedule.rounds[next], bindings, comm, tag, &posted[next % posted.size()]);
      ++next;
    }
    if (rc == MPI_SUCCESS && hasFlagWaits(round)) rc = shm->waitUntil([&] { return flagsReached(round, shm, call); }, nullptr);
    if (rc == MPI_SUCCESS) rc = waitRequests(&reqs, shm, nullptr);
    if (rc == MPI_SUCCESS) rc = runLocalOps(round, bindings, comm);
    if (rc == MPI_SUCCESS && schedule.shm != ShmUse::None) signalFlags(round, shm, call);
  }
  if (rc != MPI_SUCCESS) return rc;
  if (schedule.shm != ShmUse::None) shm->markDone(call);
  return MPI_SUCCESS;
}

ScheduleRequest::ScheduleRequest(std::shared_ptr<const Schedule> schedule, const Bindings& bindings, StagedBuffers staged, int tag,
                                 std::shared_ptr<ShadowComm> shadow)
    : shadow_(std::move(shadow)), schedule_(std::move(schedule)), bindings_(bindings), staged_(std::move(staged)), comm_(shadow_->comm()),
      tag_(tag), shm_(shadow_->shmIfCreated()) {
  scratch_.allocate(bindings_.recv, schedule_->tmp_blocks, &bindings_.tmp);
}

ScheduleRequest::~ScheduleRequest() {
  // Abandoned before its end (an error, the job aborting): the members' histories differ now.
  if (error_ != MPI_SUCCESS || round_ < schedule_->rounds.size()) shadow_->discardWhenReleased();
  if (in_flight_) shm_->removeInFlight(this);
  // A request abandoned mid-flight (the job is aborting) must not leave MPI writing into freed memory.
  auto cancel = [](std::vector<MPI_Request>& reqs) {
    for (MPI_Request& r : reqs) {
      if (r != MPI_REQUEST_NULL) {
        PMPI_Cancel(&r);
        PMPI_Request_free(&r);
      }
    }
  };
  cancel(requests_);
  for (std::vector<MPI_Request>& reqs : ahead_) cancel(reqs);
}

int ScheduleRequest::start() {
  round_ = 0;
  next_ = 0;
  begun_ = false;
  if (schedule_->shm != ShmUse::None) {
    if (!shm_) return MPI_ERR_INTERN;
    call_ = shm_->beginCall(schedule_->shm);
    shm_->addInFlight(this);
    in_flight_ = true;
  }
  return advance(false);
}

// Posts the current round (every round is posted once, in order).
int ScheduleRequest::startRound() {
  if (round_ >= schedule_->rounds.size()) return MPI_SUCCESS;
  posted_ = true;
  next_ = round_ + 1;
  return postRound(schedule_->rounds[round_], bindings_, comm_, tag_, &requests_);
}

// Posts the rounds after the current one that may go ahead of it (Schedule::overlap_rounds).
int ScheduleRequest::postAhead() {
  const size_t ahead = roundsAhead(*schedule_);
  if (ahead == 0 || !posted_) return MPI_SUCCESS;
  next_ = std::max(next_, round_ + 1);
  while (next_ < schedule_->rounds.size() && next_ <= round_ + ahead && independentOf(*schedule_, round_, next_)) {
    if (int rc = postRound(schedule_->rounds[next_], bindings_, comm_, tag_, &ahead_[next_ % ahead_.size()]); rc != MPI_SUCCESS) return rc;
    ++next_;
  }
  return MPI_SUCCESS;
}

int ScheduleRequest::finishRound() {
  requests_.clear();
  const Round& round = schedule_->rounds[round_];
  int rc = runLocalOps(round, bindings_, comm_);
  if (rc == MPI_SUCCESS && schedule_->shm != ShmUse::None) signalFlags(round, shm_, call_);
  ++round_;
  posted_ = round_ < next_;  // posted ahead: its requests become the current ones
  if (posted_) requests_.swap(ahead_[round_ % ahead_.size()]);
  return rc;
}

static bool hasMessages(const Round& round) {
  return std::any_of(round.ops.begin(), round.ops.end(), [](const Op& op) { return op.kind == OpKind::Send || op.kind == OpKind::Recv; });
}

// Rounds of flags and copies only; posting messages, testing them, the start (channel, bindings)
// and the end (unpack) stay with the thread that calls MPI.
void ScheduleRequest::advanceWithoutMpi() {
  if (error_ != MPI_SUCCESS || !begun_) return;
  while (round_ < schedule_->rounds.size()) {
    const Round& round = schedule_->rounds[round_];
    if (!posted_) {
      if (hasMessages(round)) return;
      posted_ = true;
    }
    if (!requests_.empty() || (hasFlagWaits(round) && !flagsReached(round, shm_, call_))) return;
    if (int rc = finishRound(); rc != MPI_SUCCESS) {
      error_ = rc;
      return;
    }
  }
}

int ScheduleRequest::advance(bool blocking) {
  int rc = MPI_SUCCESS;
  auto fail = [&](int code) { return error_ = code; };
  if (error_ != MPI_SUCCESS) return error_;
  if (!begun_) {
    if (schedule_->shm != ShmUse::None && !shm_->channelFree(call_)) {
      if (!blocking) return MPI_SUCCESS;
      if ((rc = shm_->waitUntil([&] { return shm_->channelFree(call_); }, this)) != MPI_SUCCESS) return fail(rc);
    }
    if ((rc = prepareBindings(*schedule_, shm_, call_, &bindings_)) != MPI_SUCCESS) return fail(rc);
    begun_ = true;
  }
  while (round_ < schedule_->rounds.size()) {
    if (!posted_ && (rc = startRound()) != MPI_SUCCESS) return fail(rc);
    if ((rc = postAhead()) != MPI_SUCCESS) return fail(rc);
    if (!requests_.empty()) {
      if (blocking) {
        rc = waitRequests(&requests_, shm_, this);
      } else {
        int flag = 0;
        rc = PMPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &flag, MPI_STATUSES_IGNORE);
        if (rc == MPI_SUCCESS && !flag) return MPI_SUCCESS;
      }
      if (rc != MPI_SUCCESS) return fail(rc);
    }
    const Round& round = schedule_->rounds[round_];
    if (hasFlagWaits(round) && !flagsReached(round, shm_, call_)) {
      if (!blocking) return MPI_SUCCESS;
      if ((rc = shm_->waitUntil([&] { return flagsReached(round, shm_, call_); }, this)) != MPI_SUCCESS) return fail(rc);
    }
    if ((rc = finishRound()) != MPI_SUCCESS) return fail(rc);
  }
  if (in_flight_) {
    shm_->markDone(call_);
    shm_->removeInFlight(this);
    in_flight_ = false;
  }
  if ((rc = staged_.unpack()) != MPI_SUCCESS) return fail(rc);
  return MPI_SUCCESS;
}

int ScheduleRequest::test(bool* done) {
  int rc = advance(false);
  *done = rc == MPI_SUCCESS && round_ >= schedule_->rounds.size();
  return rc;
}

int ScheduleRequest::wait() { return advance(true); }

int NativeRequest::test(bool* done) {
  int flag = 0;
  int rc = PMPI_Test(&request_, &flag, MPI_STATUS_IGNORE);
  *done = flag != 0;
  return rc;
}

int NativeRequest::wait() { return PMPI_Wait(&request_, MPI_STATUS_IGNORE); }

}  // namespace topocoll
