// The models' view of the engine, no MPI needed: schedules compiled for the TypeScript
// simulator (typed arrays, no JS object per op: a pairwise alltoall on 8192 ranks has 67 M
// messages) and the engine's own Hockney predictions (TOPOCOLL_SELECT=model, `explain`).
#include <cmath>
#include <cstring>

#include "addon.h"
#include "algorithm_registry.h"
#include "config.h"
#include "engine.h"
#include "hierarchy/hierarchy.h"
#include "mapping/remap/allgather_mapping.h"
#include "mapping/remap/remapped_allgather.h"
#include "model/select_model.h"
#include "select.h"

namespace topocoll::addon {
namespace {

int algorithmOf(Collective coll, const Napi::Value& v) {
  if (!v.IsString()) throwType(v.Env(), "algorithm must be a string");
  int index = algorithmIndex(coll, v.As<Napi::String>().Utf8Value());
  if (index < 0) throwType(v.Env(), "unknown " + std::string(collectiveEntry(coll).name) + " algorithm " + v.As<Napi::String>().Utf8Value());
  return index;
}

// The options buildSchedule() takes that the models use: count, root, inPlace, maxOutstanding,
// segmentBlocks, elementBytes, shmElements, bcastConcurrency, tileBytes, and `nodes` (per rank).
struct ModelOptions {
  BuildParams params;
  std::vector<int> nodes;
  std::vector<int64_t> recv_counts;  // params.recv_counts points here
};

void optionsOf(Napi::Env env, const Napi::Value& value, int p, ModelOptions* out) {
  ModelOptions& o = *out;
  o.params.p = p;
  Napi::Object opts = value.IsObject() ? value.As<Napi::Object>() : Napi::Object::New(env);
  auto opt = [&](const char* key, int64_t dflt, int64_t min, int64_t max) {
    return opts.Has(key) && !opts.Get(key).IsUndefined() ? intArg(opts.Get(key), key, min, max) : dflt;
  };
  o.params.count = opt("count", 1, 0, INT64_MAX / 2);
  o.params.root = static_cast<int>(opt("root", 0, 0, p - 1));
  o.params.in_place = opts.Has("inPlace") && opts.Get("inPlace").ToBoolean();
  o.params.max_outstanding = static_cast<int>(opt("maxOutstanding", config().get(Parameter::AlltoallMaxOutstanding), 1, 1 << 20));
  o.params.segment_blocks = opt("segmentBlocks", 0, 0, INT64_MAX / 2);
  o.params.element_bytes = opt("elementBytes", 0, 0, INT64_MAX / 2);
  o.params.shm_elements = opt("shmElements", 0, 0, INT64_MAX / 2);
  o.params.bcast_concurrency = static_cast<int>(opt("bcastConcurrency", 0, 0, 1 << 20));
  o.params.tile_bytes = opt("tileBytes", 0, 0, INT64_MAX / 2);
  if (opts.Has("nodes") && !opts.Get("nodes").IsUndefined()) {
    Napi::Value v = opts.Get("nodes");
    if (!v.IsArray() || v.As<Napi::Array>().Length() != static_cast<uint32_t>(p)) {
      throwType(env, "nodes must be an array of " + std::to_string(p) + " numbers (one per rank)");
    }
    auto a = v.As<Napi::Array>();
    for (uint32_t i = 0; i < a.Length(); ++i) o.nodes.push_back(static_cast<int>(intArg(a.Get(i), "nodes", 0, 1 << 24)));
  }
  reductionOptions(opts, p, &o.params, &o.recv_counts);
}

Hierarchy hierarchyOf(const std::vector<int>& nodes, int rank) {
  std::vector<RankPlace> places(nodes.size());
  for (size_t r = 0; r < nodes.size(); ++r) places[r].node = nodes[r];
  return Hierarchy::fromPlaces(std::move(places), rank);
}

// compiledSchedule(collective, algorithm, p, rank, options) -> the CompiledRank of
// src/model/compiled.ts (without spans): {rank, rounds, stream, tmpBlocks, unitsPerBlock, note,
// flagSlot?, flagStage?}.
Napi::Value CompiledSchedule(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Collective coll = collectiveArg(info[0]);
  int algorithm = algorithmOf(coll, info[1]);
  int p = static_cast<int>(intArg(info[2], "p", 1, 1 << 24));
  int rank = static_cast<int>(intArg(info[3], "rank", 0, p - 1));
  ModelOptions o;
  optionsOf(env, info[4], p, &o);
  o.params.rank = rank;
  Hierarchy hierarchy;
  if (!o.nodes.empty()) {
    hierarchy = hierarchyOf(o.nodes, rank);
    o.params.hierarchy = &hierarchy;
  }
  Schedule s;
  model::CompactSchedule c;
  std::string error;
  if (!buildSchedule(coll, algorithm, o.params, &s, &error)) throwRange(env, error);
  if (!model::compact(s, p, &c, &error)) throwRange(env, "rank " + std::to_string(rank) + ": " + error);
  auto stream = Napi::Int32Array::New(env, c.stream.size());
  std::memcpy(stream.Data(), c.stream.data(), c.stream.size() * sizeof(int32_t));
  auto out = Napi::Object::New(env);
  out.Set("rank", rank);
  out.Set("rounds", c.rounds);
  out.Set("stream", stream);
  out.Set("tmpBlocks", Napi::Number::New(env, static_cast<double>(s.tmp_blocks)));
  out.Set("unitsPerBlock", Napi::Number::New(env, static_cast<double>(s.units_per_block)));
  out.Set("note", s.note);
  if (!c.flag_slot.empty()) {
    auto flag_slot = Napi::Uint8Array::New(env, c.flag_slot.size());
    auto flag_stage = Napi::Int32Array::New(env, c.flag_stage.size());
    std::memcpy(flag_slot.Data(), c.flag_slot.data(), c.flag_slot.size());
    std::memcpy(flag_stage.Data(), c.flag_stage.data(), c.flag_stage.size() * sizeof(int32_t));
    out.Set("flagSlot", flag_slot);
    out.Set("flagStage", flag_stage);
  }
  return out;
}

model::LinkCost linkArg(Napi::Env env, const Napi::Value& v, const char* name) {
  if (!v.IsObject()) throwType(env, std::string(name) + " must be {alpha, beta} (seconds, seconds per byte)");
  auto o = v.As<Napi::Object>();
  model::LinkCost l;
  Napi::Value a = o.Get("alpha"), b = o.Get("beta");
  if (!a.IsNumber() || !b.IsNumber() || a.As<Napi::Number>().DoubleValue() < 0 || b.As<Napi::Number>().DoubleValue() < 0) {
    throwType(env, std::string(name) + ".alpha and " + name + ".beta must be non-negative numbers");
  }
  l.alpha = a.As<Napi::Number>().DoubleValue();
  l.beta = b.As<Napi::Number>().DoubleValue();
  return l;
}

// A finite non-negative number at o[key]; `name` says where in messages.
double numberArg(Napi::Env env, const Napi::Object& o, const char* key, const std::string& name) {
  Napi::Value v = o.Get(key);
  if (!v.IsNumber() || !(v.As<Napi::Number>().DoubleValue() >= 0) || !std::isfinite(v.As<Napi::Number>().DoubleValue())) {
    throwType(env, name + " must be a finite non-negative number");
  }
  return v.As<Napi::Number>().DoubleValue();
}

double numberArg(Napi::Env env, const Napi::Object& o, const char* key) { return numberArg(env, o, key, std::string("machine.") + key); }

// predictAlgorithms(collective, p, options) -> {choice, predictions}: the engine's Hockney model
// (TOPOCOLL_SELECT=model) for every algorithm of the build. options: those of compiledSchedule,
// plus blockBytes (bytes of one block; bcast: one element), intra/inter: {alpha, beta} and gamma
// (seconds per byte combined) to override the defaults (the topology file's levels are not used
// here: no MPI job).
Napi::Value PredictAlgorithms(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Collective coll = collectiveArg(info[0]);
  int p = static_cast<int>(intArg(info[1], "p", 1, 1 << 24));
  ModelOptions o;
  optionsOf(env, info[2], p, &o);
  Napi::Object opts = info[2].IsObject() ? info[2].As<Napi::Object>() : Napi::Object::New(env);
  model::ModelCall call;
  call.coll = coll;
  call.params = o.params;
  call.block_bytes = opts.Has("blockBytes") ? static_cast<double>(intArg(opts.Get("blockBytes"), "blockBytes", 0, INT64_MAX / 2)) : 1.0;
  model::LinkCost intra = model::kDefaultIntraNode, inter = model::kDefaultInterNode;
  if (opts.Has("intra") && !opts.Get("intra").IsUndefined()) intra = linkArg(env, opts.Get("intra"), "intra");
  if (opts.Has("inter") && !opts.Get("inter").IsUndefined()) inter = linkArg(env, opts.Get("inter"), "inter");
  call.intra = &intra;
  call.inter = &inter;
  if (opts.Has("gamma") && !opts.Get("gamma").IsUndefined()) call.gamma = numberArg(env, opts, "gamma", "gamma");
  Hierarchy hierarchy;
  if (!o.nodes.empty()) {
    hierarchy = hierarchyOf(o.nodes, 0);
    call.hierarchy = &hierarchy;
    call.params.hierarchy = &hierarchy;
  }
  auto predictions = Napi::Array::New(env);
  for (const model::AlgorithmPrediction& ap : model::predictAll(call, config())) {
    auto row = Napi::Object::New(env);
    row.Set("algorithm", algorithmName(coll, ap.algorithm));
    if (ap.skipped.empty()) {
      row.Set("predicted_us", ap.prediction.seconds * 1e6);
      row.Set("rounds", ap.prediction.rounds);
      row.Set("messages", Napi::Number::New(env, static_cast<double>(ap.prediction.messages)));
      row.Set("bytes", ap.prediction.bytes);
      row.Set("alcd", ap.prediction.alcd);
    } else {
      row.Set("skipped", ap.skipped);
    }
    predictions.Set(predictions.Length(), row);
  }
  Choice choice;
  auto out = Napi::Object::New(env);
  if (model::chooseByModel(call, config(), &choice)) {
    auto c = Napi::Object::New(env);
    c.Set("algorithm", algorithmName(coll, choice.algorithm));
    c.Set("reason", choice.reason);
    out.Set("choice", c);
  } else {
    out.Set("choice", env.Null());
  }
  out.Set("predictions", predictions);
  return out;
}

template <typename T>
T typedArg(Napi::Env env, const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (!v.IsTypedArray()) throwType(env, std::string("machine.") + key + " must be a typed array");
  return v.As<T>();
}

// simulateHockney(collective, algorithm, p, options, machine) -> {seconds, rounds, messages,
// bytes, alcd, note}: the timing simulation of src/model/simulate.ts for models whose message
// time and port occupancy are both α + nβ (hockney; contention, whose switch waits add to β),
// run in C++ over the builders' schedules: minutes of JavaScript become seconds at 8192 ranks.
// machine: {costs: Float64Array [α, β] per (level, hops) entry, usesNic: Uint8Array per entry,
// signalAlpha: Float64Array per entry (optional: a flag's latency, else α), exchangeBeta:
// Float64Array per entry (optional: β of a send to a rank that sends back in the round, else β),
// stride (hops + 1), levelByScope: [socket, node, system] level indices, node, socket, nic:
// Int32Array per rank, hops, nodesPerSwitch (0: unknown), copyBeta, gamma (seconds per byte
// combined), roundOverhead (optional, seconds per round entered), blockBytes, progress (optional:
// (phase, done, total) now and then, phase 'build' counting ranks and 'replay' counting rounds of
// all ranks)}.
Napi::Value SimulateHockney(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Collective coll = collectiveArg(info[0]);
  int algorithm = algorithmOf(coll, info[1]);
  int p = static_cast<int>(intArg(info[2], "p", 1, 1 << 24));
  ModelOptions o;
  optionsOf(env, info[3], p, &o);
  if (!info[4].IsObject()) throwType(env, "machine must be an object");
  Napi::Object mo = info[4].As<Napi::Object>();
  auto costs = typedArg<Napi::Float64Array>(env, mo, "costs");
  auto uses_nic = typedArg<Napi::Uint8Array>(env, mo, "usesNic");
  auto node = typedArg<Napi::Int32Array>(env, mo, "node");
  auto socket = typedArg<Napi::Int32Array>(env, mo, "socket");
  auto nic = typedArg<Napi::Int32Array>(env, mo, "nic");
  auto by_scope = typedArg<Napi::Int32Array>(env, mo, "levelByScope");
  int stride = static_cast<int>(intArg(mo.Get("stride"), "machine.stride", 1, 1 << 16));
  int hops = static_cast<int>(intArg(mo.Get("hops"), "machine.hops", 0, 1 << 16));
  int per_switch = static_cast<int>(intArg(mo.Get("nodesPerSwitch"), "machine.nodesPerSwitch", 0, 1 << 24));
  size_t entries = uses_nic.ElementLength();
  if (costs.ElementLength() != 2 * entries || entries % stride != 0) throwType(env, "machine.costs must hold [alpha, beta] for every usesNic entry");
  if (node.ElementLength() != size_t(p) || socket.ElementLength() != size_t(p) || nic.ElementLength() != size_t(p)) {
    throwType(env, "machine.node, socket and nic must have one entry per rank");
  }
  if (by_scope.ElementLength() != 3) throwType(env, "machine.levelByScope must have 3 entries");
  for (size_t i = 0; i < 3; ++i) {
    if (by_scope[i] < 0 || size_t(by_scope[i]) * stride >= entries) throwType(env, "machine.levelByScope names a level without costs");
  }
  if (hops >= stride) throwType(env, "machine.hops must be below machine.stride");

  model::HockneyMachine m;
  for (size_t i = 0; i < entries; ++i) m.levels.push_back({costs[2 * i], costs[2 * i + 1], uses_nic[i] != 0});
  // Optional per-entry figures; absent, the level's alpha or beta stands in.
  auto perEntry = [&](const char* key, double model::LinkCost::*field) {
    if (!mo.Has(key) || mo.Get(key).IsUndefined()) return;
    auto values = typedArg<Napi::Float64Array>(env, mo, key);
    if (values.ElementLength() != entries) throwType(env, std::string("machine.") + key + " must have one entry per usesNic entry");
    for (size_t i = 0; i < entries; ++i) m.levels[i].*field = values[i];
  };
  perEntry("signalAlpha", &model::LinkCost::signal_alpha);
  perEntry("exchangeBeta", &model::LinkCost::exchange_beta);
  m.nic.assign(nic.Data(), nic.Data() + p);
  m.copy_beta = numberArg(env, mo, "copyBeta");
  m.gamma = numberArg(env, mo, "gamma");
  if (mo.Has("roundOverhead") && !mo.Get("roundOverhead").IsUndefined()) m.round_overhead = numberArg(env, mo, "roundOverhead");
  // The level and switch hops of src/model/placement.ts's Topology.
  std::vector<int> nodes(node.Data(), node.Data() + p), sockets(socket.Data(), socket.Data() + p);
  int level_socket = by_scope[0], level_node = by_scope[1], level_system = by_scope[2];
  m.level_of = [=, nodes = std::move(nodes), sockets = std::move(sockets)](int a, int b) {
    if (nodes[a] == nodes[b]) return (sockets[a] == sockets[b] ? level_socket : level_node) * stride;
    int h = per_switch > 0 && nodes[a] / per_switch == nodes[b] / per_switch ? 1 : hops;
    return level_system * stride + h;
  };
  double block_bytes = numberArg(env, mo, "blockBytes");

  Hierarchy hierarchy;
  if (!o.nodes.empty()) hierarchy = hierarchyOf(o.nodes, 0);
  // A remapped allgather's pi, once for all ranks (as the engine caches it per communicator).
  mapping::RankMapping remap;
  const char* remap_base = coll == Collective::Allgather ? mapping::remappedAllgatherBase(algorithm) : nullptr;
  if (remap_base) remap = mapping::allgatherRankMapping(remap_base, mapping::nodeOfSlot(o.nodes.empty() ? nullptr : &hierarchy, p));
  // Optional: progress(phase, done, total), phase 'build' (ranks) or 'replay' (rounds of all ranks).
  Napi::Function progress;
  if (mo.Has("progress") && mo.Get("progress").IsFunction()) progress = mo.Get("progress").As<Napi::Function>();
  auto report = [&](const char* phase, int64_t done, int64_t total) {
    progress.Call({Napi::String::New(env, phase), Napi::Number::New(env, static_cast<double>(done)), Napi::Number::New(env, static_cast<double>(total))});
  };
  // Packed as built, one rank's Schedule and CompactSchedule at a time.
  std::vector<model::PackedSchedule> schedules(p);
  model::CompactSchedule compacted;
  std::string note, error;
  for (int r = 0; r < p; ++r) {
    BuildParams bp = o.params;
    bp.rank = r;
    if (!o.nodes.empty()) bp.hierarchy = &hierarchy;
    if (remap_base) bp.mapping = &remap;
    Schedule s;
    if (!buildSchedule(coll, algorithm, bp, &s, &error)) throwRange(env, error);
    if (r == 0) note = s.note;
    if (!model::compact(s, p, &compacted, &error)) throwRange(env, "rank " + std::to_string(r) + ": " + error);
    model::pack(compacted, r, &schedules[r]);
    if (!progress.IsEmpty() && (r + 1) % 256 == 0) report("build", r + 1, p);
  }
  model::ReplayProgress replayed;
  if (!progress.IsEmpty()) replayed = [&](int64_t done, int64_t total) { report("replay", done, total); };
  model::Prediction pr = model::predict(schedules, m, block_bytes, replayed);
  if (!pr.ok) throwRange(env, std::string(collectiveEntry(coll).name) + " " + algorithmName(coll, algorithm) + ": " + pr.error);
  auto out = Napi::Object::New(env);
  out.Set("seconds", pr.seconds);
  out.Set("rounds", pr.rounds);
  out.Set("messages", Napi::Number::New(env, static_cast<double>(pr.messages)));
  out.Set("bytes", pr.bytes);
  out.Set("alcd", pr.alcd);
  out.Set("note", note);
  return out;
}

}  // namespace

void initModel(Napi::Env env, Napi::Object exports) {
  exports.Set("compiledSchedule", Napi::Function::New(env, CompiledSchedule));
  exports.Set("predictAlgorithms", Napi::Function::New(env, PredictAlgorithms));
  exports.Set("simulateHockney", Napi::Function::New(env, SimulateHockney));
}

}  // namespace topocoll::addon
