// What reduce_scatter and reduce_scatter_block share: the vector is cut into p parts, part i
// (elements [first(i), first(i + 1))) combined over all ranks and left on rank i. Their builders
// are the same functions, registered under both collectives: reduce_scatter passes every rank's
// count (BuildParams::recv_counts), reduce_scatter_block one count for all (BuildParams::count).
// Layout: the send buffer holds the whole vector, the receive buffer my part; MPI_IN_PLACE, the
// receive buffer holds the whole vector and my part of the result goes to its start.
#pragma once

#include <vector>

#include "../schedule.h"

namespace topocoll::reduce_scatter {

class Parts {
 public:
  explicit Parts(const BuildParams& bp) : first_(static_cast<size_t>(bp.p) + 1, 0) {
    for (int i = 0; i < bp.p; ++i) first_[i + 1] = first_[i] + (bp.recv_counts ? (*bp.recv_counts)[i] : bp.count);
  }
  int64_t first(int i) const { return first_[i]; }
  int64_t count(int i) const { return first_[i + 1] - first_[i]; }
  int64_t total() const { return first_.back(); }

 private:
  std::vector<int64_t> first_;
};

}  // namespace topocoll::reduce_scatter

namespace topocoll {

Schedule buildRecursiveHalvingReduceScatter(const BuildParams& bp);
Schedule buildPairwiseReduceScatter(const BuildParams& bp);
Schedule buildRingReduceScatter(const BuildParams& bp);

}  // namespace topocoll
