// TOPOCOLL_STATS: what each collective and algorithm cost this process (calls, bytes, time in
// the call), reported once per job at MPI_Finalize, as mpiP's summary is: every rank's counters
// gathered to rank 0 over the library's own duplicate of MPI_COMM_WORLD, and one table printed.
// 1: the table; 2: also one line per rank and algorithm.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "generated/registry.h"

namespace topocoll::engine::stats {

struct Counter {
  uint64_t calls = 0;
  uint64_t bytes = 0;
  double seconds = 0;  // in the call: a nonblocking one's start only
};

// The counter of `algorithm` (an index of the registry, or kAlgorithmNative) of `coll`, with one
// call of `bytes` counted; the caller adds the call's time when it returns.
Counter* count(generated::Collective coll, int algorithm, int64_t bytes);

// At initialize, with TOPOCOLL_STATS set: duplicates MPI_COMM_WORLD for the report (collective).
int open();
// At MPI_Finalize, before the system MPI's: the report, if open() ran. Collective over the
// world, as MPI_Finalize is: a program that never finalizes prints nothing.
void report(int level);

}  // namespace topocoll::engine::stats
