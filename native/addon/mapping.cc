// Rank mapping (seed 004) for TypeScript: information graphs, the partitioner, pi. No MPI except
// commRankMapping, which returns the pi the engine cached for a communicator.
#include <chrono>
#include <stdexcept>

#include "addon.h"
#include "algorithm_registry.h"
#include "comm_state.h"
#include "mapping/allgather_graphs.h"
#include "mapping/mapping_cost.h"
#include "mapping/partitioner.h"
#include "mapping/rank_mapping.h"
#include "mapping/remap/allgather_mapping.h"
#include "mapping/remap/machine_tree.h"
#include "mapping/remap/remapped_allgather.h"
#include "mapping/remap/schedule_graph.h"

namespace topocoll::addon {
namespace {

using mapping::Graph;

Napi::Int32Array int32Array(Napi::Env env, const std::vector<int>& v) {
  auto a = Napi::Int32Array::New(env, v.size());
  for (size_t i = 0; i < v.size(); ++i) a[i] = v[i];
  return a;
}

Napi::Float64Array float64Array(Napi::Env env, const std::vector<int64_t>& v) {
  auto a = Napi::Float64Array::New(env, v.size());
  for (size_t i = 0; i < v.size(); ++i) a[i] = static_cast<double>(v[i]);
  return a;
}

Napi::Object graphObject(Napi::Env env, const Graph& g) {
  auto o = Napi::Object::New(env);
  o.Set("n", g.n);
  o.Set("xadj", float64Array(env, g.xadj));
  o.Set("adjncy", int32Array(env, std::vector<int>(g.adjncy.begin(), g.adjncy.end())));
  o.Set("adjwgt", float64Array(env, g.adjwgt));
  return o;
}

// Whole numbers from a JS array or typed array.
std::vector<int64_t> numbersArg(const Napi::Value& v, const std::string& name) {
  Napi::Env env = v.Env();
  std::vector<int64_t> out;
  if (v.IsTypedArray()) {
    auto ta = v.As<Napi::TypedArray>();
    if (ta.TypedArrayType() == napi_int32_array) {
      auto a = v.As<Napi::Int32Array>();
      out.assign(a.Data(), a.Data() + a.ElementLength());
      return out;
    }
    if (ta.TypedArrayType() == napi_float64_array) {
      auto a = v.As<Napi::Float64Array>();
      out.reserve(a.ElementLength());
      for (size_t i = 0; i < a.ElementLength(); ++i) {
        const double d = a[i];
        if (d != static_cast<double>(static_cast<int64_t>(d))) throwType(env, name + "[" + std::to_string(i) + "] must be an integer");
        out.push_back(static_cast<int64_t>(d));
      }
      return out;
    }
  }
  if (!v.IsArray()) throwType(env, name + " must be an array of integers, an Int32Array or a Float64Array");
  auto a = v.As<Napi::Array>();
  out.reserve(a.Length());
  for (uint32_t i = 0; i < a.Length(); ++i)
    out.push_back(intArg(a.Get(i), (name + "[" + std::to_string(i) + "]").c_str(), INT64_MIN / 2, INT64_MAX / 2));
  return out;
}

std::vector<int> intsArg(const Napi::Value& v, const std::string& name) {
  std::vector<int64_t> wide = numbersArg(v, name);
  std::vector<int> out(wide.size());
  for (size_t i = 0; i < wide.size(); ++i) {
    if (wide[i] < INT32_MIN || wide[i] > INT32_MAX) throwRange(v.Env(), name + "[" + std::to_string(i) + "] is out of range");
    out[i] = static_cast<int>(wide[i]);
  }
  return out;
}

// {n, xadj, adjncy, adjwgt[, vwgt]}; the partitioner validates the structure.
Graph graphArg(const Napi::Value& v) {
  Napi::Env env = v.Env();
  if (!v.IsObject()) throwType(env, "graph must be an object {n, xadj, adjncy, adjwgt}");
  auto o = v.As<Napi::Object>();
  for (const char* key : {"n", "xadj", "adjncy", "adjwgt"})
    if (!o.Has(key)) throwType(env, std::string("graph.") + key + " is missing");
  Graph g;
  g.n = static_cast<int>(intArg(o.Get("n"), "graph.n", 0, INT32_MAX));
  g.xadj = numbersArg(o.Get("xadj"), "graph.xadj");
  std::vector<int> adj = intsArg(o.Get("adjncy"), "graph.adjncy");
  g.adjncy.assign(adj.begin(), adj.end());
  g.adjwgt = numbersArg(o.Get("adjwgt"), "graph.adjwgt");
  if (o.Has("vwgt") && !o.Get("vwgt").IsUndefined()) {
    std::vector<int> w = intsArg(o.Get("vwgt"), "graph.vwgt");
    g.vwgt.assign(w.begin(), w.end());
  } else {
    g.vwgt.assign(static_cast<size_t>(g.n), 1);
  }
  return g;
}

mapping::PartitionOptions optionsArg(const Napi::Value& v) {
  mapping::PartitionOptions o;
  if (!v.IsObject()) return o;
  auto obj = v.As<Napi::Object>();
  if (obj.Has("seed") && !obj.Get("seed").IsUndefined()) o.seed = static_cast<uint64_t>(intArg(obj.Get("seed"), "options.seed", 0, INT64_MAX / 2));
  if (obj.Has("threads") && !obj.Get("threads").IsUndefined()) o.threads = static_cast<int>(intArg(obj.Get("threads"), "options.threads", 1, 256));
  return o;
}

// Runs f, turning the mapping core's std::invalid_argument into a RangeError with its message.
template <typename F>
auto guarded(Napi::Env env, F f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throwRange(env, e.what());
  }
}

Napi::Object mappingObject(Napi::Env env, const mapping::RankMapping& m) {
  auto o = Napi::Object::New(env);
  o.Set("pi", int32Array(env, m.pi));
  o.Set("piInv", int32Array(env, m.pi_inv));
  return o;
}

// informationGraph(collective, algorithm, p, {blockBytes = 1, count = 1, root = 0}) -> graph.
// Allgather bruck and recursive doubling (powers of two) by their closed forms, O(n log n); any
// other registered algorithm from its schedules for all ranks.
Napi::Value InformationGraph(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const Collective coll = collectiveArg(info[0]);
  if (!info[1].IsString()) throwType(env, "algorithm must be a string");
  const std::string name = info[1].As<Napi::String>().Utf8Value();
  const int algorithm = algorithmIndex(coll, name);
  if (algorithm < 0) throwType(env, "unknown " + std::string(collectiveEntry(coll).name) + " algorithm " + name);
  const int p = static_cast<int>(intArg(info[2], "p", 1, 1 << 24));
  Napi::Object opts = info[3].IsObject() ? info[3].As<Napi::Object>() : Napi::Object::New(env);
  auto opt = [&](const char* key, int64_t dflt, int64_t min, int64_t max) {
    return opts.Has(key) && !opts.Get(key).IsUndefined() ? intArg(opts.Get(key), key, min, max) : dflt;
  };
  const int64_t block_bytes = opt("blockBytes", 1, 1, INT64_MAX / 4);
  BuildParams bp;
  bp.p = p;
  bp.count = opt("count", 1, 0, INT64_MAX / 2);
  bp.root = static_cast<int>(opt("root", 0, 0, p - 1));
  const bool closed_form = coll == Collective::Allgather && (name == "bruck" || (name == "recursive_doubling" && (p & (p - 1)) == 0));
  Graph g = guarded(env, [&] {
    return closed_form ? mapping::allgatherInformationGraph(name, p, block_bytes) : mapping::buildScheduleGraph(coll, algorithm, bp, block_bytes);
  });
  return graphObject(env, g);
}

// partitionGraph(graph, partSizes, {seed, threads}) -> Int32Array part of every vertex.
Napi::Value PartitionGraph(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Graph g = graphArg(info[0]);
  std::vector<int> sizes = intsArg(info[1], "partSizes");
  mapping::PartitionOptions o = optionsArg(info[2]);
  return int32Array(env, guarded(env, [&] { return mapping::partitionGraph(g, sizes, o); }));
}

// cutWeight(graph, part) -> bytes on edges between parts.
Napi::Value CutWeight(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Graph g = graphArg(info[0]);
  std::vector<int> part = intsArg(info[1], "part");
  return Napi::Number::New(env, static_cast<double>(guarded(env, [&] { return mapping::cutWeight(g, part); })));
}

// rankMapping(graph, nodeOfRank, {seed, threads}) -> {pi, piInv}: vertex v runs on rank pi[v].
Napi::Value RankMappingOf(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Graph g = graphArg(info[0]);
  std::vector<int> nodes = intsArg(info[1], "nodeOfRank");
  mapping::PartitionOptions o = optionsArg(info[2]);
  return mappingObject(env, guarded(env, [&] { return mapping::computeRankMapping(g, nodes, o); }));
}

// A machine tree over nodes 0..h-1 from {modules: [[module of node q] per level, widest first],
// bandwidths: [bytes/s per level]}, as the engine builds it from a topology file; null without.
std::unique_ptr<mapping::PartTree> machineArg(const Napi::Value& v, const std::vector<int>& node_sizes) {
  if (!v.IsObject()) return nullptr;
  auto o = v.As<Napi::Object>();
  if (!o.Has("modules") || o.Get("modules").IsUndefined()) return nullptr;
  Napi::Env env = v.Env();
  if (!o.Get("modules").IsArray()) throwType(env, "machine.modules must be an array (one array of module ids per level)");
  auto levels = o.Get("modules").As<Napi::Array>();
  std::vector<std::vector<int>> modules;
  for (uint32_t l = 0; l < levels.Length(); ++l) modules.push_back(intsArg(levels.Get(l), "machine.modules[" + std::to_string(l) + "]"));
  if (!o.Has("bandwidths") || !o.Get("bandwidths").IsArray()) throwType(env, "machine.bandwidths must be an array (bytes/s per level)");
  auto bw = o.Get("bandwidths").As<Napi::Array>();
  std::vector<double> bandwidths;
  for (uint32_t l = 0; l < bw.Length(); ++l) {
    if (!bw.Get(l).IsNumber()) throwType(env, "machine.bandwidths[" + std::to_string(l) + "] must be a number");
    bandwidths.push_back(bw.Get(l).As<Napi::Number>().DoubleValue());
  }
  return guarded(env, [&] { return std::make_unique<mapping::PartTree>(mapping::machineTree(node_sizes, modules, bandwidths)); });
}

// machineCost(graph, nodeOfVertex, {modules, bandwidths}) -> seed 004's F: every edge between
// nodes weighs bytes / bandwidth of the level where the nodes meet.
Napi::Value MachineCost(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Graph g = graphArg(info[0]);
  std::vector<int> part = intsArg(info[1], "nodeOfVertex");
  std::unique_ptr<mapping::PartTree> tree = machineArg(info[2], guarded(env, [&] { return mapping::slotsPerNode(part); }));
  if (!tree) throwType(env, "machineCost: the third argument must be {modules, bandwidths}");
  return Napi::Number::New(env, guarded(env, [&] { return mapping::hierarchicalCost(g, part, *tree); }));
}

// allgatherRankMapping(algorithm, nodeOfRank[, {modules, bandwidths}]) -> {base, pi, piInv}: the
// pi a remapped allgather (bruck_exch, ...) runs under for ranks on these nodes, as the engine
// computes it (with a machine: over the levels of a topology file).
Napi::Value AllgatherRankMapping(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) throwType(env, "algorithm must be a string");
  const std::string name = info[0].As<Napi::String>().Utf8Value();
  const char* base = mapping::remappedAllgatherBase(algorithmIndex(Collective::Allgather, name));
  if (!base) throwType(env, "allgather algorithm " + name + " is not a remapped one (bruck_exch, bruck_reorder, recursive_doubling_exch, recursive_doubling_reorder)");
  std::vector<int> nodes = intsArg(info[1], "nodeOfRank");
  if (nodes.empty()) throwRange(env, "nodeOfRank must name the node of at least one rank");
  std::unique_ptr<mapping::PartTree> machine = machineArg(info[2], guarded(env, [&] { return mapping::slotsPerNode(nodes); }));
  auto out = mappingObject(env, guarded(env, [&] { return mapping::allgatherRankMapping(base, nodes, machine.get()); }));
  out.Set("base", base);
  return out;
}

// commRankMapping(comm, algorithm) -> {base, pi, piInv, nodes, machineLevels, milliseconds}: the pi
// the engine caches for this communicator (collective on first use: detects the hierarchy);
// machineLevels: whether the topology file's levels weigh it; milliseconds: the time this call
// spent computing it (about 0 when cached).
Napi::Value CommRankMapping(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  if (!info[1].IsString()) throwType(env, "algorithm must be a string");
  const std::string name = info[1].As<Napi::String>().Utf8Value();
  const char* base = mapping::remappedAllgatherBase(algorithmIndex(Collective::Allgather, name));
  if (!base) throwType(env, "allgather algorithm " + name + " is not a remapped one");
  CommState* state = nullptr;
  check(env, CommState::get(comm, &state), "commRankMapping");
  if (state->isInter()) throwType(env, "commRankMapping: comm must be an intracommunicator");
  const Hierarchy* h = nullptr;
  std::string error;
  int rc = state->hierarchy(&h, &error);
  if (rc != MPI_SUCCESS && !error.empty()) throw Napi::Error::New(env, "topocoll: " + error);
  check(env, rc, "commRankMapping");
  const auto started = std::chrono::steady_clock::now();
  ShadowComm* shadow = nullptr;
  check(env, state->shadow(&shadow), "commRankMapping");
  const mapping::RankMapping& m = shadow->rankMappings().allgather(base);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  auto out = mappingObject(env, m);
  out.Set("base", base);
  out.Set("nodes", int32Array(env, shadow->rankMappings().nodeOfSlot()));
  out.Set("machineLevels", shadow->rankMappings().machine() != nullptr);
  out.Set("milliseconds", ms);
  return out;
}

}  // namespace

void initMapping(Napi::Env env, Napi::Object exports) {
  setFunctions(env, exports, {{"informationGraph", InformationGraph},
                              {"partitionGraph", PartitionGraph},
                              {"cutWeight", CutWeight},
                              {"rankMapping", RankMappingOf},
                              {"allgatherRankMapping", AllgatherRankMapping},
                              {"machineCost", MachineCost},
                              {"commRankMapping", CommRankMapping}});
}

}  // namespace topocoll::addon
