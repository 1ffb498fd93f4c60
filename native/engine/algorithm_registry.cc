#include "algorithm_registry.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

namespace topocoll {
namespace {

struct Slot {
  ScheduleBuilder build = nullptr;
  int registrations = 0;
};

// Function-local statics: registrations run during static initialisation of other files.
std::array<std::vector<Slot>, generated::kCollectiveCount>& slots() {
  static std::array<std::vector<Slot>, generated::kCollectiveCount> table = [] {
    std::array<std::vector<Slot>, generated::kCollectiveCount> t;
    for (int c = 0; c < generated::kCollectiveCount; ++c) t[c].resize(generated::kCollectives[c].algorithm_count);
    return t;
  }();
  return table;
}

std::vector<std::string>& unknownRegistrations() {
  static std::vector<std::string> names;
  return names;
}

}  // namespace

AlgorithmRegistration::AlgorithmRegistration(Collective coll, const char* name, ScheduleBuilder build) {
  int index = algorithmIndex(coll, name);
  if (index < 0) {
    unknownRegistrations().push_back(std::string(collectiveEntry(coll).name) + "/" + name);
    return;
  }
  Slot& slot = slots()[static_cast<int>(coll)][index];
  slot.build = build;
  slot.registrations++;
}

int algorithmIndex(Collective coll, const std::string& name) {
  const auto& entry = collectiveEntry(coll);
  for (int i = 0; i < entry.algorithm_count; ++i) {
    if (name == entry.algorithms[i]) return i;
  }
  return -1;
}

const char* algorithmName(Collective coll, int index) { return collectiveEntry(coll).algorithms[index]; }

ScheduleBuilder findBuilder(Collective coll, int index) { return slots()[static_cast<int>(coll)][index].build; }

bool collectiveByName(const std::string& name, Collective* out) {
  for (int c = 0; c < generated::kCollectiveCount; ++c) {
    if (name == generated::kCollectives[c].name) {
      *out = static_cast<Collective>(c);
      return true;
    }
  }
  return false;
}

std::string collectiveNames() {
  std::string names;
  for (int c = 0; c < generated::kCollectiveCount; ++c) names += std::string(c ? ", " : "") + generated::kCollectives[c].name;
  return names;
}

std::string checkRegistry() {
  std::string problems;
  for (const auto& name : unknownRegistrations()) problems += "builder registered under unknown name " + name + "\n";
  for (int c = 0; c < generated::kCollectiveCount; ++c) {
    const auto& entry = generated::kCollectives[c];
    for (int i = 0; i < entry.algorithm_count; ++i) {
      int n = slots()[c][i].registrations;
      if (n != 1) {
        problems += std::string(entry.name) + "/" + entry.algorithms[i] + (n == 0 ? " has no builder\n" : " has several builders\n");
      }
    }
  }
  return problems;
}

bool buildSchedule(Collective coll, int algorithm, const BuildParams& params, Schedule* out, std::string* error) {
  if (algorithm < 0 || algorithm >= collectiveEntry(coll).algorithm_count) {
    *error = "unknown algorithm index";
    return false;
  }
  ScheduleBuilder build = findBuilder(coll, algorithm);
  if (!build) {
    *error = std::string(collectiveEntry(coll).name) + " algorithm " + algorithmName(coll, algorithm) + " has no builder in this build";
    return false;
  }
  if (params.p < 1 || params.rank < 0 || params.rank >= params.p || params.root < 0 || params.root >= params.p || params.count < 0) {
    *error = "invalid schedule parameters (need p >= 1, 0 <= rank, root < p, count >= 0)";
    return false;
  }
  // reduce_scatter's parts: p counts adding up to count; the other collectives have none.
  if (coll == Collective::ReduceScatter) {
    const std::vector<int64_t>* parts = params.recv_counts;
    int64_t sum = 0;
    for (size_t i = 0; parts && i < parts->size(); ++i) sum += (*parts)[i] < 0 ? INT64_MIN / 2 : (*parts)[i];
    if (!parts || parts->size() != static_cast<size_t>(params.p) || sum != params.count) {
      *error = "reduce_scatter needs recvCounts: p counts >= 0 adding up to count";
      return false;
    }
  } else if (params.recv_counts) {
    *error = std::string("recvCounts is for reduce_scatter, not ") + collectiveEntry(coll).name;
    return false;
  }
  *out = build(params);
  return true;
}

}  // namespace topocoll
