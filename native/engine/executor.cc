#include "executor.h"

#include <climits>
#include <cstring>

namespace topocoll {
namespace {

// Elements of a span, or -1 when it does not fit the int count of the MPI-3 calls.
int spanElements(const BufferBinding& b, const BlockSpan& s) {
  MPI_Count n = b.blockElements * s.count;
  return n > INT_MAX ? -1 : static_cast<int>(n);
}

char* spanAddress(const BufferBinding& b, const BlockSpan& s) {
  return b.base + static_cast<MPI_Aint>(s.first * b.blockElements) * b.extent;
}

int postOp(const Op& op, const Bindings& bindings, MPI_Comm comm, int tag, MPI_Request* req) {
  const BlockSpan& s = op.kind == OpKind::Send ? op.src : op.dst;
  const BufferBinding& b = bindings.of(s.buf);
  int n = spanElements(b, s);
  if (n < 0) return MPI_ERR_COUNT;
  if (op.kind == OpKind::Send) return PMPI_Isend(spanAddress(b, s), n, b.type, op.peer, tag, comm, req);
  return PMPI_Irecv(spanAddress(b, s), n, b.type, op.peer, tag, comm, req);
}

int copySpan(const Op& op, const Bindings& bindings) {
  const BufferBinding& from = bindings.of(op.src.buf);
  const BufferBinding& to = bindings.of(op.dst.buf);
  char* src = spanAddress(from, op.src);
  char* dst = spanAddress(to, op.dst);
  if (src == dst && op.src.buf == op.dst.buf) return MPI_SUCCESS;
  if (from.packed && to.packed && from.type == to.type) {
    std::memmove(dst, src, static_cast<size_t>(op.src.count * from.blockElements * from.extent));
    return MPI_SUCCESS;
  }
  // Derived or differing datatypes: let MPI convert between the two type maps.
  int ns = spanElements(from, op.src), nd = spanElements(to, op.dst);
  if (ns < 0 || nd < 0) return MPI_ERR_COUNT;
  return PMPI_Sendrecv(src, ns, from.type, 0, 0, dst, nd, to.type, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

int runCopies(const Round& round, const Bindings& bindings) {
  for (const Op& op : round.ops) {
    if (op.kind != OpKind::Copy) continue;
    int rc = copySpan(op, bindings);
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

int runExchange(const Op& send, const Op& recv, const Bindings& bindings, MPI_Comm comm, int tag) {
  const BufferBinding& sb = bindings.of(send.src.buf);
  const BufferBinding& rb = bindings.of(recv.dst.buf);
  int ns = spanElements(sb, send.src), nr = spanElements(rb, recv.dst);
  if (ns < 0 || nr < 0) return MPI_ERR_COUNT;
  return PMPI_Sendrecv(spanAddress(sb, send.src), ns, sb.type, send.peer, tag, spanAddress(rb, recv.dst), nr, rb.type,
                       recv.peer, tag, comm, MPI_STATUS_IGNORE);
}

}  // namespace

int BufferBinding::bind(void* base, MPI_Count blockElements, MPI_Datatype type, BufferBinding* out) {
  MPI_Aint lb, extent, true_lb, true_extent;
  int size, rc;
  if ((rc = PMPI_Type_get_extent(type, &lb, &extent)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Type_get_true_extent(type, &true_lb, &true_extent)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Type_size(type, &size)) != MPI_SUCCESS) return rc;
  int num_ints, num_addrs, num_types, combiner;
  if ((rc = PMPI_Type_get_envelope(type, &num_ints, &num_addrs, &num_types, &combiner)) != MPI_SUCCESS) return rc;
  out->base = static_cast<char*>(base);
  out->type = type;
  out->blockElements = blockElements;
  out->extent = extent;
  // Only predefined types are known to map bytes in order; derived types go through MPI.
  out->packed = combiner == MPI_COMBINER_NAMED && size == extent && true_lb == 0 && true_extent == extent;
  return MPI_SUCCESS;
}

int ScratchBuffer::allocate(const BufferBinding& like, int64_t blocks, BufferBinding* out) {
  *out = like;
  if (blocks == 0) {
    out->base = nullptr;
    return MPI_SUCCESS;
  }
  MPI_Aint true_lb, true_extent;
  int rc = PMPI_Type_get_true_extent(like.type, &true_lb, &true_extent);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Count elements = blocks * like.blockElements;
  // Element i occupies [i*extent + true_lb, i*extent + true_lb + true_extent).
  MPI_Aint bytes = elements == 0 ? 0 : (elements - 1) * like.extent + true_extent;
  storage_.resize(static_cast<size_t>(bytes) + 64);
  out->base = storage_.data() - true_lb;
  return MPI_SUCCESS;
}

int executeSchedule(const Schedule& schedule, const Bindings& in, MPI_Comm comm, int tag) {
  Bindings bindings = in;
  ScratchBuffer scratch;
  int rc = scratch.allocate(in.recv, schedule.tmp_blocks, &bindings.tmp);
  if (rc != MPI_SUCCESS) return rc;
  std::vector<MPI_Request> reqs;
  for (const Round& round : schedule.rounds) {
    const Op *send, *recv;
    if (isExchange(round, &send, &recv)) {
      rc = runExchange(*send, *recv, bindings, comm, tag);
    } else {
      rc = postRound(round, bindings, comm, tag, &reqs);
      if (rc == MPI_SUCCESS && !reqs.empty()) rc = PMPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
      if (rc == MPI_SUCCESS) rc = runCopies(round, bindings);
    }
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

ScheduleRequest::ScheduleRequest(std::shared_ptr<const Schedule> schedule, const Bindings& bindings, MPI_Comm comm, int tag)
    : schedule_(std::move(schedule)), bindings_(bindings), comm_(comm), tag_(tag) {}

ScheduleRequest::~ScheduleRequest() {
  // A request abandoned mid-flight (the job is aborting) must not leave MPI writing into freed memory.
  for (MPI_Request& r : requests_) {
    if (r != MPI_REQUEST_NULL) {
      PMPI_Cancel(&r);
      PMPI_Request_free(&r);
    }
  }
}

int ScheduleRequest::allocateScratch() { return scratch_.allocate(bindings_.recv, schedule_->tmp_blocks, &bindings_.tmp); }

int ScheduleRequest::start() {
  round_ = 0;
  return startRound();
}

// Starts rounds until one has requests in flight or the schedule is done.
int ScheduleRequest::startRound() {
  while (round_ < schedule_->rounds.size()) {
    int rc = postRound(schedule_->rounds[round_], bindings_, comm_, tag_, &requests_);
    if (rc != MPI_SUCCESS) return rc;
    if (!requests_.empty()) return MPI_SUCCESS;
    if ((rc = finishRound()) != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int ScheduleRequest::finishRound() {
  requests_.clear();
  int rc = runCopies(schedule_->rounds[round_], bindings_);
  ++round_;
  return rc;
}

int ScheduleRequest::test(bool* done) {
  while (round_ < schedule_->rounds.size()) {
    int flag = 0;
    int rc = PMPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &flag, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    if (!flag) break;
    if ((rc = finishRound()) != MPI_SUCCESS) return rc;
    if ((rc = startRound()) != MPI_SUCCESS) return rc;
  }
  *done = round_ >= schedule_->rounds.size();
  return MPI_SUCCESS;
}

int ScheduleRequest::wait() {
  while (round_ < schedule_->rounds.size()) {
    int rc = PMPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    if ((rc = finishRound()) != MPI_SUCCESS) return rc;
    if ((rc = startRound()) != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int NativeRequest::test(bool* done) {
  int flag = 0;
  int rc = PMPI_Test(&request_, &flag, MPI_STATUS_IGNORE);
  *done = flag != 0;
  return rc;
}

int NativeRequest::wait() { return PMPI_Wait(&request_, MPI_STATUS_IGNORE); }

}  // namespace topocoll
