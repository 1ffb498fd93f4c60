// Copies into a node's shared segment with streaming (non-temporal) stores.
//
// Why: a plain copy leaves the segment's lines dirty in the writer's private cache, and every
// reader then fetches them from that cache. Where the two cores share a last-level cache that is
// cheap; where they do not (two AMD CCXs, or vCPUs the hypervisor moves between them) each line
// crosses the chip one at a time, and the readers' copies run several times slower, varying from
// launch to launch. Streaming stores send the lines to memory, which every core reads at full
// bandwidth, and the times become steady (measurements: docs/shm.md).
#pragma once

#include <cstddef>

namespace topocoll {

// Below this, a copy stays in the caches: latency matters more than where the lines live.
inline constexpr size_t kStreamCopyMinBytes = 4096;

// memcpy(dst, src, n) (no overlap) that bypasses the caches for dst where the CPU can, and
// fences, so that the stores are visible before a flag raised after it (release stores do not
// order non-temporal ones).
void streamCopy(char* dst, const char* src, size_t n);

}  // namespace topocoll
