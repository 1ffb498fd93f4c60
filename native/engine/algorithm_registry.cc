#include "algorithm_registry.h"

#include <array>
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

}  // namespace topocoll
