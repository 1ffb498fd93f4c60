#include "request.h"

#include <climits>
#include <vector>

#include "hierarchy/hierarchy.h"

namespace topocoll::addon {
namespace {

// The engine's requests in flight, by number, as p2p.cc's sends and receives: a wrapped object
// per request (napi_wrap and its finalizer) took about 2 µs to make, several times an 8 B
// collective. A slot is taken when a collective starts and given back once it completes or fails.
// Per thread, as each Node environment (the main thread, each worker) has its own requests.
struct EngineSlot {
  std::unique_ptr<CollectiveRequest> request;  // null: complete at once
  std::shared_ptr<void> keep;
  bool busy = false;
};
thread_local std::vector<EngineSlot> engineSlots;
thread_local std::vector<size_t> freeEngineSlots;

// The slot at `v` of a request in flight, else a RangeError.
size_t busySlotArg(const Napi::Value& v) {
  const int64_t i = intArg(v, "slot", 0, INT_MAX);
  if (static_cast<size_t>(i) >= engineSlots.size() || !engineSlots[i].busy) {
    throwRange(v.Env(), "slot " + std::to_string(i) + " holds no collective in flight");
  }
  return static_cast<size_t>(i);
}

void release(size_t i) {
  engineSlots[i] = EngineSlot{};
  freeEngineSlots.push_back(i);
}

// (slot) → true once complete (the slot is then given back); an error gives it back and throws.
Napi::Value EngineTest(const Napi::CallbackInfo& info) {
  const size_t i = busySlotArg(info[0]);
  bool done = !engineSlots[i].request;
  int rc = done ? MPI_SUCCESS : engineSlots[i].request->test(&done);
  if (done || rc != MPI_SUCCESS) release(i);
  check(info.Env(), rc, "MPI_Test");
  return Napi::Boolean::New(info.Env(), done);
}

// (slot) → waits until complete, and gives the slot back.
Napi::Value EngineWait(const Napi::CallbackInfo& info) {
  const size_t i = busySlotArg(info[0]);
  int rc = engineSlots[i].request ? engineSlots[i].request->wait() : MPI_SUCCESS;
  release(i);
  check(info.Env(), rc, "MPI_Wait");
  return info.Env().Undefined();
}

// Between polls of awaited requests (src/mpi/request.ts), as between the engine's own.
Napi::Value IdleWhileWaiting(const Napi::CallbackInfo& info) {
  idleWhileWaiting();
  return info.Env().Undefined();
}

}  // namespace

Napi::Value engineRequest(Napi::Env env, std::unique_ptr<CollectiveRequest> request, std::shared_ptr<void> keep) {
  size_t i = engineSlots.size();
  if (freeEngineSlots.empty()) {
    engineSlots.emplace_back();
  } else {
    i = freeEngineSlots.back();
    freeEngineSlots.pop_back();
  }
  engineSlots[i] = EngineSlot{std::move(request), std::move(keep), true};
  return Napi::Number::New(env, static_cast<double>(i));
}

void initRequests(Napi::Env env, Napi::Object exports) {
  setFunctions(env, exports, {{"engineTest", EngineTest}, {"engineWait", EngineWait}, {"idleWhileWaiting", IdleWhileWaiting}});
}

}  // namespace topocoll::addon
