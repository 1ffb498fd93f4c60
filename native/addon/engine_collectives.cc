// The collectives the engine implements, one export per collective of the registry (camelCase),
// their arguments read by the collective's descriptor: (comm[, sendbuf | null for in-place,
// recvbuf | buffer][, root], nonblocking); a reduction's (comm, sendbuf | null for in-place,
// recvbuf[, recvcounts], op[, root], nonblocking). A nonblocking call returns a NativeRequest.
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "addon.h"
#include "algorithm_registry.h"
#include "engine.h"
#include "generated/collective_calls.h"
#include "mpi_binding.h"
#include "request.h"

namespace topocoll::addon {
namespace {

// Runs an engine call blocking, or nonblocking into a slot of the engine's requests (its number).
// `keep` holds what the call reads until it completes (reduce_scatter's counts).
template <typename Run>
Napi::Value complete(Napi::Env env, bool nonblocking, const char* what, Run run, std::shared_ptr<void> keep = nullptr) {
  if (!nonblocking) {
    check(env, run(nullptr), what);
    return env.Undefined();
  }
  std::unique_ptr<CollectiveRequest> request;
  check(env, run(&request), what);
  return engineRequest(env, std::move(request), std::move(keep));
}

// The registry's name as the JS API spells it: reduce_scatter_block -> reduceScatterBlock.
std::string jsName(const char* registry_name) {
  std::string name;
  for (const char* c = registry_name; *c; ++c) name += *c == '_' && c[1] ? static_cast<char>(toupper(*++c)) : *c;
  return name;
}

// A send buffer that may be IN_PLACE (null or undefined). A non-empty typed array is read at once
// (one query, which also rules out IN_PLACE: napi_typeof costs as much); anything else is left to
// bufferArg, where the caller's checks come to it.
struct SendBuffer {
  bool in_place = false;
  bool typed = false;  // `view` holds it
  BufferView view;
};

SendBuffer sendBufferOf(const Napi::Value& value) {
  SendBuffer s;
  s.typed = typedArrayView(value, &s.view, nullptr) && s.view.count > 0;
  s.in_place = !s.typed && absent(value);
  return s;
}

// A block collective's buffers: p blocks of n elements in recvbuf; in sendbuf one block
// (allgather) or p (alltoall), as the descriptor says.
void blockBuffers(Napi::Env env, const generated::CollectiveEntry& entry, const Napi::Value& sendArg, const Napi::Value& recvArg,
                  CollectiveArgs* a) {
  const char* what = entry.name;
  const bool sends_all = entry.send_blocks == generated::Blocks::PerRank;
  BufferView recv = bufferArg(recvArg, "recvbuf");
  int p = commSizeOf(a->comm);
  const SendBuffer given = sendBufferOf(sendArg);
  const bool in_place = given.in_place;
  BufferView send = given.view;
  MPI_Count n, m;  // elements of a block: n of sendbuf's type, m of recvbuf's (n but for a [buffer, count, datatype])
  if (in_place) {
    if (recv.count % p != 0) throwRange(env, std::string(what) + ": in place, recvbuf length must be a multiple of the communicator size");
    n = m = recv.count / p;
    send.type = recv.type;
  } else {
    if (!given.typed) send = bufferArg(sendArg, "sendbuf");
    if (!send.spec && !recv.spec) sameElementType(env, what, send, recv);
    if (sends_all && send.count % p != 0) throwRange(env, std::string(what) + ": sendbuf length must be a multiple of the communicator size");
    n = sends_all ? send.count / p : send.count;
    m = matchingCount(env, what, send, "sendbuf", n, recv, "recvbuf");
    if (recv.count < m * p) {
      throwRange(env, std::string(what) + ": recvbuf holds " + std::to_string(recv.count) + " elements, needs " + std::to_string(m * p));
    }
  }
  a->sendbuf = in_place ? MPI_IN_PLACE : send.data;
  a->sendcount = n;
  a->count = m;
  a->sendtype = send.type;
  a->type = recv.type;
  a->recvbuf = recv.data;
}

Napi::Value EngineCollective(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto coll = static_cast<Collective>(reinterpret_cast<intptr_t>(info.Data()));
  const generated::CollectiveEntry& entry = collectiveEntry(coll);
  CollectiveArgs a;
  a.comm = intracommArg(info[0]);
  // Buffer arguments: none (barrier), the send and receive buffers (a block collective), or the
  // one buffer of a rooted vector (bcast).
  const size_t buffers = entry.shape == Shape::None ? 0 : entry.shape == Shape::Block ? 2 : 1;
  if (entry.rooted) a.root = rootArg(info[1 + buffers], a.comm);  // first, as in every rooted call of the system MPI
  if (buffers == 2) {
    blockBuffers(env, entry, info[1], info[2], &a);
  } else if (buffers == 1) {
    BufferView buf = bufferArg(info[1], "buffer");
    a.recvbuf = buf.data;
    a.count = buf.count;
    a.type = buf.type;
  }
  const bool nonblocking = flagArg(info[1 + buffers + (entry.rooted ? 1 : 0)]);
  return complete(env, nonblocking, entry.name, [&](engine::RequestOut r) { return engineCall(coll, a, r); });
}

// A reduction's buffers (comm, sendbuf | null = IN_PLACE, recvbuf[, recvcounts][, root]), checked
// as the MPI would before the engine sees the call. The vector has n elements (allreduce, reduce:
// the send buffer's, or in place the receive buffer's), p blocks of n (reduce_scatter_block: n is
// the result's part) or the parts of recvcounts (reduce_scatter).
struct ReductionBuffers {
  CollectiveArgs a;  // comm, root, buffers and counts; the caller sets op, count and type
  BufferView send;
  std::shared_ptr<std::vector<int>> parts;  // reduce_scatter's recvcounts
  MPI_Count vector = 0;                     // elements reduced
  MPI_Count result = 0;                     // elements of this rank's result
};

ReductionBuffers reductionBuffers(Napi::Env env, Collective coll, const char* what, const Napi::Value& comm, const Napi::Value& sendbuf,
                                  const Napi::Value& recvbuf, const Napi::Value& recvcounts, const Napi::Value& root) {
  const generated::CollectiveEntry& entry = collectiveEntry(coll);
  ReductionBuffers r;
  CollectiveArgs& a = r.a;
  a.comm = intracommArg(comm);
  const int p = commSizeOf(a.comm);
  if (entry.rooted) a.root = rootArg(root, a.comm);
  const SendBuffer given = sendBufferOf(sendbuf);
  const bool in_place = given.in_place;
  // A reduce's receive buffer matters at the root only.
  const bool receives = !entry.rooted || commRankOf(a.comm) == a.root;
  if (in_place && !receives) throwType(env, std::string(what) + ": IN_PLACE is valid only at the root");
  if (receives && absent(recvbuf)) throwType(env, std::string(what) + ": recvbuf is required" + (entry.rooted ? " at the root" : ""));
  BufferView recv = receives ? bufferArg(recvbuf, "recvbuf") : BufferView{};
  r.send = in_place ? recv : given.typed ? given.view : bufferArg(sendbuf, "sendbuf");
  // MPI's predefined ops combine predefined types only (both MPIs raise MPI_ERR_OP on a derived one).
  if (r.send.spec || recv.spec) throwType(env, std::string(what) + ": reductions take typed arrays, not [buffer, count, datatype]");
  if (!in_place && receives) sameElementType(env, what, r.send, recv);
  r.vector = r.result = r.send.count;
  if (coll == Collective::ReduceScatter) {
    const std::vector<MPI_Count> counts = wholeNumbers(env, what, "recvcounts", recvcounts, p, INT_MAX);
    r.parts = std::make_shared<std::vector<int>>(counts.begin(), counts.end());
    r.vector = 0;
    for (int part : *r.parts) r.vector += part;
    r.result = (*r.parts)[commRankOf(a.comm)];
    a.counts = r.parts->data();
    requireLength(env, what, in_place ? "recvbuf" : "sendbuf", r.send, r.vector);
  } else if (entry.shape == Shape::Block) {
    r.result = blocksOf(env, what, in_place ? "recvbuf" : "sendbuf", r.send, p);
    r.vector = r.result * p;
  }
  if (!in_place && receives) requireLength(env, what, "recvbuf", recv, r.result);
  a.sendbuf = in_place ? MPI_IN_PLACE : r.send.data;
  a.recvbuf = recv.data;
  return r;
}

// The reductions: (comm, sendbuf | null = IN_PLACE, recvbuf[, recvcounts], op[, root], nonblocking).
Napi::Value EngineReduction(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto coll = static_cast<Collective>(reinterpret_cast<intptr_t>(info.Data()));
  const generated::CollectiveEntry& entry = collectiveEntry(coll);
  const std::string name = jsName(entry.name);
  const char* what = name.c_str();
  const bool varying = coll == Collective::ReduceScatter;
  const size_t op_at = varying ? 4 : 3;
  ReductionBuffers r = reductionBuffers(env, coll, what, info[0], info[1], info[2], varying ? info[3] : env.Undefined(),
                                        entry.rooted ? info[op_at + 1] : env.Undefined());
  const bool nonblocking = flagArg(info[op_at + (entry.rooted ? 2 : 1)]);
  CollectiveArgs& a = r.a;
  a.op = opArg(info[op_at], r.send, what);
  a.count = varying ? r.vector : r.result;
  largeCount(env, a.count, what);
  a.type = r.send.type;
  return complete(env, nonblocking, what, [&](engine::RequestOut out) { return engineCall(coll, a, out); }, r.parts);
}

// reductionShape(collective, what, comm, sendbuf | null, recvbuf, recvcounts, root) -> the
// elements of this rank's result: a reduction's buffers checked as the reduction would check them,
// for the reductions whose op runs in JS (src/mpi/user-op.ts).
Napi::Value ReductionShape(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const Collective coll = collectiveArg(info[0]);
  if (!collectiveEntry(coll).reducing) throwType(env, std::string("reductionShape: ") + collectiveEntry(coll).name + " is not a reduction");
  const std::string what = stringArg(info[1], "what");
  const ReductionBuffers r = reductionBuffers(env, coll, what.c_str(), info[2], info[3], info[4], info[5], info[6]);
  return Napi::Number::New(env, static_cast<double>(r.result));
}

}  // namespace

void initCollectives(Napi::Env env, Napi::Object exports) {
  initRequests(env, exports);
  for (int c = 0; c < generated::kCollectiveCount; ++c) {
    const generated::CollectiveEntry& entry = generated::kCollectives[c];
    const std::string name = jsName(entry.name);
    exports.Set(name, Napi::Function::New(env, entry.reducing ? EngineReduction : EngineCollective, name, reinterpret_cast<void*>(static_cast<intptr_t>(c))));
  }
  exports.Set("reductionShape", Napi::Function::New(env, ReductionShape));
}

}  // namespace topocoll::addon
