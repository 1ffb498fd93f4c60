// One-sided communication (src/mpi/win.ts): windows made over a JS buffer (MPI_Win_create), over
// memory MPI allocates (MPI_Win_allocate) or node-shared memory (MPI_Win_allocate_shared, whose
// segments every rank of the node reads through MPI_Win_shared_query), the synchronisation calls,
// and put/get/accumulate. JS holds an index into a table, like communicators; indices are never
// reused, so a freed window's handle stays invalid and says so.
//
// Every window learns each rank's size and displacement unit when it is made (one allgather), so
// that a put, get or accumulate whose bytes would fall outside the target's window is a RangeError
// here rather than an error of the MPI (or a write past the target's memory).
#include <climits>
#include <string>
#include <vector>

#include "addon.h"
#include "mpi_binding.h"

namespace topocoll::addon {
namespace {

enum class Flavor { Create, Allocate, Shared };

struct WinEntry {
  MPI_Win win = MPI_WIN_NULL;  // MPI_WIN_NULL once freed
  Flavor flavor = Flavor::Create;
  std::vector<MPI_Aint> sizes;  // bytes of each rank's window
  std::vector<int> dispUnits;   // each rank's displacement unit
};

std::vector<WinEntry>& winTable() {
  static std::vector<WinEntry> table;
  return table;
}

WinEntry& winArg(const Napi::Value& v) {
  auto& table = winTable();
  if (table.empty()) throwType(v.Env(), "win must be a Win (Win.create, Win.allocate or Win.allocateShared makes one)");
  int64_t h = intArg(v, "win", 0, static_cast<int64_t>(table.size()) - 1);
  if (table[h].win == MPI_WIN_NULL) throwType(v.Env(), "win is a freed window; free() ended it");
  return table[h];
}

int windowSize(const WinEntry& w) { return static_cast<int>(w.sizes.size()); }

std::string notARank(const Napi::Value& v, const char* name, int p, bool procNull) {
  return std::string(name) + " = " + v.ToString().Utf8Value() + " is not a rank of the window's communicator; valid: [0, " + std::to_string(p - 1) +
         "]" + (procNull ? " or PROC_NULL" : "");
}

// A rank of the window's group; PROC_NULL (a no-op target) where `procNull`.
int rankArg(const Napi::Value& v, const WinEntry& w, const char* name, bool procNull) {
  const double d = rankNumber(v, name);
  if (procNull && d == kJsProcNull) return MPI_PROC_NULL;
  if (d < 0 || d >= windowSize(w)) throwRange(v.Env(), notARank(v, name, windowSize(w), procNull));
  return static_cast<int>(d);
}

// Assertions as src/mpi/win.ts numbers them (bits), mapped to the MPI's MPI_MODE_* values.
int assertArg(const Napi::Value& v) {
  if (v.IsUndefined()) return 0;
  auto bits = intArg(v, "assert", 0, 31);
  int mode = 0;
  if (bits & 1) mode |= MPI_MODE_NOCHECK;
  if (bits & 2) mode |= MPI_MODE_NOSTORE;
  if (bits & 4) mode |= MPI_MODE_NOPUT;
  if (bits & 8) mode |= MPI_MODE_NOPRECEDE;
  if (bits & 16) mode |= MPI_MODE_NOSUCCEED;
  return mode;
}

// A node communicator: MPI_Win_allocate_shared on ranks of several nodes is erroneous, and the
// MPI's error says little, so say which communicator to use instead.
void requireNodeComm(Napi::Env env, MPI_Comm comm) {
  MPI_Comm node;
  check(env, PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  int nodeSize = commSizeOf(node);
  PMPI_Comm_free(&node);
  if (nodeSize != commSizeOf(comm)) {
    throwType(env, "allocateShared: comm spans several nodes (" + std::to_string(nodeSize) + " of its " + std::to_string(commSizeOf(comm)) +
                       " ranks share this one's memory); pass comm.splitShared(), the ranks of one node");
  }
}

// Registers a new window: errors returned, not fatal, and every rank's size and unit learnt.
Napi::Value registerWin(Napi::Env env, MPI_Comm comm, MPI_Win win, Flavor flavor, MPI_Aint size, int dispUnit) {
  PMPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  WinEntry e;
  e.win = win;
  e.flavor = flavor;
  int p = commSizeOf(comm);
  std::vector<MPI_Aint> mine{size, dispUnit}, all(2 * static_cast<size_t>(p));
  int rc = PMPI_Allgather(mine.data(), 2, MPI_AINT, all.data(), 2, MPI_AINT, comm);
  if (rc != MPI_SUCCESS) {
    PMPI_Win_free(&win);
    throwMpiError(env, rc, "MPI_Allgather (the window's sizes)");
  }
  for (int r = 0; r < p; ++r) {
    e.sizes.push_back(all[2 * r]);
    e.dispUnits.push_back(static_cast<int>(all[2 * r + 1]));
  }
  auto& table = winTable();
  table.push_back(std::move(e));
  return Napi::Number::New(env, static_cast<double>(table.size() - 1));
}

// An ArrayBuffer over `bytes` of memory MPI owns, without a finalizer (MPI_Win_free releases the
// memory; winFree detaches the ArrayBuffers JS holds). A segment of 0 bytes may be NULL: then a
// plain empty ArrayBuffer.
Napi::Value externalBuffer(Napi::Env env, void* base, MPI_Aint bytes) {
  if (bytes == 0 || base == nullptr) return Napi::ArrayBuffer::New(env, 0);
  napi_value out;
  if (napi_create_external_arraybuffer(env, base, static_cast<size_t>(bytes), nullptr, nullptr, &out) != napi_ok) {
    throwType(env, "this Node cannot make an ArrayBuffer over memory it does not own (napi_create_external_arraybuffer)");
  }
  return Napi::Value(env, out);
}

// MPI_Win_create failed: under Open MPI, MPI_ERR_WIN means no one-sided component took the
// communicator. Open MPI 4.1's osc/rdma needs a BTL with RDMA to every rank, which a process alone
// ('self') lacks, osc/sm serves only the windows MPI allocates, and Debian's
// openmpi-mca-params.conf excludes osc/pt2pt, which would serve it: say so, since "invalid window"
// does not.
[[noreturn]] void throwCreateError(Napi::Env env, int rc) {
  std::string what = "MPI_Win_create";
#ifdef OMPI_MAJOR_VERSION
  int errorClass = rc;
  PMPI_Error_class(rc, &errorClass);
  if (errorClass == MPI_ERR_WIN) {
    what += " (Open MPI found no one-sided component for this communicator; where osc/pt2pt is excluded, as Debian's "
            "/etc/openmpi/openmpi-mca-params.conf does, a single process has none: set OMPI_MCA_osc=sm,rdma,pt2pt)";
  }
#endif
  throwMpiError(env, rc, what.c_str());
}

// (comm, buffer, dispUnit, info?)
Napi::Value WinCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = intracommArg(info[0]);
  if (info[1].IsArray()) throwType(env, "create: buffer must be a TypedArray, Buffer, DataView or ArrayBuffer (not [buffer, count, datatype])");
  BufferView b = bufferArg(info[1], "buffer");
  int dispUnit = static_cast<int>(intArg(info[2], "create: dispUnit", 1, INT_MAX));
  MPI_Aint bytes = static_cast<MPI_Aint>(b.count * static_cast<MPI_Count>(b.elementBytes));
  MPI_Info mpiInfo = infoArg(info[3], "create");
  MPI_Win win;
  int rc = PMPI_Win_create(b.data, bytes, dispUnit, mpiInfo, comm, &win);
  if (mpiInfo != MPI_INFO_NULL) PMPI_Info_free(&mpiInfo);
  if (rc != MPI_SUCCESS) throwCreateError(env, rc);
  return registerWin(env, comm, win, Flavor::Create, bytes, dispUnit);
}

// (comm, bytes, dispUnit, info, shared) → {handle, buffer}: this rank's segment as an ArrayBuffer.
Napi::Value WinAllocate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  bool shared = flagArg(info[4]);
  const char* what = shared ? "allocateShared" : "allocate";
  MPI_Comm comm = intracommArg(info[0]);
  std::string bytesName = std::string(what) + ": bytes";
  auto bytes = static_cast<MPI_Aint>(intArg(info[1], bytesName.c_str(), 0, int64_t{1} << 53));
  std::string unitName = std::string(what) + ": dispUnit";
  int dispUnit = static_cast<int>(intArg(info[2], unitName.c_str(), 1, INT_MAX));
  if (shared) requireNodeComm(env, comm);
  MPI_Info mpiInfo = infoArg(info[3], what);
  void* base = nullptr;
  MPI_Win win;
  int rc = shared ? PMPI_Win_allocate_shared(bytes, dispUnit, mpiInfo, comm, &base, &win) : PMPI_Win_allocate(bytes, dispUnit, mpiInfo, comm, &base, &win);
  if (mpiInfo != MPI_INFO_NULL) PMPI_Info_free(&mpiInfo);
  check(env, rc, shared ? "MPI_Win_allocate_shared" : "MPI_Win_allocate");
  Napi::Value handle = registerWin(env, comm, win, shared ? Flavor::Shared : Flavor::Allocate, bytes, dispUnit);
  auto out = Napi::Object::New(env);
  out.Set("handle", handle);
  out.Set("buffer", externalBuffer(env, base, bytes));
  return out;
}

// (win, rank) → {buffer, dispUnit}: rank's segment of a shared window, read and written in place.
Napi::Value WinSharedQuery(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  WinEntry& w = winArg(info[0]);
  if (w.flavor != Flavor::Shared) throwType(env, "sharedQuery: the window was not made by Win.allocateShared; only its memory is shared");
  int rank = rankArg(info[1], w, "rank", false);
  MPI_Aint size = 0;
  int dispUnit = 1;
  void* base = nullptr;
  check(env, PMPI_Win_shared_query(w.win, rank, &size, &dispUnit, &base), "MPI_Win_shared_query");
  auto out = Napi::Object::New(env);
  out.Set("buffer", externalBuffer(env, base, size));
  out.Set("dispUnit", dispUnit);
  return out;
}

Napi::Value WinFence(const Napi::CallbackInfo& info) {
  WinEntry& w = winArg(info[0]);
  check(info.Env(), PMPI_Win_fence(assertArg(info[1]), w.win), "MPI_Win_fence");
  return info.Env().Undefined();
}

// (win, rank, exclusive, assert?)
Napi::Value WinLock(const Napi::CallbackInfo& info) {
  WinEntry& w = winArg(info[0]);
  int rank = rankArg(info[1], w, "rank", false);
  int type = flagArg(info[2]) ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
  check(info.Env(), PMPI_Win_lock(type, rank, assertArg(info[3]), w.win), "MPI_Win_lock");
  return info.Env().Undefined();
}

Napi::Value WinUnlock(const Napi::CallbackInfo& info) {
  WinEntry& w = winArg(info[0]);
  check(info.Env(), PMPI_Win_unlock(rankArg(info[1], w, "rank", false), w.win), "MPI_Win_unlock");
  return info.Env().Undefined();
}

Napi::Value WinLockAll(const Napi::CallbackInfo& info) {
  WinEntry& w = winArg(info[0]);
  check(info.Env(), PMPI_Win_lock_all(assertArg(info[1]), w.win), "MPI_Win_lock_all");
  return info.Env().Undefined();
}

Napi::Value WinUnlockAll(const Napi::CallbackInfo& info) {
  check(info.Env(), PMPI_Win_unlock_all(winArg(info[0]).win), "MPI_Win_unlock_all");
  return info.Env().Undefined();
}

Napi::Value WinSync(const Napi::CallbackInfo& info) {
  check(info.Env(), PMPI_Win_sync(winArg(info[0]).win), "MPI_Win_sync");
  return info.Env().Undefined();
}

// (win, rank): MPI_Win_flush; rank undefined: MPI_Win_flush_all.
Napi::Value WinFlush(const Napi::CallbackInfo& info) {
  WinEntry& w = winArg(info[0]);
  if (info[1].IsUndefined()) {
    check(info.Env(), PMPI_Win_flush_all(w.win), "MPI_Win_flush_all");
  } else {
    check(info.Env(), PMPI_Win_flush(rankArg(info[1], w, "rank", false), w.win), "MPI_Win_flush");
  }
  return info.Env().Undefined();
}

// The arguments of put, get and accumulate: (win, buf, targetRank, targetDisp), the target's
// bytes checked to lie inside its window. The target takes the origin's count and datatype.
struct Access {
  MPI_Win win;
  BufferView b;
  int target;
  MPI_Aint disp;
};

Access accessArgs(const Napi::CallbackInfo& info, const char* what, const char* bufName) {
  Napi::Env env = info.Env();
  WinEntry& w = winArg(info[0]);
  Access a{w.win, bufferArg(info[1], bufName), rankArg(info[2], w, "targetRank", true), 0};
  if (a.b.count > INT_MAX) throwRange(env, std::string(what) + ": " + bufName + " holds " + std::to_string(a.b.count) + " elements; one-sided calls take at most 2^31-1");
  std::string dispName = std::string(what) + ": targetDisp";
  a.disp = static_cast<MPI_Aint>(intArg(info[3], dispName.c_str(), 0, int64_t{1} << 53));
  if (a.target == MPI_PROC_NULL) return a;
  // The bytes the origin's count and datatype reach, [lo, hi) from the target displacement.
  MPI_Count lb = 0, extent = 0, trueLb = 0, trueExtent = 0;
  PMPI_Type_get_extent_x(a.b.type, &lb, &extent);
  PMPI_Type_get_true_extent_x(a.b.type, &trueLb, &trueExtent);
  __int128 start = static_cast<__int128>(a.disp) * w.dispUnits[a.target], lo = start, hi = start;
  if (a.b.count > 0 && trueExtent > 0) {
    __int128 last = static_cast<__int128>(a.b.count - 1) * extent;
    lo = start + trueLb + (last < 0 ? last : 0);
    hi = start + trueLb + (last > 0 ? last : 0) + trueExtent;
  }
  MPI_Aint size = w.sizes[a.target];
  if (lo < 0 || hi > size) {
    throwRange(env, dispName + " = " + std::to_string(a.disp) + " (× dispUnit " + std::to_string(w.dispUnits[a.target]) + ") with " + bufName +
                        " reaches bytes [" + std::to_string(static_cast<int64_t>(lo)) + ", " + std::to_string(static_cast<int64_t>(hi)) + ") of rank " +
                        std::to_string(a.target) + "'s window, which holds " + std::to_string(size) + " bytes");
  }
  return a;
}

// (win, origin, targetRank, targetDisp)
Napi::Value WinPut(const Napi::CallbackInfo& info) {
  Access a = accessArgs(info, "put", "origin");
  int n = static_cast<int>(a.b.count);
  check(info.Env(), PMPI_Put(a.b.data, n, a.b.type, a.target, a.disp, n, a.b.type, a.win), "MPI_Put");
  return info.Env().Undefined();
}

// (win, into, targetRank, targetDisp)
Napi::Value WinGet(const Napi::CallbackInfo& info) {
  Access a = accessArgs(info, "get", "into");
  int n = static_cast<int>(a.b.count);
  check(info.Env(), PMPI_Get(a.b.data, n, a.b.type, a.target, a.disp, n, a.b.type, a.win), "MPI_Get");
  return info.Env().Undefined();
}

// src/mpi/win.ts's index of REPLACE, an op of accumulate only (others: indices into OPS).
constexpr int kReplaceOp = -1;

// (win, origin, targetRank, targetDisp, op)
Napi::Value WinAccumulate(const Napi::CallbackInfo& info) {
  Access a = accessArgs(info, "accumulate", "origin");
  bool replace = info[4].IsNumber() && info[4].As<Napi::Number>().Int32Value() == kReplaceOp;
  MPI_Op op = replace ? MPI_REPLACE : opArg(info[4], a.b, "accumulate");
  int n = static_cast<int>(a.b.count);
  check(info.Env(), PMPI_Accumulate(a.b.data, n, a.b.type, a.target, a.disp, n, a.b.type, op, a.win), "MPI_Accumulate");
  return info.Env().Undefined();
}

// (win, views): MPI_Win_free, then detaches the ArrayBuffers JS was given over MPI's memory
// (the segment, sharedQuery's views), so that a later access reads an empty buffer instead of
// freed memory.
Napi::Value WinFree(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  WinEntry& w = winArg(info[0]);
  check(env, PMPI_Win_free(&w.win), "MPI_Win_free");
  w.win = MPI_WIN_NULL;
  if (info[1].IsArray()) {
    Napi::Array views = info[1].As<Napi::Array>();
    for (uint32_t i = 0; i < views.Length(); ++i) {
      Napi::Value v = views.Get(i);
      // An empty segment is a plain ArrayBuffer of ours: detaching it is harmless too.
      if (v.IsArrayBuffer()) napi_detach_arraybuffer(env, v);
    }
  }
  return env.Undefined();
}

}  // namespace

void initWindows(Napi::Env env, Napi::Object exports) {
  setFunctions(env, exports, {{"winCreate", WinCreate},
                              {"winAllocate", WinAllocate},
                              {"winSharedQuery", WinSharedQuery},
                              {"winFence", WinFence},
                              {"winLock", WinLock},
                              {"winUnlock", WinUnlock},
                              {"winLockAll", WinLockAll},
                              {"winUnlockAll", WinUnlockAll},
                              {"winSync", WinSync},
                              {"winFlush", WinFlush},
                              {"winPut", WinPut},
                              {"winGet", WinGet},
                              {"winAccumulate", WinAccumulate},
                              {"winFree", WinFree}});
}

}  // namespace topocoll::addon
