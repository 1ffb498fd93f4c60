// Derived datatypes (src/mpi/datatype.ts): contiguous, vector, indexed, struct and subarray types
// built from the element types, commit, free, size/extent; and the [buffer, count, datatype] form
// of a buffer argument, whose every byte is checked to lie inside the buffer before MPI sees it.
// JS holds an index into a table, like communicators; indices are never reused.
#include <climits>
#include <string>
#include <vector>

#include "addon.h"
#include "mpi_binding.h"

namespace topocoll::addon {
namespace {

struct TypeEntry {
  MPI_Datatype type = MPI_DATATYPE_NULL;  // MPI_DATATYPE_NULL once freed
  bool predefined = false;
  bool committed = false;
  MPI_Count size = 0, lb = 0, extent = 0, trueLb = 0, trueExtent = 0;
};

TypeEntry describe(MPI_Datatype type, bool predefined) {
  TypeEntry e;
  e.type = type;
  e.predefined = e.committed = predefined;
  PMPI_Type_size_x(type, &e.size);
  PMPI_Type_get_extent_x(type, &e.lb, &e.extent);
  PMPI_Type_get_true_extent_x(type, &e.trueLb, &e.trueExtent);
  return e;
}

// The element types, in the order of ELEMENT_TYPES in src/mpi/datatype.ts (handle = index).
std::vector<TypeEntry>& typeTable() {
  static std::vector<TypeEntry> table = [] {
    std::vector<TypeEntry> t;
    for (MPI_Datatype type : {MPI_INT8_T, MPI_UINT8_T, MPI_INT16_T, MPI_UINT16_T, MPI_INT32_T, MPI_UINT32_T, MPI_INT64_T, MPI_UINT64_T, MPI_FLOAT,
                              MPI_DOUBLE, MPI_BYTE}) {
      t.push_back(describe(type, true));
    }
    return t;
  }();
  return table;
}

TypeEntry& entryArg(const Napi::Value& v, const char* name) {
  auto& table = typeTable();
  Napi::Env env = v.Env();
  Napi::Value h = v;
  if (v.IsObject() && !v.IsArray()) h = v.As<Napi::Object>().Get("handle");
  if (!h.IsNumber()) throwType(env, std::string(name) + " must be a Datatype (Datatype.FLOAT64, Datatype.vector(…), …)");
  int64_t i = intArg(h, name, 0, static_cast<int64_t>(table.size()) - 1);
  if (table[i].type == MPI_DATATYPE_NULL) throwType(env, std::string(name) + " is a freed datatype");
  return table[i];
}

// A datatype MPI may communicate with: committed.
const TypeEntry& committedEntryArg(const Napi::Value& v, const char* name) {
  const TypeEntry& e = entryArg(v, name);
  if (!e.committed) throwType(v.Env(), std::string(name) + " is not committed (call its commit())");
  return e;
}

Napi::Value registerType(Napi::Env env, MPI_Datatype type) {
  auto& table = typeTable();
  table.push_back(describe(type, false));
  return Napi::Number::New(env, static_cast<double>(table.size() - 1));
}

// An array of whole numbers in [min, max], as int for the MPI call.
std::vector<int> intsArg(const Napi::Value& v, const char* what, const char* name, int min) {
  Napi::Env env = v.Env();
  if (!v.IsArray() && !v.IsTypedArray()) throwType(env, std::string(what) + ": " + name + " must be an array of numbers");
  Napi::Object o = v.As<Napi::Object>();
  uint32_t n = o.Get("length").As<Napi::Number>().Uint32Value();
  std::vector<int> out(n);
  for (uint32_t i = 0; i < n; ++i) {
    std::string element = std::string(what) + ": " + name + "[" + std::to_string(i) + "]";
    out[i] = static_cast<int>(intArg(o.Get(i), element.c_str(), min, INT_MAX));
  }
  return out;
}

void sameLength(Napi::Env env, const char* what, const char* a, size_t na, const char* b, size_t nb) {
  if (na != nb) {
    throwRange(env, std::string(what) + ": " + a + " has " + std::to_string(na) + " entries and " + b + " " + std::to_string(nb) +
                        "; they must have one per block");
  }
}

// (count, oldtype)
Napi::Value TypeContiguous(const Napi::CallbackInfo& info) {
  int count = static_cast<int>(intArg(info[0], "contiguous: count", 0, INT_MAX));
  MPI_Datatype old = entryArg(info[1], "contiguous: oldtype").type;
  MPI_Datatype out;
  check(info.Env(), PMPI_Type_contiguous(count, old, &out), "MPI_Type_contiguous");
  return registerType(info.Env(), out);
}

// (count, blocklength, stride, oldtype): stride in elements of oldtype
Napi::Value TypeVector(const Napi::CallbackInfo& info) {
  int count = static_cast<int>(intArg(info[0], "vector: count", 0, INT_MAX));
  int blocklength = static_cast<int>(intArg(info[1], "vector: blocklength", 0, INT_MAX));
  int stride = static_cast<int>(intArg(info[2], "vector: stride", INT_MIN, INT_MAX));
  MPI_Datatype old = entryArg(info[3], "vector: oldtype").type;
  MPI_Datatype out;
  check(info.Env(), PMPI_Type_vector(count, blocklength, stride, old, &out), "MPI_Type_vector");
  return registerType(info.Env(), out);
}

// (blocklengths, displacements, oldtype): displacements in elements of oldtype
Napi::Value TypeIndexed(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<int> lengths = intsArg(info[0], "indexed", "blocklengths", 0);
  std::vector<int> displs = intsArg(info[1], "indexed", "displacements", INT_MIN);
  sameLength(env, "indexed", "blocklengths", lengths.size(), "displacements", displs.size());
  MPI_Datatype old = entryArg(info[2], "indexed: oldtype").type;
  MPI_Datatype out;
  check(env, PMPI_Type_indexed(static_cast<int>(lengths.size()), lengths.data(), displs.data(), old, &out), "MPI_Type_indexed");
  return registerType(env, out);
}

// (blocklengths, displacements in bytes, types)
Napi::Value TypeStruct(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<int> lengths = intsArg(info[0], "struct", "blocklengths", 0);
  std::vector<int> displs = intsArg(info[1], "struct", "displacements", INT_MIN);
  sameLength(env, "struct", "blocklengths", lengths.size(), "displacements", displs.size());
  if (!info[2].IsArray()) throwType(env, "struct: types must be an array of Datatypes");
  Napi::Array typesV = info[2].As<Napi::Array>();
  sameLength(env, "struct", "blocklengths", lengths.size(), "types", typesV.Length());
  std::vector<MPI_Datatype> types;
  std::vector<MPI_Aint> bytes(displs.begin(), displs.end());
  for (uint32_t i = 0; i < typesV.Length(); ++i) {
    std::string name = "struct: types[" + std::to_string(i) + "]";
    types.push_back(entryArg(typesV.Get(i), name.c_str()).type);
  }
  MPI_Datatype out;
  check(env, PMPI_Type_create_struct(static_cast<int>(lengths.size()), lengths.data(), bytes.data(), types.data(), &out), "MPI_Type_create_struct");
  return registerType(env, out);
}

// (sizes, subsizes, starts, order 'C' | 'F', oldtype)
Napi::Value TypeSubarray(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<int> sizes = intsArg(info[0], "subarray", "sizes", 1);
  std::vector<int> subsizes = intsArg(info[1], "subarray", "subsizes", 1);
  std::vector<int> starts = intsArg(info[2], "subarray", "starts", 0);
  sameLength(env, "subarray", "sizes", sizes.size(), "subsizes", subsizes.size());
  sameLength(env, "subarray", "sizes", sizes.size(), "starts", starts.size());
  if (sizes.empty()) throwRange(env, "subarray: sizes must have at least one dimension");
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (starts[d] + static_cast<int64_t>(subsizes[d]) > sizes[d]) {
      throwRange(env, "subarray: dimension " + std::to_string(d) + ": starts + subsizes = " + std::to_string(starts[d] + static_cast<int64_t>(subsizes[d])) +
                          " exceeds sizes = " + std::to_string(sizes[d]));
    }
  }
  std::string order = info[3].IsString() ? info[3].As<Napi::String>().Utf8Value() : "";
  if (order != "C" && order != "F") throwType(env, "subarray: order must be 'C' (row-major) or 'F' (column-major)");
  MPI_Datatype old = entryArg(info[4], "subarray: oldtype").type;
  MPI_Datatype out;
  check(env,
        PMPI_Type_create_subarray(static_cast<int>(sizes.size()), sizes.data(), subsizes.data(), starts.data(),
                                  order == "C" ? MPI_ORDER_C : MPI_ORDER_FORTRAN, old, &out),
        "MPI_Type_create_subarray");
  return registerType(env, out);
}

Napi::Value TypeCommit(const Napi::CallbackInfo& info) {
  TypeEntry& e = entryArg(info[0], "datatype");
  if (!e.committed) check(info.Env(), PMPI_Type_commit(&e.type), "MPI_Type_commit");
  e.committed = true;
  return info.Env().Undefined();
}

// A pending operation that uses the type completes as usual (MPI_Type_free marks it for freeing).
Napi::Value TypeFree(const Napi::CallbackInfo& info) {
  TypeEntry& e = entryArg(info[0], "datatype");
  if (e.predefined) throwType(info.Env(), "free: a predefined datatype (an element type) cannot be freed");
  check(info.Env(), PMPI_Type_free(&e.type), "MPI_Type_free");
  e.type = MPI_DATATYPE_NULL;
  return info.Env().Undefined();
}

// → {size, lb, extent, trueLb, trueExtent, committed}, in bytes
Napi::Value TypeInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const TypeEntry& e = entryArg(info[0], "datatype");
  auto o = Napi::Object::New(env);
  o.Set("size", static_cast<double>(e.size));
  o.Set("lb", static_cast<double>(e.lb));
  o.Set("extent", static_cast<double>(e.extent));
  o.Set("trueLb", static_cast<double>(e.trueLb));
  o.Set("trueExtent", static_cast<double>(e.trueExtent));
  o.Set("committed", e.committed);
  return o;
}

}  // namespace

BufferView datatypeSpecArg(const Napi::Value& value, const char* name) {
  Napi::Env env = value.Env();
  Napi::Array a = value.As<Napi::Array>();
  std::string what = std::string(name) + " [buffer, count, datatype]";
  if (a.Length() != 3) throwType(env, what + " must have 3 entries, not " + std::to_string(a.Length()));
  Napi::Value inner = a.Get(0u);
  if (inner.IsArray()) throwType(env, what + ": buffer must be a TypedArray, Buffer, DataView or ArrayBuffer");
  BufferView buf = bufferArg(inner, name);
  MPI_Count bytes = buf.count * static_cast<MPI_Count>(buf.elementBytes);
  std::string countName = what + ": count";
  MPI_Count count = intArg(a.Get(1u), countName.c_str(), 0, INT64_MAX / 2);
  std::string typeName = what + ": datatype";
  const TypeEntry& e = committedEntryArg(a.Get(2u), typeName.c_str());
  if (count > 0 && e.trueExtent > 0) {
    // Item i of the type starts i extents in; its bytes lie in [trueLb, trueLb + trueExtent).
    __int128 last = static_cast<__int128>(count - 1) * e.extent;
    __int128 lo = e.trueLb + (last < 0 ? last : 0);
    __int128 hi = e.trueLb + (last > 0 ? last : 0) + e.trueExtent;
    if (lo < 0 || hi > bytes) {
      throwRange(env, what + ": " + std::to_string(count) + " items of the datatype (extent " + std::to_string(e.extent) + " bytes) reach bytes [" +
                          std::to_string(static_cast<int64_t>(lo)) + ", " + std::to_string(static_cast<int64_t>(hi)) + "), but the buffer holds " +
                          std::to_string(bytes) + " bytes");
    }
  }
  BufferView out;
  out.data = buf.data;
  out.count = count;
  out.type = e.type;
  out.elementBytes = static_cast<size_t>(e.size);
  out.spec = true;
  return out;
}

MPI_Datatype committedTypeArg(const Napi::Value& value, const char* name) { return committedEntryArg(value, name).type; }

MPI_Count matchingCount(Napi::Env env, const char* what, const BufferView& from, const char* fromName, MPI_Count n, const BufferView& to,
                        const char* toName) {
  if (!from.spec && !to.spec) {
    if (from.type != to.type) {
      throwType(env, std::string(what) + ": " + fromName + " (" + elementTypeName(from.type) + ") and " + toName + " (" + elementTypeName(to.type) +
                         ") must have the same element type");
    }
    return n;
  }
  MPI_Count bytes = n * static_cast<MPI_Count>(from.elementBytes);
  if (to.elementBytes == 0) {
    if (bytes != 0) throwRange(env, std::string(what) + ": " + toName + "'s datatype holds no data, but " + fromName + " carries " + std::to_string(bytes) + " bytes");
    return 0;
  }
  if (bytes % static_cast<MPI_Count>(to.elementBytes) != 0) {
    throwRange(env, std::string(what) + ": " + fromName + " carries " + std::to_string(bytes) + " bytes per block, not a whole number of " + toName +
                        "'s items (" + std::to_string(to.elementBytes) + " bytes each)");
  }
  return bytes / static_cast<MPI_Count>(to.elementBytes);
}

void initDatatypes(Napi::Env env, Napi::Object exports) {
  setFunctions(env, exports, {{"typeContiguous", TypeContiguous},
                              {"typeVector", TypeVector},
                              {"typeIndexed", TypeIndexed},
                              {"typeStruct", TypeStruct},
                              {"typeSubarray", TypeSubarray},
                              {"typeCommit", TypeCommit},
                              {"typeFree", TypeFree},
                              {"typeInfo", TypeInfo}});
}

}  // namespace topocoll::addon
