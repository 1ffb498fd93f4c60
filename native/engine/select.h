// Per-call algorithm choice. Precedence, one order everywhere: a run-time override (setAlgorithm),
// a forced TOPOCOLL_<COLL>_ALGORITHM, the model (TOPOCOLL_SELECT=model), the first matching rule
// of TOPOCOLL_RULES, then the first matching built-in default rule.
#pragma once

#include <cstdint>
#include <string>

#include "choice.h"
#include "config.h"

namespace topocoll {

namespace model {
struct ModelCall;  // model/select_model.h
}

// block_bytes: one rank's block (allgather/alltoall) or the message (bcast); total_bytes: what a
// rank receives in all.
// nodes: how many nodes (shared-memory or virtual) the communicator spans, for rules that depend
// on placement (1 when unknown). nonblocking: the call's form (MPI_I…), for rules on it.
// model_call: the communicator and call, for TOPOCOLL_SELECT=model (null: the rules decide).
Choice selectAlgorithm(Collective coll, int p, int64_t block_bytes, int64_t total_bytes, const Config& cfg,
                       int nodes = 1, bool nonblocking = false, const model::ModelCall* model_call = nullptr);

// Whether a default rule or a rule of the rules file of `coll` depends on placement (the caller
// then counts the nodes).
bool rulesNeedNodes(Collective coll);

}  // namespace topocoll
