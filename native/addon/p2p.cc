// Point-to-point: send/ssend, recv, sendrecv, their nonblocking forms, probe/iprobe, and the
// receive of a message of unknown size (object mode) through matched probes (MPI_Mprobe/Mrecv),
// which cannot take a message meant for another receive between the probe and the receive.
#include "addon.h"
#include "mpi_binding.h"

namespace topocoll::addon {
namespace {

// (comm, buf, dest, tag, synchronous)
Napi::Value Send(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  BufferView b = bufferArg(info[1], "buf");
  int dest = destArg(info[2], comm, "dest");
  int tag = tagArg(info[3], "tag", false);
  bool big = largeCount(env, b.count, "send");
  int rc = info[4].ToBoolean() ? TOPOCOLL_COUNT_CALL(big, Ssend, b.data, b.count, b.type, dest, tag, comm)
                               : TOPOCOLL_COUNT_CALL(big, Send, b.data, b.count, b.type, dest, tag, comm);
  check(env, rc, "MPI_Send");
  return env.Undefined();
}

// (comm, buf, source, tag) → status
Napi::Value Recv(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  BufferView b = bufferArg(info[1], "buf");
  int source = sourceArg(info[2], comm, "source");
  int tag = tagArg(info[3], "tag", true);
  bool big = largeCount(env, b.count, "recv");
  MPI_Status status;
  check(env, TOPOCOLL_COUNT_CALL(big, Recv, b.data, b.count, b.type, source, tag, comm, &status), "MPI_Recv");
  return statusObject(env, status, b.type);
}

// (comm, sendbuf, dest, sendtag, recvbuf, source, recvtag) → status of the receive
Napi::Value Sendrecv(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  BufferView s = bufferArg(info[1], "sendbuf");
  int dest = destArg(info[2], comm, "dest");
  int sendtag = tagArg(info[3], "sendtag", false);
  BufferView r = bufferArg(info[4], "recvbuf");
  int source = sourceArg(info[5], comm, "source");
  int recvtag = tagArg(info[6], "recvtag", true);
  bool big = largeCount(env, s.count, "sendrecv") | largeCount(env, r.count, "sendrecv");
  MPI_Status status;
  check(env,
        TOPOCOLL_COUNT_CALL(big, Sendrecv, s.data, s.count, s.type, dest, sendtag, r.data, r.count, r.type, source, recvtag, comm, &status),
        "MPI_Sendrecv");
  return statusObject(env, status, r.type);
}

// (comm, buf, dest, tag, synchronous) → request
Napi::Value Isend(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  BufferView b = bufferArg(info[1], "buf");
  int dest = destArg(info[2], comm, "dest");
  int tag = tagArg(info[3], "tag", false);
  bool big = largeCount(env, b.count, "isend");
  MPI_Request request;
  int rc = info[4].ToBoolean() ? TOPOCOLL_COUNT_CALL(big, Issend, b.data, b.count, b.type, dest, tag, comm, &request)
                               : TOPOCOLL_COUNT_CALL(big, Isend, b.data, b.count, b.type, dest, tag, comm, &request);
  check(env, rc, "MPI_Isend");
  return MpiRequestWrap::New(env, request, b.type);
}

// (comm, buf, source, tag) → request whose status() is the receive's
Napi::Value Irecv(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  BufferView b = bufferArg(info[1], "buf");
  int source = sourceArg(info[2], comm, "source");
  int tag = tagArg(info[3], "tag", true);
  bool big = largeCount(env, b.count, "irecv");
  MPI_Request request;
  check(env, TOPOCOLL_COUNT_CALL(big, Irecv, b.data, b.count, b.type, source, tag, comm, &request), "MPI_Irecv");
  return MpiRequestWrap::New(env, request, b.type);
}

// (comm, source, tag) → status (count in bytes)
Napi::Value Probe(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  int source = sourceArg(info[1], comm, "source");
  int tag = tagArg(info[2], "tag", true);
  MPI_Status status;
  check(env, PMPI_Probe(source, tag, comm, &status), "MPI_Probe");
  return statusObject(env, status, MPI_BYTE);
}

// (comm, source, tag) → status, or null when no message matches yet
Napi::Value Iprobe(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  int source = sourceArg(info[1], comm, "source");
  int tag = tagArg(info[2], "tag", true);
  int flag = 0;
  MPI_Status status;
  check(env, PMPI_Iprobe(source, tag, comm, &flag, &status), "MPI_Iprobe");
  return flag ? Napi::Value(statusObject(env, status, MPI_BYTE)) : env.Null();
}

// (comm, source, tag) → {data: Buffer, source, tag, count}: the next matching message, whatever its size.
Napi::Value RecvBytes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  int source = sourceArg(info[1], comm, "source");
  int tag = tagArg(info[2], "tag", true);
  MPI_Message message;
  MPI_Status status;
  check(env, PMPI_Mprobe(source, tag, comm, &message, &status), "MPI_Mprobe");
  MPI_Count bytes = 0;
  PMPI_Get_elements_x(&status, MPI_BYTE, &bytes);
  bool big = largeCount(env, bytes, "recvObject");
  auto data = Napi::Buffer<char>::New(env, static_cast<size_t>(bytes));
  check(env, TOPOCOLL_COUNT_CALL(big, Mrecv, data.Data(), bytes, MPI_BYTE, &message, &status), "MPI_Mrecv");
  Napi::Object result = statusObject(env, status, MPI_BYTE);
  result.Set("data", data);
  return result;
}

// (comm, source, tag) → request; data() is the message once it completes.
Napi::Value IrecvBytes(const Napi::CallbackInfo& info) {
  MPI_Comm comm = commArg(info[0]);
  int source = sourceArg(info[1], comm, "source");
  int tag = tagArg(info[2], "tag", true);
  return MpiRequestWrap::NewMatchedReceive(info.Env(), comm, source, tag);
}

}  // namespace

void initPointToPoint(Napi::Env env, Napi::Object exports) {
  initMpiBinding(env, exports);
  exports.Set("send", Napi::Function::New(env, Send));
  exports.Set("recv", Napi::Function::New(env, Recv));
  exports.Set("sendrecv", Napi::Function::New(env, Sendrecv));
  exports.Set("isend", Napi::Function::New(env, Isend));
  exports.Set("irecv", Napi::Function::New(env, Irecv));
  exports.Set("probe", Napi::Function::New(env, Probe));
  exports.Set("iprobe", Napi::Function::New(env, Iprobe));
  exports.Set("recvBytes", Napi::Function::New(env, RecvBytes));
  exports.Set("irecvBytes", Napi::Function::New(env, IrecvBytes));
  exports.Set("tagUpperBound", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
    int* value = nullptr;
    int flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag);
    return Napi::Number::New(info.Env(), flag && value ? *value : 32767);
  }));
}

}  // namespace topocoll::addon
