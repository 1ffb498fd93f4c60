// Shared helpers of the Node addon: argument conversion and errors. The addon is glue: it checks
// and converts arguments, calls MPI or the engine, and turns error codes into JS exceptions.
#pragma once

#include <mpi.h>
#include <napi.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "schedule.h"

#include "generated/registry.h"

namespace topocoll::addon {

// Throws a JS MpiError (an Error with .mpiErrorClass and .mpiErrorString) for an MPI error code.
[[noreturn]] void throwMpiError(Napi::Env env, int code, const char* what);
inline void check(Napi::Env env, int code, const char* what) {
  if (code != MPI_SUCCESS) throwMpiError(env, code, what);
}

[[noreturn]] void throwType(Napi::Env env, const std::string& message);
[[noreturn]] void throwRange(Napi::Env env, const std::string& message);

// A view of a JS buffer (TypedArray, Buffer, DataView or ArrayBuffer) as MPI sees it.
struct BufferView {
  void* data = nullptr;
  MPI_Count count = 0;        // elements of `type`
  MPI_Datatype type = MPI_BYTE;
  size_t elementBytes = 1;    // a spec: the bytes of its datatype's type signature (MPI_Type_size)
  bool spec = false;          // given as [buffer, count, datatype]: `type` may differ from the other side's
};

// Converts `value` (argument `name` of the calling function) or throws a TypeError. An array
// [buffer, count, datatype] (a Datatype of src/mpi/datatype.ts) is read by datatypeSpecArg.
BufferView bufferArg(const Napi::Value& value, const char* name);
// A typed array's view by one N-API query (napi_get_typedarray_info, which fails for anything
// else, and which bufferArg tries first): false, and nothing thrown, when `value` is not one.
// `arraybuffer` (may be null): its buffer, for the detached check of an empty one.
bool typedArrayView(const Napi::Value& value, BufferView* out, napi_value* arraybuffer);
// [buffer, count, datatype]: the datatype committed and not freed, and every byte that `count`
// items of it reach inside the buffer (a RangeError naming `name` otherwise). mpi_datatype.cc.
BufferView datatypeSpecArg(const Napi::Value& value, const char* name);
// A committed datatype, not freed (a TypeError naming `name` otherwise). mpi_datatype.cc.
MPI_Datatype committedTypeArg(const Napi::Value& value, const char* name);
// The count of `to`'s type that carries the bytes of `n` items of `from`'s: n for buffers of one
// type; for a spec on either side, by the bytes of the type signatures (a RangeError when they do
// not divide); plain buffers of two element types are a TypeError.
MPI_Count matchingCount(Napi::Env env, const char* what, const BufferView& from, const char* fromName, MPI_Count n, const BufferView& to,
                        const char* toName);
// A collective of the registry by name, or a TypeError naming them all.
generated::Collective collectiveArg(const Napi::Value& value);
// A function of the addon's surface: its JS name (also the function's `name`) and its glue.
struct AddonFunction {
  const char* name;
  Napi::Function::Callback glue;
};
// Sets each function on `exports` (one init* function's part of the surface, src/mpi/addon.ts).
void setFunctions(Napi::Env env, Napi::Object exports, std::initializer_list<AddonFunction> functions);
// An algorithm of `coll` by its registry name: its index, or a TypeError.
int algorithmArg(generated::Collective coll, const Napi::Value& value);
// A string argument; a TypeError naming `name` otherwise.
std::string stringArg(const Napi::Value& value, const char* name);
// Converts a whole-number argument within [min, max] or throws.
int64_t intArg(const Napi::Value& value, const char* name, int64_t min, int64_t max);
// The number `value` holds, by one N-API query; false when it holds none (IsNumber, then
// DoubleValue, made two on every numeric argument of every call).
bool numberOf(const Napi::Value& value, double* out);
// A flag the TypeScript layer passes (nonblocking, …): a boolean by one N-API query (ToBoolean
// makes two), anything else by JS truthiness.
bool flagArg(const Napi::Value& value);

// The reductions' schedule options: `commutative` (default true) and `recvCounts` (reduce_scatter:
// p element counts), which *recv_counts keeps for bp->recv_counts.
void reductionOptions(const Napi::Object& opts, int p, BuildParams* bp, std::vector<int64_t>* recv_counts);

// A schedule in the compact form of the timing model and the symbolic replay (model.cc):
// {rounds, stream: Int32Array, unitsPerBlock, flags?: {slot: Uint8Array, stage: Int32Array},
// spans?: {srcBuf, srcFirst, dstBuf, dstFirst, dstFirstOrder}} (spans when `with_spans`; buffers
// as BufferId values); a RangeError naming the rank, round and op when it cannot be compacted.
Napi::Object compiledObject(Napi::Env env, const Schedule& s, int rank, int p, bool with_spans);
// Communicator handles: JS holds small integers that index this table.
MPI_Comm commArg(const Napi::Value& value, const char* name = "comm");
// The communicator's size and this process's rank in it.
int commSizeOf(MPI_Comm comm);
int commRankOf(MPI_Comm comm);
int registerComm(MPI_Comm comm);
void releaseComm(int handle);
// Group handles (mpi_group.cc): JS holds indices into a table of its own.
MPI_Group groupArg(const Napi::Value& value, const char* name = "group");
int registerGroup(MPI_Group group);

// Each file of the addon adds its functions to the exports.
void initLifecycle(Napi::Env env, Napi::Object exports);
void initCollectives(Napi::Env env, Napi::Object exports);
void initSchedules(Napi::Env env, Napi::Object exports);
void initHierarchy(Napi::Env env, Napi::Object exports);
void initTopology(Napi::Env env, Napi::Object exports);
void initBench(Napi::Env env, Napi::Object exports);
void initComm(Napi::Env env, Napi::Object exports);
void initPointToPoint(Napi::Env env, Napi::Object exports);
void initMpiCollectives(Napi::Env env, Napi::Object exports);
void initModel(Napi::Env env, Napi::Object exports);
void initMapping(Napi::Env env, Napi::Object exports);
void initDatatypes(Napi::Env env, Napi::Object exports);
void initGroups(Napi::Env env, Napi::Object exports);
void initMpiTopologies(Napi::Env env, Napi::Object exports);
void initFiles(Napi::Env env, Napi::Object exports);
void initWindows(Napi::Env env, Napi::Object exports);

// The JS MpiError class (set by the TypeScript layer through setMpiErrorClass); empty until then.
Napi::FunctionReference& mpiErrorConstructor();
// The name of a standard MPI error class ("MPI_ERR_RANK"), or "MPI_ERR_UNKNOWN".
const char* mpiErrorClassName(int errorClass);

}  // namespace topocoll::addon
