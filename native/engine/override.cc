#include "override.h"

#include <array>

#include "choice.h"

namespace topocoll::override_algorithm {
namespace {

// Single-threaded use (MPI_THREAD_SINGLE/FUNNELED callers set and read these between calls).
std::array<int, generated::kCollectiveCount> g_forced = [] {
  std::array<int, generated::kCollectiveCount> a{};
  a.fill(kAlgorithmAuto);
  return a;
}();
std::array<std::string, generated::kCollectiveCount> g_fallback;

}  // namespace

void setForced(Collective coll, int algorithm) {
  g_forced[static_cast<int>(coll)] = algorithm;
  g_fallback[static_cast<int>(coll)].clear();
  bumpSelectionEpoch();
}

int forced(Collective coll) { return g_forced[static_cast<int>(coll)]; }

void noteFallback(Collective coll, const std::string& why) { g_fallback[static_cast<int>(coll)] = why; }

std::string takeFallback(Collective coll) {
  std::string why;
  why.swap(g_fallback[static_cast<int>(coll)]);
  return why;
}

}  // namespace topocoll::override_algorithm
