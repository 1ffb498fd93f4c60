// The models' view of the engine, no MPI needed: the timing model (native/engine/model/) over
// the builders' schedules or compiled schedules (`topocoll simulate`, `tune`), the compact form
// and event records the symbolic replay (src/model/replay.ts) reads, and the engine's own
// predictions (TOPOCOLL_SELECT=model, `explain`).
#include <algorithm>
#include <cmath>
#include <iterator>

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

// An Int32Array at o[key] (machine.<key> in messages).
Napi::Int32Array int32Arg(Napi::Env env, const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) throwType(env, std::string("machine.") + key + " must be an Int32Array");
  return v.As<Napi::Int32Array>();
}

// The machine and model of simulateSchedules/simulateCompiled, as the replay takes them.
struct Simulation {
  model::ModelMachine machine;
  double block_bytes = 0;
  Napi::Function progress;
};

// machine: {levels: [{alpha, beta, exchangeBeta, signalAlpha, overhead, gap, usesNic}] (innermost
// first), levelByScope: Int32Array [socket, node, system] level indices, node, socket, nic:
// Int32Array per rank, hops (switches between nodes under different leaf switches),
// nodesPerSwitch (0: unknown, every message between nodes crosses `hops`), copyBeta, gamma
// (seconds per byte combined), roundOverhead (seconds per round entered)}. timing: {model:
// 'hockney' | 'loggp' | 'contention', switchWait (contention: seconds of mean switch wait per byte
// and switch crossed), blockBytes (bytes of one block; bcast, reductions: one element), progress
// (optional: (phase, done, total) now and then)}. The level and hops of a pair of ranks are those
// of src/model/placement.ts's Topology.
void simulationOf(Napi::Env env, const Napi::Value& machine, const Napi::Value& timing, int p, Simulation* out) {
  if (!machine.IsObject()) throwType(env, "machine must be an object");
  if (!timing.IsObject()) throwType(env, "timing must be an object");
  Napi::Object mo = machine.As<Napi::Object>(), to = timing.As<Napi::Object>();
  model::ModelMachine& m = out->machine;
  std::string name = to.Get("model").IsString() ? to.Get("model").As<Napi::String>().Utf8Value() : "";
  if (name == "hockney") m.cost = model::CostModel::Hockney;
  else if (name == "loggp") m.cost = model::CostModel::LogGP;
  else if (name == "contention") m.cost = model::CostModel::Contention;
  else throwType(env, "timing.model must be hockney, loggp or contention");
  if (m.cost == model::CostModel::Contention) m.switch_wait = numberArg(env, to, "switchWait", "timing.switchWait");
  out->block_bytes = numberArg(env, to, "blockBytes", "timing.blockBytes");
  if (to.Has("progress") && to.Get("progress").IsFunction()) out->progress = to.Get("progress").As<Napi::Function>();

  if (!mo.Get("levels").IsArray() || mo.Get("levels").As<Napi::Array>().Length() == 0) throwType(env, "machine.levels must be a non-empty array");
  auto levels = mo.Get("levels").As<Napi::Array>();
  auto node = int32Arg(env, mo, "node");
  auto socket = int32Arg(env, mo, "socket");
  auto nic = int32Arg(env, mo, "nic");
  auto by_scope = int32Arg(env, mo, "levelByScope");
  const int hops = static_cast<int>(intArg(mo.Get("hops"), "machine.hops", 0, 1 << 16));
  const int per_switch = static_cast<int>(intArg(mo.Get("nodesPerSwitch"), "machine.nodesPerSwitch", 0, 1 << 24));
  if (node.ElementLength() != size_t(p) || socket.ElementLength() != size_t(p) || nic.ElementLength() != size_t(p)) {
    throwType(env, "machine.node, socket and nic must have one entry per rank");
  }
  for (int r = 0; r < p; ++r) {
    if (node[r] < 0 || socket[r] < 0 || nic[r] < 0) throwType(env, "machine.node, socket and nic must be non-negative (rank " + std::to_string(r) + ")");
  }
  if (by_scope.ElementLength() != 3) throwType(env, "machine.levelByScope must have 3 entries");
  for (size_t i = 0; i < 3; ++i) {
    if (by_scope[i] < 0 || by_scope[i] >= static_cast<int32_t>(levels.Length())) throwType(env, "machine.levelByScope names a level that machine.levels lacks");
  }
  // One entry per (level, switch hops): the contention model's waits depend on the hops.
  const int stride = hops + 1;
  for (uint32_t i = 0; i < levels.Length(); ++i) {
    if (!levels.Get(i).IsObject()) throwType(env, "machine.levels[" + std::to_string(i) + "] must be an object");
    Napi::Object lo = levels.Get(i).As<Napi::Object>();
    const std::string at = "machine.levels[" + std::to_string(i) + "].";
    model::LinkCost l;
    l.alpha = numberArg(env, lo, "alpha", at + "alpha");
    l.beta = numberArg(env, lo, "beta", at + "beta");
    l.exchange_beta = numberArg(env, lo, "exchangeBeta", at + "exchangeBeta");
    l.signal_alpha = numberArg(env, lo, "signalAlpha", at + "signalAlpha");
    l.overhead = numberArg(env, lo, "overhead", at + "overhead");
    l.gap = numberArg(env, lo, "gap", at + "gap");
    l.uses_nic = lo.Get("usesNic").ToBoolean();
    for (int h = 0; h < stride; ++h) {
      l.hops = h;
      m.levels.push_back(l);
    }
  }
  m.nic.assign(nic.Data(), nic.Data() + p);
  m.copy_beta = numberArg(env, mo, "copyBeta");
  m.gamma = numberArg(env, mo, "gamma");
  m.round_overhead = numberArg(env, mo, "roundOverhead");
  std::vector<int> nodes(node.Data(), node.Data() + p), sockets(socket.Data(), socket.Data() + p);
  const int level_socket = by_scope[0], level_node = by_scope[1], level_system = by_scope[2];
  m.level_of = [=, nodes = std::move(nodes), sockets = std::move(sockets)](int a, int b) {
    if (nodes[a] == nodes[b]) return (sockets[a] == sockets[b] ? level_socket : level_node) * stride;
    int h = per_switch > 0 && nodes[a] / per_switch == nodes[b] / per_switch ? 1 : hops;
    return level_system * stride + h;
  };
}

// Now and then: progress(phase, done, total), phase 'build' (ranks) or 'replay' (rounds of all ranks).
void report(const Simulation& sim, const char* phase, int64_t done, int64_t total) {
  Napi::Env env = sim.progress.Env();
  sim.progress.Call({Napi::String::New(env, phase), Napi::Number::New(env, static_cast<double>(done)), Napi::Number::New(env, static_cast<double>(total))});
}

// Replays the packed schedules; a deadlock or a size mismatch throws a RangeError led by `what`.
Napi::Object simulated(Napi::Env env, const std::vector<model::PackedSchedule>& schedules, const Simulation& sim, const std::string& what,
                       const std::string& note) {
  model::ReplayProgress replayed;
  if (!sim.progress.IsEmpty()) replayed = [&](int64_t done, int64_t total) { report(sim, "replay", done, total); };
  model::Prediction pr = model::predict(schedules, sim.machine, sim.block_bytes, replayed);
  if (!pr.ok) throwRange(env, what + pr.error);
  auto out = Napi::Object::New(env);
  out.Set("seconds", pr.seconds);
  out.Set("rounds", pr.rounds);
  out.Set("messages", Napi::Number::New(env, static_cast<double>(pr.messages)));
  out.Set("bytes", pr.bytes);
  out.Set("alcd", pr.alcd);
  out.Set("note", note);
  return out;
}

// simulateSchedules(collective, algorithm, p, options, machine, timing) -> {seconds, rounds,
// messages, bytes, alcd, note}: the timing model over the builders' schedules (options: those of
// buildSchedule), built and packed here one rank at a time: a pairwise alltoall on 8192 ranks
// never exists as JS objects. machine, timing: see simulationOf.
Napi::Value SimulateSchedules(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Collective coll = collectiveArg(info[0]);
  int algorithm = algorithmArg(coll, info[1]);
  int p = static_cast<int>(intArg(info[2], "p", 1, 1 << 24));
  ModelOptions o;
  optionsOf(env, info[3], p, &o);
  Simulation sim;
  simulationOf(env, info[4], info[5], p, &sim);

  Hierarchy hierarchy;
  if (!o.nodes.empty()) hierarchy = hierarchyOf(o.nodes, 0);
  // A remapped allgather's pi, once for all ranks (as the engine caches it per communicator).
  mapping::RankMapping remap;
  const char* remap_base = coll == Collective::Allgather ? mapping::remappedAllgatherBase(algorithm) : nullptr;
  if (remap_base) remap = mapping::allgatherRankMapping(remap_base, mapping::nodeOfSlot(o.nodes.empty() ? nullptr : &hierarchy, p));
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
    if (!model::compact(s, r, p, &compacted, &error)) throwRange(env, error);
    model::pack(compacted, r, &schedules[r]);
    if (!sim.progress.IsEmpty() && (r + 1) % 256 == 0) report(sim, "build", r + 1, p);
  }
  return simulated(env, schedules, sim, std::string(collectiveEntry(coll).name) + " " + algorithmName(coll, algorithm) + ": ", note);
}

// ranks[r] = {stream: Int32Array, rounds, unitsPerBlock, flags?: {slot: Uint8Array, stage:
// Int32Array}}: compiled schedules (compiledObject's, or made by hand), checked and packed.
std::vector<model::PackedSchedule> compiledRanks(Napi::Env env, const Napi::Value& value) {
  if (!value.IsArray() || value.As<Napi::Array>().Length() == 0) throwType(env, "ranks must be a non-empty array of compiled schedules");
  auto ranks = value.As<Napi::Array>();
  const int p = static_cast<int>(ranks.Length());
  std::vector<model::PackedSchedule> schedules(p);
  model::CompactSchedule c;
  std::string error;
  for (int r = 0; r < p; ++r) {
    const std::string at = "ranks[" + std::to_string(r) + "]";
    if (!ranks.Get(r).IsObject()) throwType(env, at + " must be a compiled schedule");
    Napi::Object ro = ranks.Get(r).As<Napi::Object>();
    if (!ro.Get("stream").IsTypedArray() || ro.Get("stream").As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
      throwType(env, at + ".stream must be an Int32Array");
    }
    auto stream = ro.Get("stream").As<Napi::Int32Array>();
    c.stream.assign(stream.Data(), stream.Data() + stream.ElementLength());
    c.rounds = static_cast<int>(intArg(ro.Get("rounds"), (at + ".rounds").c_str(), 0, INT32_MAX));
    c.units_per_block = intArg(ro.Get("unitsPerBlock"), (at + ".unitsPerBlock").c_str(), 1, INT32_MAX);
    c.flag_slot.clear();
    c.flag_stage.clear();
    if (ro.Get("flags").IsObject()) {
      Napi::Object fo = ro.Get("flags").As<Napi::Object>();
      if (!fo.Get("slot").IsTypedArray() || fo.Get("slot").As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array ||
          !fo.Get("stage").IsTypedArray() || fo.Get("stage").As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
        throwType(env, at + ".flags must be {slot: Uint8Array, stage: Int32Array}");
      }
      auto slot = fo.Get("slot").As<Napi::Uint8Array>();
      auto stage = fo.Get("stage").As<Napi::Int32Array>();
      c.flag_slot.assign(slot.Data(), slot.Data() + slot.ElementLength());
      c.flag_stage.assign(stage.Data(), stage.Data() + stage.ElementLength());
    }
    if (!model::checkCompact(c, p, &error)) throwRange(env, "rank " + std::to_string(r) + ": " + error);
    model::pack(c, r, &schedules[r]);
  }
  return schedules;
}

// simulateCompiled(ranks, machine, timing) -> the same, for compiled schedules (compiledRanks;
// the tests' reference builders, through compileSchedule).
Napi::Value SimulateCompiled(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<model::PackedSchedule> schedules = compiledRanks(env, info[0]);
  Simulation sim;
  simulationOf(env, info[1], info[2], static_cast<int>(schedules.size()), &sim);
  return simulated(env, schedules, sim, "", "");
}

// replayEvents(ranks, onEvents) -> null, or the deadlock or size mismatch that stopped the
// replay: the progression of compiled schedules (compiledRanks) without timing, its events
// (model::ReplayEvent records) handed to onEvents(Int32Array) in chunks, for the symbolic
// replay (src/model/replay.ts). An exception thrown by onEvents stops the replay and propagates.
Napi::Value ReplayEvents(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<model::PackedSchedule> schedules = compiledRanks(env, info[0]);
  if (!info[1].IsFunction()) throwType(env, "onEvents must be a function");
  Napi::Function on_events = info[1].As<Napi::Function>();
  const std::string error = model::replayEvents(schedules, [&](const int32_t* records, size_t words) {
    auto chunk = Napi::Int32Array::New(env, words);
    std::copy(records, records + words, chunk.Data());
    on_events.Call({chunk});
  });
  return error.empty() ? env.Null() : Napi::Value(Napi::String::New(env, error));
}

// A typed array holding a copy of `values` (a vector or an array).
template <typename Array, typename Values>
Array typedArrayOf(Napi::Env env, const Values& values) {
  auto a = Array::New(env, std::size(values));
  std::copy(std::begin(values), std::end(values), a.Data());
  return a;
}

// The compact form's codes and the event records, as src/model/replay.ts reads them: {copyCode,
// signalCode, waitCode, reduceCode, buffers (names by BufferId), events: {roundStart, match,
// signal, flagPass, roundEnd}, eventWords (words of a record, by kind)}.
Napi::Object modelLayout(Napi::Env env) {
  auto o = Napi::Object::New(env);
  o.Set("copyCode", model::kCopyCode);
  o.Set("signalCode", model::kSignalCode);
  o.Set("waitCode", model::kWaitCode);
  o.Set("reduceCode", model::kReduceCode);
  auto buffers = Napi::Array::New(env);
  for (BufferId id : {BufferId::None, BufferId::Send, BufferId::Recv, BufferId::Tmp, BufferId::Shm}) {
    buffers.Set(static_cast<uint32_t>(id), bufferName(id));
  }
  o.Set("buffers", buffers);
  auto events = Napi::Object::New(env);
  events.Set("roundStart", static_cast<int32_t>(model::ReplayEvent::RoundStart));
  events.Set("match", static_cast<int32_t>(model::ReplayEvent::Match));
  events.Set("signal", static_cast<int32_t>(model::ReplayEvent::Signal));
  events.Set("flagPass", static_cast<int32_t>(model::ReplayEvent::FlagPass));
  events.Set("roundEnd", static_cast<int32_t>(model::ReplayEvent::RoundEnd));
  o.Set("events", events);
  o.Set("eventWords", typedArrayOf<Napi::Int32Array>(env, model::kReplayEventWords));
  return o;
}

}  // namespace

Napi::Object compiledObject(Napi::Env env, const Schedule& s, int rank, int p, bool with_spans) {
  model::CompactSchedule c;
  model::CompactSpans spans;
  std::string error;
  if (!model::compact(s, rank, p, &c, &error, with_spans ? &spans : nullptr)) throwRange(env, error);
  auto out = Napi::Object::New(env);
  out.Set("rounds", c.rounds);
  out.Set("stream", typedArrayOf<Napi::Int32Array>(env, c.stream));
  out.Set("unitsPerBlock", Napi::Number::New(env, static_cast<double>(c.units_per_block)));
  if (!c.flag_slot.empty()) {
    auto flags = Napi::Object::New(env);
    flags.Set("slot", typedArrayOf<Napi::Uint8Array>(env, c.flag_slot));
    flags.Set("stage", typedArrayOf<Napi::Int32Array>(env, c.flag_stage));
    out.Set("flags", flags);
  }
  if (with_spans) {
    auto o = Napi::Object::New(env);
    o.Set("srcBuf", typedArrayOf<Napi::Uint8Array>(env, spans.src_buf));
    o.Set("srcFirst", typedArrayOf<Napi::Int32Array>(env, spans.src_first));
    o.Set("dstBuf", typedArrayOf<Napi::Uint8Array>(env, spans.dst_buf));
    o.Set("dstFirst", typedArrayOf<Napi::Int32Array>(env, spans.dst_first));
    o.Set("dstFirstOrder", typedArrayOf<Napi::Uint8Array>(env, spans.dst_first_order));
    out.Set("spans", o);
  }
  return out;
}

void initModel(Napi::Env env, Napi::Object exports) {
  exports.Set("modelLayout", modelLayout(env));
  setFunctions(env, exports, {{"predictAlgorithms", PredictAlgorithms},
                              {"simulateSchedules", SimulateSchedules},
                              {"simulateCompiled", SimulateCompiled},
                              {"replayEvents", ReplayEvents}});
}

}  // namespace topocoll::addon
