// The native topology reader as JavaScript sees it: for tests that hold it to the TypeScript
// reader, for the Node path to hand over the topology TypeScript read (installTopology), and to
// show what the engine resolved for the job.
#include <cstdint>

#include "addon.h"
#include "topology/runtime.h"
#include "topology/topology.h"

namespace topocoll::addon {
namespace {

using topology::Resolved;
using topology::Topology;

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
    lo.Set("line", l.line);
    levels.Set(i, lo);
  }
  o.Set("levels", levels);
  if (t.reduce_bandwidth > 0) o.Set("reduceBandwidth", t.reduce_bandwidth);
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

Napi::Object resolvedObject(Napi::Env env, const Resolved& r) {
  auto o = Napi::Object::New(env);
  auto levels = Napi::Array::New(env, r.levels());
  for (int l = 0; l < r.levels(); ++l) {
    auto lo = Napi::Object::New(env);
    auto module_of = Napi::Array::New(env, r.size);
    for (int p = 0; p < r.size; ++p) module_of.Set(p, r.module_of[l][p]);
    auto labels = Napi::Array::New(env, r.labels[l].size());
    auto parent = Napi::Array::New(env, r.parent[l].size());
    for (size_t m = 0; m < r.labels[l].size(); ++m) {
      labels.Set(m, r.labels[l][m]);
      parent.Set(m, r.parent[l][m]);
    }
    lo.Set("moduleOf", module_of);
    lo.Set("labels", labels);
    lo.Set("parent", parent);
    levels.Set(l, lo);
  }
  o.Set("levels", levels);
  auto z = Napi::Array::New(env, r.size);
  for (int p = 0; p < r.size; ++p) {
    auto row = Napi::Array::New(env, r.size);
    for (int q = 0; q < r.size; ++q) row.Set(q, r.meetLevel(p, q));
    z.Set(p, row);
  }
  o.Set("z", z);
  return o;
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

// parseTopologyText(text, source) -> the topology; for tests of the reader's error paths.
Napi::Value ParseTopologyText(const Napi::CallbackInfo& info) {
  Topology t;
  std::string error;
  if (!topology::parseTopologyText(stringArg(info[0], "text"), stringArg(info[1], "source"), &t, &error)) {
    throw Napi::Error::New(info.Env(), error);
  }
  return topologyObject(info.Env(), t);
}

// resolveTopologyFile(path, hosts) -> {levels: [{moduleOf, labels, parent}], z}.
Napi::Value ResolveTopologyFile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Topology t = readOrThrow(env, info[0]);
  if (!info[1].IsArray()) throwType(env, "hosts must be an array of hostnames, one per rank");
  auto array = info[1].As<Napi::Array>();
  std::vector<std::string> hosts;
  for (uint32_t i = 0; i < array.Length(); ++i) hosts.push_back(stringArg(array.Get(i), "hosts[i]"));
  Resolved r;
  std::string error;
  if (!topology::resolveTopology(t, hosts, &r, &error)) throw Napi::Error::New(env, error);
  return resolvedObject(env, r);
}

// installTopology(json, source, {levels: [line...], groups, virtual_nodes}): the Node path hands
// over what TypeScript read, with the lines of the original file, before init().
Napi::Value InstallTopology(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  topology::SourceLines lines;
  if (info[2].IsObject()) {
    auto o = info[2].As<Napi::Object>();
    auto line = [&](const char* key) { return o.Has(key) && !o.Get(key).IsUndefined() ? static_cast<int>(intArg(o.Get(key), key, 0, INT32_MAX)) : 0; };
    if (o.Has("levels") && o.Get("levels").IsArray()) {
      auto levels = o.Get("levels").As<Napi::Array>();
      for (uint32_t i = 0; i < levels.Length(); ++i) lines.levels.push_back(static_cast<int>(intArg(levels.Get(i), "levels[i]", 0, INT32_MAX)));
    }
    lines.groups = line("groups");
    lines.virtual_nodes = line("virtual_nodes");
  }
  std::string error;
  if (!topology::install(stringArg(info[0], "json"), stringArg(info[1], "source"), lines, &error)) {
    throw Napi::Error::New(env, "topocoll: " + error);
  }
  return env.Undefined();
}

// worldTopology() -> null, or {topology, resolved} as the engine resolved it at init.
Napi::Value WorldTopology(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const Topology* t = topology::current();
  const Resolved* r = topology::resolvedWorld();
  if (!t || !r) return env.Null();
  auto o = Napi::Object::New(env);
  o.Set("topology", topologyObject(env, *t));
  o.Set("resolved", resolvedObject(env, *r));
  return o;
}

}  // namespace

void initTopology(Napi::Env env, Napi::Object exports) {
  exports.Set("parseTopologyFile", Napi::Function::New(env, ParseTopologyFile));
  exports.Set("parseTopologyText", Napi::Function::New(env, ParseTopologyText));
  exports.Set("resolveTopologyFile", Napi::Function::New(env, ResolveTopologyFile));
  exports.Set("installTopology", Napi::Function::New(env, InstallTopology));
  exports.Set("worldTopology", Napi::Function::New(env, WorldTopology));
}

}  // namespace topocoll::addon
