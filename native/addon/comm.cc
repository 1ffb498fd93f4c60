// Communicator management: dup, split, split by shared-memory node, free. New communicators go
// into the addon's table (addon.h); JS holds their index. Handles are never reused, so a freed
// communicator's handle stays invalid and names itself in the error.
#include <climits>

#include "addon.h"
#include "mpi_binding.h"

namespace topocoll::addon {
namespace {

constexpr int kNoComm = -1;  // JS: the calling rank is in no new communicator (MPI_COMM_NULL)

Napi::Value handleOf(Napi::Env env, MPI_Comm comm) {
  return Napi::Number::New(env, comm == MPI_COMM_NULL ? kNoComm : registerComm(comm));
}

Napi::Value CommDup(const Napi::CallbackInfo& info) {
  MPI_Comm out = MPI_COMM_NULL;
  check(info.Env(), PMPI_Comm_dup(commArg(info[0]), &out), "MPI_Comm_dup");
  return handleOf(info.Env(), out);
}

Napi::Value CommSplit(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  int color = static_cast<int>(intArg(info[1], "color", kJsUndefined, INT_MAX));
  if (color < 0 && color != kJsUndefined) throwRange(env, "color = " + std::to_string(color) + " is not valid; valid: a number >= 0, or UNDEFINED");
  if (color == kJsUndefined) color = MPI_UNDEFINED;
  int key = static_cast<int>(intArg(info[2], "key", INT_MIN, INT_MAX));
  MPI_Comm out = MPI_COMM_NULL;
  check(env, PMPI_Comm_split(comm, color, key, &out), "MPI_Comm_split");
  return handleOf(env, out);
}

Napi::Value CommSplitShared(const Napi::CallbackInfo& info) {
  MPI_Comm comm = commArg(info[0]);
  int key = static_cast<int>(intArg(info[1], "key", INT_MIN, INT_MAX));
  MPI_Comm out = MPI_COMM_NULL;
  check(info.Env(), PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, key, MPI_INFO_NULL, &out), "MPI_Comm_split_type");
  return handleOf(info.Env(), out);
}

Napi::Value CommFree(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int handle = static_cast<int>(intArg(info[0], "comm", 0, INT_MAX));
  if (handle < 2) throwType(env, "free: COMM_WORLD and COMM_SELF cannot be freed");
  MPI_Comm comm = commArg(info[0]);
  check(env, PMPI_Comm_free(&comm), "MPI_Comm_free");
  releaseComm(handle);
  return env.Undefined();
}

// MPI_IDENT 0, MPI_CONGRUENT 1, MPI_SIMILAR 2, MPI_UNEQUAL 3 as JS sees them.
Napi::Value CommCompare(const Napi::CallbackInfo& info) {
  int result = MPI_UNEQUAL;
  check(info.Env(), PMPI_Comm_compare(commArg(info[0], "comm"), commArg(info[1], "other"), &result), "MPI_Comm_compare");
  int js = result == MPI_IDENT ? 0 : result == MPI_CONGRUENT ? 1 : result == MPI_SIMILAR ? 2 : 3;
  return Napi::Number::New(info.Env(), js);
}

// Errors on this communicator come back as codes (MpiError) instead of aborting the job.
Napi::Value CommErrorsReturn(const Napi::CallbackInfo& info) {
  check(info.Env(), PMPI_Comm_set_errhandler(commArg(info[0]), MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  return info.Env().Undefined();
}

}  // namespace

void initComm(Napi::Env env, Napi::Object exports) {
  exports.Set("commDup", Napi::Function::New(env, CommDup));
  exports.Set("commSplit", Napi::Function::New(env, CommSplit));
  exports.Set("commSplitShared", Napi::Function::New(env, CommSplitShared));
  exports.Set("commFree", Napi::Function::New(env, CommFree));
  exports.Set("commCompare", Napi::Function::New(env, CommCompare));
  exports.Set("commErrorsReturn", Napi::Function::New(env, CommErrorsReturn));
}

}  // namespace topocoll::addon
