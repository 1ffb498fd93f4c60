// Helpers of the MPI binding proper (communicators, point-to-point, the collectives the system MPI
// runs): rank/tag/root/op arguments checked before any MPI call, the MPI-4 large-count switch, and
// a JS object for a request of the system MPI.
#pragma once

#include <memory>
#include <string>

#include "addon.h"
#include "generated/sentinels.h"  // kJsAnySource, kJsProcNull, kJsAnyTag, kJsUndefined (from src/mpi/comm.ts)

namespace topocoll::addon {

// Counts above INT_MAX need the MPI-4 `_c` calls. TOPOCOLL_COUNT_CALL(big, Send, ...) calls
// PMPI_Send_c when `big`, else PMPI_Send; largeCount() has already refused `big` where the MPI
// has no `_c` calls, so the plain call only ever sees counts that fit an int.
#if MPI_VERSION >= 4
constexpr bool kHasLargeCount = true;
#define TOPOCOLL_COUNT_CALL(big, name, ...) ((big) ? PMPI_##name##_c(__VA_ARGS__) : PMPI_##name(__VA_ARGS__))
#else
constexpr bool kHasLargeCount = false;
#define TOPOCOLL_COUNT_CALL(big, name, ...) ((void)(big), PMPI_##name(__VA_ARGS__))
#endif

// A rank argument as a whole number (a TypeError naming `name` otherwise), still a double: the
// caller checks its range, so that 2^40 is a rank out of range, not "not an integer".
double rankNumber(const Napi::Value& v, const char* name);
// A destination rank: 0..p-1 (an intercommunicator: of the remote group) or PROC_NULL.
int destArg(const Napi::Value& v, MPI_Comm comm, const char* name);
// A source rank: 0..p-1, ANY_SOURCE or PROC_NULL.
int sourceArg(const Napi::Value& v, MPI_Comm comm, const char* name);
// A tag: 0..MPI_TAG_UB, or ANY_TAG where `allowAny`.
int tagArg(const Napi::Value& v, const char* name, bool allowAny);
// A communicator a collective may run on: an intercommunicator is a TypeError (its collectives
// would take roots and buffer sizes of the remote group, which the checks here do not know).
MPI_Comm intracommArg(const Napi::Value& v);
// A root rank: 0..p-1.
int rootArg(const Napi::Value& v, MPI_Comm comm);

// True when `count` needs the large-count calls; a RangeError naming `what` where the MPI has none.
bool largeCount(Napi::Env env, MPI_Count count, const char* what);

// Argument checks shared by the collectives: an absent argument (null or undefined, IN_PLACE
// where a send buffer is expected), buffers of one element type, a buffer's length in elements,
// and a buffer cut into p equal blocks (its block's elements).
bool absent(const Napi::Value& v);
// Hints as {key: value} strings (MPI_Info of File.open, Win.allocate, …), MPI_INFO_NULL when
// absent; a TypeError naming `what` for anything else. The caller frees it.
MPI_Info infoArg(const Napi::Value& v, const char* what);
void sameElementType(Napi::Env env, const char* what, const BufferView& send, const BufferView& recv);
void requireLength(Napi::Env env, const char* what, const char* name, const BufferView& buf, MPI_Count need);
MPI_Count blocksOf(Napi::Env env, const char* what, const char* name, const BufferView& buf, int p);
// One whole number per rank (counts, displacements): an array or typed array of p entries, each
// from 0 to `max` (a TypeError for what is not such a list or not a number, a RangeError for a
// wrong length or a value out of range).
std::vector<MPI_Count> wholeNumbers(Napi::Env env, const char* what, const char* name, const Napi::Value& v, int p, MPI_Count max);

// The JS name of a buffer's elements ("Float64Array", "bytes"), for messages.
std::string elementTypeName(MPI_Datatype type);
// The reduction op at index `v` (SUM, PROD, MIN, MAX, LAND, LOR, LXOR, BAND, BOR, BXOR), checked
// against the element type of `buf`: a TypeError lists the ops valid for it.
MPI_Op opArg(const Napi::Value& v, const BufferView& buf, const char* what);

// {source, tag, count, bytes, cancelled, error}: count in elements of `type` (items of a derived
// type), sources translated
// for JS, cancelled by MPI_Test_cancelled, error the class of MPI_ERROR. MPI sets MPI_ERROR only
// in multiple-completion calls, so every caller passes a zeroed status (MPI_ERROR = MPI_SUCCESS).
Napi::Object statusObject(Napi::Env env, const MPI_Status& status, MPI_Datatype type);

// statusObject's fields as numbers, at their StatusField indices (generated/sentinels.h, from
// src/mpi/status.ts): JS makes the Status of them without a call back into JS.
void statusFields(const MPI_Status& status, MPI_Datatype type, double fields[kStatusFields]);

// The JS function statusObject makes a Status with (setStatusFactory); empty until set.
Napi::FunctionReference& statusFactory();

// `*held` ← `type`, or a duplicate of a derived one (`*owns` then; the previous duplicate freed): a
// request's status() needs its type, which the program may free while the request is in flight.
void holdDatatype(MPI_Datatype type, MPI_Datatype* held, bool* owns);

// Registers MpiRequest, setMpiErrorClass, setStatusFactory and the rank/tag sentinels (called by initPointToPoint).
void initMpiBinding(Napi::Env env, Napi::Object exports);

// A request of the system MPI as a JS object: test() → boolean, wait(), status(), data(),
// cancel(); a persistent one also start() and free().
class MpiRequestWrap : public Napi::ObjectWrap<MpiRequestWrap> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  // A started request; `keep` owns what MPI reads until completion (count and displacement arrays).
  static Napi::Object New(Napi::Env env, MPI_Request request, MPI_Datatype type, std::shared_ptr<void> keep = nullptr);
  // An inactive persistent request (MPI_Send_init, MPI_Recv_init): start() or startAll starts it.
  static Napi::Object NewPersistent(Napi::Env env, MPI_Request request, MPI_Datatype type);
  // The persistent request `v` (of `what`), inactive, or a TypeError.
  static MpiRequestWrap* persistentArg(const Napi::Value& v, const char* what);
  MPI_Request handle() const { return request_; }
  // MPI_Start(all) has started it (`request` as MPI left it).
  void started(MPI_Request request);
  // A receive of a message of unknown size (object mode): matched by MPI_Improbe when progressed,
  // then received into a new Buffer that data() returns.
  static Napi::Object NewMatchedReceive(Napi::Env env, MPI_Comm comm, int source, int tag);
  explicit MpiRequestWrap(const Napi::CallbackInfo& info);
  ~MpiRequestWrap() override;

 private:
  Napi::Value Test(const Napi::CallbackInfo& info);
  Napi::Value Wait(const Napi::CallbackInfo& info);
  Napi::Value Status(const Napi::CallbackInfo& info);
  Napi::Value Data(const Napi::CallbackInfo& info);
  Napi::Value Start(const Napi::CallbackInfo& info);
  Napi::Value Cancel(const Napi::CallbackInfo& info);
  Napi::Value Free(const Napi::CallbackInfo& info);
  void receiveMatched(Napi::Env env, MPI_Message message, const MPI_Status& probed);
  void finish(Napi::Env env, int code, const char* what);

  MPI_Request request_ = MPI_REQUEST_NULL;
  MPI_Status status_{};
  MPI_Datatype type_ = MPI_BYTE;
  bool ownsType_ = false;  // type_ is this request's duplicate of a derived type (holdDatatype; freed with it)
  std::shared_ptr<void> keep_;
  bool done_ = false;
  // Persistent: completion leaves request_ inactive, to be started again, until free().
  bool persistent_ = false;
  // Matched receive: probing until a message matches (comm_, source_, tag_).
  bool probing_ = false;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int source_ = 0, tag_ = 0;
  Napi::Reference<Napi::Buffer<char>> data_;
  // Per thread: each Node environment (the main thread, each worker) has its own class.
  static thread_local Napi::FunctionReference constructor_;
};

}  // namespace topocoll::addon
