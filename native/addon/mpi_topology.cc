// Process topologies of the MPI (src/mpi/topology.ts): Cartesian grids (create, dims, coords,
// rank, shift, sub), distributed graphs (adjacent form), their neighbours, and the neighbour
// collectives (allgather, alltoall, blocking or nonblocking), run by the system MPI. Not to be
// confused with topology.cc, the engine's machine topology files.
#include <algorithm>
#include <climits>
#include <memory>
#include <string>
#include <vector>

#include "addon.h"
#include "mpi_binding.h"

namespace topocoll::addon {
namespace {

constexpr int kNoComm = -1;  // JS: the calling rank is in no new communicator (MPI_COMM_NULL)

Napi::Value commHandle(Napi::Env env, MPI_Comm comm) { return Napi::Number::New(env, comm == MPI_COMM_NULL ? kNoComm : registerComm(comm)); }

int topologyOf(MPI_Comm comm) {
  int kind = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &kind);
  return kind;
}

// A Cartesian communicator, or a TypeError naming the call.
MPI_Comm cartArg(const Napi::Value& v, const char* what) {
  MPI_Comm comm = commArg(v);
  if (topologyOf(comm) != MPI_CART) throwType(v.Env(), std::string(what) + ": this communicator has no Cartesian topology (createCart makes one)");
  return comm;
}

int cartDims(MPI_Comm comm) {
  int n = 0;
  PMPI_Cartdim_get(comm, &n);
  return n;
}

// An array of numbers (or booleans, `flags`) of length `n` (n < 0: any length).
std::vector<int> numbersArg(const Napi::Value& v, const char* what, const char* name, int n, int64_t min, int64_t max, bool flags = false) {
  Napi::Env env = v.Env();
  if (!v.IsArray() && !v.IsTypedArray()) throwType(env, std::string(what) + ": " + name + " must be an array");
  Napi::Object o = v.As<Napi::Object>();
  uint32_t length = o.Get("length").As<Napi::Number>().Uint32Value();
  if (n >= 0 && length != static_cast<uint32_t>(n)) {
    throwRange(env, std::string(what) + ": " + name + " has " + std::to_string(length) + " entries, needs " + std::to_string(n) + " (one per dimension)");
  }
  std::vector<int> out(length);
  for (uint32_t i = 0; i < length; ++i) {
    Napi::Value e = o.Get(i);
    std::string element = std::string(what) + ": " + name + "[" + std::to_string(i) + "]";
    out[i] = flags ? (e.ToBoolean() ? 1 : 0) : static_cast<int>(intArg(e, element.c_str(), min, max));
  }
  return out;
}

Napi::Array arrayOf(Napi::Env env, const std::vector<int>& values, bool translateProcNull = false) {
  auto a = Napi::Array::New(env, values.size());
  for (size_t i = 0; i < values.size(); ++i) a.Set(static_cast<uint32_t>(i), translateProcNull && values[i] == MPI_PROC_NULL ? kJsProcNull : values[i]);
  return a;
}

// (comm, dims, periods, reorder) → handle, or -1 on a rank left out of the grid
Napi::Value CartCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  std::vector<int> dims = numbersArg(info[1], "createCart", "dims", -1, 1, INT_MAX);
  std::vector<int> periods = info[2].IsUndefined() || info[2].IsNull() ? std::vector<int>(dims.size(), 0)
                                                                        : numbersArg(info[2], "createCart", "periods", static_cast<int>(dims.size()), 0, 1, true);
  int64_t cells = 1;
  for (int d : dims) cells *= d;
  int p = commSizeOf(comm);
  if (cells > p) {
    throwRange(env, "createCart: a grid of " + std::to_string(cells) + " processes does not fit a communicator of " + std::to_string(p) +
                        " (dimsCreate(" + std::to_string(p) + ", …) finds one that does)");
  }
  MPI_Comm out = MPI_COMM_NULL;
  check(env, PMPI_Cart_create(comm, static_cast<int>(dims.size()), dims.data(), periods.data(), flagArg(info[3]) ? 1 : 0, &out), "MPI_Cart_create");
  return commHandle(env, out);
}

// (nnodes, dims) → dims with each 0 filled in (MPI_Dims_create)
Napi::Value DimsCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int nnodes = static_cast<int>(intArg(info[0], "dimsCreate: nnodes", 1, INT_MAX));
  std::vector<int> dims = numbersArg(info[1], "dimsCreate", "dims", -1, 0, INT_MAX);
  int64_t fixed = 1;
  for (int d : dims) fixed *= d > 0 ? d : 1;
  if (dims.empty() || nnodes % fixed != 0) {
    throwRange(env, "dimsCreate: dims must have at least one entry, and the product of its nonzero entries (" + std::to_string(fixed) +
                        ") must divide nnodes = " + std::to_string(nnodes));
  }
  check(env, PMPI_Dims_create(nnodes, static_cast<int>(dims.size()), dims.data()), "MPI_Dims_create");
  return arrayOf(env, dims);
}

// A grid's dims, periods and this rank's coords (MPI_Cart_get).
struct Grid {
  std::vector<int> dims, periods, coords;
};

Grid gridOf(Napi::Env env, MPI_Comm comm) {
  int n = cartDims(comm);
  Grid g{std::vector<int>(n), std::vector<int>(n), std::vector<int>(n)};
  check(env, PMPI_Cart_get(comm, n, g.dims.data(), g.periods.data(), g.coords.data()), "MPI_Cart_get");
  return g;
}

// (comm) → {dims, periods, coords}
Napi::Value CartGet(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Grid g = gridOf(env, cartArg(info[0], "cartGet"));
  auto o = Napi::Object::New(env);
  o.Set("dims", arrayOf(env, g.dims));
  auto periods = Napi::Array::New(env, g.periods.size());
  for (size_t i = 0; i < g.periods.size(); ++i) periods.Set(static_cast<uint32_t>(i), g.periods[i] != 0);
  o.Set("periods", periods);
  o.Set("coords", arrayOf(env, g.coords));
  return o;
}

// (comm, rank) → coords
Napi::Value CartCoords(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = cartArg(info[0], "coords");
  int rank = static_cast<int>(intArg(info[1], "coords: rank", 0, commSizeOf(comm) - 1));
  std::vector<int> coords(cartDims(comm));
  check(env, PMPI_Cart_coords(comm, rank, static_cast<int>(coords.size()), coords.data()), "MPI_Cart_coords");
  return arrayOf(env, coords);
}

// (comm, coords) → rank; a coordinate outside a non-periodic dimension is a RangeError.
Napi::Value CartRank(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = cartArg(info[0], "cartRank");
  Grid g = gridOf(env, comm);
  const int n = static_cast<int>(g.dims.size());
  const std::vector<int>& dims = g.dims;
  const std::vector<int>& periods = g.periods;
  std::vector<int> coords = numbersArg(info[1], "cartRank", "coords", n, INT_MIN, INT_MAX);
  for (int d = 0; d < n; ++d) {
    if (!periods[d] && (coords[d] < 0 || coords[d] >= dims[d])) {
      throwRange(env, "cartRank: coords[" + std::to_string(d) + "] = " + std::to_string(coords[d]) + " is outside dimension " + std::to_string(d) +
                          ", which is not periodic; valid: [0, " + std::to_string(dims[d] - 1) + "]");
    }
  }
  int rank = 0;
  check(env, PMPI_Cart_rank(comm, coords.data(), &rank), "MPI_Cart_rank");
  return Napi::Number::New(env, rank);
}

// (comm, direction, disp) → {source, dest}, PROC_NULL off the edge of a non-periodic dimension
Napi::Value CartShift(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = cartArg(info[0], "shift");
  int direction = static_cast<int>(intArg(info[1], "shift: direction", 0, cartDims(comm) - 1));
  int disp = static_cast<int>(intArg(info[2], "shift: disp", INT_MIN + 1, INT_MAX));
  int source = MPI_PROC_NULL, dest = MPI_PROC_NULL;
  check(env, PMPI_Cart_shift(comm, direction, disp, &source, &dest), "MPI_Cart_shift");
  auto o = Napi::Object::New(env);
  o.Set("source", source == MPI_PROC_NULL ? kJsProcNull : source);
  o.Set("dest", dest == MPI_PROC_NULL ? kJsProcNull : dest);
  return o;
}

// (comm, remainDims) → handle of this rank's sub-grid
Napi::Value CartSub(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = cartArg(info[0], "sub");
  std::vector<int> remain = numbersArg(info[1], "sub", "remainDims", cartDims(comm), 0, 1, true);
  MPI_Comm out = MPI_COMM_NULL;
  check(env, PMPI_Cart_sub(comm, remain.data(), &out), "MPI_Cart_sub");
  return commHandle(env, out);
}

// (comm, sources, destinations, sourceWeights | null, destWeights | null, reorder) → handle
Napi::Value DistGraphCreateAdjacent(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* what = "createDistGraphAdjacent";
  MPI_Comm comm = commArg(info[0]);
  int p = commSizeOf(comm);
  std::vector<int> sources = numbersArg(info[1], what, "sources", -1, 0, p - 1);
  std::vector<int> destinations = numbersArg(info[2], what, "destinations", -1, 0, p - 1);
  bool weighted = !(info[3].IsUndefined() || info[3].IsNull()) || !(info[4].IsUndefined() || info[4].IsNull());
  std::vector<int> sw, dw;
  if (weighted) {
    sw = numbersArg(info[3], what, "sourceWeights", static_cast<int>(sources.size()), 0, INT_MAX);
    dw = numbersArg(info[4], what, "destWeights", static_cast<int>(destinations.size()), 0, INT_MAX);
  }
  // An empty weight array must still be a valid pointer where weights are given (not MPI_UNWEIGHTED).
  int none = 0;
  const int* swp = weighted ? (sw.empty() ? &none : sw.data()) : MPI_UNWEIGHTED;
  const int* dwp = weighted ? (dw.empty() ? &none : dw.data()) : MPI_UNWEIGHTED;
  MPI_Comm out = MPI_COMM_NULL;
  check(env,
        PMPI_Dist_graph_create_adjacent(comm, static_cast<int>(sources.size()), sources.data(), swp, static_cast<int>(destinations.size()),
                                        destinations.data(), dwp, MPI_INFO_NULL, flagArg(info[5]) ? 1 : 0, &out),
        "MPI_Dist_graph_create_adjacent");
  return commHandle(env, out);
}

// The neighbours the neighbour collectives exchange with, in their order: a Cartesian grid's
// (per dimension: -1 then +1, PROC_NULL off a non-periodic edge), a distributed graph's.
struct Neighbours {
  std::vector<int> sources, destinations;
};

Neighbours neighboursOf(Napi::Env env, MPI_Comm comm, const char* what) {
  Neighbours n;
  int kind = topologyOf(comm);
  if (kind == MPI_CART) {
    for (int d = 0, dims = cartDims(comm); d < dims; ++d) {
      int source, dest;
      PMPI_Cart_shift(comm, d, 1, &source, &dest);
      // In-neighbours in order -1, +1: the rank below (shift's source) then above (its dest); the same for out.
      n.sources.insert(n.sources.end(), {source, dest});
      n.destinations.insert(n.destinations.end(), {source, dest});
    }
  } else if (kind == MPI_DIST_GRAPH) {
    int in = 0, out = 0, weighted = 0;
    check(env, PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted), "MPI_Dist_graph_neighbors_count");
    n.sources.resize(in);
    n.destinations.resize(out);
    std::vector<int> sw(in + 1), dw(out + 1);
    check(env, PMPI_Dist_graph_neighbors(comm, in, n.sources.data(), sw.data(), out, n.destinations.data(), dw.data()), "MPI_Dist_graph_neighbors");
  } else if (kind == MPI_GRAPH) {
    int count = 0;
    PMPI_Graph_neighbors_count(comm, commRankOf(comm), &count);
    n.sources.resize(count);
    check(env, PMPI_Graph_neighbors(comm, commRankOf(comm), count, n.sources.data()), "MPI_Graph_neighbors");
    n.destinations = n.sources;
  } else {
    throwType(env, std::string(what) + ": this communicator has no topology (createCart or createDistGraphAdjacent makes one)");
  }
  return n;
}

Napi::Value TopologyKind(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int kind = topologyOf(commArg(info[0]));
  if (kind == MPI_CART) return Napi::String::New(env, "cart");
  if (kind == MPI_GRAPH) return Napi::String::New(env, "graph");
  if (kind == MPI_DIST_GRAPH) return Napi::String::New(env, "distGraph");
  return env.Null();
}

// (comm) → {sources, destinations}
Napi::Value NeighborList(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Neighbours n = neighboursOf(env, commArg(info[0]), "neighbors");
  auto o = Napi::Object::New(env);
  o.Set("sources", arrayOf(env, n.sources, true));
  o.Set("destinations", arrayOf(env, n.destinations, true));
  return o;
}

// Neighbour collectives: (comm, sendbuf, recvbuf, nonblocking). allgather sends one block to
// every out-neighbour and receives one from every in-neighbour into recvbuf's blocks; alltoall
// sends block j of sendbuf to out-neighbour j.
Napi::Value neighbourCollective(const Napi::CallbackInfo& info, bool alltoall) {
  Napi::Env env = info.Env();
  const char* what = alltoall ? "neighborAlltoall" : "neighborAllgather";
  MPI_Comm comm = intracommArg(info[0]);
  Neighbours n = neighboursOf(env, comm, what);
  const MPI_Count in = static_cast<MPI_Count>(n.sources.size()), out = static_cast<MPI_Count>(n.destinations.size());
  BufferView send = bufferArg(info[1], "sendbuf"), recv = bufferArg(info[2], "recvbuf");
  MPI_Count sendBlock = send.count;
  if (alltoall) {
    if (out == 0 ? send.count != 0 : send.count % out != 0) {
      throwRange(env, std::string(what) + ": sendbuf holds " + std::to_string(send.count) + " elements, not a whole number of blocks for " +
                          std::to_string(out) + " out-neighbours");
    }
    sendBlock = out == 0 ? 0 : send.count / out;
  }
  MPI_Count recvBlock = matchingCount(env, what, send, "sendbuf", sendBlock, recv, "recvbuf");
  if (alltoall && out == 0 && in > 0) recvBlock = recv.count / in;  // nothing sent: the receive side says
  if (recv.count < recvBlock * in) {
    throwRange(env, std::string(what) + ": recvbuf holds " + std::to_string(recv.count) + " elements, needs " + std::to_string(recvBlock * in) + " (" +
                        std::to_string(in) + " in-neighbours × " + std::to_string(recvBlock) + ")");
  }
  bool large = largeCount(env, std::max(sendBlock, recvBlock), what);
  auto call = [&](MPI_Request* r) -> int {
    if (alltoall) {
      return r ? TOPOCOLL_COUNT_CALL(large, Ineighbor_alltoall, send.data, sendBlock, send.type, recv.data, recvBlock, recv.type, comm, r)
               : TOPOCOLL_COUNT_CALL(large, Neighbor_alltoall, send.data, sendBlock, send.type, recv.data, recvBlock, recv.type, comm);
    }
    return r ? TOPOCOLL_COUNT_CALL(large, Ineighbor_allgather, send.data, sendBlock, send.type, recv.data, recvBlock, recv.type, comm, r)
             : TOPOCOLL_COUNT_CALL(large, Neighbor_allgather, send.data, sendBlock, send.type, recv.data, recvBlock, recv.type, comm);
  };
  if (!flagArg(info[3])) {
    check(env, call(nullptr), what);
    return env.Undefined();
  }
  MPI_Request request = MPI_REQUEST_NULL;
  check(env, call(&request), what);
  return MpiRequestWrap::New(env, request, recv.type);
}

Napi::Value NeighborAllgather(const Napi::CallbackInfo& info) { return neighbourCollective(info, false); }
Napi::Value NeighborAlltoall(const Napi::CallbackInfo& info) { return neighbourCollective(info, true); }

}  // namespace

void initMpiTopologies(Napi::Env env, Napi::Object exports) {
  setFunctions(env, exports, {{"cartCreate", CartCreate},
                              {"dimsCreate", DimsCreate},
                              {"cartGet", CartGet},
                              {"cartCoords", CartCoords},
                              {"cartRank", CartRank},
                              {"cartShift", CartShift},
                              {"cartSub", CartSub},
                              {"distGraphCreateAdjacent", DistGraphCreateAdjacent},
                              {"topologyKind", TopologyKind},
                              {"neighborList", NeighborList},
                              {"neighborAllgather", NeighborAllgather},
                              {"neighborAlltoall", NeighborAlltoall}});
}

}  // namespace topocoll::addon
