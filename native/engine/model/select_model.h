// TOPOCOLL_SELECT=model: `auto` picks the algorithm whose schedules the per-level Hockney model
// (model/hockney.h) predicts fastest for this communicator, its placement and the call's size.
// Every rank builds every rank's schedule of every candidate and replays them, so all ranks
// reach the same choice without communicating; the choice is cached on the communicator (per
// collective, block size, root, in-place and count) and freed with it.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "choice.h"
#include "config.h"
#include "model/hockney.h"
#include "schedule.h"

namespace topocoll {
class Hierarchy;
namespace mapping {
class RankMappingCache;
}
namespace topology {
struct Topology;
}
}  // namespace topocoll

namespace topocoll::model {

// Without a topology file: ranks on one node talk through shared memory, ranks on different
// nodes through a network. Typical figures (a memcpy-bound shm transport; a 100 Gbit/s-class
// fabric); a topology file (TOPOCOLL_TOPOLOGY) replaces them with the machine's own levels.
inline constexpr LinkCost kDefaultIntraNode{0.5e-6, 1.0 / 5e9, false};
inline constexpr LinkCost kDefaultInterNode{2.0e-6, 1.0 / 10e9, true};

// The cost of local work on a topology file's machine: seconds per byte of a copy (the file's
// copy_bandwidth, else the narrowest level's speed) and of a reduce op (γ: its reduce_bandwidth,
// else kDefaultGamma). The TypeScript models take both from here (the addon's topology objects).
struct LocalWork {
  double copy_beta = 0;
  double gamma = kDefaultGamma;
};
LocalWork localWorkOf(const topology::Topology& t);

// TOPOCOLL_SELECT's value for `model` (its choices: rules, model).
inline constexpr int64_t kSelectModel = 1;

// Above this many ranks the model is not run (p schedules per candidate on every rank): rules decide.
inline constexpr int kMaxModelRanks = 1024;

struct ModelCall;

// The model's choices for one communicator (kept in its ShadowComm). A program that
// calls with ever new sizes refills it from empty past kMaxEntries rather than growing it.
class ModelChoiceCache {
 public:
  static constexpr size_t kMaxEntries = 256;
  bool find(const ModelCall& call, Choice* out) const;
  void store(const ModelCall& call, const Choice& choice);

 private:
  using Key = std::tuple<int, double, int, bool, int64_t>;
  static Key keyOf(const ModelCall& call);
  std::map<Key, Choice> choices_;
};

// What the model needs to know of one call.
struct ModelCall {
  Collective coll = Collective::Allgather;
  MPI_Comm comm = MPI_COMM_NULL;       // for world ranks (topology levels); MPI_COMM_NULL: ranks are world ranks
  ModelChoiceCache* cache = nullptr;   // the communicator's; null: no caching (tools)
  const Hierarchy* hierarchy = nullptr;  // null: one node
  // The communicator's pi per base for the remapped allgathers (the engine's, which the run uses);
  // null (tools): computed once per prediction from the hierarchy.
  mapping::RankMappingCache* mappings = nullptr;
  BuildParams params;                  // p, count, root, in_place and what the builders read
  double block_bytes = 0;              // bytes of one block (bcast: one element)
  // Tools only: the levels to use instead of the topology file or the defaults (intra, inter).
  const LinkCost* intra = nullptr;
  const LinkCost* inter = nullptr;
  double gamma = -1;  // tools only: seconds per byte combined; < 0: the topology file's or kDefaultGamma
};

struct AlgorithmPrediction {
  int algorithm = -1;   // registry index
  Prediction prediction;
  std::string skipped;  // why it was not predicted (no builder, shm off, ...), else empty
};

// Predicts every algorithm of the collective that this build can run.
std::vector<AlgorithmPrediction> predictAll(const ModelCall& call, const Config& cfg);

// The fastest predicted algorithm, with a reason naming its predicted time. False (and no
// choice) when no candidate could be predicted or the communicator is too large.
bool chooseByModel(const ModelCall& call, const Config& cfg, Choice* out);

// The machine the model sees for the call: the topology file's levels (and reduce bandwidth)
// when one is loaded, the tools' levels and γ when given, else the defaults; nodes from the
// hierarchy.
ModelMachine machineFor(const ModelCall& call);

}  // namespace topocoll::model
