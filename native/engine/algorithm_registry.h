// Schedule builders register themselves by name; the names must be the registry's
// (src/select/registry.ts, generated into generated/registry.h). A name the registry lists
// without a builder, or a builder under an unknown name, is reported by checkRegistry().
#pragma once

#include <string>

#include "generated/registry.h"
#include "schedule.h"

namespace topocoll {

using generated::Collective;
using generated::Shape;

struct AlgorithmRegistration {
  AlgorithmRegistration(Collective coll, const char* name, ScheduleBuilder build);
};

#define TOPOCOLL_REGISTER_ALGORITHM(coll, name, builder)                                    \
  static const ::topocoll::AlgorithmRegistration topocoll_registration_##builder{            \
      ::topocoll::Collective::coll, name, builder}

// Inline: read on every call that runs through the engine.
inline const generated::CollectiveEntry& collectiveEntry(Collective coll) { return generated::kCollectives[static_cast<int>(coll)]; }
// Index of `name` among the collective's algorithms, or -1.
int algorithmIndex(Collective coll, const std::string& name);
const char* algorithmName(Collective coll, int index);
ScheduleBuilder findBuilder(Collective coll, int index);
// Collective by its registry name ("allgather"), false if unknown.
bool collectiveByName(const std::string& name, Collective* out);
// The registry's collectives, "allgather, bcast, ...", for messages naming the valid choices.
std::string collectiveNames();
// Empty when every registry name has exactly one builder; otherwise what is wrong.
std::string checkRegistry();

// The schedule an algorithm builds, for tools (explain, the replayer); needs no MPI.
// Returns false with *error when the algorithm has no builder or the parameters are invalid.
bool buildSchedule(Collective coll, int algorithm, const BuildParams& params, Schedule* out, std::string* error);

}  // namespace topocoll
