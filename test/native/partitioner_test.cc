// Standalone tests of the rank-mapping core (native/engine/mapping): graph builders, exact-size
// partitioning, cut quality against naive placements, rank permutations, determinism, errors.
// Build and run: test/native/build.sh
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.h"
#include "mapping/allgather_graphs.h"
#include "mapping/graph.h"
#include "mapping/mapping_cost.h"
#include "mapping/part_tree.h"
#include "mapping/partitioner.h"
#include "mapping/rank_mapping.h"

using namespace topocoll::mapping;
using topocoll::test::Test;

namespace {

template <typename F>
bool throwsInvalidArgument(F f, const char* must_mention = nullptr) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return must_mention == nullptr || std::string(e.what()).find(must_mention) != std::string::npos;
  } catch (...) {
    return false;
  }
  return false;
}

// Deterministic test data.
struct TestRng {
  uint64_t s;
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
};

std::vector<Message> ringMessages(int n, int64_t m) {
  std::vector<Message> msgs;
  for (int step = 0; step + 1 < n; ++step)
    for (int i = 0; i < n; ++i) msgs.push_back({i, (i + 1) % n, m});
  return msgs;
}

// Random graph with a local part (near neighbours) and a few long edges, random weights.
Graph randomGraph(int n, TestRng& rng) {
  std::vector<Message> msgs;
  for (int i = 0; i < n; ++i) {
    const int local = 1 + rng.below(3);
    for (int k = 0; k < local; ++k) msgs.push_back({i, (i + 1 + rng.below(4)) % n, 1 + rng.below(1000)});
    if (rng.below(3) == 0) msgs.push_back({i, rng.below(n), 1 + rng.below(100)});
  }
  return buildGraphFromMessages(n, msgs);
}

std::vector<int> contiguousPlacement(const std::vector<int>& sizes) {
  std::vector<int> part;
  for (size_t u = 0; u < sizes.size(); ++u) part.insert(part.end(), static_cast<size_t>(sizes[u]), static_cast<int>(u));
  return part;
}

std::vector<int> roundRobinPlacement(int n, int h) {
  std::vector<int> part(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) part[v] = v % h;
  return part;
}

// Uneven sizes summing to n, some possibly zero.
std::vector<int> unevenSizes(int n, int h, TestRng& rng, bool allow_zero) {
  std::vector<int> sizes(static_cast<size_t>(h), allow_zero ? 0 : 1);
  for (int rest = n - (allow_zero ? 0 : h); rest > 0; --rest) ++sizes[rng.below(h)];
  return sizes;
}

bool hasExactSizes(const std::vector<int>& part, const std::vector<int>& sizes) {
  std::vector<int> count(sizes.size(), 0);
  for (int p : part) {
    if (p < 0 || p >= static_cast<int>(sizes.size())) return false;
    ++count[p];
  }
  return count == sizes;
}

std::string str(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

// ---------------------------------------------------------------------------------------------

void testBruckGraphMatchesItsMessages() {
  for (int n = 0; n <= 130; ++n) {
    const Graph direct = buildBruckAllgatherGraph(n, 3);
    const Graph fromMessages = buildGraphFromMessages(n, bruckAllgatherMessages(n, 3));
    validateGraph(direct);
    CHECK(direct.xadj == fromMessages.xadj && direct.adjncy == fromMessages.adjncy && direct.adjwgt == fromMessages.adjwgt,
          "n=%d: direct Bruck builder differs from the message-list builder", n);
    // Every rank receives n-1 blocks in total.
    CHECK(direct.totalEdgeWeight() == int64_t{3} * n * std::max(0, n - 1), "n=%d: total bytes %lld", n,
          static_cast<long long>(direct.totalEdgeWeight()));
  }
}

void testBruckGraphWeightsN8() {
  // Seed 004 fig. 4b: distance 1 carries 1 block, distance 2 two, distance 4 four each way.
  const Graph g = buildBruckAllgatherGraph(8, 1);
  auto weight = [&](int u, int v) -> int64_t {
    for (int64_t e = g.xadj[u]; e < g.xadj[u + 1]; ++e)
      if (g.adjncy[e] == v) return g.adjwgt[e];
    return 0;
  };
  CHECK(weight(0, 1) == 1 && weight(0, 7) == 1, "distance 1: %lld %lld", (long long)weight(0, 1), (long long)weight(0, 7));
  CHECK(weight(0, 2) == 2 && weight(0, 6) == 2, "distance 2: %lld", (long long)weight(0, 2));
  CHECK(weight(0, 4) == 8, "distance 4 (both directions): %lld", (long long)weight(0, 4));
  CHECK(g.degree(0) == 5, "degree %d", g.degree(0));
}

void testRecursiveDoublingGraph() {
  for (int n = 0; n <= 100; ++n) {
    const Graph g = buildRecursiveDoublingAllgatherGraph(n, 2);
    validateGraph(g);
    int p = 1;
    while (p * 2 <= n) p *= 2;
    const int r = n > 0 ? n - p : 0;
    // Recursive doubling moves p(p-1) "subcube" block-sends plus the folded blocks; checked
    // here through the power-of-two case and the fold edges.
    if (n > 0 && r == 0) {
      CHECK(g.totalEdgeWeight() == int64_t{2} * n * (n - 1), "n=%d power of two: total %lld", n, (long long)g.totalEdgeWeight());
      for (int v = 0; v < n; ++v)
        for (int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
          const int x = v ^ g.adjncy[e];
          CHECK((x & (x - 1)) == 0 && g.adjwgt[e] == int64_t{2} * 2 * x, "n=%d edge %d-%d weight %lld", n, v, g.adjncy[e],
                (long long)g.adjwgt[e]);
        }
    }
    for (int j = 0; j < r; ++j) {
      int64_t w = 0;
      for (int64_t e = g.xadj[p + j]; e < g.xadj[p + j + 1]; ++e) w += g.adjwgt[e];
      CHECK(w == int64_t{2} * (1 + n), "n=%d: folded rank %d exchanges %lld bytes", n, p + j, (long long)w);
    }
  }
}

void testMessagesBuilderMergesAndSkips() {
  const Graph g = buildGraphFromMessages(3, {{0, 1, 5}, {1, 0, 7}, {2, 2, 9}, {1, 2, 0}, {0, 1, 1}});
  validateGraph(g);
  CHECK(g.numEdges() == 1, "edges %lld", (long long)g.numEdges());
  CHECK(g.adjwgt.size() == 2 && g.adjwgt[0] == 13, "merged weight %lld", g.adjwgt.empty() ? -1LL : (long long)g.adjwgt[0]);
}

void testInvalidInputsThrow() {
  CHECK(throwsInvalidArgument([] { buildBruckAllgatherGraph(-1, 1); }, "buildBruckAllgatherGraph"), "negative n");
  CHECK(throwsInvalidArgument([] { buildBruckAllgatherGraph(4, 0); }, "block_bytes"), "zero block bytes");
  CHECK(throwsInvalidArgument([] { buildRecursiveDoublingAllgatherGraph(1 << 20, int64_t{1} << 50); }, "overflow"), "overflow");
  CHECK(throwsInvalidArgument([] { buildGraphFromMessages(4, {{0, 4, 1}}); }, "outside"), "rank out of range");
  CHECK(throwsInvalidArgument([] { buildGraphFromMessages(4, {{0, 1, -1}}); }, "bytes"), "negative bytes");

  const Graph g = buildBruckAllgatherGraph(8, 1);
  CHECK(throwsInvalidArgument([&] { partitionGraph(g, {4, 3}); }, "sum to 7"), "sizes do not sum to n");
  CHECK(throwsInvalidArgument([&] { partitionGraph(g, {9, -1}); }, "size -1"), "negative size");
  CHECK(throwsInvalidArgument([&] { partitionGraph(g, {}); }, "no part sizes"), "no sizes");
  PartitionOptions bad;
  bad.threads = 0;
  CHECK(throwsInvalidArgument([&] { partitionGraph(g, {4, 4}, bad); }, "threads"), "threads = 0");

  Graph weighted = g;
  weighted.vwgt[3] = 2;
  CHECK(throwsInvalidArgument([&] { partitionGraph(weighted, {4, 4}); }, "weigh 1"), "non-unit vertex weight");
  Graph asymmetric = g;
  asymmetric.adjwgt[0] += 1;
  CHECK(throwsInvalidArgument([&] { partitionGraph(asymmetric, {4, 4}); }, "symmetric"), "asymmetric graph");
  Graph selfLoop = buildGraphFromMessages(2, {{0, 1, 1}});
  selfLoop.adjncy[0] = 0;
  CHECK(throwsInvalidArgument([&] { validateGraph(selfLoop); }, "self loop"), "self loop");
  Graph outOfRange = buildGraphFromMessages(2, {{0, 1, 1}});
  outOfRange.adjncy[0] = 5;
  CHECK(throwsInvalidArgument([&] { validateGraph(outOfRange); }, "leaves the graph"), "neighbour out of range");
  Graph shortXadj = g;
  shortXadj.xadj.pop_back();
  CHECK(throwsInvalidArgument([&] { partitionGraph(shortXadj, {4, 4}); }, "xadj"), "short xadj");

  CHECK(throwsInvalidArgument([&] { computeRankMapping(g, {0, 0, 0, 0, 1, 1, 1}); }, "node_of_slot"), "slot count");
  CHECK(throwsInvalidArgument([&] { computeRankMapping(g, {0, 0, 0, 0, 1, 1, 1, -1}); }, "node -1"), "negative node id");
  CHECK(throwsInvalidArgument([&] { rankMappingFromParts({0, 0, 1}, {0, 1, 1}); }, "slots"), "part/slot mismatch");
  CHECK(throwsInvalidArgument([&] { cutWeight(g, {0, 1}); }, "entries"), "cutWeight length");
  PartTree duplicate = PartTree::group({PartTree::leaf(0, 4), PartTree::leaf(0, 4)});
  CHECK(throwsInvalidArgument([&] { partitionHierarchical(g, duplicate); }, "twice"), "duplicate part id");
  PartTree gap = PartTree::group({PartTree::leaf(0, 4), PartTree::leaf(2, 4)});
  CHECK(throwsInvalidArgument([&] { partitionHierarchical(g, gap); }, "missing"), "part id gap");
}

void testSeedExampleN8() {
  // Seed 004 fig. 8: Bruck, n = 8, two nodes of 4: {0,2,4,6} and {1,3,5,7}.
  const Graph g = buildBruckAllgatherGraph(8, 1);
  const std::vector<int> part = partitionGraph(g, {4, 4});
  for (int v = 0; v < 8; ++v) CHECK(part[v] == part[v % 2], "part %s does not group ranks by parity", str(part).c_str());
  CHECK(part[0] != part[1], "part %s", str(part).c_str());
  CHECK(cutWeight(g, part) == 8, "cut %lld", (long long)cutWeight(g, part));
  CHECK(cutWeight(g, contiguousPlacement({4, 4})) == 42, "identity cut %lld", (long long)cutWeight(g, contiguousPlacement({4, 4})));

  const RankMapping m = computeRankMapping(g, {0, 0, 0, 0, 1, 1, 1, 1});
  std::set<int> node0;
  for (int v = 0; v < 8; ++v)
    if (m.pi[v] < 4) node0.insert(v);
  CHECK(node0 == std::set<int>({0, 2, 4, 6}) || node0 == std::set<int>({1, 3, 5, 7}), "node 0 runs %zu vertices", node0.size());
}

void testExactSizesRandomGraphs() {
  TestRng rng{12345};
  for (int trial = 0; trial < 120; ++trial) {
    const int n = 1 + rng.below(trial < 100 ? 300 : 5000);
    const int h = 1 + rng.below(std::min(n, 40));
    const std::vector<int> sizes = unevenSizes(n, h, rng, trial % 3 == 0);
    const Graph g = randomGraph(n, rng);
    const std::vector<int> part = partitionGraph(g, sizes);
    CHECK(hasExactSizes(part, sizes), "random graph n=%d h=%d sizes %s", n, h, str(sizes).c_str());
  }
}

void testExactSizesAlgorithmGraphs() {
  TestRng rng{777};
  int cases = 0;
  for (int n = 1; n <= 200; n += (n < 40 ? 1 : 7)) {
    for (int h : {1, 2, 3, 5, 8, 16}) {
      if (h > n) continue;
      const std::vector<int> sizes = unevenSizes(n, h, rng, false);
      for (const Graph& g : {buildBruckAllgatherGraph(n, 1), buildRecursiveDoublingAllgatherGraph(n, 1),
                             buildGraphFromMessages(n, ringMessages(n, 1))}) {
        const std::vector<int> part = partitionGraph(g, sizes);
        CHECK(hasExactSizes(part, sizes), "n=%d sizes %s", n, str(sizes).c_str());
        ++cases;
      }
    }
  }
  CHECK(cases > 500, "only %d cases", cases);
}

// The raw partitioner (no safety net) against contiguous blocks and round-robin placement.
void testCutNotWorseThanIdentity() {
  struct Named {
    const char* name;
    std::function<Graph(int)> build;
  };
  const Named graphs[] = {
      {"bruck", [](int n) { return buildBruckAllgatherGraph(n, 1); }},
      {"recursive_doubling", [](int n) { return buildRecursiveDoublingAllgatherGraph(n, 1); }},
      {"ring", [](int n) { return buildGraphFromMessages(n, ringMessages(n, 1)); }},
  };
  int compared = 0;
  for (const Named& named : graphs) {
    for (int per_node : {2, 3, 4, 6, 8, 12, 16}) {
      for (int h : {2, 3, 4, 5, 8, 16, 32}) {
        const int n = per_node * h;
        if (n > 1024) continue;
        const Graph g = named.build(n);
        const std::vector<int> sizes(static_cast<size_t>(h), per_node);
        const std::vector<int> part = partitionGraph(g, sizes);
        const int64_t cut = cutWeight(g, part);
        const int64_t contiguous = cutWeight(g, contiguousPlacement(sizes));
        const int64_t round_robin = cutWeight(g, roundRobinPlacement(n, h));
        CHECK(cut <= contiguous && cut <= round_robin, "%s n=%d h=%d: cut %lld, contiguous %lld, round-robin %lld", named.name, n,
              h, (long long)cut, (long long)contiguous, (long long)round_robin);
        ++compared;
      }
    }
  }
  // Uneven node sizes against contiguous placement.
  TestRng rng{99};
  for (const Named& named : graphs) {
    for (int trial = 0; trial < 30; ++trial) {
      const int n = 8 + rng.below(250);
      const int h = 2 + rng.below(std::min(n / 2, 20));
      const std::vector<int> sizes = unevenSizes(n, h, rng, false);
      const Graph g = named.build(n);
      const int64_t cut = cutWeight(g, partitionGraph(g, sizes));
      const int64_t contiguous = cutWeight(g, contiguousPlacement(sizes));
      CHECK(cut <= contiguous, "%s n=%d sizes %s: cut %lld > contiguous %lld", named.name, n, str(sizes).c_str(), (long long)cut,
            (long long)contiguous);
      ++compared;
    }
  }
  CHECK(compared > 200, "only %d comparisons", compared);
}

void testRankMappingIsPermutationOntoNodes() {
  TestRng rng{4242};
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + rng.below(trial < 150 ? 100 : 3000);
    const int h = 1 + rng.below(std::min(n, 12));
    std::vector<int> node_of_slot(static_cast<size_t>(n));
    switch (trial % 3) {
      case 0:  // round-robin over nodes
        for (int r = 0; r < n; ++r) node_of_slot[r] = r % h;
        break;
      case 1: {  // uneven contiguous blocks
        const std::vector<int> sizes = unevenSizes(n, h, rng, false);
        node_of_slot = contiguousPlacement(sizes);
        break;
      }
      default:  // arbitrary interleaving
        for (int r = 0; r < n; ++r) node_of_slot[r] = r < h ? r : rng.below(h);
    }
    const Graph g = trial % 2 ? buildBruckAllgatherGraph(n, 1) : randomGraph(n, rng);
    const RankMapping m = computeRankMapping(g, node_of_slot);
    bool ok = m.pi.size() == static_cast<size_t>(n) && m.pi_inv.size() == static_cast<size_t>(n);
    for (int v = 0; ok && v < n; ++v) ok = m.pi[v] >= 0 && m.pi[v] < n && m.pi_inv[m.pi[v]] == v;
    for (int r = 0; ok && r < n; ++r) ok = m.pi_inv[r] >= 0 && m.pi_inv[r] < n && m.pi[m.pi_inv[r]] == r;
    CHECK(ok, "trial %d n=%d: pi and pi_inv are not inverse permutations", trial, n);
    if (!ok) continue;
    // The placement's cost: the part of v is the node of its slot.
    std::vector<int> placed(static_cast<size_t>(n));
    for (int v = 0; v < n; ++v) placed[v] = node_of_slot[m.pi[v]];
    CHECK(hasExactSizes(placed, slotsPerNode(node_of_slot)), "trial %d: node loads differ from slot counts", trial);
    CHECK(cutWeight(g, placed) <= cutWeight(g, node_of_slot), "trial %d: mapping is worse than identity (%lld > %lld)", trial,
          (long long)cutWeight(g, placed), (long long)cutWeight(g, node_of_slot));
  }
}

void testRankMappingKeepsFixedPoints() {
  // A partition equal to the current placement must give the identity.
  const std::vector<int> node_of_slot = {0, 1, 2, 0, 1, 2, 0, 1};
  const RankMapping m = rankMappingFromParts(node_of_slot, node_of_slot);
  std::vector<int> id(8);
  std::iota(id.begin(), id.end(), 0);
  CHECK(m.pi == id && m.pi_inv == id, "pi %s", str(m.pi).c_str());
  // Round-robin slots: Bruck n = 64 on 8 nodes is already optimal there, so nothing moves.
  std::vector<int> rr(64);
  for (int r = 0; r < 64; ++r) rr[r] = r % 8;
  const Graph g = buildBruckAllgatherGraph(64, 1);
  const RankMapping keep = computeRankMapping(g, rr);
  std::vector<int> placed(64);
  for (int v = 0; v < 64; ++v) placed[v] = rr[keep.pi[v]];
  CHECK(cutWeight(g, placed) == cutWeight(g, rr), "round-robin Bruck: %lld vs %lld", (long long)cutWeight(g, placed),
        (long long)cutWeight(g, rr));
}

void testDeterminism() {
  TestRng rng{2024};
  const Graph g = randomGraph(20000, rng);
  const std::vector<int> sizes = unevenSizes(20000, 37, rng, false);
  PartitionOptions one;
  PartitionOptions two;
  two.threads = 2;
  const std::vector<int> a = partitionGraph(g, sizes, one);
  const std::vector<int> b = partitionGraph(g, sizes, one);
  const std::vector<int> c = partitionGraph(g, sizes, two);
  CHECK(a == b, "two runs with the same seed differ");
  CHECK(a == c, "threads = 2 changes the result");
  CHECK(hasExactSizes(c, sizes), "threaded sizes");
  PartitionOptions other;
  other.seed = 99;
  CHECK(hasExactSizes(partitionGraph(g, sizes, other), sizes), "other seed sizes");

  const Graph bruck = buildBruckAllgatherGraph(64, 1);
  const std::vector<int> node_of_slot = contiguousPlacement(std::vector<int>(8, 8));
  const RankMapping m1 = computeRankMapping(bruck, node_of_slot);
  const RankMapping m2 = computeRankMapping(bruck, node_of_slot);
  CHECK(m1.pi == m2.pi && m1.pi_inv == m2.pi_inv, "rank mapping differs between runs");
}

void testBruck64Into8FindsStrideStructure() {
  // Optimal for Bruck on 8 nodes of 8: vertices i, i+8, ..., i+56 together (distances 8, 16, 32).
  const Graph g = buildBruckAllgatherGraph(64, 1);
  const std::vector<int> part = partitionGraph(g, std::vector<int>(8, 8));
  const int64_t cut = cutWeight(g, part);
  const int64_t stride = cutWeight(g, roundRobinPlacement(64, 8));
  CHECK(cut == stride, "cut %lld, stride placement %lld", (long long)cut, (long long)stride);
}

void testHierarchical() {
  // 4 racks x 4 nodes x 8 slots; racks joined by slow links.
  const int n = 128;
  const Graph g = buildBruckAllgatherGraph(n, 1);
  const std::vector<int> sizes(16, 8);
  std::vector<int> rack_of_node(16);
  for (int u = 0; u < 16; ++u) rack_of_node[u] = u / 4;
  const PartTree machine = PartTree::grouped(sizes, rack_of_node, 1.0, 10.0);
  CHECK(validatePartTree(machine) == 16, "tree parts");
  const std::vector<int> part = partitionHierarchical(g, machine);
  CHECK(hasExactSizes(part, sizes), "hierarchical sizes");
  std::vector<int> rack_part(n);
  for (int v = 0; v < n; ++v) rack_part[v] = rack_of_node[part[v]];
  // Racks first: the rack-level cut equals a direct 4-way partition into racks of 32.
  const int64_t rack_cut = cutWeight(g, rack_part);
  const int64_t direct = cutWeight(g, partitionGraph(g, std::vector<int>(4, 32)));
  CHECK(rack_cut <= direct, "rack cut %lld, direct 4-way %lld", (long long)rack_cut, (long long)direct);
  const double cost = hierarchicalCost(g, part, machine);
  const double identity = hierarchicalCost(g, contiguousPlacement(sizes), machine);
  CHECK(cost < identity, "F %.1f vs identity %.1f", cost, identity);
  // F on a flat tree is the cut divided by the bandwidth.
  const PartTree flat = PartTree::flat(sizes, 4.0);
  CHECK(hierarchicalCost(g, part, flat) == static_cast<double>(cutWeight(g, part)) / 4.0, "flat F");

  // Uneven hierarchy with interleaved slots through computeRankMapping.
  std::vector<int> node_of_slot(100);
  for (int r = 0; r < 100; ++r) node_of_slot[r] = r % 7;
  const std::vector<int> slots = slotsPerNode(node_of_slot);
  const PartTree tree = PartTree::grouped(slots, {0, 0, 1, 1, 1, 2, 2}, 1.0, 5.0);
  const Graph rd = buildRecursiveDoublingAllgatherGraph(100, 1);
  const RankMapping m = computeRankMapping(rd, node_of_slot, tree);
  std::vector<int> placed(100);
  for (int v = 0; v < 100; ++v) placed[v] = node_of_slot[m.pi[v]];
  CHECK(hasExactSizes(placed, slots), "hierarchical mapping loads");
  CHECK(hierarchicalCost(rd, placed, tree) <= hierarchicalCost(rd, node_of_slot, tree), "hierarchical mapping worse than identity");
  CHECK(throwsInvalidArgument([&] { computeRankMapping(rd, node_of_slot, PartTree::flat(std::vector<int>(7, 14))); }, "slots"),
        "tree sizes must match slots");
}

void testEdgeCases() {
  const Graph empty = buildBruckAllgatherGraph(0, 1);
  CHECK(partitionGraph(empty, {}).empty(), "empty graph");
  CHECK(partitionGraph(empty, {0, 0}).empty(), "empty graph, empty parts");
  const Graph one = buildBruckAllgatherGraph(1, 1);
  CHECK(partitionGraph(one, {1}) == std::vector<int>{0}, "single vertex");
  CHECK(partitionGraph(one, {0, 1, 0}) == std::vector<int>{1}, "single vertex, empty parts");
  const Graph two = buildBruckAllgatherGraph(2, 1);
  const std::vector<int> p2 = partitionGraph(two, {1, 1});
  CHECK(p2[0] != p2[1], "two vertices");
  // Edgeless and disconnected graphs still get exact sizes.
  const Graph isolated = buildGraphFromMessages(10, {});
  CHECK(hasExactSizes(partitionGraph(isolated, {3, 3, 4}), {3, 3, 4}), "edgeless");
  const Graph components = buildGraphFromMessages(12, {{0, 1, 5}, {1, 2, 5}, {5, 6, 1}, {9, 10, 3}});
  const std::vector<int> pc = partitionGraph(components, {2, 5, 5});
  CHECK(hasExactSizes(pc, {2, 5, 5}), "components");
  // All in one part / parts of size one.
  const Graph b = buildBruckAllgatherGraph(33, 1);
  CHECK(hasExactSizes(partitionGraph(b, {33}), {33}), "one part");
  CHECK(hasExactSizes(partitionGraph(b, std::vector<int>(33, 1)), std::vector<int>(33, 1)), "singletons");
  const RankMapping m = computeRankMapping(b, std::vector<int>(33, 0));
  std::vector<int> id(33);
  std::iota(id.begin(), id.end(), 0);
  CHECK(m.pi == id, "single node: identity");
}

}  // namespace

int main() {
  const Test tests[] = {
      {"bruck graph matches its message list", testBruckGraphMatchesItsMessages},
      {"bruck graph weights, n = 8", testBruckGraphWeightsN8},
      {"recursive doubling graph", testRecursiveDoublingGraph},
      {"message builder merges pairs, skips copies", testMessagesBuilderMergesAndSkips},
      {"invalid inputs throw invalid_argument", testInvalidInputsThrow},
      {"seed 004 example: bruck n = 8 into 4 + 4", testSeedExampleN8},
      {"exact part sizes, random graphs", testExactSizesRandomGraphs},
      {"exact part sizes, algorithm graphs", testExactSizesAlgorithmGraphs},
      {"cut never worse than contiguous / round-robin", testCutNotWorseThanIdentity},
      {"rank mapping: pi o pi_inv = id, loads = slots", testRankMappingIsPermutationOntoNodes},
      {"rank mapping keeps vertices already in place", testRankMappingKeepsFixedPoints},
      {"determinism (runs, threads)", testDeterminism},
      {"bruck 64 into 8 x 8 finds the stride structure", testBruck64Into8FindsStrideStructure},
      {"hierarchical partition and cost", testHierarchical},
      {"edge cases", testEdgeCases},
  };
  return topocoll::test::runTests(tests);
}
