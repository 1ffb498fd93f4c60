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

// Runs an engine call blocking, or nonblocking into a NativeRequest.
// `keep` holds what the call reads until it completes (reduce_scatter's counts).
template <typename Run>
Napi::Value complete(Napi::Env env, bool nonblocking, const char* what, Run run, std::shared_ptr<void> keep = nullptr) {
  if (!nonblocking) {
    check(env, run(nullptr), what);
    return env.Undefined();
  }
  std::unique_ptr<CollectiveRequest> request;
  check(env, run(&request), what);
  return RequestWrap::New(env, std::move(request), std::move(keep));
}

// The registry's name as the JS API spells it: reduce_scatter_block -> reduceScatterBlock.
std::string jsName(const char* registry_name) {
  std::string name;
  for (const char* c = registry_name; *c; ++c) name += *c == '_' && c[1] ? static_cast<char>(toupper(*++c)) : *c;
  return name;
}

// A block collective's buffers: p blocks of n elements in recvbuf; in sendbuf one block
// (allgather) or p (alltoall), as the descriptor says.
void blockBuffers(Napi::Env env, const generated::CollectiveEntry& entry, const Napi::Value& sendArg, const Napi::Value& recvArg,
                  CollectiveArgs* a) {
  const char* what = entry.name;
  const bool sends_all = entry.send_blocks == generated::Blocks::PerRank;
  BufferView recv = bufferArg(recvArg, "recvbuf");
  int p = commSizeOf(a->comm);
  bool in_place = sendArg.IsNull() || sendArg.IsUndefined();
  BufferView send;
  MPI_Count n, m;  // elements of a block: n of sendbuf's type, m of recvbuf's (n but for a [buffer, count, datatype])
  if (in_place) {
    if (recv.count % p != 0) throwRange(env, std::string(what) + ": in place, recvbuf length must be a multiple of the communicator size");
    n = m = recv.count / p;
    send.type = recv.type;
  } else {
    send = bufferArg(sendArg, "sendbuf");
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
  const bool nonblocking = info[1 + buffers + (entry.rooted ? 1 : 0)].ToBoolean();
  return complete(env, nonblocking, entry.name, [&](engine::RequestOut r) { return engineCall(coll, a, r); });
}

// A reduction's per-rank part of recvcounts: p counts >= 0, each an int (the engine's and MPI-3's).
std::shared_ptr<std::vector<int>> partsArg(Napi::Env env, const char* what, const Napi::Value& v, int p) {
  const std::vector<MPI_Count> counts = wholeNumbers(env, what, "recvcounts", v, p, INT_MAX);
  return std::make_shared<std::vector<int>>(counts.begin(), counts.end());
}

// The reductions: (comm, sendbuf | null = IN_PLACE, recvbuf[, recvcounts], op[, root], nonblocking),
// every argument checked as the MPI would before the engine sees the call. The vector has n
// elements (allreduce, reduce: the send buffer's, or in place the receive buffer's), p blocks of n
// (reduce_scatter_block: n is recvbuf's part) or the parts of recvcounts (reduce_scatter).
Napi::Value EngineReduction(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto coll = static_cast<Collective>(reinterpret_cast<intptr_t>(info.Data()));
  const generated::CollectiveEntry& entry = collectiveEntry(coll);
  const std::string name = jsName(entry.name);
  const char* what = name.c_str();
  CollectiveArgs a;
  a.comm = intracommArg(info[0]);
  const int p = commSizeOf(a.comm);
  const bool varying = coll == Collective::ReduceScatter;
  const size_t op_at = varying ? 4 : 3;
  if (entry.rooted) a.root = rootArg(info[op_at + 1], a.comm);
  const bool nonblocking = info[op_at + (entry.rooted ? 2 : 1)].ToBoolean();
  const bool in_place = absent(info[1]);
  // A reduce's receive buffer matters at the root only.
  const bool receives = !entry.rooted || commRankOf(a.comm) == a.root;
  if (in_place && !receives) throwType(env, std::string(what) + ": IN_PLACE is valid only at the root");
  if (receives && absent(info[2])) throwType(env, std::string(what) + ": recvbuf is required" + (entry.rooted ? " at the root" : ""));
  BufferView recv = receives ? bufferArg(info[2], "recvbuf") : BufferView{};
  BufferView send = in_place ? recv : bufferArg(info[1], "sendbuf");
  // MPI's predefined ops combine predefined types only (both MPIs raise MPI_ERR_OP on a derived one).
  if (send.spec || recv.spec) throwType(env, std::string(what) + ": reductions take typed arrays, not [buffer, count, datatype]");
  if (!in_place && receives) sameElementType(env, what, send, recv);
  std::shared_ptr<std::vector<int>> parts;
  MPI_Count vector = send.count, result = send.count;  // elements reduced, and the result's
  if (varying) {
    parts = partsArg(env, what, info[3], p);
    vector = 0;
    for (int part : *parts) vector += part;
    result = (*parts)[commRankOf(a.comm)];
    a.counts = parts->data();
    requireLength(env, what, in_place ? "recvbuf" : "sendbuf", send, vector);
  } else if (entry.shape == Shape::Block) {
    result = blocksOf(env, what, in_place ? "recvbuf" : "sendbuf", send, p);
  }
  if (!in_place && receives) requireLength(env, what, "recvbuf", recv, result);
  a.op = opArg(info[op_at], send, what);
  a.count = varying ? vector : result;
  largeCount(env, a.count, what);
  a.type = send.type;
  a.sendbuf = in_place ? MPI_IN_PLACE : send.data;
  a.recvbuf = recv.data;
  return complete(env, nonblocking, what, [&](engine::RequestOut r) { return engineCall(coll, a, r); }, parts);
}

}  // namespace

void initCollectives(Napi::Env env, Napi::Object exports) {
  RequestWrap::Init(env, exports);
  for (int c = 0; c < generated::kCollectiveCount; ++c) {
    const generated::CollectiveEntry& entry = generated::kCollectives[c];
    const std::string name = jsName(entry.name);
    exports.Set(name, Napi::Function::New(env, entry.reducing ? EngineReduction : EngineCollective, name, reinterpret_cast<void*>(static_cast<intptr_t>(c))));
  }
}

}  // namespace topocoll::addon
