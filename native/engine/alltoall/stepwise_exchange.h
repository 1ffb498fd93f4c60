// The p-1 steps of one exchange each that pairwise and ring (shift) alltoall share: at step i a
// rank sends the block of partner(i).to and receives the block of partner(i).from.
#pragma once

#include "../schedule.h"

namespace topocoll {

struct StepPartners {
  int to;
  int from;
};

template <class PartnersOfStep>
Schedule buildStepwiseAlltoall(const BuildParams& bp, PartnersOfStep partners_of_step) {
  Schedule s;
  const int p = bp.p, r = bp.rank;
  BufferId source = BufferId::Send;
  if (bp.in_place) {
    if (p == 1) return s;
    // Blocks arrive where the outgoing ones sit: send from a copy.
    s.tmp_blocks = p;
    addCopy(s.newRound(), span(BufferId::Recv, 0, p), span(BufferId::Tmp, 0, p));
    source = BufferId::Tmp;
  } else {
    addCopy(s.newRound(), span(BufferId::Send, r, 1), span(BufferId::Recv, r, 1));
  }
  for (int i = 1; i < p; ++i) {
    const StepPartners step = partners_of_step(i);
    Round& round = s.newRound();
    addSend(round, step.to, span(source, step.to, 1));
    addRecv(round, step.from, span(BufferId::Recv, step.from, 1));
  }
  return s;
}

}  // namespace topocoll
