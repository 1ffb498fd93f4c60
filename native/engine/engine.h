// The engine's entry points: one per collective, shared by the preload library (MPI_* symbols)
// and the Node addon. Each call selects an algorithm, fetches its cached schedule and runs it.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>

#include "executor.h"
#include "generated/registry.h"
#include "schedule.h"

namespace topocoll::engine {

// Reads TOPOCOLL_* from the environment; needs no MPI. False with *error on a bad value.
bool loadConfig(std::string* error);
// After MPI_Init: loads the configuration and prepares communicator caching. Idempotent.
int initialize(std::string* error);
bool initialized();
// Before MPI_Finalize: prints TOPOCOLL_STATS.
void finalize();

// A null `request` makes the call blocking; otherwise it starts a nonblocking collective and
// hands back the request to progress with test()/wait().
using RequestOut = std::unique_ptr<CollectiveRequest>*;

int allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
              MPI_Datatype recvtype, MPI_Comm comm, RequestOut request = nullptr);
int bcast(void* buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm, RequestOut request = nullptr);
int barrier(MPI_Comm comm, RequestOut request = nullptr);
int alltoall(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
             MPI_Datatype recvtype, MPI_Comm comm, RequestOut request = nullptr);

// The schedule an algorithm builds, for tools (explain, the replayer); needs no MPI.
// Returns false with *error when the algorithm has no builder or the parameters are invalid.
bool buildSchedule(generated::Collective coll, int algorithm, const BuildParams& params, Schedule* out, std::string* error);

}  // namespace topocoll::engine
