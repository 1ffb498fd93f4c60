#include "addon.h"

#include <climits>
#include <vector>

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
  Napi::Error err = Napi::Error::New(env, std::string(what) + ": " + text);
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

BufferView bufferArg(const Napi::Value& value, const char* name) {
  Napi::Env env = value.Env();
  BufferView v;
  if (value.IsTypedArray()) {
    auto ta = value.As<Napi::TypedArray>();
    if (ta.ArrayBuffer().IsDetached()) throwType(env, std::string(name) + " is a detached buffer");
    v.type = typedArrayType(ta.TypedArrayType(), &v.elementBytes);
    v.count = static_cast<MPI_Count>(ta.ElementLength());
    v.data = static_cast<char*>(ta.ArrayBuffer().Data()) + ta.ByteOffset();
  } else if (value.IsDataView()) {
    auto dv = value.As<Napi::DataView>();
    if (dv.ArrayBuffer().IsDetached()) throwType(env, std::string(name) + " is a detached buffer");
    v.count = static_cast<MPI_Count>(dv.ByteLength());
    v.data = static_cast<char*>(dv.ArrayBuffer().Data()) + dv.ByteOffset();
  } else if (value.IsArrayBuffer()) {
    auto ab = value.As<Napi::ArrayBuffer>();
    if (ab.IsDetached()) throwType(env, std::string(name) + " is a detached buffer");
    v.count = static_cast<MPI_Count>(ab.ByteLength());
    v.data = ab.Data();
  } else {
    throwType(env, std::string(name) + " must be a TypedArray, Buffer, DataView or ArrayBuffer");
  }
  return v;
}

int64_t intArg(const Napi::Value& value, const char* name, int64_t min, int64_t max) {
  Napi::Env env = value.Env();
  if (!value.IsNumber()) throwType(env, std::string(name) + " must be a number");
  double d = value.As<Napi::Number>().DoubleValue();
  if (d != static_cast<double>(static_cast<int64_t>(d))) throwType(env, std::string(name) + " must be an integer");
  auto v = static_cast<int64_t>(d);
  if (v < min || v > max) {
    throwRange(env, std::string(name) + " = " + std::to_string(v) + " is out of range [" + std::to_string(min) + ", " +
                        std::to_string(max) + "]");
  }
  return v;
}

static std::vector<MPI_Comm>& commTable() {
  static std::vector<MPI_Comm> table{MPI_COMM_WORLD, MPI_COMM_SELF};
  return table;
}

MPI_Comm commArg(const Napi::Value& value, const char* name) {
  auto& table = commTable();
  int64_t h = intArg(value, name, 0, static_cast<int64_t>(table.size()) - 1);
  if (table[h] == MPI_COMM_NULL) throwType(value.Env(), std::string(name) + " is a freed communicator");
  return table[h];
}

int registerComm(MPI_Comm comm) {
  auto& table = commTable();
  for (size_t i = 2; i < table.size(); ++i) {
    if (table[i] == MPI_COMM_NULL) {
      table[i] = comm;
      return static_cast<int>(i);
    }
  }
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
  return exports;
}

NODE_API_MODULE(topocoll_native, Init)

}  // namespace topocoll::addon
