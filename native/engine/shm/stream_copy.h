// Copies into a node's shared segment with streaming (non-temporal) stores.
//
// Why: a plain copy leaves the segment's lines dirty in the writer's private cache, and every
// reader then fetches them from that cache. Where the two cores share a last-level cache that is
// cheap; where they do not (two AMD CCXs, or vCPUs the hypervisor moves between them) each line
// crosses the chip one at a time, and the readers' copies ran 3-4x slower (2-core VM here,
// bcast 16-512 KiB: 2.8 us at 16 KiB in some launches, 8.8 us in others, with no change of
// ours). Streaming stores send the lines to memory, which every core reads at full bandwidth:
// the same launches then all took 2.4-2.8 us at 16 KiB (docs/shm.md).
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
