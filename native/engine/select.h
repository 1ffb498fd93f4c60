// Per-call algorithm choice. Precedence, one order everywhere: a forced
// TOPOCOLL_<COLL>_ALGORITHM, then the first matching built-in default rule.
#pragma once

#include <cstdint>
#include <string>

#include "config.h"

namespace topocoll {

namespace model {
struct ModelCall;  // model/select_model.h
}

struct Choice {
  int algorithm = kAlgorithmNative;  // registry index, or kAlgorithmNative
  std::string reason;                // for TOPOCOLL_VERBOSE and `explain`
};

// block_bytes: one rank's block (allgather/alltoall) or the message (bcast); total_bytes: what a
// rank receives in all.
// model_call: the communicator and call, for TOPOCOLL_SELECT=model (null: the rules decide).
Choice selectAlgorithm(Collective coll, int p, int64_t block_bytes, int64_t total_bytes, const Config& cfg,
                       const model::ModelCall* model_call = nullptr);

}  // namespace topocoll
