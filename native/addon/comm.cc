// Communicator management: dup, split, split by shared-memory node, free, communicators of a
// group (create, createGroup), names, intercommunicators (create, merge). New communicators go
// into the addon's table (addon.h); JS holds their index. Handles are never reused, so a freed
// communicator's handle stays invalid and names itself in the error.
#include <climits>
#include <string>

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

// (comm, group) → handle, or -1 on a rank outside the group. Collective over comm.
Napi::Value CommCreate(const Napi::CallbackInfo& info) {
  MPI_Comm out = MPI_COMM_NULL;
  check(info.Env(), PMPI_Comm_create(commArg(info[0]), groupArg(info[1]), &out), "MPI_Comm_create");
  return handleOf(info.Env(), out);
}

// (comm, group, tag) → handle, or -1 on a rank outside the group. Collective over the group only.
Napi::Value CommCreateGroup(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  MPI_Group group = groupArg(info[1]);
  int tag = tagArg(info[2], "tag", false);
  MPI_Comm out = MPI_COMM_NULL;
  check(env, PMPI_Comm_create_group(comm, group, tag, &out), "MPI_Comm_create_group");
  return handleOf(env, out);
}

Napi::Value CommGetName(const Napi::CallbackInfo& info) {
  char name[MPI_MAX_OBJECT_NAME] = {0};
  int length = 0;
  check(info.Env(), PMPI_Comm_get_name(commArg(info[0]), name, &length), "MPI_Comm_get_name");
  return Napi::String::New(info.Env(), name, length);
}

Napi::Value CommSetName(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  if (!info[1].IsString()) throwType(env, "name must be a string");
  std::string name = info[1].As<Napi::String>().Utf8Value();
  if (name.size() >= MPI_MAX_OBJECT_NAME) {
    throwRange(env, "name is " + std::to_string(name.size()) + " bytes long; this MPI keeps at most " + std::to_string(MPI_MAX_OBJECT_NAME - 1));
  }
  check(env, PMPI_Comm_set_name(comm, name.c_str()), "MPI_Comm_set_name");
  return env.Undefined();
}

Napi::Value CommIsInter(const Napi::CallbackInfo& info) {
  int inter = 0;
  check(info.Env(), PMPI_Comm_test_inter(commArg(info[0]), &inter), "MPI_Comm_test_inter");
  return Napi::Boolean::New(info.Env(), inter != 0);
}

// An intercommunicator, or a TypeError naming the call.
MPI_Comm interArg(const Napi::Value& v, const char* what) {
  MPI_Comm comm = commArg(v);
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (!inter) throwType(v.Env(), std::string(what) + ": not an intercommunicator (createIntercomm makes one)");
  return comm;
}

Napi::Value CommRemoteSize(const Napi::CallbackInfo& info) {
  int size = 0;
  check(info.Env(), PMPI_Comm_remote_size(interArg(info[0], "remoteSize"), &size), "MPI_Comm_remote_size");
  return Napi::Number::New(info.Env(), size);
}

Napi::Value CommRemoteGroup(const Napi::CallbackInfo& info) {
  MPI_Group group;
  check(info.Env(), PMPI_Comm_remote_group(interArg(info[0], "remoteGroup"), &group), "MPI_Comm_remote_group");
  return Napi::Number::New(info.Env(), registerGroup(group));
}

// (comm, localLeader, peerComm, remoteLeader, tag) → handle. peerComm and remoteLeader matter
// at the local leader only (MPI ignores them elsewhere), where they are checked.
Napi::Value IntercommCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  int localLeader = static_cast<int>(intArg(info[1], "localLeader", 0, commSizeOf(comm) - 1));
  MPI_Comm peer = MPI_COMM_NULL;
  int remoteLeader = 0;
  if (commRankOf(comm) == localLeader) {
    peer = commArg(info[2], "peerComm");
    remoteLeader = static_cast<int>(intArg(info[3], "remoteLeader", 0, commSizeOf(peer) - 1));
  }
  int tag = tagArg(info[4], "tag", false);
  MPI_Comm out = MPI_COMM_NULL;
  check(env, PMPI_Intercomm_create(comm, localLeader, peer, remoteLeader, tag, &out), "MPI_Intercomm_create");
  return handleOf(env, out);
}

// (comm, high) → handle of the intracommunicator of both groups (high's group ranked last).
Napi::Value IntercommMerge(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = interArg(info[0], "merge");
  MPI_Comm out = MPI_COMM_NULL;
  check(env, PMPI_Intercomm_merge(comm, flagArg(info[1]) ? 1 : 0, &out), "MPI_Intercomm_merge");
  return handleOf(env, out);
}

}  // namespace

void initComm(Napi::Env env, Napi::Object exports) {
  setFunctions(env, exports, {{"commDup", CommDup},
                              {"commSplit", CommSplit},
                              {"commSplitShared", CommSplitShared},
                              {"commFree", CommFree},
                              {"commCompare", CommCompare},
                              {"commErrorsReturn", CommErrorsReturn},
                              {"commCreate", CommCreate},
                              {"commCreateGroup", CommCreateGroup},
                              {"commGetName", CommGetName},
                              {"commSetName", CommSetName},
                              {"commIsInter", CommIsInter},
                              {"commRemoteSize", CommRemoteSize},
                              {"commRemoteGroup", CommRemoteGroup},
                              {"intercommCreate", IntercommCreate},
                              {"intercommMerge", IntercommMerge}});
}

}  // namespace topocoll::addon
