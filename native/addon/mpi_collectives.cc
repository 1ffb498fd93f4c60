// The collectives the engine does not implement, run by the system MPI: gather(v), scatter(v),
// allgatherv, alltoallv, scan, exscan, blocking or
// nonblocking (the last argument). Every argument is checked before the MPI call; a null send
// buffer means MPI_IN_PLACE (scatter: a null receive buffer at the root).
#include <algorithm>
#include <climits>
#include <type_traits>
#include <vector>

#include "addon.h"
#include "mpi_binding.h"

namespace topocoll::addon {
namespace {

void inPlaceOnlyAtRoot(Napi::Env env, const char* what, bool atRoot) {
  if (!atRoot) throwType(env, std::string(what) + ": IN_PLACE is valid only at the root");
}

// Blocking (request == nullptr) or nonblocking into an MpiRequest that keeps `keep` alive.
template <typename Call>
Napi::Value complete(Napi::Env env, bool nonblocking, const char* what, MPI_Datatype type, std::shared_ptr<void> keep, Call call) {
  if (!nonblocking) {
    check(env, call(nullptr), what);
    return env.Undefined();
  }
  MPI_Request request = MPI_REQUEST_NULL;
  check(env, call(&request), what);
  return MpiRequestWrap::New(env, request, type, std::move(keep));
}

// Counts and displacements of a v-collective, in elements, in the form MPI takes: int arrays, or
// MPI_Count/MPI_Aint arrays for the large-count calls.
struct Layout {
  std::vector<MPI_Count> counts;
  std::vector<MPI_Aint> displs;
  std::vector<int> counts32, displs32;
  bool needsLarge = false;
  void narrow() {
    counts32.assign(counts.begin(), counts.end());
    displs32.assign(displs.begin(), displs.end());
  }
};

// Counts and displacements JS holds exactly: up to 2^53 (largeCount() then decides what the MPI takes).
constexpr MPI_Count kMaxCount = MPI_Count{1} << 53;

// counts (one per rank) and displs (default: packed in rank order), checked against `buf`.
std::shared_ptr<Layout> layoutArg(Napi::Env env, const char* what, const char* countsName, const char* displsName, const Napi::Value& countsV,
                                  const Napi::Value& displsV, int p, const BufferView& buf, const char* bufName) {
  auto L = std::make_shared<Layout>();
  L->counts = wholeNumbers(env, what, countsName, countsV, p, kMaxCount);
  if (absent(displsV)) {
    MPI_Aint at = 0;
    for (MPI_Count c : L->counts) {
      L->displs.push_back(at);
      at += c;
    }
  } else {
    for (MPI_Count d : wholeNumbers(env, what, displsName, displsV, p, kMaxCount)) L->displs.push_back(static_cast<MPI_Aint>(d));
  }
  MPI_Count largest = 0;
  for (int i = 0; i < p; ++i) {
    MPI_Count end = L->displs[i] + L->counts[i];
    if (end > buf.count) {
      throwRange(env, std::string(what) + ": " + bufName + " holds " + std::to_string(buf.count) + " elements, but rank " + std::to_string(i) +
                          "'s block ends at " + std::to_string(end) + " (" + displsName + "[" + std::to_string(i) + "] + " + countsName + "[" +
                          std::to_string(i) + "])");
    }
    largest = std::max(largest, std::max<MPI_Count>(L->counts[i], L->displs[i]));
  }
  L->needsLarge = largeCount(env, largest, what);
  return L;
}

// Calls `f(counts, displs)` with int arrays, or with MPI_Count/MPI_Aint arrays when `large`.
template <typename F>
int withLayout(const Layout* L, bool large, F f) {
#if MPI_VERSION >= 4
  if (large) return f(L ? L->counts.data() : nullptr, L ? L->displs.data() : nullptr);
#endif
  return f(L ? L->counts32.data() : nullptr, L ? L->displs32.data() : nullptr);
}

template <typename T>
constexpr bool kIntArray = std::is_same_v<T, const int*> || std::is_same_v<T, int*>;

// --- gather, scatter ---

// Gather and scatter mirror each other: p blocks in a buffer at the root (gather's recvbuf,
// scatter's sendbuf), one block in each rank's own buffer, which may be null (IN_PLACE) at the root.
struct RootedBlocks {
  BufferView rooted;  // at the root only
  BufferView own;     // empty when in place
  MPI_Count n = 0;    // elements per block
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Count rootedN = 0;  // the root's per block, in rootedType: n and type but for a [buffer, count, datatype]
  MPI_Datatype rootedType = MPI_DATATYPE_NULL;
  bool inPlace = false;
  bool large = false;
};

RootedBlocks rootedBlocksArgs(Napi::Env env, const char* what, MPI_Comm comm, int root, const Napi::Value& rooted, const char* rootedName,
                              const Napi::Value& own, const char* ownName, bool gather) {
  RootedBlocks a;
  const int p = commSizeOf(comm);
  const bool atRoot = commRankOf(comm) == root;
  a.inPlace = own.IsNull();
  if (atRoot) {
    if (absent(rooted)) throwType(env, std::string(what) + ": " + rootedName + " is required at the root");
    a.rooted = bufferArg(rooted, rootedName);
  }
  if (a.inPlace) {
    inPlaceOnlyAtRoot(env, what, atRoot);
    a.n = blocksOf(env, what, rootedName, a.rooted, p);
  } else {
    a.own = bufferArg(own, ownName);
    a.n = a.rootedN = a.own.count;
    if (atRoot) {
      if (a.own.spec || a.rooted.spec) a.rootedN = matchingCount(env, what, a.own, ownName, a.n, a.rooted, rootedName);
      else sameElementType(env, what, gather ? a.own : a.rooted, gather ? a.rooted : a.own);
      requireLength(env, what, rootedName, a.rooted, a.rootedN * p);
    }
  }
  a.type = a.inPlace ? a.rooted.type : a.own.type;
  a.rootedType = atRoot ? a.rooted.type : a.type;
  if (a.inPlace) a.rootedN = a.n;
  a.large = largeCount(env, std::max(a.n, a.rootedN), what);
  return a;
}

// (comm, sendbuf | null = IN_PLACE at root, recvbuf (root), root, nonblocking)
Napi::Value Gather(const Napi::CallbackInfo& info) {
  MPI_Comm comm = intracommArg(info[0]);
  int root = rootArg(info[3], comm);
  RootedBlocks a = rootedBlocksArgs(info.Env(), "gather", comm, root, info[2], "recvbuf", info[1], "sendbuf", true);
  const void* sendbuf = a.inPlace ? MPI_IN_PLACE : a.own.data;
  return complete(info.Env(), flagArg(info[4]), "gather", a.type, nullptr, [&](MPI_Request* r) {
    return r ? TOPOCOLL_COUNT_CALL(a.large, Igather, sendbuf, a.n, a.type, a.rooted.data, a.rootedN, a.rootedType, root, comm, r)
             : TOPOCOLL_COUNT_CALL(a.large, Gather, sendbuf, a.n, a.type, a.rooted.data, a.rootedN, a.rootedType, root, comm);
  });
}

// (comm, sendbuf (root), recvbuf | null = IN_PLACE at root, root, nonblocking)
Napi::Value Scatter(const Napi::CallbackInfo& info) {
  MPI_Comm comm = intracommArg(info[0]);
  int root = rootArg(info[3], comm);
  RootedBlocks a = rootedBlocksArgs(info.Env(), "scatter", comm, root, info[1], "sendbuf", info[2], "recvbuf", false);
  void* recvbuf = a.inPlace ? MPI_IN_PLACE : a.own.data;
  return complete(info.Env(), flagArg(info[4]), "scatter", a.type, nullptr, [&](MPI_Request* r) {
    return r ? TOPOCOLL_COUNT_CALL(a.large, Iscatter, a.rooted.data, a.rootedN, a.rootedType, recvbuf, a.n, a.type, root, comm, r)
             : TOPOCOLL_COUNT_CALL(a.large, Scatter, a.rooted.data, a.rootedN, a.rootedType, recvbuf, a.n, a.type, root, comm);
  });
}

// Gatherv and scatterv mirror each other like gather and scatter, with the root's blocks laid
// out by counts and displs.
struct RootedLayout {
  BufferView rooted;  // at the root only
  BufferView own;     // empty when in place
  std::shared_ptr<Layout> L;  // at the root only
  MPI_Count n = 0;    // elements of this rank's own block
  MPI_Datatype type = MPI_DATATYPE_NULL;
  bool inPlace = false;
  bool large = false;
};

RootedLayout rootedLayoutArgs(Napi::Env env, const char* what, MPI_Comm comm, int root, const Napi::Value& rooted, const char* rootedName,
                              const Napi::Value& counts, const Napi::Value& displs, const Napi::Value& own, const char* ownName, bool gather) {
  RootedLayout a;
  const bool atRoot = commRankOf(comm) == root;
  a.inPlace = own.IsNull();
  if (atRoot) {
    if (absent(rooted)) throwType(env, std::string(what) + ": " + rootedName + " is required at the root");
    a.rooted = bufferArg(rooted, rootedName);
    a.L = layoutArg(env, what, "counts", "displs", counts, displs, commSizeOf(comm), a.rooted, rootedName);
  }
  if (a.inPlace) {
    inPlaceOnlyAtRoot(env, what, atRoot);
  } else {
    a.own = bufferArg(own, ownName);
    a.n = a.own.count;
    if (atRoot) {
      sameElementType(env, what, gather ? a.own : a.rooted, gather ? a.rooted : a.own);
      // The root sends exactly its block (gatherv); it may receive into a larger buffer (scatterv).
      MPI_Count want = a.L->counts[root];
      if (gather ? a.n != want : a.n < want) {
        throwRange(env, std::string(what) + ": the root's " + ownName + " holds " + std::to_string(a.n) + " elements but counts[" +
                            std::to_string(root) + "] = " + std::to_string(want));
      }
      a.n = want;
    }
  }
  a.type = a.inPlace ? a.rooted.type : a.own.type;
  a.large = largeCount(env, a.n, what) || (a.L && a.L->needsLarge);
  if (a.L && !a.large) a.L->narrow();
  return a;
}

// (comm, sendbuf | null = IN_PLACE at root, recvbuf (root), counts (root), displs? (root), root, nonblocking)
Napi::Value Gatherv(const Napi::CallbackInfo& info) {
  MPI_Comm comm = intracommArg(info[0]);
  int root = rootArg(info[5], comm);
  RootedLayout a = rootedLayoutArgs(info.Env(), "gatherv", comm, root, info[2], "recvbuf", info[3], info[4], info[1], "sendbuf", true);
  const void* sendbuf = a.inPlace ? MPI_IN_PLACE : a.own.data;
  return complete(info.Env(), flagArg(info[6]), "gatherv", a.type, a.L, [&](MPI_Request* r) {
    return withLayout(a.L.get(), a.large, [&](auto* counts, auto* displs) -> int {
      if constexpr (kIntArray<decltype(counts)>) {
        return r ? PMPI_Igatherv(sendbuf, static_cast<int>(a.n), a.type, a.rooted.data, counts, displs, a.type, root, comm, r)
                 : PMPI_Gatherv(sendbuf, static_cast<int>(a.n), a.type, a.rooted.data, counts, displs, a.type, root, comm);
      }
#if MPI_VERSION >= 4
      else {
        return r ? PMPI_Igatherv_c(sendbuf, a.n, a.type, a.rooted.data, counts, displs, a.type, root, comm, r)
                 : PMPI_Gatherv_c(sendbuf, a.n, a.type, a.rooted.data, counts, displs, a.type, root, comm);
      }
#endif
    });
  });
}

// (comm, sendbuf (root), counts (root), displs? (root), recvbuf | null = IN_PLACE at root, root, nonblocking)
Napi::Value Scatterv(const Napi::CallbackInfo& info) {
  MPI_Comm comm = intracommArg(info[0]);
  int root = rootArg(info[5], comm);
  RootedLayout a = rootedLayoutArgs(info.Env(), "scatterv", comm, root, info[1], "sendbuf", info[2], info[3], info[4], "recvbuf", false);
  void* recvbuf = a.inPlace ? MPI_IN_PLACE : a.own.data;
  return complete(info.Env(), flagArg(info[6]), "scatterv", a.type, a.L, [&](MPI_Request* r) {
    return withLayout(a.L.get(), a.large, [&](auto* counts, auto* displs) -> int {
      if constexpr (kIntArray<decltype(counts)>) {
        return r ? PMPI_Iscatterv(a.rooted.data, counts, displs, a.type, recvbuf, static_cast<int>(a.n), a.type, root, comm, r)
                 : PMPI_Scatterv(a.rooted.data, counts, displs, a.type, recvbuf, static_cast<int>(a.n), a.type, root, comm);
      }
#if MPI_VERSION >= 4
      else {
        return r ? PMPI_Iscatterv_c(a.rooted.data, counts, displs, a.type, recvbuf, a.n, a.type, root, comm, r)
                 : PMPI_Scatterv_c(a.rooted.data, counts, displs, a.type, recvbuf, a.n, a.type, root, comm);
      }
#endif
    });
  });
}

// (comm, sendbuf | null = IN_PLACE, recvbuf, counts, displs?, nonblocking)
Napi::Value Allgatherv(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* what = "allgatherv";
  MPI_Comm comm = intracommArg(info[0]);
  int p = commSizeOf(comm), me = commRankOf(comm);
  bool inPlace = info[1].IsNull();
  BufferView send, recv = bufferArg(info[2], "recvbuf");
  std::shared_ptr<Layout> L = layoutArg(env, what, "counts", "displs", info[3], info[4], p, recv, "recvbuf");
  MPI_Count n = 0;
  if (!inPlace) {
    send = bufferArg(info[1], "sendbuf");
    sameElementType(env, what, send, recv);
    n = send.count;
    if (n != L->counts[me]) {
      throwRange(env, "allgatherv: sendbuf holds " + std::to_string(n) + " elements but counts[" + std::to_string(me) + "] = " +
                          std::to_string(L->counts[me]));
    }
  }
  MPI_Datatype type = recv.type;
  const void* sendbuf = inPlace ? MPI_IN_PLACE : send.data;
  bool large = L->needsLarge;
  if (!large) L->narrow();
  return complete(env, flagArg(info[5]), what, type, L, [&](MPI_Request* r) {
    return withLayout(L.get(), large, [&](auto* counts, auto* displs) -> int {
      if constexpr (kIntArray<decltype(counts)>) {
        return r ? PMPI_Iallgatherv(sendbuf, static_cast<int>(n), type, recv.data, counts, displs, type, comm, r)
                 : PMPI_Allgatherv(sendbuf, static_cast<int>(n), type, recv.data, counts, displs, type, comm);
      }
#if MPI_VERSION >= 4
      else {
        return r ? PMPI_Iallgatherv_c(sendbuf, n, type, recv.data, counts, displs, type, comm, r)
                 : PMPI_Allgatherv_c(sendbuf, n, type, recv.data, counts, displs, type, comm);
      }
#endif
    });
  });
}

struct LayoutPair {
  std::shared_ptr<Layout> send, recv;
};

// (comm, sendbuf | null = IN_PLACE, sendcounts, sdispls?, recvbuf, recvcounts, rdispls?, nonblocking)
Napi::Value Alltoallv(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* what = "alltoallv";
  MPI_Comm comm = intracommArg(info[0]);
  int p = commSizeOf(comm);
  bool inPlace = info[1].IsNull();
  auto layouts = std::make_shared<LayoutPair>();
  BufferView send, recv = bufferArg(info[4], "recvbuf");
  layouts->recv = layoutArg(env, what, "recvcounts", "rdispls", info[5], info[6], p, recv, "recvbuf");
  if (!inPlace) {
    send = bufferArg(info[1], "sendbuf");
    sameElementType(env, what, send, recv);
    layouts->send = layoutArg(env, what, "sendcounts", "sdispls", info[2], info[3], p, send, "sendbuf");
  }
  Layout* S = layouts->send.get();
  Layout* R = layouts->recv.get();
  bool large = R->needsLarge || (S && S->needsLarge);
  if (!large) {
    R->narrow();
    if (S) S->narrow();
  }
  MPI_Datatype type = recv.type;
  const void* sendbuf = inPlace ? MPI_IN_PLACE : send.data;
  return complete(env, flagArg(info[7]), what, type, layouts, [&](MPI_Request* r) {
#if MPI_VERSION >= 4
    if (large) {
      const MPI_Count* scounts = S ? S->counts.data() : nullptr;
      const MPI_Aint* sdispls = S ? S->displs.data() : nullptr;
      return r ? PMPI_Ialltoallv_c(sendbuf, scounts, sdispls, type, recv.data, R->counts.data(), R->displs.data(), type, comm, r)
               : PMPI_Alltoallv_c(sendbuf, scounts, sdispls, type, recv.data, R->counts.data(), R->displs.data(), type, comm);
    }
#endif
    const int* scounts = S ? S->counts32.data() : nullptr;
    const int* sdispls = S ? S->displs32.data() : nullptr;
    return r ? PMPI_Ialltoallv(sendbuf, scounts, sdispls, type, recv.data, R->counts32.data(), R->displs32.data(), type, comm, r)
             : PMPI_Alltoallv(sendbuf, scounts, sdispls, type, recv.data, R->counts32.data(), R->displs32.data(), type, comm);
  });
}

// --- reductions ---

// scan, exscan: (comm, sendbuf | null = IN_PLACE, recvbuf, op, nonblocking)
Napi::Value prefixReduction(const Napi::CallbackInfo& info, bool exclusive) {
  Napi::Env env = info.Env();
  const char* what = exclusive ? "exscan" : "scan";
  MPI_Comm comm = intracommArg(info[0]);
  bool inPlace = info[1].IsNull();
  BufferView send, recv = bufferArg(info[2], "recvbuf");
  MPI_Count n = recv.count;
  if (!inPlace) {
    send = bufferArg(info[1], "sendbuf");
    sameElementType(env, what, send, recv);
    n = send.count;
    requireLength(env, what, "recvbuf", recv, n);
  }
  MPI_Op op = opArg(info[3], recv, what);
  MPI_Datatype type = recv.type;
  const void* sendbuf = inPlace ? MPI_IN_PLACE : send.data;
  bool big = largeCount(env, n, what);
  return complete(env, flagArg(info[4]), what, type, nullptr, [&](MPI_Request* r) {
    if (exclusive) {
      return r ? TOPOCOLL_COUNT_CALL(big, Iexscan, sendbuf, recv.data, n, type, op, comm, r)
               : TOPOCOLL_COUNT_CALL(big, Exscan, sendbuf, recv.data, n, type, op, comm);
    }
    return r ? TOPOCOLL_COUNT_CALL(big, Iscan, sendbuf, recv.data, n, type, op, comm, r)
             : TOPOCOLL_COUNT_CALL(big, Scan, sendbuf, recv.data, n, type, op, comm);
  });
}

Napi::Value Scan(const Napi::CallbackInfo& info) { return prefixReduction(info, false); }
Napi::Value Exscan(const Napi::CallbackInfo& info) { return prefixReduction(info, true); }

}  // namespace

void initMpiCollectives(Napi::Env env, Napi::Object exports) {
  setFunctions(env, exports, {{"gather", Gather},
                              {"gatherv", Gatherv},
                              {"scatter", Scatter},
                              {"scatterv", Scatterv},
                              {"allgatherv", Allgatherv},
                              {"alltoallv", Alltoallv},
                              {"scan", Scan},
                              {"exscan", Exscan}});
}

}  // namespace topocoll::addon
