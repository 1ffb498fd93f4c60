#include "addon.h"

#include <climits>
#include <vector>

#include "algorithm_registry.h"

namespace topocoll::addon {

void throwMpiError(Napi::Env env, int code, const char* what) {
  int error_class = code, len = 0;
  char text[MPI_MAX_ERROR_STRING] = {0};
  int initialized = 0;
  PMPI_Initialized(&initialized);
  if (initialized) {
    PMPI_Error_class(code, &error_class);
    PMPI_Error_string(code, text, &len);
  }
  std::string message = std::string(what) + ": " + text;
  Napi::FunctionReference& ctor = mpiErrorConstructor();
  if (!ctor.IsEmpty()) {
    // new MpiError(message, errorClass, errorString, errorClassName): `instanceof MpiError` holds in JS.
    throw Napi::Error(env, ctor.New({Napi::String::New(env, message), Napi::Number::New(env, error_class), Napi::String::New(env, text),
                                     Napi::String::New(env, mpiErrorClassName(error_class))}));
  }
  Napi::Error err = Napi::Error::New(env, message);
  err.Set("name", Napi::String::New(env, "MpiError"));
  err.Set("mpiErrorClass", Napi::Number::New(env, error_class));
  err.Set("mpiErrorString", Napi::String::New(env, text));
  throw err;
}

void throwType(Napi::Env env, const std::string& message) { throw Napi::TypeError::New(env, message); }
void throwRange(Napi::Env env, const std::string& message) { throw Napi::RangeError::New(env, message); }

static MPI_Datatype typedArrayType(napi_typedarray_type t, size_t* bytes) {
  switch (t) {
    case napi_int8_array: *bytes = 1; return MPI_INT8_T;
    case napi_uint8_array: *bytes = 1; return MPI_UINT8_T;
    case napi_uint8_clamped_array: *bytes = 1; return MPI_UINT8_T;
    case napi_int16_array: *bytes = 2; return MPI_INT16_T;
    case napi_uint16_array: *bytes = 2; return MPI_UINT16_T;
    case napi_int32_array: *bytes = 4; return MPI_INT32_T;
    case napi_uint32_array: *bytes = 4; return MPI_UINT32_T;
    case napi_float32_array: *bytes = 4; return MPI_FLOAT;
    case napi_float64_array: *bytes = 8; return MPI_DOUBLE;
    case napi_bigint64_array: *bytes = 8; return MPI_INT64_T;
    case napi_biguint64_array: *bytes = 8; return MPI_UINT64_T;
    default: *bytes = 1; return MPI_BYTE;
  }
}

bool typedArrayView(const Napi::Value& value, BufferView* out, napi_value* arraybuffer) {
  napi_typedarray_type type;
  size_t length = 0;
  if (napi_get_typedarray_info(value.Env(), value, &type, &length, &out->data, arraybuffer, nullptr) != napi_ok) return false;
  out->type = typedArrayType(type, &out->elementBytes);
  out->count = static_cast<MPI_Count>(length);
  return true;
}

// On the path of every call: one N-API query per typed array, and the detached check only where a
// length of 0 could mean it.
BufferView bufferArg(const Napi::Value& value, const char* name) {
  napi_env env = value.Env();
  napi_value v = value;
  BufferView out;
  bool is = false;
  napi_value arraybuffer = nullptr;
  size_t length = 0;
  if (typedArrayView(value, &out, &arraybuffer)) {
    if (out.count > 0) return out;
  } else if (napi_is_dataview(env, v, &is) == napi_ok && is) {
    napi_get_dataview_info(env, v, &length, &out.data, &arraybuffer, nullptr);
    out.count = static_cast<MPI_Count>(length);
    if (length > 0) return out;
  } else if (napi_is_arraybuffer(env, v, &is) == napi_ok && is) {
    napi_get_arraybuffer_info(env, v, &out.data, &length);
    out.count = static_cast<MPI_Count>(length);
    arraybuffer = v;
    if (length > 0) return out;
  } else if (value.IsArray()) {
    return datatypeSpecArg(value, name);
  } else {
    throwType(value.Env(), std::string(name) + " must be a TypedArray, Buffer, DataView or ArrayBuffer, or [buffer, count, datatype]");
  }
  bool detached = false;
  if (arraybuffer && napi_is_detached_arraybuffer(env, arraybuffer, &detached) == napi_ok && detached) {
    throwType(value.Env(), std::string(name) + " is a detached buffer");
  }
  return out;
}

bool numberOf(const Napi::Value& value, double* out) { return napi_get_value_double(value.Env(), value, out) == napi_ok; }

bool flagArg(const Napi::Value& value) {
  bool flag = false;
  return napi_get_value_bool(value.Env(), value, &flag) == napi_ok ? flag : value.ToBoolean().Value();
}

int64_t intArg(const Napi::Value& value, const char* name, int64_t min, int64_t max) {
  Napi::Env env = value.Env();
  double d = 0;
  if (!numberOf(value, &d)) throwType(env, std::string(name) + " must be a number");
  if (d != static_cast<double>(static_cast<int64_t>(d))) throwType(env, std::string(name) + " must be an integer");
  auto v = static_cast<int64_t>(d);
  if (v < min || v > max) {
    throwRange(env, std::string(name) + " = " + std::to_string(v) + " is out of range [" + std::to_string(min) + ", " +
                        std::to_string(max) + "]");
  }
  return v;
}

generated::Collective collectiveArg(const Napi::Value& v) {
  Collective coll;
  if (!v.IsString() || !collectiveByName(v.As<Napi::String>().Utf8Value(), &coll)) throwType(v.Env(), "collective must be one of: " + collectiveNames());
  return coll;
}

void setFunctions(Napi::Env env, Napi::Object exports, std::initializer_list<AddonFunction> functions) {
  for (const AddonFunction& f : functions) exports.Set(f.name, Napi::Function::New(env, f.glue, f.name));
}

int algorithmArg(Collective coll, const Napi::Value& v) {
  const std::string name = stringArg(v, "algorithm");
  const int index = algorithmIndex(coll, name);
  if (index < 0) throwType(v.Env(), "unknown " + std::string(collectiveEntry(coll).name) + " algorithm " + name);
  return index;
}

std::string stringArg(const Napi::Value& v, const char* name) {
  if (!v.IsString()) throwType(v.Env(), std::string(name) + " must be a string");
  return v.As<Napi::String>().Utf8Value();
}

static std::vector<MPI_Comm>& commTable() {
  static std::vector<MPI_Comm> table{MPI_COMM_WORLD, MPI_COMM_SELF};
  return table;
}

MPI_Comm commArg(const Napi::Value& value, const char* name) {
  auto& table = commTable();
  // Every call passes a handle: take the one-query path when it is a valid index (handles are the
  // integers the TypeScript layer got from us), and let intArg word the error otherwise.
  int32_t h32 = -1;
  if (napi_get_value_int32(value.Env(), value, &h32) == napi_ok && h32 >= 0 && static_cast<size_t>(h32) < table.size() &&
      table[h32] != MPI_COMM_NULL) {
    return table[h32];
  }
  int64_t h = intArg(value, name, 0, static_cast<int64_t>(table.size()) - 1);
  if (table[h] == MPI_COMM_NULL) throwType(value.Env(), std::string(name) + " is a freed communicator");
  return table[h];
}

int commSizeOf(MPI_Comm comm) {
  int p = 0;
  PMPI_Comm_size(comm, &p);
  return p;
}

int commRankOf(MPI_Comm comm) {
  int r = 0;
  PMPI_Comm_rank(comm, &r);
  return r;
}

// Handles are never reused: a JS Comm that outlives its free() must not reach a newer communicator.
int registerComm(MPI_Comm comm) {
  auto& table = commTable();
  table.push_back(comm);
  return static_cast<int>(table.size() - 1);
}

void releaseComm(int handle) { commTable()[handle] = MPI_COMM_NULL; }

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  initLifecycle(env, exports);
  initCollectives(env, exports);
  initSchedules(env, exports);
  initHierarchy(env, exports);
  initTopology(env, exports);
  initBench(env, exports);
  initComm(env, exports);
  initPointToPoint(env, exports);
  initMpiCollectives(env, exports);
  initModel(env, exports);
  initMapping(env, exports);
  initDatatypes(env, exports);
  initGroups(env, exports);
  initMpiTopologies(env, exports);
  initFiles(env, exports);
  initWindows(env, exports);
  return exports;
}

NODE_API_MODULE(topocoll_native, Init)

}  // namespace topocoll::addon
