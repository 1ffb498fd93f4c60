// Point-to-point: the four send modes (standard, synchronous, buffered, ready), recv, sendrecv,
// sendrecv_replace, their nonblocking and persistent forms, probe/iprobe, matched probes
// (mprobe/improbe → a Message received by mrecv/imrecv), the buffer of buffered sends, and the
// receive of a message of unknown size (object mode) through matched probes, which cannot take a
// message meant for another receive between the probe and the receive.
#include <algorithm>
#include <chrono>
#include <climits>
#include <vector>

#include "addon.h"
#include "hierarchy/hierarchy.h"
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

// The send modes, as src/mpi/comm.ts numbers them.
enum SendMode { kStandard = 0, kSynchronous = 1, kBuffered = 2, kReady = 3 };

SendMode sendModeArg(const Napi::Value& v) { return static_cast<SendMode>(intArg(v, "mode", kStandard, kReady)); }

// One send call in the four modes: sets `rc` to PMPI_<standard|synchronous|buffered|ready>(...)
// (its _c form for large counts) by `mode`, and `call` to its name for errors.
#define TOPOCOLL_SEND_MODES(rc, call, mode, large, standard, synchronous, buffered, ready, ...)                      \
  switch (mode) {                                                                                                   \
    case kStandard: call = "MPI_" #standard, rc = TOPOCOLL_COUNT_CALL(large, standard, __VA_ARGS__); break;           \
    case kSynchronous: call = "MPI_" #synchronous, rc = TOPOCOLL_COUNT_CALL(large, synchronous, __VA_ARGS__); break;  \
    case kBuffered: call = "MPI_" #buffered, rc = TOPOCOLL_COUNT_CALL(large, buffered, __VA_ARGS__); break;           \
    case kReady: call = "MPI_" #ready, rc = TOPOCOLL_COUNT_CALL(large, ready, __VA_ARGS__); break;                    \
  }

// (comm, buf, dest, tag, mode)
Napi::Value Send(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Message m = messageArgs(info, "send", false);
  SendMode mode = sendModeArg(info[4]);
  int rc = MPI_SUCCESS;
  const char* call = "";
  TOPOCOLL_SEND_MODES(rc, call, mode, m.large, Send, Ssend, Bsend, Rsend, m.b.data, m.b.count, m.b.type, m.peer, m.tag, m.comm)
  check(env, rc, call);
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

// (comm, buf, dest, sendtag, source, recvtag) → status: sends buf, then receives into it
Napi::Value SendrecvReplace(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  BufferView b = bufferArg(info[1], "buf");
  int dest = destArg(info[2], comm, "dest");
  int sendtag = tagArg(info[3], "sendtag", false);
  int source = sourceArg(info[4], comm, "source");
  int recvtag = tagArg(info[5], "recvtag", true);
  bool big = largeCount(env, b.count, "sendrecvReplace");
  MPI_Status status{};
  check(env, TOPOCOLL_COUNT_CALL(big, Sendrecv_replace, b.data, b.count, b.type, dest, sendtag, source, recvtag, comm, &status),
        "MPI_Sendrecv_replace");
  return statusObject(env, status, b.type);
}

// The requests of isend and irecv, by number: JS holds a slot's index (src/mpi/request.ts,
// P2pRequest), not a wrapped object. Unwrapping an object and checking its class are each a
// lookup of a private symbol, which cost more than MPI_Test: a halo exchange of four requests made
// a dozen of them. src/mpi/request.ts hands out the indices (a free list) and gives isend/irecv
// the slot to start its request in; a slot in flight is never overwritten. Per thread, as each
// Node environment (the main thread, each worker) has its own requests.
struct P2pSlot {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Status status{};
  MPI_Datatype type = MPI_BYTE;
  bool ownsType = false;  // type is a duplicate of a derived one (holdDatatype)
  bool done = true;       // completed, failed or never used: free to start another request in
  bool receives = false;  // a receive's Status is its value; a send's is read only if cancelled (p2pStatus)
};
thread_local std::vector<P2pSlot> p2pSlots;
// A slot index above this is a fault of the caller's, not a program with that many requests.
constexpr int64_t kMaxP2pSlots = 1 << 24;

// The slot at `v` for a new request of `what`: free (the table grows to reach it), else a TypeError.
P2pSlot& freeSlotArg(const Napi::Value& v, const char* what) {
  int64_t i = intArg(v, "slot", 0, kMaxP2pSlots);
  if (static_cast<size_t>(i) >= p2pSlots.size()) p2pSlots.resize(static_cast<size_t>(i) + 1);
  if (!p2pSlots[i].done) throwType(v.Env(), std::string(what) + ": slot " + std::to_string(i) + " holds a request in flight");
  return p2pSlots[i];
}

// The slot at `v` of a request started there.
P2pSlot& slotArg(const Napi::Value& v) {
  int64_t i = intArg(v, "slot", 0, kMaxP2pSlots);
  if (static_cast<size_t>(i) >= p2pSlots.size()) throwRange(v.Env(), "slot " + std::to_string(i) + " holds no request");
  return p2pSlots[i];
}

void startInSlot(P2pSlot& s, MPI_Request request, MPI_Datatype type, bool receives) {
  s.request = request;
  s.receives = receives;
  holdDatatype(type, &s.type, &s.ownsType);
  s.status = MPI_Status{};
  s.done = false;
}

// MPI_Test of the slot's request: true once complete. An error ends the request (MPI may have
// freed it) and is thrown.
bool testSlot(Napi::Env env, P2pSlot& s) {
  if (s.done) return true;
  int flag = 0;
  int rc = PMPI_Test(&s.request, &flag, &s.status);
  if (rc != MPI_SUCCESS || flag) s.done = true;
  check(env, rc, "MPI_Test");
  return s.done;
}

// (slot) → true once complete
Napi::Value P2pTest(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), testSlot(info.Env(), slotArg(info[0]))); }

// Where JS wants a completed request's Status as numbers (src/mpi/status.ts): a Float64Array
// with room for `count` of them, or nullptr when `v` is undefined.
double* statusFieldsArg(const Napi::Value& v, size_t count, const char* what) {
  if (v.IsUndefined()) return nullptr;
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_float64_array ||
      v.As<Napi::Float64Array>().ElementLength() < count * kStatusFields) {
    throwType(v.Env(), std::string(what) + ": statuses must be a Float64Array of " + std::to_string(kStatusFields) + " numbers per request");
  }
  return v.As<Napi::Float64Array>().Data();
}

// (slot, statuses?) → MPI_Wait; the Status's fields into statuses[0..] when given (a receive's:
// JS makes the object, cheaper than a call back into JS from here).
Napi::Value P2pWait(const Napi::CallbackInfo& info) {
  P2pSlot& s = slotArg(info[0]);
  double* fields = statusFieldsArg(info[1], 1, "p2pWait");
  if (!s.done) {
    int rc = PMPI_Wait(&s.request, &s.status);
    s.done = true;
    check(info.Env(), rc, "MPI_Wait");
  }
  if (fields) statusFields(s.status, s.type, fields);
  return info.Env().Undefined();
}

// (slot) → the completed request's Status
Napi::Value P2pStatus(const Napi::CallbackInfo& info) {
  P2pSlot& s = slotArg(info[0]);
  if (!s.done) throwType(info.Env(), "status: the request has not completed");
  return statusObject(info.Env(), s.status, s.type);
}

// (slot) → MPI_Cancel: the request still completes (test/wait), its status saying whether it was.
Napi::Value P2pCancel(const Napi::CallbackInfo& info) {
  P2pSlot& s = slotArg(info[0]);
  if (!s.done) check(info.Env(), PMPI_Cancel(&s.request), "MPI_Cancel");
  return info.Env().Undefined();
}

// The arrays of a round of polls (src/mpi/request.ts): slots, their states and the Statuses'
// fields, set by p2pRound each time JS makes them and held here. Their data stays put (a typed
// array's store is off the JS heap once N-API has looked at it, and JS never lets go of them),
// so a poll makes no typed-array query: three a call were a third of its cost.
struct PollRound {
  Napi::Reference<Napi::Int32Array> slotsHeld;
  Napi::Reference<Napi::Uint8Array> statesHeld;
  Napi::Reference<Napi::Float64Array> statusesHeld;
  int32_t* slots = nullptr;
  uint8_t* states = nullptr;
  double* statuses = nullptr;
  size_t room = 0;  // requests they have room for
};
thread_local PollRound pollRound;

// (slots: Int32Array, states: Uint8Array, statuses: Float64Array) → the arrays of p2pTestSome
Napi::Value P2pRound(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto typed = [&](const Napi::Value& v, napi_typedarray_type want, size_t* length) -> void* {
    bool is = false;
    napi_typedarray_type type;
    napi_value buffer;
    size_t offset;
    void* data = nullptr;
    if (napi_is_typedarray(env, v, &is) != napi_ok || !is || napi_get_typedarray_info(env, v, &type, length, &data, &buffer, &offset) != napi_ok ||
        type != want) {
      throwType(env, "p2pRound: expects (slots: Int32Array, states: Uint8Array, statuses: Float64Array)");
    }
    return data;
  };
  size_t slots = 0, states = 0, statuses = 0;
  PollRound& r = pollRound;
  r.slots = static_cast<int32_t*>(typed(info[0], napi_int32_array, &slots));
  r.states = static_cast<uint8_t*>(typed(info[1], napi_uint8_array, &states));
  r.statuses = static_cast<double*>(typed(info[2], napi_float64_array, &statuses));
  r.room = std::min({slots, states, statuses / kStatusFields});
  // Held past the thread's end, as the other per-thread references: no env to release them then.
  r.slotsHeld = Napi::Persistent(info[0].As<Napi::Int32Array>());
  r.statesHeld = Napi::Persistent(info[1].As<Napi::Uint8Array>());
  r.statusesHeld = Napi::Persistent(info[2].As<Napi::Float64Array>());
  r.slotsHeld.SuppressDestruct();
  r.statesHeld.SuppressDestruct();
  r.statusesHeld.SuppressDestruct();
  return env.Undefined();
}

// (n, spinUs, yieldAfterUs, goalFrom) → how many completed: MPI_Testsome over the requests in
// the first `n` slots of the round (p2pRound) whose state is 0, setting the state of each that
// completes to 1 and, for a receive, its Status's fields (statusFields) at statuses[i], for JS to
// make the Status of. With spinUs > 0 it polls the rest again until every one from goalFrom on is
// complete or spinUs have passed (spinUs < 0: until every one is complete, a blocking wait for
// them all); those before goalFrom are polled along but end no spin (a receive awaited in the
// background would keep every await spinning for spinUs), each pass once it has spun
// yieldAfterUs calling idleWhileWaiting (an oversubscribed kernel yields the core, maybe to the
// peer; yieldAfterUs < 0: never, as MPI_Wait). By time, not passes: a pass takes a fraction of a
// microsecond, and yielding after a few of them handed the core to other jobs while the peer's
// message was on its way. Where requests fail, their state becomes 2 and the first one's MpiError
// is thrown once the pass is recorded. The progress of every awaited send and receive at once
// (src/mpi/request.ts): a halo exchange's four requests cost one call, not one per request and poll.
Napi::Value P2pTestSome(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const PollRound& round = pollRound;
  if (round.room == 0) throwType(env, "p2pTestSome: no round of polls; call p2pRound first");
  double spinUs = 0, yieldAfterUs = 0;
  if (!numberOf(info[1], &spinUs) || !numberOf(info[2], &yieldAfterUs)) {
    throwType(env, "p2pTestSome: expects (n, spinUs, yieldAfterUs, goalFrom), numbers");
  }
  const int32_t* slots = round.slots;
  uint8_t* states = round.states;
  double* statuses = round.statuses;
  const size_t n = static_cast<size_t>(intArg(info[0], "n", 0, static_cast<int64_t>(round.room)));
  const size_t goalFrom = static_cast<size_t>(intArg(info[3], "goalFrom", 0, static_cast<int64_t>(n)));
  std::vector<P2pSlot>& table = p2pSlots;  // (looked up once, as the scratch below)
  for (size_t i = 0; i < n; i++) {
    const int32_t k = slots[i];
    if (k < 0 || static_cast<size_t>(k) >= table.size()) throwRange(env, "p2pTestSome: slot " + std::to_string(k) + " holds no request");
  }
  // One MPI_Testsome a pass over the pending ones: one progress of the MPI for all of them (an
  // MPI_Test each progressed it once per request).
  // requests[j] is the slot at slots[at[j]]; reused, per thread, looked up once (each lookup of a
  // thread_local is a call).
  struct Scratch {
    std::vector<MPI_Request> requests;
    std::vector<size_t> at;
    std::vector<int> indices;
    std::vector<MPI_Status> done;
  };
  thread_local Scratch scratch;
  auto& [requests, at, indices, done] = scratch;
  std::chrono::steady_clock::time_point started;  // taken after the first pass, where most rounds end
  uint32_t completed = 0;
  auto spun = [&] { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started).count(); };
  for (int64_t pass = 0;; pass++) {
    if (pass > 0 && yieldAfterUs >= 0 && spun() >= yieldAfterUs) idleWhileWaiting();
    requests.clear();
    at.clear();
    for (size_t i = 0; i < n; i++) {
      if (states[i] != 0) continue;
      P2pSlot& s = table[slots[i]];
      if (s.done) {  // completed by an earlier call
        if (s.receives) statusFields(s.status, s.type, statuses + i * kStatusFields);
        states[i] = 1;
        completed++;
        continue;
      }
      requests.push_back(s.request);
      at.push_back(i);
    }
    const int m = static_cast<int>(requests.size());
    if (m == 0) break;
    indices.resize(m);
    done.assign(m, MPI_Status{});
    int outcount = 0;
    const int rc = PMPI_Testsome(m, requests.data(), &outcount, indices.data(), done.data());
    if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) check(env, rc, "MPI_Testsome");
    if (outcount == MPI_UNDEFINED) outcount = 0;
    int error = MPI_SUCCESS;  // the first request's that failed: thrown once all are recorded
    for (int k = 0; k < outcount; k++) {
      const size_t i = at[indices[k]];
      P2pSlot& s = table[slots[i]];
      s.request = requests[indices[k]];
      s.status = done[k];
      s.done = true;
      // MPI sets MPI_ERROR only where the call returns MPI_ERR_IN_STATUS.
      const int failed = rc == MPI_ERR_IN_STATUS ? done[k].MPI_ERROR : MPI_SUCCESS;
      s.status.MPI_ERROR = failed;
      if (failed != MPI_SUCCESS) {
        states[i] = 2;
        if (error == MPI_SUCCESS) error = failed;
        continue;
      }
      if (s.receives) statusFields(s.status, s.type, statuses + i * kStatusFields);
      states[i] = 1;
      completed++;
    }
    check(env, error, "MPI_Test");
    if (outcount == m || spinUs == 0) break;
    if (pass == 0) started = std::chrono::steady_clock::now();
    if (spinUs > 0 && (spun() >= spinUs || std::all_of(states + goalFrom, states + n, [](uint8_t state) { return state != 0; }))) break;
  }
  return Napi::Number::New(env, completed);
}

// (comm, buf, dest, tag, mode, slot) → a request started in `slot` (MPI_Isend, …), or with
// `persistent` (comm, buf, dest, tag, mode) → an inactive one that start() starts (MPI_Send_init, …)
template <bool persistent>
Napi::Value SendRequest(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Message m = messageArgs(info, persistent ? "sendInit" : "isend", false);
  SendMode mode = sendModeArg(info[4]);
  P2pSlot* slot = persistent ? nullptr : &freeSlotArg(info[5], "isend");
  MPI_Request request;
  int rc = MPI_SUCCESS;
  const char* call = "";
  if (persistent) {
    TOPOCOLL_SEND_MODES(rc, call, mode, m.large, Send_init, Ssend_init, Bsend_init, Rsend_init, m.b.data, m.b.count, m.b.type, m.peer, m.tag, m.comm, &request)
  } else {
    TOPOCOLL_SEND_MODES(rc, call, mode, m.large, Isend, Issend, Ibsend, Irsend, m.b.data, m.b.count, m.b.type, m.peer, m.tag, m.comm, &request)
  }
  check(env, rc, call);
  if (persistent) return MpiRequestWrap::NewPersistent(env, request, m.b.type);
  startInSlot(*slot, request, m.b.type, false);
  return env.Undefined();
}

// (comm, buf, source, tag, slot) → a receive started in `slot` (MPI_Irecv), or with `persistent`
// (comm, buf, source, tag) → an inactive one (MPI_Recv_init)
template <bool persistent>
Napi::Value RecvRequest(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Message m = messageArgs(info, persistent ? "recvInit" : "irecv", true);
  MPI_Request request;
  if (persistent) {
    check(env, TOPOCOLL_COUNT_CALL(m.large, Recv_init, m.b.data, m.b.count, m.b.type, m.peer, m.tag, m.comm, &request), "MPI_Recv_init");
    return MpiRequestWrap::NewPersistent(env, request, m.b.type);
  }
  P2pSlot& slot = freeSlotArg(info[4], "irecv");
  check(env, TOPOCOLL_COUNT_CALL(m.large, Irecv, m.b.data, m.b.count, m.b.type, m.peer, m.tag, m.comm, &request), "MPI_Irecv");
  startInSlot(slot, request, m.b.type, true);
  return env.Undefined();
}

// (requests[]) → MPI_Startall over persistent requests, each checked inactive first.
Napi::Value StartAll(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsArray()) throwType(env, "startAll: requests must be an array of persistent requests");
  Napi::Array list = info[0].As<Napi::Array>();
  std::vector<MpiRequestWrap*> wraps;
  std::vector<MPI_Request> requests;
  for (uint32_t i = 0; i < list.Length(); i++) {
    MpiRequestWrap* w = MpiRequestWrap::persistentArg(list.Get(i), "startAll");
    wraps.push_back(w);
    requests.push_back(w->handle());
  }
  check(env, PMPI_Startall(static_cast<int>(requests.size()), requests.data()), "MPI_Startall");
  for (size_t i = 0; i < wraps.size(); i++) wraps[i]->started(requests[i]);
  return env.Undefined();
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

// A message matched by mprobe/improbe: received once, by recv() (MPI_Mrecv) or irecv() (MPI_Imrecv).
class MessageWrap : public Napi::ObjectWrap<MessageWrap> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    Napi::Function ctor = DefineClass(env, "NativeMessage", {InstanceMethod("recv", &MessageWrap::Recv), InstanceMethod("irecv", &MessageWrap::Irecv)});
    constructor_ = Napi::Persistent(ctor);
    constructor_.SuppressDestruct();
    exports.Set("NativeMessage", ctor);
  }

  static Napi::Object New(MPI_Message message) {
    Napi::Object obj = constructor_.New({});
    Unwrap(obj)->message_ = message;
    return obj;
  }

  explicit MessageWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<MessageWrap>(info) {}

 private:
  // The message, checked unreceived; MPI sets the handle to MPI_MESSAGE_NULL once it is received.
  MPI_Message* unreceived(Napi::Env env, const char* what) {
    if (message_ == MPI_MESSAGE_NULL) throwType(env, std::string(what) + ": the message has been received already (a Message is received once)");
    return &message_;
  }

  // (buf) → status
  Napi::Value Recv(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    BufferView b = bufferArg(info[0], "buf");
    MPI_Message* message = unreceived(env, "recv");
    bool big = largeCount(env, b.count, "Message.recv");
    MPI_Status status{};
    check(env, TOPOCOLL_COUNT_CALL(big, Mrecv, b.data, b.count, b.type, message, &status), "MPI_Mrecv");
    return statusObject(env, status, b.type);
  }

  // (buf) → request whose status() is the receive's
  Napi::Value Irecv(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    BufferView b = bufferArg(info[0], "buf");
    MPI_Message* message = unreceived(env, "irecv");
    bool big = largeCount(env, b.count, "Message.irecv");
    MPI_Request request;
    check(env, TOPOCOLL_COUNT_CALL(big, Imrecv, b.data, b.count, b.type, message, &request), "MPI_Imrecv");
    return MpiRequestWrap::New(env, request, b.type);
  }

  MPI_Message message_ = MPI_MESSAGE_NULL;
  // Per thread: each Node environment (the main thread, each worker) has its own class.
  static thread_local Napi::FunctionReference constructor_;
};

thread_local Napi::FunctionReference MessageWrap::constructor_;

// (comm, source, tag) → {message, status} (status count in bytes): MPI_Mprobe, or with
// `immediate` MPI_Improbe, which gives null when no message matches yet
template <bool immediate>
Napi::Value MatchedProbe(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Envelope e = envelopeArgs(info);
  int flag = 1;
  MPI_Message message;
  MPI_Status status{};
  if (immediate) {
    check(env, PMPI_Improbe(e.source, e.tag, e.comm, &flag, &message, &status), "MPI_Improbe");
  } else {
    check(env, PMPI_Mprobe(e.source, e.tag, e.comm, &message, &status), "MPI_Mprobe");
  }
  if (!flag) return env.Null();
  Napi::Object result = Napi::Object::New(env);
  result.Set("message", MessageWrap::New(message));
  result.Set("status", statusObject(env, status, MPI_BYTE));
  return result;
}

// (buf) → MPI_Buffer_attach: the buffer buffered sends copy into (TypeScript keeps it alive).
Napi::Value BufferAttach(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  BufferView b = bufferArg(info[0], "buffer");
  if (b.spec) throwType(env, "attachBuffer: buffer must be a TypedArray, Buffer, DataView or ArrayBuffer (raw memory), not [buffer, count, datatype]");
  MPI_Count bytes = b.count * static_cast<MPI_Count>(b.elementBytes);
  if (bytes > INT_MAX) throwRange(env, "attachBuffer: " + std::to_string(bytes) + " bytes exceed MPI_Buffer_attach's limit of 2^31-1");
  check(env, PMPI_Buffer_attach(b.data, static_cast<int>(bytes)), "MPI_Buffer_attach");
  return env.Undefined();
}

// () → MPI_Buffer_detach: blocks until every buffered message has left the buffer.
Napi::Value BufferDetach(const Napi::CallbackInfo& info) {
  void* address = nullptr;
  int bytes = 0;
  check(info.Env(), PMPI_Buffer_detach(&address, &bytes), "MPI_Buffer_detach");
  return Napi::Number::New(info.Env(), bytes);
}

// (comm, source, tag, scratch, fields?) → the next matching message, whatever its size: its
// byte count when it fits in `scratch` (received there: object mode's small messages need no
// Buffer of their own), else a new Buffer holding it. `fields` (a Float64Array of kStatusFields,
// or undefined when the caller wants no Status) ← the receive's Status fields (statusFields): the
// Status costs its MPI calls only when asked for.
Napi::Value RecvBytes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Envelope e = envelopeArgs(info);
  BufferView scratch = bufferArg(info[3], "scratch");
  double* fields = nullptr;
  if (!info[4].IsUndefined()) {
    napi_typedarray_type type = napi_int8_array;
    size_t length = 0;
    void* data = nullptr;
    if (!info[4].IsTypedArray() || napi_get_typedarray_info(env, info[4], &type, &length, &data, nullptr, nullptr) != napi_ok ||
        type != napi_float64_array || length < kStatusFields) {
      throwType(env, "recvBytes: fields must be a Float64Array of " + std::to_string(kStatusFields) + " elements, or undefined");
    }
    fields = static_cast<double*>(data);
  }
  MPI_Message message;
  MPI_Status status{};
  check(env, PMPI_Mprobe(e.source, e.tag, e.comm, &message, &status), "MPI_Mprobe");
  MPI_Count bytes = 0;
  PMPI_Get_elements_x(&status, MPI_BYTE, &bytes);
  bool big = largeCount(env, bytes, "recvObject");
  const bool fits = bytes <= scratch.count * static_cast<MPI_Count>(scratch.elementBytes);
  Napi::Buffer<char> data;
  if (!fits) data = Napi::Buffer<char>::New(env, static_cast<size_t>(bytes));
  check(env, TOPOCOLL_COUNT_CALL(big, Mrecv, fits ? scratch.data : data.Data(), bytes, MPI_BYTE, &message, &status), "MPI_Mrecv");
  if (fields) statusFields(status, MPI_BYTE, fields);
  if (fits) return Napi::Number::New(env, static_cast<double>(bytes));
  return data;
}

// (comm, source, tag) → request; data() is the message once it completes.
Napi::Value IrecvBytes(const Napi::CallbackInfo& info) {
  Envelope e = envelopeArgs(info);
  return MpiRequestWrap::NewMatchedReceive(info.Env(), e.comm, e.source, e.tag);
}

}  // namespace

void initPointToPoint(Napi::Env env, Napi::Object exports) {
  initMpiBinding(env, exports);
  MessageWrap::Init(env, exports);
  setFunctions(env, exports, {{"send", Send},
                              {"recv", Recv},
                              {"sendrecv", Sendrecv},
                              {"sendrecvReplace", SendrecvReplace},
                              {"isend", SendRequest<false>},
                              {"irecv", RecvRequest<false>},
                              {"sendInit", SendRequest<true>},
                              {"recvInit", RecvRequest<true>},
                              {"startAll", StartAll},
                              {"p2pTest", P2pTest},
                              {"p2pWait", P2pWait},
                              {"p2pStatus", P2pStatus},
                              {"p2pCancel", P2pCancel},
                              {"p2pRound", P2pRound},
                              {"p2pTestSome", P2pTestSome},
                              {"probe", Probe},
                              {"iprobe", Iprobe},
                              {"mprobe", MatchedProbe<false>},
                              {"improbe", MatchedProbe<true>},
                              {"bufferAttach", BufferAttach},
                              {"bufferDetach", BufferDetach},
                              {"recvBytes", RecvBytes},
                              {"irecvBytes", IrecvBytes}});
  exports.Set("BSEND_OVERHEAD", Napi::Number::New(env, MPI_BSEND_OVERHEAD));
  exports.Set("tagUpperBound", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
    int* value = nullptr;
    int flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag);
    return Napi::Number::New(info.Env(), flag && value ? *value : 32767);
  }));
}

}  // namespace topocoll::addon
