#pragma once

namespace topocoll::interpose {

// Depth of engine calls on this thread: building sub-communicators or a profiler below us may
// call MPI_* collectives from inside the engine, and those must go straight to PMPI_*.
extern thread_local int t_depth;

struct EngineScope {
  EngineScope() { ++t_depth; }
  ~EngineScope() { --t_depth; }
};

// True when a call must go straight to PMPI_*: re-entered, before init, or TOPOCOLL_PASSTHROUGH.
bool bypass();

}  // namespace topocoll::interpose
