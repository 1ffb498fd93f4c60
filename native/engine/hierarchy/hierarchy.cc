#include "hierarchy.h"

#include <sched.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

#include "../config.h"

namespace topocoll {
namespace {

// One rank's facts as they travel in the allgather.
struct WirePlace {
  int32_t shared_leader, virtual_node, socket, numa, core, cpu, binding;
  char host[64];
  char kernel[40];                     // kernelBootId()
  uint64_t allowed[CPU_SETSIZE / 64];  // allowedCpus(), a bit per CPU
};

// Every world rank's place, gathered once at init (initializeWorld); empty before.
std::vector<WirePlace> g_world_places;
KernelShare g_kernel_share;
bool g_kernel_oversubscribed = false;

}  // namespace

int worldRanksOf(MPI_Comm comm, std::vector<int>* out) {
  MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  int size = 0, rc;
  out->clear();
  if ((rc = PMPI_Comm_group(comm, &group)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Comm_group(MPI_COMM_WORLD, &world)) == MPI_SUCCESS && (rc = PMPI_Group_size(group, &size)) == MPI_SUCCESS) {
    std::vector<int> ranks(size), in_world(size);
    for (int i = 0; i < size; ++i) ranks[i] = i;
    rc = PMPI_Group_translate_ranks(group, size, ranks.data(), world, in_world.data());
    if (rc == MPI_SUCCESS && std::find(in_world.begin(), in_world.end(), MPI_UNDEFINED) == in_world.end()) *out = std::move(in_world);
  }
  PMPI_Group_free(&group);
  if (world != MPI_GROUP_NULL) PMPI_Group_free(&world);
  return rc;
}

namespace {

// The lowest rank of `comm` sharing memory with this one.
int sharedLeader(MPI_Comm comm, int rank, int* out) {
  MPI_Comm shared = MPI_COMM_NULL;
  int rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
  if (rc != MPI_SUCCESS) return rc;
  *out = rank;
  rc = PMPI_Allreduce(&rank, out, 1, MPI_INT, MPI_MIN, shared);
  PMPI_Comm_free(&shared);
  return rc;
}

// This rank's place; `shared_leader` names its node.
WirePlace placeHere(int shared_leader, int world_rank, const NodeOverride& override, CpuPlace cpu) {
  WirePlace mine{};
  mine.shared_leader = shared_leader;
  mine.virtual_node = override.active() ? override.nodeOf(world_rank) : -1;
  mine.socket = cpu.socket;
  mine.numa = cpu.numa;
  mine.core = cpu.core;
  mine.cpu = cpu.cpu;
  mine.binding = static_cast<int32_t>(cpu.binding);
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0;
  PMPI_Get_processor_name(host, &len);
  std::strncpy(mine.host, host, sizeof mine.host - 1);
  std::strncpy(mine.kernel, kernelBootId().c_str(), sizeof mine.kernel - 1);
  for (int c : allowedCpus()) mine.allowed[c / 64] |= uint64_t{1} << (c % 64);
  return mine;
}

}  // namespace

int Hierarchy::initializeWorld(const NodeOverride& override) {
  int rank = 0, size = 0, leader = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  int rc = sharedLeader(MPI_COMM_WORLD, rank, &leader);
  if (rc != MPI_SUCCESS) return rc;
  WirePlace mine = placeHere(leader, rank, override, currentCpuPlace());
  std::vector<WirePlace> all(size);
  if ((rc = PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, MPI_COMM_WORLD)) != MPI_SUCCESS) return rc;
  // Ranks on this kernel: by boot id, else (unreadable) by the node MPI sees.
  const auto here = [&mine](const WirePlace& w) {
    return mine.kernel[0] != 0 ? std::strncmp(w.kernel, mine.kernel, sizeof w.kernel) == 0 : w.shared_leader == mine.shared_leader;
  };
  // Bound ranks each allow a CPU or a few: their union is what the job has here.
  uint64_t allowed[CPU_SETSIZE / 64] = {0};
  int ranks = 0;
  for (const WirePlace& w : all) {
    if (!here(w)) continue;
    ++ranks;
    for (size_t i = 0; i < CPU_SETSIZE / 64; ++i) allowed[i] |= w.allowed[i];
  }
  int cpus = 0;
  for (uint64_t word : allowed) cpus += __builtin_popcountll(word);
  if (cpus == 0) cpus = onlineCpus();  // sched_getaffinity failed
  if (cgroupCpuLimit() > 0) cpus = std::min(cpus, cgroupCpuLimit());
  g_kernel_share = {ranks, cpus};
  g_kernel_oversubscribed = ranks > cpus;
  g_world_places = std::move(all);
  return MPI_SUCCESS;
}

const KernelShare& kernelShare() { return g_kernel_share; }

bool kernelOversubscribed() { return g_kernel_oversubscribed; }

void idleWhileWaiting() {
  if (g_kernel_oversubscribed) sched_yield();
  else cpuRelax();
}

int Hierarchy::detect(MPI_Comm comm, const NodeOverride& override, Hierarchy* out, std::string* error) {
  int rank = 0, size = 0, world_rank = 0, world_size = 0, rc;
  if ((rc = PMPI_Comm_rank(comm, &rank)) != MPI_SUCCESS || (rc = PMPI_Comm_size(comm, &size)) != MPI_SUCCESS) return rc;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  // Every rank reaches the same verdict before communicating, so a bad override fails everywhere.
  if (!override.covers(world_size, error)) return MPI_ERR_ARG;

  // Within the world, every rank's place is known since init: no communication (a communicator
  // created and freed in a loop pays for none). Else the places are gathered over comm, the
  // node named by the lowest rank of comm sharing memory with us.
  std::vector<int> world_ranks;
  if (!g_world_places.empty() && (rc = worldRanksOf(comm, &world_ranks)) != MPI_SUCCESS) return rc;
  std::vector<WirePlace> all(size);
  CpuPlace cpu;
  if (!world_ranks.empty()) {
    for (int r = 0; r < size; ++r) {
      all[r] = g_world_places[world_ranks[r]];
      // The override in force now (a topology file may set one after init).
      all[r].virtual_node = override.active() ? override.nodeOf(world_ranks[r]) : -1;
    }
    cpu.cpu = all[rank].cpu;
  } else {
    int shared_leader = rank;
    if ((rc = sharedLeader(comm, rank, &shared_leader)) != MPI_SUCCESS) return rc;
    cpu = currentCpuPlace();
    WirePlace mine = placeHere(shared_leader, world_rank, override, cpu);
    if ((rc = PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, comm)) != MPI_SUCCESS) return rc;
  }

  // Node ids: one per (host, virtual node), numbered by lowest rank.
  std::map<std::pair<int, int>, int> node_ids;
  std::vector<RankPlace> places(size);
  for (int r = 0; r < size; ++r) {
    const WirePlace& w = all[r];
    auto key = std::make_pair(w.shared_leader, w.virtual_node);
    auto it = node_ids.emplace(key, static_cast<int>(node_ids.size())).first;
    RankPlace& p = places[r];
    p.node = it->second;
    p.socket = w.socket;
    p.numa = w.numa;
    p.core = w.core;
    p.cpu = w.cpu;
    p.binding = static_cast<Binding>(w.binding);
    p.virtual_node = w.virtual_node;
    p.host.assign(w.host, strnlen(w.host, sizeof w.host));
  }
  *out = fromPlaces(std::move(places), rank, cpuCaches(cpu.cpu));
  out->virtual_ = override.active();
  return MPI_SUCCESS;
}

Hierarchy Hierarchy::fromPlaces(std::vector<RankPlace> places, int my_rank, std::vector<CacheInfo> caches) {
  Hierarchy h;
  h.rank_ = my_rank;
  h.places_ = std::move(places);
  h.caches_ = std::move(caches);
  std::map<int, int> renumber;
  for (RankPlace& p : h.places_) p.node = renumber.emplace(p.node, static_cast<int>(renumber.size())).first->second;
  h.index();
  return h;
}

Hierarchy Hierarchy::singleNode(int p, int my_rank) { return fromPlaces(std::vector<RankPlace>(p), my_rank); }

void Hierarchy::index() {
  int nodes = 0;
  for (const RankPlace& p : places_) nodes = std::max(nodes, p.node + 1);
  members_.assign(nodes, {});
  local_index_.assign(places_.size(), 0);
  for (int r = 0; r < size(); ++r) {
    local_index_[r] = static_cast<int>(members_[places_[r].node].size());
    members_[places_[r].node].push_back(r);
  }
}

std::vector<int> Hierarchy::leaders() const {
  std::vector<int> out;
  for (const auto& m : members_) out.push_back(m[0]);
  return out;
}

std::vector<int> Hierarchy::numaNodes(int node) const {
  std::vector<int> out;
  for (int r : members_[node]) out.push_back(places_[r].numa);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int64_t Hierarchy::sharedCacheBytes() const {
  int64_t bytes = 0;
  int level = 0;
  for (const CacheInfo& c : caches_) {
    if (c.type != "Instruction" && c.level >= level) {
      level = c.level;
      bytes = c.bytes;
    }
  }
  return bytes;
}

int Hierarchy::sharedCacheRanks() const {
  const CacheInfo* llc = nullptr;
  for (const CacheInfo& c : caches_) {
    if (c.type != "Instruction" && (!llc || c.level >= llc->level)) llc = &c;
  }
  if (!llc || places_.empty()) return 1;
  int n = 0;
  for (int r : members_[nodeOf(rank_)]) {
    if (std::find(llc->shared_cpus.begin(), llc->shared_cpus.end(), places_[r].cpu) != llc->shared_cpus.end()) ++n;
  }
  return std::max(n, 1);
}

namespace {
bool g_node_override_set = false;
NodeOverride g_node_override;
}  // namespace

NodeOverride nodeOverride() {
  if (g_node_override_set) return g_node_override;
  NodeOverride o;
  std::string error;
  // Validated when the configuration was loaded; nothing else can fail here.
  if (!parseNodeOverride(config().text(Parameter::VirtualNodes), "TOPOCOLL_VIRTUAL_NODES", &o, &error)) o = NodeOverride();
  return o;
}

void setNodeOverride(const NodeOverride& o) {
  g_node_override = o;
  g_node_override_set = true;
}

}  // namespace topocoll
