// The engine's view of a communicator's hierarchy and shared memory, for `topocoll info`.
#include "addon.h"
#include "comm_state.h"
#include "hierarchy/hierarchy.h"
#include "shm/segment.h"

namespace topocoll::addon {
namespace {

Napi::Object cacheObject(Napi::Env env, const CacheInfo& c) {
  auto o = Napi::Object::New(env);
  o.Set("level", c.level);
  o.Set("type", c.type);
  o.Set("bytes", Napi::Number::New(env, static_cast<double>(c.bytes)));
  o.Set("lineBytes", c.line_bytes);
  auto cpus = Napi::Array::New(env, c.shared_cpus.size());
  for (size_t i = 0; i < c.shared_cpus.size(); ++i) cpus.Set(i, c.shared_cpus[i]);
  o.Set("sharedCpus", cpus);
  return o;
}

// hierarchy(comm, {shm}) -> {ranks: [{rank, host, node, socket, numa, core, cpu, binding,
// virtualNode}], caches, nodeCount, virtualNodes, numaMachine, kernel: {ranks, cpus, cpuLimit,
// yields} (the world's ranks on this rank's kernel, kernelShare), shm?}. Collective over comm (on
// first use it detects the hierarchy; with shm: true it also creates the shared memory).
Napi::Value HierarchyOf(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  bool with_shm = info[1].IsObject() && info[1].As<Napi::Object>().Get("shm").ToBoolean();
  CommState* state = nullptr;
  check(env, CommState::get(comm, &state), "hierarchy");
  if (state->isInter()) throwType(env, "hierarchy: comm must be an intracommunicator");
  const Hierarchy* h = nullptr;
  std::string error;
  int rc = state->hierarchy(&h, &error);
  if (rc != MPI_SUCCESS && !error.empty()) throw Napi::Error::New(env, "topocoll: " + error);
  check(env, rc, "hierarchy");

  auto out = Napi::Object::New(env);
  auto ranks = Napi::Array::New(env, h->size());
  for (int r = 0; r < h->size(); ++r) {
    const RankPlace& p = h->place(r);
    auto o = Napi::Object::New(env);
    o.Set("rank", r);
    o.Set("host", p.host);
    o.Set("node", p.node);
    o.Set("socket", p.socket);
    o.Set("numa", p.numa);
    o.Set("core", p.core);
    o.Set("cpu", p.cpu);
    o.Set("binding", bindingName(p.binding));
    o.Set("virtualNode", p.virtual_node);
    ranks.Set(r, o);
  }
  out.Set("ranks", ranks);
  auto caches = Napi::Array::New(env, h->caches().size());
  for (size_t i = 0; i < h->caches().size(); ++i) caches.Set(i, cacheObject(env, h->caches()[i]));
  out.Set("caches", caches);
  out.Set("nodeCount", h->nodeCount());
  out.Set("virtualNodes", h->virtualNodes());
  out.Set("numaMachine", numaMachine());
  out.Set("sharedCacheBytes", Napi::Number::New(env, static_cast<double>(h->sharedCacheBytes())));
  out.Set("sharedCacheRanks", h->sharedCacheRanks());
  auto kernel = Napi::Object::New(env);
  kernel.Set("ranks", kernelShare().ranks);
  kernel.Set("cpus", kernelShare().cpus);
  kernel.Set("cpuLimit", cgroupCpuLimit());
  kernel.Set("yields", kernelOversubscribed());
  out.Set("kernel", kernel);
  if (with_shm) {
    ShadowComm* shadow = nullptr;
    ShmContext* shm = nullptr;
    check(env, state->shadow(&shadow), "hierarchy: shared memory");
    check(env, shadow->shm(&shm), "hierarchy: shared memory");
    auto o = Napi::Object::New(env);
    o.Set("available", shm->available());
    o.Set("why", shm->why());
    o.Set("channels", shm->channels());
    o.Set("parts", shm->parts());
    o.Set("partBytes", Napi::Number::New(env, static_cast<double>(shm->partBytes())));
    o.Set("namePrefix", ShmSegment::namePrefix());
    out.Set("shm", o);
  }
  return out;
}

}  // namespace

void initHierarchy(Napi::Env env, Napi::Object exports) {
  exports.Set("hierarchy", Napi::Function::New(env, HierarchyOf));
  // No MPI needed: tests plant files under this prefix to check the orphan cleanup.
  exports.Set("shmNamePrefix", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                return Napi::String::New(info.Env(), ShmSegment::namePrefix());
              }));
}

}  // namespace topocoll::addon
