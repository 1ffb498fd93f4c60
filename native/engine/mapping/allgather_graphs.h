// Information graphs of allgather algorithms (seed 004, fig. 4): n ranks, `block_bytes` bytes
// per rank's block; edge weight = bytes the pair exchanges over the whole algorithm.
// Seed 004 partitions the graph built for block_bytes = 1; any positive value gives the same
// partition, since all weights scale together.
//
// Errors: std::invalid_argument (n < 0, block_bytes < 1, or weights that would overflow int64).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mapping/graph.h"

namespace topocoll::mapping {

// Bruck: ceil(log2 n) steps; at step k rank i sends its min(2^k, n - 2^k) accumulated blocks to
// (i - 2^k) mod n. O(n log n), rows sorted by neighbour.
Graph buildBruckAllgatherGraph(int n, int64_t block_bytes);
std::vector<Message> bruckAllgatherMessages(int n, int64_t block_bytes);

// Recursive doubling. n a power of two: at step k ranks i and i xor 2^k exchange their 2^k
// blocks. Other n (our definition, "fold" variant): with p = 2^floor(log2 n) and r = n - p,
//   1. rank p+j (j < r) sends its block to rank j;
//   2. ranks 0..p-1 run recursive doubling; at step k a rank sends everything its aligned
//      2^k-subcube holds: 2^k blocks plus one per subcube member j < r (folded blocks);
//   3. rank j (j < r) sends all n blocks to rank p+j.
// If the engine's schedule for non-power-of-two n differs, build its graph from the schedule's
// messages with buildGraphFromMessages instead. O(n log n).
Graph buildRecursiveDoublingAllgatherGraph(int n, int64_t block_bytes);
std::vector<Message> recursiveDoublingAllgatherMessages(int n, int64_t block_bytes);

}  // namespace topocoll::mapping
