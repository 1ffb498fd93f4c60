#include "request.h"

#include <sched.h>

namespace topocoll::addon {

thread_local Napi::FunctionReference RequestWrap::constructor_;

void RequestWrap::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "NativeRequest", {InstanceMethod("test", &RequestWrap::Test), InstanceMethod("wait", &RequestWrap::Wait)});
  constructor_ = Napi::Persistent(ctor);
  constructor_.SuppressDestruct();
  exports.Set("NativeRequest", ctor);
  // Between polls of awaited requests (src/mpi/request.ts): lets a rank that shares this core run,
  // as the engine's own waits do (sched_yield returns at once when nothing else is runnable).
  exports.Set("yieldProcessor", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
    sched_yield();
    return info.Env().Undefined();
  }));
}

Napi::Object RequestWrap::New(Napi::Env env, std::unique_ptr<CollectiveRequest> request, std::shared_ptr<void> keep) {
  Napi::Object obj = constructor_.New({});
  Unwrap(obj)->request_ = std::move(request);
  Unwrap(obj)->keep_ = std::move(keep);
  return obj;
}

RequestWrap::RequestWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<RequestWrap>(info) {}

Napi::Value RequestWrap::Test(const Napi::CallbackInfo& info) {
  if (!done_ && request_) {
    check(info.Env(), request_->test(&done_), "MPI_Test");
    if (done_) {
      request_.reset();
      keep_.reset();
    }
  }
  return Napi::Boolean::New(info.Env(), done_ || !request_);
}

Napi::Value RequestWrap::Wait(const Napi::CallbackInfo& info) {
  if (!done_ && request_) {
    check(info.Env(), request_->wait(), "MPI_Wait");
    done_ = true;
    request_.reset();
    keep_.reset();
  }
  return info.Env().Undefined();
}

}  // namespace topocoll::addon
