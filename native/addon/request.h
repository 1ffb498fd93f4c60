#pragma once

#include <memory>

#include "addon.h"
#include "executor.h"

namespace topocoll::addon {

// An engine collective started nonblocking: its request in a slot of a per-thread table, and the
// slot's index for JS (src/mpi/request.ts, EngineRequest), which engineTest/engineWait take.
// keep: what the operation reads until it completes, besides the buffers (which the TypeScript
// Request keeps alive).
Napi::Value engineRequest(Napi::Env env, std::unique_ptr<CollectiveRequest> request, std::shared_ptr<void> keep = nullptr);

// Registers engineTest, engineWait and idleWhileWaiting.
void initRequests(Napi::Env env, Napi::Object exports);

}  // namespace topocoll::addon
