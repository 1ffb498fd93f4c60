// Tools' view of the engine, no MPI needed: schedules as data, the selection, the configuration.
#include <cmath>

#include "addon.h"
#include "algorithm_registry.h"
#include "config.h"
#include "engine.h"
#include "hierarchy/hierarchy.h"
#include "select.h"

namespace topocoll::addon {
namespace {

Napi::Object spanObject(Napi::Env env, const BlockSpan& s) {
  auto o = Napi::Object::New(env);
  o.Set("buf", bufferName(s.buf));
  o.Set("first", Napi::Number::New(env, static_cast<double>(s.first)));
  o.Set("count", Napi::Number::New(env, static_cast<double>(s.count)));
  return o;
}

const char* shmUseName(ShmUse u) { return u == ShmUse::Data ? "data" : u == ShmUse::Flags ? "flags" : "none"; }

// A schedule given as JS objects (buildSchedule's form, or one a test made) as the engine's
// Schedule: what JS can get wrong that C++ cannot (a kind or buffer by name, numbers that are
// not whole, a missing span) is a RangeError here, naming the rank, round and op; the rest is
// model::compact's to check.
class ScheduleReader {
 public:
  ScheduleReader(Napi::Env env, int p) : env_(env), p_(p) {}

  Schedule read(const Napi::Value& value) {
    if (!value.IsObject()) throwRange(env_, "a schedule must be an object");
    Napi::Object o = value.As<Napi::Object>();
    const int64_t rank = whole(o, "rank", INT32_MIN, INT32_MAX);
    if (rank < 0 || rank >= p_) fail("rank " + std::to_string(rank) + " is not a rank of a " + std::to_string(p_) + "-rank communicator");
    rank_ = static_cast<int>(rank);
    Schedule s;
    if (!o.Get("unitsPerBlock").IsUndefined()) s.units_per_block = whole(o, "unitsPerBlock", INT64_MIN, INT64_MAX);
    s.tmp_blocks = whole(o, "tmpBlocks", 0, INT64_MAX);
    if (o.Get("note").IsString()) s.note = o.Get("note").As<Napi::String>().Utf8Value();
    Napi::Value rounds = o.Get("rounds");
    if (!rounds.IsArray()) fail("rounds must be an array of rounds");
    auto ra = rounds.As<Napi::Array>();
    s.rounds.resize(ra.Length());
    for (round_ = 0; round_ < static_cast<int64_t>(ra.Length()); ++round_) {
      Napi::Value round = ra.Get(static_cast<uint32_t>(round_));
      if (!round.IsArray()) fail("must be an array of ops");
      auto ops = round.As<Napi::Array>();
      std::vector<Op>& out = s.rounds[round_].ops;
      out.resize(ops.Length());
      for (op_ = 0; op_ < static_cast<int64_t>(ops.Length()); ++op_) out[op_] = readOp(ops.Get(static_cast<uint32_t>(op_)));
      op_ = -1;
    }
    return s;
  }

  int rank() const { return rank_; }

 private:
  // "rank R round N op K (kind): detail", as far as the reader got.
  [[noreturn]] void fail(const std::string& detail) const {
    std::string at = rank_ < 0 ? "schedule" : "rank " + std::to_string(rank_);
    if (round_ >= 0) at += " round " + std::to_string(round_);
    if (op_ >= 0) at += " op " + std::to_string(op_) + (kind_.empty() ? "" : " (" + kind_ + ")");
    throwRange(env_, at + ": " + detail);
  }

  // o[key], a whole number in [min, max].
  int64_t whole(const Napi::Object& o, const char* key, int64_t min, int64_t max) const {
    Napi::Value v = o.Get(key);
    const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : 0.5;
    if (!(std::abs(d) <= 9007199254740992.0) || d != std::trunc(d) || d < static_cast<double>(min) || d > static_cast<double>(max)) {
      fail(std::string(key) + " must be a whole number" + (min == 0 ? " (0 or more)" : "") + ", got " + v.ToString().Utf8Value());
    }
    return static_cast<int64_t>(d);
  }

  BlockSpan readSpan(const Napi::Object& op, const char* key) const {
    Napi::Value v = op.Get(key);
    if (!v.IsObject()) fail("missing block span");
    Napi::Object o = v.As<Napi::Object>();
    const std::string name = o.Get("buf").ToString().Utf8Value();
    BlockSpan out;
    for (BufferId id : {BufferId::Send, BufferId::Recv, BufferId::Tmp, BufferId::Shm}) {
      if (name == bufferName(id)) out.buf = id;
    }
    if (out.buf == BufferId::None) fail("unknown buffer '" + name + "' (send, recv, tmp, shm)");
    out.first = whole(o, "first", INT64_MIN, INT64_MAX);
    out.count = whole(o, "count", INT64_MIN, INT64_MAX);
    return out;
  }

  Op readOp(const Napi::Value& value) {
    kind_.clear();
    if (!value.IsObject()) fail("an op must be an object");
    Napi::Object o = value.As<Napi::Object>();
    kind_ = o.Get("kind").ToString().Utf8Value();
    Op op;
    bool known = false;
    for (OpKind k : {OpKind::Send, OpKind::Recv, OpKind::Copy, OpKind::FlagSignal, OpKind::FlagWait, OpKind::Reduce}) {
      if (kind_ == opKindName(k)) op.kind = k, known = true;
    }
    if (!known) fail("unknown op kind");
    if (op.kind != OpKind::Copy && op.kind != OpKind::Reduce) op.peer = static_cast<int>(whole(o, "peer", INT32_MIN, INT32_MAX));
    if (op.kind == OpKind::FlagSignal || op.kind == OpKind::FlagWait) {
      op.slot = static_cast<int>(whole(o, "slot", INT32_MIN, INT32_MAX));
      op.stage = whole(o, "stage", INT64_MIN, INT64_MAX);
      return op;
    }
    if (op.kind != OpKind::Recv) op.src = readSpan(o, "src");
    if (op.kind != OpKind::Send) op.dst = readSpan(o, "dst");
    if (op.kind == OpKind::Reduce) {
      const std::string order = o.Get("order").ToString().Utf8Value();
      if (order != "src_first" && order != "dst_first") fail("order must be 'src_first' or 'dst_first', got " + order);
      op.order = order == "src_first" ? ReduceOrder::SrcFirst : ReduceOrder::DstFirst;
    }
    return op;
  }

  Napi::Env env_;
  int p_;
  // Where the reader is, for messages: -1 while not known yet.
  int rank_ = -1;
  int64_t round_ = -1, op_ = -1;
  std::string kind_;
};

// An optional array of p whole numbers (the per-rank part of a hierarchy), or empty.
std::vector<int> perRankArg(const Napi::Object& opts, const char* key, int p) {
  std::vector<int> out;
  if (!opts.Has(key) || opts.Get(key).IsUndefined()) return out;
  Napi::Value v = opts.Get(key);
  if (!v.IsArray() || v.As<Napi::Array>().Length() != static_cast<uint32_t>(p)) {
    throwType(v.Env(), std::string(key) + " must be an array of " + std::to_string(p) + " numbers (one per rank)");
  }
  auto a = v.As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); ++i) out.push_back(static_cast<int>(intArg(a.Get(i), key, 0, 1 << 20)));
  return out;
}

}  // namespace

void reductionOptions(const Napi::Object& opts, int p, BuildParams* bp, std::vector<int64_t>* recv_counts) {
  if (opts.Has("commutative") && !opts.Get("commutative").IsUndefined()) bp->commutative = opts.Get("commutative").ToBoolean();
  recv_counts->clear();
  if (!opts.Has("recvCounts") || opts.Get("recvCounts").IsUndefined()) return;
  Napi::Value v = opts.Get("recvCounts");
  if (!v.IsArray() || v.As<Napi::Array>().Length() != static_cast<uint32_t>(p)) {
    throwType(v.Env(), "recvCounts must be an array of " + std::to_string(p) + " numbers (one per rank)");
  }
  auto a = v.As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); ++i) recv_counts->push_back(intArg(a.Get(i), "recvCounts", 0, INT64_MAX / 2));
  bp->recv_counts = recv_counts;
}

namespace {

// The schedule of buildSchedule's arguments (collective, algorithm, p, rank, {count, root,
// inPlace, maxOutstanding, segmentBlocks, nodes, sockets, numa (per rank), elementBytes,
// shmElements, bcastConcurrency, tileBytes, commutative, recvCounts}), built; *bp: what it was
// built for.
Schedule builtArg(const Napi::CallbackInfo& info, Collective* coll, int* algorithm, BuildParams* bp) {
  Napi::Env env = info.Env();
  *coll = collectiveArg(info[0]);
  *algorithm = algorithmArg(*coll, info[1]);
  bp->p = static_cast<int>(intArg(info[2], "p", 1, 1 << 24));
  bp->rank = static_cast<int>(intArg(info[3], "rank", 0, bp->p - 1));
  Napi::Object opts = info[4].IsObject() ? info[4].As<Napi::Object>() : Napi::Object::New(env);
  auto opt = [&](const char* key, int64_t dflt, int64_t min, int64_t max) {
    return opts.Has(key) && !opts.Get(key).IsUndefined() ? intArg(opts.Get(key), key, min, max) : dflt;
  };
  bp->count = opt("count", 1, 0, INT64_MAX / 2);
  bp->root = static_cast<int>(opt("root", 0, 0, bp->p - 1));
  bp->in_place = opts.Has("inPlace") && opts.Get("inPlace").ToBoolean();
  bp->max_outstanding = static_cast<int>(opt("maxOutstanding", config().get(Parameter::AlltoallMaxOutstanding), 1, 1 << 20));
  bp->segment_blocks = opt("segmentBlocks", 0, 0, INT64_MAX / 2);
  bp->element_bytes = opt("elementBytes", 0, 0, INT64_MAX / 2);
  bp->shm_elements = opt("shmElements", 0, 0, INT64_MAX / 2);
  bp->bcast_concurrency = static_cast<int>(opt("bcastConcurrency", 0, 0, 1 << 20));
  bp->tile_bytes = opt("tileBytes", 0, 0, INT64_MAX / 2);
  std::vector<int64_t> recv_counts;
  reductionOptions(opts, bp->p, bp, &recv_counts);
  // A hierarchy given per rank (e.g. a virtual-node layout); without one, one node.
  std::vector<int> nodes = perRankArg(opts, "nodes", bp->p), sockets = perRankArg(opts, "sockets", bp->p),
                   numa = perRankArg(opts, "numa", bp->p);
  Hierarchy hierarchy;
  if (!nodes.empty() || !sockets.empty() || !numa.empty()) {
    std::vector<RankPlace> places(bp->p);
    for (int r = 0; r < bp->p; ++r) {
      if (!nodes.empty()) places[r].node = nodes[r];
      if (!sockets.empty()) {
        places[r].socket = sockets[r];
        places[r].binding = Binding::Core;  // a socket given is a placement that lasts, as a bound rank's
      }
      if (!numa.empty()) places[r].numa = numa[r];
    }
    hierarchy = Hierarchy::fromPlaces(std::move(places), bp->rank);
    bp->hierarchy = &hierarchy;
  }
  Schedule s;
  std::string error;
  if (!buildSchedule(*coll, *algorithm, *bp, &s, &error)) throwRange(env, error);
  // What they pointed to is gone with this frame.
  bp->hierarchy = nullptr;
  bp->recv_counts = nullptr;
  return s;
}

// What buildSchedule's and buildCompiled's objects say besides the ops: the request, the
// buffers it needs, the note and the shared-memory use.
void setHeader(Napi::Object out, Collective coll, int algorithm, const BuildParams& bp, const Schedule& s) {
  Napi::Env env = out.Env();
  out.Set("collective", collectiveEntry(coll).name);
  out.Set("algorithm", algorithmName(coll, algorithm));
  out.Set("p", bp.p);
  out.Set("rank", bp.rank);
  out.Set("count", Napi::Number::New(env, static_cast<double>(bp.count)));
  out.Set("root", bp.root);
  out.Set("inPlace", bp.in_place);
  out.Set("tmpBlocks", Napi::Number::New(env, static_cast<double>(s.tmp_blocks)));
  out.Set("note", s.note);
  out.Set("unitsPerBlock", Napi::Number::New(env, static_cast<double>(s.units_per_block)));
  out.Set("shm", shmUseName(s.shm));
}

// buildSchedule(collective, algorithm, p, rank, options) -> the schedule as objects (builtArg).
Napi::Value BuildSchedule(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Collective coll;
  int algorithm;
  BuildParams bp;
  Schedule s = builtArg(info, &coll, &algorithm, &bp);
  auto out = Napi::Object::New(env);
  setHeader(out, coll, algorithm, bp, s);
  auto rounds = Napi::Array::New(env, s.rounds.size());
  for (size_t i = 0; i < s.rounds.size(); ++i) {
    const auto& ops = s.rounds[i].ops;
    auto round = Napi::Array::New(env, ops.size());
    for (size_t j = 0; j < ops.size(); ++j) {
      const Op& op = ops[j];
      auto o = Napi::Object::New(env);
      o.Set("kind", opKindName(op.kind));
      if (op.kind != OpKind::Copy && op.kind != OpKind::Reduce) o.Set("peer", op.peer);
      if (op.kind == OpKind::Reduce) o.Set("order", op.order == ReduceOrder::SrcFirst ? "src_first" : "dst_first");
      if (op.kind == OpKind::FlagSignal || op.kind == OpKind::FlagWait) {
        o.Set("slot", op.slot);
        o.Set("stage", Napi::Number::New(env, static_cast<double>(op.stage)));
      } else {
        if (op.kind != OpKind::Recv) o.Set("src", spanObject(env, op.src));
        if (op.kind != OpKind::Send) o.Set("dst", spanObject(env, op.dst));
      }
      round.Set(j, o);
    }
    rounds.Set(i, round);
  }
  out.Set("rounds", rounds);
  return out;
}

// buildCompiled(collective, algorithm, p, rank, options) -> the same schedule compiled, with its
// spans (compiledObject): built and flattened here, no op ever a JS object.
Napi::Value BuildCompiled(const Napi::CallbackInfo& info) {
  Collective coll;
  int algorithm;
  BuildParams bp;
  Schedule s = builtArg(info, &coll, &algorithm, &bp);
  Napi::Object out = compiledObject(info.Env(), s, bp.rank, bp.p, true);
  setHeader(out, coll, algorithm, bp, s);
  return out;
}

// compileSchedule(schedule, p, withSpans) -> a schedule given as objects (ScheduleReader),
// compiled (compiledObject); a RangeError names the rank, round and op of a malformed one.
Napi::Value CompileSchedule(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int p = static_cast<int>(intArg(info[1], "p", 1, 1 << 24));
  ScheduleReader reader(env, p);
  Schedule s = reader.read(info[0]);
  Napi::Object out = compiledObject(env, s, reader.rank(), p, flagArg(info[2]));
  out.Set("rank", reader.rank());
  out.Set("tmpBlocks", Napi::Number::New(env, static_cast<double>(s.tmp_blocks)));
  return out;
}

// selectAlgorithm(collective, p, blockBytes, totalBytes, nodes = 1, nonblocking = false) ->
// {algorithm, reason}, under the configuration of the environment (loadConfig() first).
Napi::Value SelectAlgorithm(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Collective coll = collectiveArg(info[0]);
  int p = static_cast<int>(intArg(info[1], "p", 1, 1 << 24));
  int64_t block = intArg(info[2], "blockBytes", 0, INT64_MAX / 2);
  int64_t total = intArg(info[3], "totalBytes", 0, INT64_MAX / 2);
  int nodes = info.Length() > 4 && !info[4].IsUndefined() ? static_cast<int>(intArg(info[4], "nodes", 1, p)) : 1;
  const bool nonblocking = info.Length() > 5 && flagArg(info[5]);
  Choice c = selectAlgorithm(coll, p, block, total, config(), nodes, nonblocking);
  auto o = Napi::Object::New(env);
  o.Set("algorithm", c.algorithm == kAlgorithmNative ? "native" : algorithmName(coll, c.algorithm));
  o.Set("reason", c.reason);
  return o;
}

// Validates the TOPOCOLL_* environment; throws the message naming the variable.
Napi::Value LoadConfig(const Napi::CallbackInfo& info) {
  std::string error;
  if (!engine::loadConfig(&error)) throw Napi::Error::New(info.Env(), "topocoll: " + error);
  return info.Env().Undefined();
}

// parameter(name) -> a TOPOCOLL_* parameter as the engine parsed it (loadConfig() first): a
// number for booleans and integers, the choice or the text otherwise. TypeScript reads values
// here rather than parsing the environment a second time.
Napi::Value ParameterValue(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string name = info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "";
  for (int i = 0; i < generated::kParameterCount; ++i) {
    const auto& entry = generated::kParameters[i];
    if (name != entry.env) continue;
    auto p = static_cast<Parameter>(i);
    switch (entry.kind) {
      case generated::ParameterKind::Bool:
      case generated::ParameterKind::Int: return Napi::Number::New(env, static_cast<double>(config().get(p)));
      case generated::ParameterKind::Choice: return Napi::String::New(env, entry.choices[config().get(p)]);
      case generated::ParameterKind::String: return Napi::String::New(env, config().text(p));
    }
  }
  std::string valid;
  for (const auto& entry : generated::kParameters) valid += std::string(valid.empty() ? "" : ", ") + entry.env;
  throwType(env, "parameter(name): name \"" + name + "\" is not a parameter; valid choices: " + valid);
}

// Names the native build can run, per collective; and what is wrong with the registry, if anything.
Napi::Value RegisteredAlgorithms(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto o = Napi::Object::New(env);
  for (int c = 0; c < generated::kCollectiveCount; ++c) {
    auto coll = static_cast<Collective>(c);
    auto names = Napi::Array::New(env);
    for (int i = 0; i < collectiveEntry(coll).algorithm_count; ++i) {
      if (findBuilder(coll, i)) names.Set(names.Length(), algorithmName(coll, i));
    }
    o.Set(collectiveEntry(coll).name, names);
  }
  o.Set("problems", checkRegistry());
  return o;
}

}  // namespace

void initSchedules(Napi::Env env, Napi::Object exports) {
  setFunctions(env, exports, {{"buildSchedule", BuildSchedule},
                              {"buildCompiled", BuildCompiled},
                              {"compileSchedule", CompileSchedule},
                              {"selectAlgorithm", SelectAlgorithm},
                              {"loadConfig", LoadConfig},
                              {"parameter", ParameterValue},
                              {"registeredAlgorithms", RegisteredAlgorithms}});
}

}  // namespace topocoll::addon
