// What selection hands back (a Choice), the match of one rule, and the selection epoch: below
// select.h so that the rules, the run-time override, the model and the communicator state use
// them without depending on the selection that calls them.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "config.h"

namespace topocoll {

// A rule's yes/no condition (1: only where `value` holds, 0: only where it does not, -1: any).
inline bool flagAllows(int flag, bool value) { return flag < 0 || value == (flag == 1); }

// A rule's condition on the call (built-in default or rules file: the same fields); -1 leaves a
// bound open. `nonblocking`: the call's form (MPI_I…).
template <class Rule>
bool ruleMatches(const Rule& r, int p, int64_t block_bytes, int64_t total_bytes, bool nonblocking) {
  const int64_t bytes = r.basis == generated::SizeBasis::Block ? block_bytes : total_bytes;
  if (r.min_bytes >= 0 && bytes < r.min_bytes) return false;
  if (r.max_bytes >= 0 && bytes >= r.max_bytes) return false;
  if (r.min_ranks >= 0 && p < r.min_ranks) return false;
  if (r.max_ranks >= 0 && p > r.max_ranks) return false;
  return flagAllows(r.power_of_two, p > 0 && (p & (p - 1)) == 0) && flagAllows(r.nonblocking, nonblocking);
}

struct Choice {
  int algorithm = kAlgorithmNative;  // registry index, or kAlgorithmNative
  // For TOPOCOLL_VERBOSE and `explain`. Static or interned text: selection runs on every call,
  // and building a string there costs as much as a small collective's selection itself.
  const char* reason = "";
};

// A stable copy of `text`, for reasons built at run time (kept for the life of the process).
const char* internReason(const std::string& text);

// Moves on whenever what selection reads may have changed (a run-time override, the rules, the
// configuration), so that a choice remembered for a call stays valid while the epoch does.
extern std::atomic<uint64_t> g_selection_epoch;  // from 1: a zeroed memo is stale
inline uint64_t selectionEpoch() { return g_selection_epoch.load(std::memory_order_relaxed); }
inline void bumpSelectionEpoch() { g_selection_epoch.fetch_add(1, std::memory_order_relaxed); }

}  // namespace topocoll
