#include "mpi_binding.h"

#include <climits>
#include <cmath>

namespace topocoll::addon {

static std::string rankRange(int p) { return "[0, " + std::to_string(p - 1) + "]"; }

// Kept a double until it is range-checked: 2^40 is then a rank out of range (like 5 in a world of
// 4), not "not an integer" by an overflowing cast to int.
double rankNumber(const Napi::Value& v, const char* name) {
  Napi::Env env = v.Env();
  double d = 0;
  if (!numberOf(v, &d)) throwType(env, std::string(name) + " must be a rank (a number)");
  if (!std::isfinite(d) || d != std::trunc(d)) throwType(env, std::string(name) + " must be an integer rank");
  return d;
}

// "name = value is not a rank of this communicator; valid: [0, p-1]", the value as JS writes it.
static std::string notARank(const Napi::Value& v, const char* name, int p) {
  return std::string(name) + " = " + v.ToString().Utf8Value() + " is not a rank of this communicator; valid: " + rankRange(p);
}

// The ranks a message may name: the communicator's, or an intercommunicator's remote group's.
static int peerCount(MPI_Comm comm) {
  int inter = 0, p = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (!inter) return commSizeOf(comm);
  PMPI_Comm_remote_size(comm, &p);
  return p;
}

int destArg(const Napi::Value& v, MPI_Comm comm, const char* name) {
  double r = rankNumber(v, name);
  int p = peerCount(comm);
  if (r == kJsProcNull) return MPI_PROC_NULL;
  if (r < 0 || r >= p) throwRange(v.Env(), notARank(v, name, p) + " or PROC_NULL");
  return static_cast<int>(r);
}

int sourceArg(const Napi::Value& v, MPI_Comm comm, const char* name) {
  double r = rankNumber(v, name);
  int p = peerCount(comm);
  if (r == kJsAnySource) return MPI_ANY_SOURCE;
  if (r == kJsProcNull) return MPI_PROC_NULL;
  if (r < 0 || r >= p) throwRange(v.Env(), notARank(v, name, p) + ", ANY_SOURCE or PROC_NULL");
  return static_cast<int>(r);
}

static int tagUpperBound() {
  static int ub = [] {
    int* value = nullptr;
    int flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag);
    return flag && value ? *value : 32767;  // 32767: the least MPI guarantees
  }();
  return ub;
}

int tagArg(const Napi::Value& v, const char* name, bool allowAny) {
  Napi::Env env = v.Env();
  double d = 0;
  if (!numberOf(v, &d)) throwType(env, std::string(name) + " must be a number");
  if (d != static_cast<double>(static_cast<int64_t>(d))) throwType(env, std::string(name) + " must be an integer");
  int64_t t = static_cast<int64_t>(d);
  if (allowAny && t == kJsAnyTag) return MPI_ANY_TAG;
  if (t < 0 || t > tagUpperBound()) {
    throwRange(env, std::string(name) + " = " + std::to_string(t) + " is out of range; valid: [0, " + std::to_string(tagUpperBound()) + "]" +
                        (allowAny ? " or ANY_TAG" : ""));
  }
  return static_cast<int>(t);
}

MPI_Comm intracommArg(const Napi::Value& v) {
  MPI_Comm comm = commArg(v);
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) throwType(v.Env(), "collectives on an intercommunicator are not supported; merge() it into an intracommunicator first (point-to-point works on it)");
  return comm;
}

int rootArg(const Napi::Value& v, MPI_Comm comm) {
  double r = rankNumber(v, "root");
  int p = commSizeOf(comm);
  // The error class the MPI raises for it (MPI_ERR_ROOT), before any call: as a preloaded program gets.
  if (r < 0 || r >= p) throwMpiError(v.Env(), MPI_ERR_ROOT, notARank(v, "root", p).c_str());
  return static_cast<int>(r);
}

bool largeCount(Napi::Env env, MPI_Count count, const char* what) {
  if (count <= INT_MAX) return false;
  if (!kHasLargeCount) {
    throwRange(env, std::string(what) + ": " + std::to_string(count) +
                        " elements exceed 2^31-1, and this MPI has no MPI-4 large-count calls; split the buffer, or build topocoll "
                        "against an MPI-4 library (TOPOCOLL_MPI=mpich)");
  }
  return true;
}

bool absent(const Napi::Value& v) {
  // One napi_typeof (IsNull and IsUndefined make one each).
  napi_valuetype type = napi_undefined;
  return napi_typeof(v.Env(), v, &type) == napi_ok && (type == napi_null || type == napi_undefined);
}

MPI_Info infoArg(const Napi::Value& v, const char* what) {
  Napi::Env env = v.Env();
  if (absent(v)) return MPI_INFO_NULL;
  if (!v.IsObject() || v.IsArray()) throwType(env, std::string(what) + ": info must be an object of string hints ({ key: 'value' })");
  Napi::Object o = v.As<Napi::Object>();
  Napi::Array keys = o.GetPropertyNames();
  MPI_Info info;
  check(env, PMPI_Info_create(&info), "MPI_Info_create");
  for (uint32_t i = 0; i < keys.Length(); ++i) {
    std::string key = keys.Get(i).ToString().Utf8Value();
    Napi::Value value = o.Get(key);
    if (!value.IsString()) {
      PMPI_Info_free(&info);
      throwType(env, std::string(what) + ": info." + key + " must be a string");
    }
    PMPI_Info_set(info, key.c_str(), value.As<Napi::String>().Utf8Value().c_str());
  }
  return info;
}

void sameElementType(Napi::Env env, const char* what, const BufferView& send, const BufferView& recv) {
  if (send.type != recv.type) {
    throwType(env, std::string(what) + ": sendbuf (" + elementTypeName(send.type) + ") and recvbuf (" + elementTypeName(recv.type) +
                       ") must have the same element type");
  }
}

void requireLength(Napi::Env env, const char* what, const char* name, const BufferView& buf, MPI_Count need) {
  if (buf.count < need) {
    throwRange(env, std::string(what) + ": " + name + " holds " + std::to_string(buf.count) + " elements, needs " + std::to_string(need));
  }
}

MPI_Count blocksOf(Napi::Env env, const char* what, const char* name, const BufferView& buf, int p) {
  if (buf.count % p != 0) {
    throwRange(env, std::string(what) + ": " + name + " length (" + std::to_string(buf.count) +
                        ") must be a multiple of the communicator size (" + std::to_string(p) + ")");
  }
  return buf.count / p;
}

std::vector<MPI_Count> wholeNumbers(Napi::Env env, const char* what, const char* name, const Napi::Value& v, int p, MPI_Count max) {
  if (!v.IsArray() && !v.IsTypedArray()) throwType(env, std::string(what) + ": " + name + " must be an array of " + std::to_string(p) + " numbers");
  Napi::Object list = v.As<Napi::Object>();
  const uint32_t length = list.Get("length").As<Napi::Number>().Uint32Value();
  if (length != static_cast<uint32_t>(p)) {
    throwRange(env, std::string(what) + ": " + name + " has " + std::to_string(length) + " entries, needs one per rank (" + std::to_string(p) + ")");
  }
  std::vector<MPI_Count> out(p);
  for (int i = 0; i < p; ++i) {
    Napi::Value e = list.Get(static_cast<uint32_t>(i));
    const std::string entry = std::string(what) + ": " + name + "[" + std::to_string(i) + "]";
    if (!e.IsNumber()) throwType(env, entry + " must be a number");
    const double d = e.As<Napi::Number>().DoubleValue();
    if (!(d >= 0 && d <= static_cast<double>(max)) || d != static_cast<double>(static_cast<int64_t>(d))) {
      throwRange(env, entry + " must be a whole number from 0 to " + std::to_string(max) + " (got " + e.ToString().Utf8Value() + ")");
    }
    out[i] = static_cast<MPI_Count>(d);
  }
  return out;
}

std::string elementTypeName(MPI_Datatype t) {
  if (t == MPI_INT8_T) return "Int8Array";
  if (t == MPI_UINT8_T) return "Uint8Array";
  if (t == MPI_INT16_T) return "Int16Array";
  if (t == MPI_UINT16_T) return "Uint16Array";
  if (t == MPI_INT32_T) return "Int32Array";
  if (t == MPI_UINT32_T) return "Uint32Array";
  if (t == MPI_FLOAT) return "Float32Array";
  if (t == MPI_DOUBLE) return "Float64Array";
  if (t == MPI_INT64_T) return "BigInt64Array";
  if (t == MPI_UINT64_T) return "BigUint64Array";
  return "untyped bytes (DataView/ArrayBuffer)";
}

namespace {

struct OpEntry {
  const char* name;
  MPI_Op op;
  bool arithmetic;  // valid on floating point too; else integers only (bitwise: bytes too)
  bool bitwise;
};

const OpEntry kOps[] = {
    {"SUM", MPI_SUM, true, false},     {"PROD", MPI_PROD, true, false}, {"MIN", MPI_MIN, true, false},
    {"MAX", MPI_MAX, true, false},     {"LAND", MPI_LAND, false, false}, {"LOR", MPI_LOR, false, false},
    {"LXOR", MPI_LXOR, false, false}, {"BAND", MPI_BAND, false, true}, {"BOR", MPI_BOR, false, true},
    {"BXOR", MPI_BXOR, false, true},
};
constexpr int kOpCount = sizeof(kOps) / sizeof(kOps[0]);

enum class ElementKind { Integer, Floating, Bytes };

ElementKind kindOf(MPI_Datatype t) {
  if (t == MPI_FLOAT || t == MPI_DOUBLE) return ElementKind::Floating;
  if (t == MPI_BYTE) return ElementKind::Bytes;
  return ElementKind::Integer;
}

bool opValidFor(const OpEntry& op, ElementKind kind) {
  switch (kind) {
    case ElementKind::Integer: return true;
    case ElementKind::Floating: return op.arithmetic;
    case ElementKind::Bytes: return op.bitwise;
  }
  return false;
}

}  // namespace

static std::string validOps(ElementKind kind) {
  std::string valid;
  for (const OpEntry& e : kOps) {
    if (opValidFor(e, kind)) valid += (valid.empty() ? "" : ", ") + std::string(e.name);
  }
  return valid;
}

MPI_Op opArg(const Napi::Value& v, const BufferView& buf, const char* what) {
  Napi::Env env = v.Env();
  ElementKind kind = kindOf(buf.type);
  if (!v.IsNumber()) throwType(env, std::string(what) + ": op must be one of " + validOps(kind));
  int index = v.As<Napi::Number>().Int32Value();
  if (index < 0 || index >= kOpCount) throwType(env, std::string(what) + ": unknown op; valid ops: " + validOps(kind));
  const OpEntry& e = kOps[index];
  if (!opValidFor(e, kind)) {
    throwType(env, std::string(what) + ": op " + e.name + " is not defined for " + elementTypeName(buf.type) + " elements; valid ops: " + validOps(kind));
  }
  return e.op;
}

void statusFields(const MPI_Status& status, MPI_Datatype type, double fields[kStatusFields]) {
  MPI_Count count = 0, bytes = 0;
  int integers = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED;
  PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
  if (combiner == MPI_COMBINER_NAMED) {
    PMPI_Get_elements_x(&status, type, &count);
  } else {
    int items = 0;  // a derived datatype ([buffer, count, datatype]): whole items of it
    PMPI_Get_count(&status, type, &items);
    count = items;
  }
  PMPI_Get_elements_x(&status, MPI_BYTE, &bytes);
  if (count == MPI_UNDEFINED) count = kJsUndefined;  // a partial element: JS's UNDEFINED under both MPIs
  int cancelled = 0;
  PMPI_Test_cancelled(&status, &cancelled);
  int errorClass = MPI_SUCCESS;
  if (status.MPI_ERROR != MPI_SUCCESS) PMPI_Error_class(status.MPI_ERROR, &errorClass);
  fields[kStatusSource] = status.MPI_SOURCE == MPI_PROC_NULL ? kJsProcNull : status.MPI_SOURCE == MPI_ANY_SOURCE ? kJsAnySource : status.MPI_SOURCE;
  fields[kStatusTag] = status.MPI_TAG == MPI_ANY_TAG ? kJsAnyTag : status.MPI_TAG;
  fields[kStatusCount] = static_cast<double>(count);
  fields[kStatusBytes] = static_cast<double>(bytes);
  fields[kStatusCancelled] = cancelled;
  fields[kStatusError] = errorClass;
}

Napi::Object statusObject(Napi::Env env, const MPI_Status& status, MPI_Datatype type) {
  double f[kStatusFields];
  statusFields(status, type, f);
  const int source = static_cast<int>(f[kStatusSource]), tag = static_cast<int>(f[kStatusTag]), errorClass = static_cast<int>(f[kStatusError]);
  const MPI_Count count = static_cast<MPI_Count>(f[kStatusCount]), bytes = static_cast<MPI_Count>(f[kStatusBytes]);
  const int cancelled = static_cast<int>(f[kStatusCancelled]);
  // The object is made by a JS function (setStatusFactory) where one is set: an object literal in
  // JS costs a fraction of six property sets through N-API, on the path of every receive.
  Napi::FunctionReference& make = statusFactory();
  if (!make.IsEmpty()) {
    return make
        .Call({Napi::Number::New(env, source), Napi::Number::New(env, tag), Napi::Number::New(env, static_cast<double>(count)),
               Napi::Number::New(env, static_cast<double>(bytes)), Napi::Boolean::New(env, cancelled != 0), Napi::Number::New(env, errorClass)})
        .As<Napi::Object>();
  }
  auto o = Napi::Object::New(env);
  o.Set("source", Napi::Number::New(env, source));
  o.Set("tag", Napi::Number::New(env, tag));
  o.Set("count", Napi::Number::New(env, static_cast<double>(count)));
  o.Set("bytes", Napi::Number::New(env, static_cast<double>(bytes)));
  o.Set("cancelled", Napi::Boolean::New(env, cancelled != 0));
  o.Set("error", Napi::Number::New(env, errorClass));
  return o;
}

// --- MpiRequestWrap ---

thread_local Napi::FunctionReference MpiRequestWrap::constructor_;

void MpiRequestWrap::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "MpiRequest",
                                    {InstanceMethod("test", &MpiRequestWrap::Test), InstanceMethod("wait", &MpiRequestWrap::Wait),
                                     InstanceMethod("status", &MpiRequestWrap::Status), InstanceMethod("data", &MpiRequestWrap::Data),
                                     InstanceMethod("start", &MpiRequestWrap::Start), InstanceMethod("cancel", &MpiRequestWrap::Cancel),
                                     InstanceMethod("free", &MpiRequestWrap::Free)});
  constructor_ = Napi::Persistent(ctor);
  constructor_.SuppressDestruct();
  exports.Set("MpiRequest", ctor);
}

Napi::Object MpiRequestWrap::New(Napi::Env env, MPI_Request request, MPI_Datatype type, std::shared_ptr<void> keep) {
  Napi::Object obj = constructor_.New({});
  MpiRequestWrap* w = Unwrap(obj);
  w->request_ = request;
  holdDatatype(type, &w->type_, &w->ownsType_);
  w->keep_ = std::move(keep);
  return obj;
}

void holdDatatype(MPI_Datatype type, MPI_Datatype* held, bool* owns) {
  if (*owns) PMPI_Type_free(held);
  *owns = false;
  *held = type;
  int integers = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED;
  PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
  if (combiner != MPI_COMBINER_NAMED && PMPI_Type_dup(type, held) == MPI_SUCCESS) *owns = true;
}

Napi::Object MpiRequestWrap::NewMatchedReceive(Napi::Env env, MPI_Comm comm, int source, int tag) {
  Napi::Object obj = constructor_.New({});
  MpiRequestWrap* w = Unwrap(obj);
  w->probing_ = true;
  w->comm_ = comm;
  w->source_ = source;
  w->tag_ = tag;
  return obj;
}

Napi::Object MpiRequestWrap::NewPersistent(Napi::Env env, MPI_Request request, MPI_Datatype type) {
  Napi::Object obj = New(env, request, type);
  MpiRequestWrap* w = Unwrap(obj);
  w->persistent_ = true;
  w->done_ = true;  // inactive until started: MPI_Test on it is true at once
  return obj;
}

MpiRequestWrap* MpiRequestWrap::persistentArg(const Napi::Value& v, const char* what) {
  Napi::Env env = v.Env();
  MpiRequestWrap* w = v.IsObject() && v.As<Napi::Object>().InstanceOf(constructor_.Value()) ? Unwrap(v.As<Napi::Object>()) : nullptr;
  if (!w || !w->persistent_) throwType(env, std::string(what) + ": expects persistent requests (sendInit, recvInit)");
  if (w->request_ == MPI_REQUEST_NULL) throwType(env, std::string(what) + ": the persistent request has been freed");
  if (!w->done_) throwType(env, std::string(what) + ": the persistent request is active; complete it first");
  return w;
}

void MpiRequestWrap::started(MPI_Request request) {
  request_ = request;
  status_ = MPI_Status{};
  done_ = false;
}

MpiRequestWrap::MpiRequestWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<MpiRequestWrap>(info) {}

// Releases the request's duplicate of a derived type, and a persistent request the program dropped
// without free(): inactive (an active one is held by its Request until it completes), so
// MPI_Request_free releases it at once.
MpiRequestWrap::~MpiRequestWrap() {
  int finalized = 1;
  PMPI_Finalized(&finalized);
  if (finalized) return;
  if (ownsType_) PMPI_Type_free(&type_);
  if (persistent_ && done_ && request_ != MPI_REQUEST_NULL) PMPI_Request_free(&request_);
}

Napi::Value MpiRequestWrap::Start(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  persistentArg(Value(), "start");
  check(env, PMPI_Start(&request_), "MPI_Start");
  started(request_);
  return env.Undefined();
}

// MPI_Cancel: the request still completes (wait/test), its status saying whether it was cancelled.
Napi::Value MpiRequestWrap::Cancel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (probing_) throwType(env, "cancel: a receive of unknown size (irecvObject) has no MPI request to cancel until a message matches");
  if (!done_) check(env, PMPI_Cancel(&request_), "MPI_Cancel");
  return env.Undefined();
}

// MPI_Request_free of an inactive persistent request.
Napi::Value MpiRequestWrap::Free(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  persistentArg(Value(), "free");
  check(env, PMPI_Request_free(&request_), "MPI_Request_free");
  return env.Undefined();
}

void MpiRequestWrap::receiveMatched(Napi::Env env, MPI_Message message, const MPI_Status& probed) {
  probing_ = false;
  MPI_Count bytes = 0;
  PMPI_Get_elements_x(&probed, MPI_BYTE, &bytes);
  bool big = largeCount(env, bytes, "recvObject");
  auto buffer = Napi::Buffer<char>::New(env, static_cast<size_t>(bytes));
  data_ = Napi::Persistent(buffer);
  finish(env, TOPOCOLL_COUNT_CALL(big, Imrecv, buffer.Data(), bytes, MPI_BYTE, &message, &request_), "MPI_Imrecv");
}

// An error ends the request: MPI may already have freed it.
void MpiRequestWrap::finish(Napi::Env env, int code, const char* what) {
  if (code != MPI_SUCCESS) {
    done_ = true;
    keep_.reset();
    throwMpiError(env, code, what);
  }
}

Napi::Value MpiRequestWrap::Test(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!done_) {
    if (probing_) {
      int matched = 0;
      MPI_Message message;
      MPI_Status probed;
      finish(env, PMPI_Improbe(source_, tag_, comm_, &matched, &message, &probed), "MPI_Improbe");
      if (!matched) return Napi::Boolean::New(env, false);
      receiveMatched(env, message, probed);
    }
    int flag = 0;
    finish(env, PMPI_Test(&request_, &flag, &status_), "MPI_Test");
    if (flag) {
      done_ = true;
      keep_.reset();
    }
  }
  return Napi::Boolean::New(env, done_);
}

Napi::Value MpiRequestWrap::Wait(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!done_) {
    if (probing_) {
      MPI_Message message;
      MPI_Status probed;
      finish(env, PMPI_Mprobe(source_, tag_, comm_, &message, &probed), "MPI_Mprobe");
      receiveMatched(env, message, probed);
    }
    finish(env, PMPI_Wait(&request_, &status_), "MPI_Wait");
    done_ = true;
    keep_.reset();
  }
  return env.Undefined();
}

Napi::Value MpiRequestWrap::Status(const Napi::CallbackInfo& info) {
  if (!done_) throwType(info.Env(), "status: the request has not completed");
  return statusObject(info.Env(), status_, type_);
}

Napi::Value MpiRequestWrap::Data(const Napi::CallbackInfo& info) {
  if (!done_ || data_.IsEmpty()) return info.Env().Undefined();
  return data_.Value();
}

}  // namespace topocoll::addon

namespace topocoll::addon {

Napi::FunctionReference& statusFactory() {
  // Per thread, as the classes: each Node environment sets its own.
  static thread_local Napi::FunctionReference make;
  return make;
}

Napi::FunctionReference& mpiErrorConstructor() {
  // Per thread: each Node environment (the main thread, each worker) sets its own MpiError class.
  static thread_local Napi::FunctionReference ctor;
  return ctor;
}

const char* mpiErrorClassName(int errorClass) {
  switch (errorClass) {
#define TOPOCOLL_ERROR_CLASS(name) \
  case name: return #name;
    TOPOCOLL_ERROR_CLASS(MPI_SUCCESS)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_BUFFER)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_COUNT)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_TYPE)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_TAG)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_COMM)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_RANK)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_REQUEST)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_ROOT)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_GROUP)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_OP)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_TOPOLOGY)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_DIMS)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_ARG)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_TRUNCATE)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_OTHER)
    // MPI-IO's (src/mpi/file.ts)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_FILE)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_NOT_SAME)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_AMODE)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_UNSUPPORTED_DATAREP)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_UNSUPPORTED_OPERATION)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_NO_SUCH_FILE)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_FILE_EXISTS)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_BAD_FILE)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_ACCESS)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_NO_SPACE)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_QUOTA)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_READ_ONLY)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_FILE_IN_USE)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_DUP_DATAREP)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_CONVERSION)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_IO)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_INTERN)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_IN_STATUS)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_PENDING)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_NO_MEM)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_KEYVAL)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_INFO)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_WIN)
    // One-sided communication's (src/mpi/win.ts)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_BASE)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_DISP)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_SIZE)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_LOCKTYPE)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_ASSERT)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_RMA_CONFLICT)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_RMA_SYNC)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_RMA_RANGE)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_RMA_ATTACH)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_RMA_SHARED)
    TOPOCOLL_ERROR_CLASS(MPI_ERR_RMA_FLAVOR)
#undef TOPOCOLL_ERROR_CLASS
    default: return "MPI_ERR_UNKNOWN";
  }
}

void initMpiBinding(Napi::Env env, Napi::Object exports) {
  MpiRequestWrap::Init(env, exports);
  exports.Set("setMpiErrorClass", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
    if (!info[0].IsFunction()) throwType(info.Env(), "setMpiErrorClass: expects the MpiError class");
    mpiErrorConstructor() = Napi::Persistent(info[0].As<Napi::Function>());
    mpiErrorConstructor().SuppressDestruct();
    return info.Env().Undefined();
  }));
  exports.Set("setStatusFactory", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
    if (!info[0].IsFunction()) throwType(info.Env(), "setStatusFactory: expects a function (source, tag, count, bytes, cancelled, error) => Status");
    statusFactory() = Napi::Persistent(info[0].As<Napi::Function>());
    statusFactory().SuppressDestruct();
    return info.Env().Undefined();
  }));
  // Sentinels as JS sees them (identical under both MPIs; translated at the boundary).
  exports.Set("ANY_SOURCE", kJsAnySource);
  exports.Set("ANY_TAG", kJsAnyTag);
  exports.Set("PROC_NULL", kJsProcNull);
  exports.Set("UNDEFINED", kJsUndefined);
}

}  // namespace topocoll::addon
