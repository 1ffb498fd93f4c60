// A process-wide forced algorithm per collective, set by tools (the benchmark, tests) at run
// time rather than through TOPOCOLL_<COLL>_ALGORITHM at init. It outranks the environment and
// the rules: a benchmark sweeping algorithms must get exactly the one it asks for.
#pragma once

#include <string>

#include "config.h"

namespace topocoll::override_algorithm {

// kAlgorithmAuto (no override), kAlgorithmNative or a registry index of `coll`.
void setForced(Collective coll, int algorithm);
int forced(Collective coll);

// The engine notes here when an overridden algorithm could not run a call and native ran
// instead; take() returns the last reason (empty if none) and clears it, so that a benchmark
// never reports native's time under another algorithm's name.
void noteFallback(Collective coll, const std::string& why);
std::string takeFallback(Collective coll);

}  // namespace topocoll::override_algorithm
