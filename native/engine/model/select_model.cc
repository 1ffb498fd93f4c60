#include "model/select_model.h"

#include <cstdio>
#include <map>
#include <tuple>

#include "algorithm_registry.h"
#include "choice.h"
#include "hierarchy/hierarchy.h"
#include "mapping/remap/allgather_mapping.h"
#include "mapping/remap/remapped_allgather.h"
#include "topology/runtime.h"

namespace topocoll::model {
namespace {

// comm rank -> world rank; identity when the communicator is unknown or the query fails.
std::vector<int> worldRanks(MPI_Comm comm, int p) {
  std::vector<int> world(p);
  for (int r = 0; r < p; ++r) world[r] = r;
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (comm == MPI_COMM_NULL || !initialized || finalized) return world;
  MPI_Group group = MPI_GROUP_NULL, world_group = MPI_GROUP_NULL;
  if (PMPI_Comm_group(comm, &group) == MPI_SUCCESS && PMPI_Comm_group(MPI_COMM_WORLD, &world_group) == MPI_SUCCESS) {
    std::vector<int> mine(p);
    for (int r = 0; r < p; ++r) mine[r] = r;
    if (PMPI_Group_translate_ranks(group, p, mine.data(), world_group, world.data()) != MPI_SUCCESS) {
      for (int r = 0; r < p; ++r) world[r] = r;
    }
  }
  if (group != MPI_GROUP_NULL) PMPI_Group_free(&group);
  if (world_group != MPI_GROUP_NULL) PMPI_Group_free(&world_group);
  return world;
}

// The levels of the call's machine: the tools', the topology file's, or the defaults.
ModelMachine levelsFor(const ModelCall& call) {
  const int p = call.params.p;
  std::vector<int> node = mapping::nodeOfSlot(call.hierarchy, p);
  const topology::Topology* topo = topology::current();
  const topology::Resolved* resolved = topology::resolvedWorld();
  if (call.intra || call.inter || !topo || !resolved || topo->levels.empty()) {
    return twoLevelMachine(std::move(node), call.intra ? *call.intra : kDefaultIntraNode, call.inter ? *call.inter : kDefaultInterNode);
  }
  // Seed 004: a message costs what the narrowest level holding both ranks costs.
  std::vector<int> world = worldRanks(call.comm, p);
  for (int w : world) {
    if (w < 0 || w >= resolved->size) return twoLevelMachine(std::move(node), kDefaultIntraNode, kDefaultInterNode);
  }
  ModelMachine m;
  for (const topology::Level& level : topo->levels) {
    bool between_hosts = level.scope == topology::Scope::System || level.scope == topology::Scope::Group;
    bool nic = level.nic < 0 ? between_hosts : level.nic == 1;
    LinkCost& l = m.levels.emplace_back(LinkCost{level.latency, level.bandwidth > 0 ? 1.0 / level.bandwidth : 0.0, nic});
    if (level.exchange_bandwidth > 0) l.exchange_beta = 1.0 / level.exchange_bandwidth;
    l.signal_alpha = level.signal_latency;
    l.overhead = level.overhead;
    l.gap = level.gap;
  }
  const LocalWork local = localWorkOf(*topo);
  m.copy_beta = local.copy_beta;
  m.gamma = local.gamma;
  m.round_overhead = topo->round_overhead;
  m.nic = std::move(node);
  m.level_of = [resolved, world = std::move(world)](int a, int b) { return resolved->meetLevel(world[a], world[b]); };
  return m;
}

}  // namespace

LocalWork localWorkOf(const topology::Topology& t) {
  LocalWork w;
  // Without copy_bandwidth, a copy moves at the narrowest level's speed.
  const double copy_bandwidth = t.copy_bandwidth > 0 ? t.copy_bandwidth : t.levels.empty() ? 0 : t.levels.back().bandwidth;
  w.copy_beta = copy_bandwidth > 0 ? 1.0 / copy_bandwidth : 0;
  if (t.reduce_bandwidth > 0) w.gamma = 1.0 / t.reduce_bandwidth;
  return w;
}

ModelMachine machineFor(const ModelCall& call) {
  ModelMachine m = levelsFor(call);
  if (call.gamma >= 0) m.gamma = call.gamma;
  return m;
}

std::vector<AlgorithmPrediction> predictAll(const ModelCall& call, const Config& cfg) {
  std::vector<AlgorithmPrediction> out;
  const int p = call.params.p;
  ModelMachine machine = machineFor(call);
  const auto& entry = collectiveEntry(call.coll);
  for (int a = 0; a < entry.algorithm_count; ++a) {
    AlgorithmPrediction ap;
    ap.algorithm = a;
    if (!findBuilder(call.coll, a)) {
      ap.skipped = "no builder in this build";
    } else if (entry.uses_shm[a] && !cfg.get(Parameter::Shm)) {
      ap.skipped = "shared memory is off (TOPOCOLL_SHM=0)";
    } else {
      // A remapped allgather's pi, once for all ranks rather than once per rank's build.
      mapping::RankMapping local;
      const mapping::RankMapping* remap = nullptr;
      if (const char* base = call.coll == Collective::Allgather ? mapping::remappedAllgatherBase(a) : nullptr) {
        remap = call.mappings ? &call.mappings->allgather(base) : &(local = mapping::allgatherRankMapping(base, mapping::nodeOfSlot(call.hierarchy, p)));
      }
      // Packed as built: a pairwise alltoall on 1024 ranks is about 4 MB so, 150 MB as Schedules.
      std::vector<PackedSchedule> schedules(p);
      CompactSchedule compacted;
      std::string error;
      for (int r = 0; r < p && ap.skipped.empty(); ++r) {
        BuildParams bp = call.params;
        bp.rank = r;
        if (remap) bp.mapping = remap;
        Schedule s;
        if (!buildSchedule(call.coll, a, bp, &s, &error) || !compact(s, r, p, &compacted, &error)) ap.skipped = error;
        else pack(compacted, r, &schedules[r]);
      }
      if (ap.skipped.empty()) {
        ap.prediction = predict(schedules, machine, call.block_bytes);
        if (!ap.prediction.ok) ap.skipped = ap.prediction.error;
      }
    }
    out.push_back(std::move(ap));
  }
  return out;
}

ModelChoiceCache::Key ModelChoiceCache::keyOf(const ModelCall& call) {
  return {static_cast<int>(call.coll), call.block_bytes, call.params.root, call.params.in_place, call.params.count};
}

bool ModelChoiceCache::find(const ModelCall& call, Choice* out) const {
  auto it = choices_.find(keyOf(call));
  if (it == choices_.end()) return false;
  *out = it->second;
  return true;
}

void ModelChoiceCache::store(const ModelCall& call, const Choice& choice) {
  if (choices_.size() >= kMaxEntries) choices_.clear();
  choices_[keyOf(call)] = choice;
}

bool chooseByModel(const ModelCall& call, const Config& cfg, Choice* out) {
  if (call.params.p > kMaxModelRanks) return false;
  // No lock: MPI forbids concurrent collectives on one communicator, and the cache is its own.
  if (call.cache && call.cache->find(call, out)) return out->algorithm != kAlgorithmNative;
  Choice best{kAlgorithmNative, ""};
  double best_seconds = 0;
  for (const AlgorithmPrediction& ap : predictAll(call, cfg)) {
    if (!ap.skipped.empty()) continue;
    if (best.algorithm == kAlgorithmNative || ap.prediction.seconds < best_seconds) {
      best.algorithm = ap.algorithm;
      best_seconds = ap.prediction.seconds;
    }
  }
  if (best.algorithm != kAlgorithmNative) {
    char text[160];
    std::snprintf(text, sizeof text, "model: smallest predicted time, %.2f us (TOPOCOLL_SELECT=model)", best_seconds * 1e6);
    best.reason = internReason(text);
  }
  if (call.cache) call.cache->store(call, best);
  *out = best;
  return best.algorithm != kAlgorithmNative;
}

}  // namespace topocoll::model
