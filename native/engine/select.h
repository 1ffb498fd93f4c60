// Per-call algorithm choice. Precedence, one order everywhere: a forced
// TOPOCOLL_<COLL>_ALGORITHM, then the first matching built-in default rule.
#pragma once

#include <cstdint>
#include <string>

#include "config.h"

namespace topocoll {

struct Choice {
  int algorithm = kAlgorithmNative;  // registry index, or kAlgorithmNative
  std::string reason;                // for TOPOCOLL_VERBOSE and `explain`
};

// block_bytes: one rank's block (allgather/alltoall) or the message (bcast); total_bytes: what a
// rank receives in all.
Choice selectAlgorithm(Collective coll, int p, int64_t block_bytes, int64_t total_bytes, const Config& cfg);

}  // namespace topocoll
