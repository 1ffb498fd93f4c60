// Point-to-point: send/ssend, recv, sendrecv, their nonblocking forms, probe/iprobe, and the
// receive of a message of unknown size (object mode) through matched probes (MPI_Mprobe/Mrecv),
// which cannot take a message meant for another receive between the probe and the receive.
#include "addon.h"
#include "mpi_binding.h"

namespace topocoll::addon {
namespace {

// (comm, buf, peer, tag): the leading arguments of send, recv and their nonblocking forms.
struct Message {
  MPI_Comm comm;
  BufferView b;
  int peer;  // dest, or source (may be MPI_ANY_SOURCE)
  int tag;
  bool large;
};

Message messageArgs(const Napi::CallbackInfo& info, const char* what, bool receive) {
  Message m;
  m.comm = commArg(info[0]);
  m.b = bufferArg(info[1], "buf");
  m.peer = receive ? sourceArg(info[2], m.comm, "source") : destArg(info[2], m.comm, "dest");
  m.tag = tagArg(info[3], "tag", receive);
  m.large = largeCount(info.Env(), m.b.count, what);
  return m;
}

// (comm, source, tag): the arguments of the probes and of the receives of unknown size.
struct Envelope {
  MPI_Comm comm;
  int source;
  int tag;
};

Envelope envelopeArgs(const Napi::CallbackInfo& info) {
  MPI_Comm comm = commArg(info[0]);
  return {comm, sourceArg(info[1], comm, "source"), tagArg(info[2], "tag", true)};
}

// (comm, buf, dest, tag, synchronous)
Napi::Value Send(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Message m = messageArgs(info, "send", false);
  int rc = info[4].ToBoolean() ? TOPOCOLL_COUNT_CALL(m.large, Ssend, m.b.data, m.b.count, m.b.type, m.peer, m.tag, m.comm)
                               : TOPOCOLL_COUNT_CALL(m.large, Send, m.b.data, m.b.count, m.b.type, m.peer, m.tag, m.comm);
  check(env, rc, "MPI_Send");
  return env.Undefined();
}

// (comm, buf, source, tag) → status
Napi::Value Recv(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Message m = messageArgs(info, "recv", true);
  MPI_Status status{};
  check(env, TOPOCOLL_COUNT_CALL(m.large, Recv, m.b.data, m.b.count, m.b.type, m.peer, m.tag, m.comm, &status), "MPI_Recv");
  return statusObject(env, status, m.b.type);
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
  MPI_Status status{};
  check(env,
        TOPOCOLL_COUNT_CALL(big, Sendrecv, s.data, s.count, s.type, dest, sendtag, r.data, r.count, r.type, source, recvtag, comm, &status),
        "MPI_Sendrecv");
  return statusObject(env, status, r.type);
}

// (comm, buf, dest, tag, synchronous) → request
Napi::Value Isend(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Message m = messageArgs(info, "isend", false);
  MPI_Request request;
  int rc = info[4].ToBoolean() ? TOPOCOLL_COUNT_CALL(m.large, Issend, m.b.data, m.b.count, m.b.type, m.peer, m.tag, m.comm, &request)
                               : TOPOCOLL_COUNT_CALL(m.large, Isend, m.b.data, m.b.count, m.b.type, m.peer, m.tag, m.comm, &request);
  check(env, rc, "MPI_Isend");
  return MpiRequestWrap::New(env, request, m.b.type);
}

// (comm, buf, source, tag) → request whose status() is the receive's
Napi::Value Irecv(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Message m = messageArgs(info, "irecv", true);
  MPI_Request request;
  check(env, TOPOCOLL_COUNT_CALL(m.large, Irecv, m.b.data, m.b.count, m.b.type, m.peer, m.tag, m.comm, &request), "MPI_Irecv");
  return MpiRequestWrap::New(env, request, m.b.type);
}

// (comm, source, tag) → status (count in bytes)
Napi::Value Probe(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Envelope e = envelopeArgs(info);
  MPI_Status status{};
  check(env, PMPI_Probe(e.source, e.tag, e.comm, &status), "MPI_Probe");
  return statusObject(env, status, MPI_BYTE);
}

// (comm, source, tag) → status, or null when no message matches yet
Napi::Value Iprobe(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Envelope e = envelopeArgs(info);
  int flag = 0;
  MPI_Status status{};
  check(env, PMPI_Iprobe(e.source, e.tag, e.comm, &flag, &status), "MPI_Iprobe");
  return flag ? Napi::Value(statusObject(env, status, MPI_BYTE)) : env.Null();
}

// (comm, source, tag) → {data: Buffer, source, tag, count}: the next matching message, whatever its size.
Napi::Value RecvBytes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Envelope e = envelopeArgs(info);
  MPI_Message message;
  MPI_Status status{};
  check(env, PMPI_Mprobe(e.source, e.tag, e.comm, &message, &status), "MPI_Mprobe");
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
  Envelope e = envelopeArgs(info);
  return MpiRequestWrap::NewMatchedReceive(info.Env(), e.comm, e.source, e.tag);
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
