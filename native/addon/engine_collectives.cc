// The collectives the engine implements, one export per collective of the registry, their
// arguments read by the collective's descriptor: (comm[, sendbuf | null for in-place, recvbuf |
// buffer][, root], nonblocking). A nonblocking call returns a NativeRequest. The reductions' Node
// API stays with the system MPI (mpi_collectives.cc), which also handles JS-defined ops.
#include <cstdint>
#include <string>

#include "addon.h"
#include "algorithm_registry.h"
#include "engine.h"
#include "generated/collective_calls.h"
#include "mpi_binding.h"
#include "request.h"

namespace topocoll::addon {
namespace {

// Runs an engine call blocking, or nonblocking into a NativeRequest.
template <typename Run>
Napi::Value complete(Napi::Env env, bool nonblocking, const char* what, Run run) {
  if (!nonblocking) {
    check(env, run(nullptr), what);
    return env.Undefined();
  }
  std::unique_ptr<CollectiveRequest> request;
  check(env, run(&request), what);
  return RequestWrap::New(env, std::move(request));
}

void sameElementType(Napi::Env env, const BufferView& a, const BufferView& b) {
  if (a.type != b.type) throwType(env, "sendbuf and recvbuf must have the same element type");
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
  MPI_Count n;
  if (in_place) {
    if (recv.count % p != 0) throwRange(env, std::string(what) + ": in place, recvbuf length must be a multiple of the communicator size");
    n = recv.count / p;
  } else {
    send = bufferArg(sendArg, "sendbuf");
    sameElementType(env, send, recv);
    if (sends_all && send.count % p != 0) throwRange(env, std::string(what) + ": sendbuf length must be a multiple of the communicator size");
    n = sends_all ? send.count / p : send.count;
    if (recv.count < n * p) {
      throwRange(env, std::string(what) + ": recvbuf holds " + std::to_string(recv.count) + " elements, needs " + std::to_string(n * p));
    }
  }
  a->sendbuf = in_place ? MPI_IN_PLACE : send.data;
  a->sendcount = a->count = n;
  a->sendtype = a->type = recv.type;
  a->recvbuf = recv.data;
}

Napi::Value EngineCollective(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto coll = static_cast<Collective>(reinterpret_cast<intptr_t>(info.Data()));
  const generated::CollectiveEntry& entry = collectiveEntry(coll);
  CollectiveArgs a;
  a.comm = commArg(info[0]);
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

}  // namespace

void initCollectives(Napi::Env env, Napi::Object exports) {
  RequestWrap::Init(env, exports);
  for (int c = 0; c < generated::kCollectiveCount; ++c) {
    const generated::CollectiveEntry& entry = generated::kCollectives[c];
    if (entry.reducing) continue;
    exports.Set(entry.name, Napi::Function::New(env, EngineCollective, entry.name, reinterpret_cast<void*>(static_cast<intptr_t>(c))));
  }
}

}  // namespace topocoll::addon
