// The collectives the engine implements. Arguments: (comm, sendbuf | null for in-place,
// recvbuf[, root], nonblocking). A nonblocking call returns a NativeRequest.
#include <string>

#include "addon.h"
#include "engine.h"
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

// allgather and alltoall share a shape: p blocks of n elements in recvbuf, n (allgather) or
// p * n (alltoall) in sendbuf.
Napi::Value blockCollective(const Napi::CallbackInfo& info, bool alltoall) {
  Napi::Env env = info.Env();
  const char* what = alltoall ? "alltoall" : "allgather";
  MPI_Comm comm = commArg(info[0]);
  BufferView recv = bufferArg(info[2], "recvbuf");
  bool nonblocking = info[3].ToBoolean();
  int p = commSizeOf(comm);
  bool in_place = info[1].IsNull() || info[1].IsUndefined();
  BufferView send;
  MPI_Count n;
  if (in_place) {
    if (recv.count % p != 0) throwRange(env, std::string(what) + ": in place, recvbuf length must be a multiple of the communicator size");
    n = recv.count / p;
  } else {
    send = bufferArg(info[1], "sendbuf");
    sameElementType(env, send, recv);
    if (alltoall && send.count % p != 0) throwRange(env, "alltoall: sendbuf length must be a multiple of the communicator size");
    n = alltoall ? send.count / p : send.count;
    if (recv.count < n * p) {
      throwRange(env, std::string(what) + ": recvbuf holds " + std::to_string(recv.count) + " elements, needs " + std::to_string(n * p));
    }
  }
  const void* sendbuf = in_place ? MPI_IN_PLACE : send.data;
  return complete(env, nonblocking, what, [&](engine::RequestOut r) {
    return alltoall ? engine::alltoall(sendbuf, n, recv.type, recv.data, n, recv.type, comm, r)
                    : engine::allgather(sendbuf, n, recv.type, recv.data, n, recv.type, comm, r);
  });
}

Napi::Value Allgather(const Napi::CallbackInfo& info) { return blockCollective(info, false); }
Napi::Value Alltoall(const Napi::CallbackInfo& info) { return blockCollective(info, true); }

Napi::Value Bcast(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  int root = rootArg(info[2], comm);  // first, as in every rooted call of the system MPI
  BufferView buf = bufferArg(info[1], "buffer");
  return complete(env, info[3].ToBoolean(), "bcast",
                  [&](engine::RequestOut r) { return engine::bcast(buf.data, buf.count, buf.type, root, comm, r); });
}

Napi::Value Barrier(const Napi::CallbackInfo& info) {
  MPI_Comm comm = commArg(info[0]);
  return complete(info.Env(), info[1].ToBoolean(), "barrier", [&](engine::RequestOut r) { return engine::barrier(comm, r); });
}

}  // namespace

void initCollectives(Napi::Env env, Napi::Object exports) {
  RequestWrap::Init(env, exports);
  exports.Set("allgather", Napi::Function::New(env, Allgather));
  exports.Set("alltoall", Napi::Function::New(env, Alltoall));
  exports.Set("bcast", Napi::Function::New(env, Bcast));
  exports.Set("barrier", Napi::Function::New(env, Barrier));
}

}  // namespace topocoll::addon
