// The engine's readers of topology and rules files as JavaScript sees them: the one reader of each
// format (TypeScript converts YAML to JSON with a line map and hands it here), the resolution of a
// topology for a job, the Node path's installTopology/installRules before init, and what the
// engine resolved for the job.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "addon.h"
#include "model/select_model.h"
#include "rules.h"
#include "topology/runtime.h"
#include "topology/topology.h"

namespace topocoll::addon {
namespace {

using topology::Resolved;
using topology::Topology;

// A json::LineMap argument: undefined or null (the JSON text's own lines), or one line per JSON line.
std::optional<std::vector<int>> lineMapArg(const Napi::Value& v) {
  if (v.IsUndefined() || v.IsNull()) return std::nullopt;
  if (!v.IsArray()) throwType(v.Env(), "lines must be an array (the file's line of each JSON line), null or undefined");
  auto a = v.As<Napi::Array>();
  std::vector<int> lines(a.Length());
  for (uint32_t i = 0; i < a.Length(); ++i) lines[i] = static_cast<int>(intArg(a.Get(i), "lines[i]", 0, INT32_MAX));
  return lines;
}

// The (text, source, lines?) arguments of the reader entries.
struct FileArgs {
  std::string text, source;
  std::optional<std::vector<int>> lines;
  explicit FileArgs(const Napi::CallbackInfo& info)
      : text(stringArg(info[0], "text")), source(stringArg(info[1], "source")), lines(lineMapArg(info[2])) {}
  const std::vector<int>* lineMap() const { return lines ? &*lines : nullptr; }
};

// A reader's failure as a JavaScript Error: `prefix` + its message.
void throwUnless(Napi::Env env, bool ok, const std::string& error, const char* prefix = "") {
  if (!ok) throw Napi::Error::New(env, prefix + error);
}

Napi::Object topologyObject(Napi::Env env, const Topology& t) {
  auto o = Napi::Object::New(env);
  o.Set("source", t.source);
  if (!t.name.empty()) o.Set("name", t.name);
  if (!t.description.empty()) o.Set("description", t.description);
  auto levels = Napi::Array::New(env, t.levels.size());
  for (size_t i = 0; i < t.levels.size(); ++i) {
    const auto& l = t.levels[i];
    auto lo = Napi::Object::New(env);
    lo.Set("name", l.name);
    lo.Set("scope", topology::scopeName(l.scope));
    lo.Set("latency", l.latency);
    lo.Set("bandwidth", l.bandwidth);
    if (l.exchange_bandwidth > 0) lo.Set("exchangeBandwidth", l.exchange_bandwidth);
    if (l.overhead > 0) lo.Set("overhead", l.overhead);
    if (l.gap > 0) lo.Set("gap", l.gap);
    if (l.signal_latency >= 0) lo.Set("signalLatency", l.signal_latency);
    if (l.nic >= 0) lo.Set("nic", l.nic == 1);
    lo.Set("line", l.line);
    levels.Set(i, lo);
  }
  o.Set("levels", levels);
  auto lines = Napi::Object::New(env);
  if (t.groups_line > 0) lines.Set("groups", t.groups_line);
  if (t.virtual_nodes_line > 0) lines.Set("virtual_nodes", t.virtual_nodes_line);
  o.Set("lines", lines);
  if (t.reduce_bandwidth > 0) o.Set("reduceBandwidth", t.reduce_bandwidth);
  if (t.copy_bandwidth > 0) o.Set("copyBandwidth", t.copy_bandwidth);
  if (t.round_overhead > 0) o.Set("roundOverhead", t.round_overhead);
  // The models' cost of local work, the file's or the engine's defaults where it says none.
  const model::LocalWork work = model::localWorkOf(t);
  auto lw = Napi::Object::New(env);
  lw.Set("copyBeta", work.copy_beta);
  lw.Set("gamma", work.gamma);
  o.Set("localWork", lw);
  if (t.node.sockets > 0) {
    auto n = Napi::Object::New(env);
    n.Set("sockets", t.node.sockets);
    n.Set("coresPerSocket", t.node.cores_per_socket);
    n.Set("nics", t.node.nics);
    o.Set("node", n);
  }
  if (t.network.switch_radix > 0) {
    auto n = Napi::Object::New(env);
    n.Set("switchRadix", t.network.switch_radix);
    n.Set("hops", t.network.hops);
    if (t.network.nodes_per_switch > 0) n.Set("nodesPerSwitch", t.network.nodes_per_switch);
    n.Set("clockHz", t.network.clock);
    n.Set("packetBytes", t.network.packet);
    o.Set("network", n);
  }
  if (!t.groups.empty()) {
    auto g = Napi::Object::New(env);
    for (const auto& [host, group] : t.groups) g.Set(host, group);
    o.Set("groups", g);
  }
  const NodeOverride& vn = t.virtual_nodes;
  if (vn.active()) {
    auto v = Napi::Object::New(env);
    if (vn.kind == NodeOverride::Kind::List) {
      auto nodes = Napi::Array::New(env, vn.nodes.size());
      for (size_t i = 0; i < vn.nodes.size(); ++i) nodes.Set(i, vn.nodes[i]);
      v.Set("kind", "list");
      v.Set("nodes", nodes);
    } else if (vn.kind == NodeOverride::Kind::Block) {
      v.Set("kind", "block");
      v.Set("ranksPerNode", vn.param);
    } else {
      v.Set("kind", "cyclic");
      v.Set("nodes", vn.param);
    }
    o.Set("virtualNodes", v);
  }
  return o;
}

// {levels: [{moduleOf, labels, parent}]}, and z (seed 004's z(p, q) for every pair) when `with_z`.
Napi::Object resolvedObject(Napi::Env env, const Resolved& r, bool with_z) {
  auto o = Napi::Object::New(env);
  auto ints = [&](const std::vector<int>& v) {
    auto a = Napi::Int32Array::New(env, v.size());
    std::copy(v.begin(), v.end(), a.Data());
    return a;
  };
  auto levels = Napi::Array::New(env, r.levels());
  for (int l = 0; l < r.levels(); ++l) {
    auto lo = Napi::Object::New(env);
    auto labels = Napi::Array::New(env, r.labels[l].size());
    for (size_t m = 0; m < r.labels[l].size(); ++m) labels.Set(m, r.labels[l][m]);
    lo.Set("moduleOf", ints(r.module_of[l]));
    lo.Set("labels", labels);
    lo.Set("parent", ints(r.parent[l]));
    levels.Set(l, lo);
  }
  o.Set("levels", levels);
  if (!with_z) return o;
  auto z = Napi::Array::New(env, r.size);
  for (int p = 0; p < r.size; ++p) {
    auto row = Napi::Array::New(env, r.size);
    for (int q = 0; q < r.size; ++q) row.Set(q, r.meetLevel(p, q));
    z.Set(p, row);
  }
  o.Set("z", z);
  return o;
}

std::vector<std::string> hostsArg(const Napi::Value& v) {
  if (!v.IsArray()) throwType(v.Env(), "hosts must be an array of hostnames, one per rank");
  auto array = v.As<Napi::Array>();
  std::vector<std::string> hosts;
  hosts.reserve(array.Length());
  for (uint32_t i = 0; i < array.Length(); ++i) hosts.push_back(stringArg(array.Get(i), "hosts[i]"));
  return hosts;
}

Topology readOrThrow(Napi::Env env, const Napi::Value& path) {
  Topology t;
  std::string error;
  if (!topology::readTopologyFile(stringArg(path, "path"), &t, &error)) throw Napi::Error::New(env, error);
  return t;
}

// parseTopologyFile(path) -> the topology, as the engine reads it at MPI_Init (JSON only).
Napi::Value ParseTopologyFile(const Napi::CallbackInfo& info) {
  return topologyObject(info.Env(), readOrThrow(info.Env(), info[0]));
}

// parseTopologyText(text, source, lines?) -> the topology; `lines`: the line map of a text converted from YAML.
Napi::Value ParseTopologyText(const Napi::CallbackInfo& info) {
  FileArgs a(info);
  Topology t;
  std::string error;
  throwUnless(info.Env(), topology::parseTopologyText(a.text, a.source, &t, &error, a.lineMap()), error);
  return topologyObject(info.Env(), t);
}

// resolveTopologyFile(path, hosts) -> {levels: [{moduleOf, labels, parent}], z}.
Napi::Value ResolveTopologyFile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Topology t = readOrThrow(env, info[0]);
  std::vector<std::string> hosts = hostsArg(info[1]);
  Resolved r;
  std::string error;
  if (!topology::resolveTopology(t, hosts, &r, &error)) throw Napi::Error::New(env, error);
  return resolvedObject(env, r, true);
}

// resolveTopologyText(text, source, lines, hosts) -> {levels: [{moduleOf, labels, parent}]}: a
// topology as parseTopologyText reads it, for a job whose rank r runs on hosts[r].
Napi::Value ResolveTopologyText(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  FileArgs a(info);
  Topology t;
  std::string error;
  throwUnless(env, topology::parseTopologyText(a.text, a.source, &t, &error, a.lineMap()), error);
  Resolved r;
  throwUnless(env, topology::resolveTopology(t, hostsArg(info[3]), &r, &error), error);
  return resolvedObject(env, r, false);
}

// installTopology(json, source, lines?), installRules(json, source, lines?): the Node path hands
// over TOPOCOLL_TOPOLOGY's and TOPOCOLL_RULES's files before init() and loadConfig().
using Installer = bool (*)(const std::string&, const std::string&, const std::vector<int>*, std::string*);
Napi::Value installFile(const Napi::CallbackInfo& info, Installer install, const char* prefix) {
  FileArgs a(info);
  std::string error;
  throwUnless(info.Env(), install(a.text, a.source, a.lineMap(), &error), error, prefix);
  return info.Env().Undefined();
}

// parseRulesText(json, source, lines?) -> the line of each rule; throws the reader's message.
Napi::Value ParseRulesText(const Napi::CallbackInfo& info) {
  FileArgs a(info);
  rules::RuleSet set;
  std::string error;
  throwUnless(info.Env(), rules::parse(a.text, a.source, &set, &error, a.lineMap()), error);
  auto out = Napi::Array::New(info.Env(), set.rules.size());
  for (size_t i = 0; i < set.rules.size(); ++i) out.Set(i, set.rules[i].line);
  return out;
}

// worldTopology() -> null, or {topology, resolved} as the engine resolved it at init.
Napi::Value WorldTopology(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const Topology* t = topology::current();
  const Resolved* r = topology::resolvedWorld();
  if (!t || !r) return env.Null();
  auto o = Napi::Object::New(env);
  o.Set("topology", topologyObject(env, *t));
  o.Set("resolved", resolvedObject(env, *r, true));
  return o;
}

}  // namespace

void initTopology(Napi::Env env, Napi::Object exports) {
  setFunctions(env, exports, {{"parseTopologyFile", ParseTopologyFile},
                              {"parseTopologyText", ParseTopologyText},
                              {"resolveTopologyFile", ResolveTopologyFile},
                              {"resolveTopologyText", ResolveTopologyText},
                              {"installTopology", [](const Napi::CallbackInfo& info) { return installFile(info, topology::install, "topocoll: "); }},
                              {"parseRulesText", ParseRulesText},
                              {"installRules", [](const Napi::CallbackInfo& info) { return installFile(info, rules::install, "topocoll: TOPOCOLL_RULES: "); }},
                              {"worldTopology", WorldTopology}});
}

}  // namespace topocoll::addon
