#pragma once

#include <memory>

#include "addon.h"
#include "executor.h"

namespace topocoll::addon {

// A nonblocking operation in flight, as a JS object with test() and wait(). The TypeScript
// Request keeps the operation's buffers alive until it completes.
class RequestWrap : public Napi::ObjectWrap<RequestWrap> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  // keep: what the operation reads until it completes, besides the buffers.
  static Napi::Object New(Napi::Env env, std::unique_ptr<CollectiveRequest> request, std::shared_ptr<void> keep = nullptr);
  explicit RequestWrap(const Napi::CallbackInfo& info);

 private:
  Napi::Value Test(const Napi::CallbackInfo& info);
  Napi::Value Wait(const Napi::CallbackInfo& info);
  std::unique_ptr<CollectiveRequest> request_;
  std::shared_ptr<void> keep_;
  bool done_ = false;
  // Per thread: each Node environment (the main thread, each worker) has its own class.
  static thread_local Napi::FunctionReference constructor_;
};

}  // namespace topocoll::addon
