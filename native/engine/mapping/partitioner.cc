#include "mapping/partitioner.h"

#include <atomic>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "mapping/graph_view.h"
#include "mapping/multilevel_bisection.h"
#include "mapping/part_tree_index.h"
#include "mapping/rng.h"
#include "mapping/subgraph_extraction.h"

namespace topocoll::mapping {

namespace {

using detail::GraphView;
using detail::PartTreeIndex;

// Parts still to be separated: children [lo, hi) of a tree node (a leaf: lo == hi == 0).
struct PartRange {
  int node;
  int lo;
  int hi;
};

// Subgraphs at least this large are worth a thread of their own.
constexpr int kMinVerticesPerThread = 4096;

class RecursiveBisection {
 public:
  RecursiveBisection(const PartTreeIndex& tree, const PartitionOptions& options, std::vector<int>& part)
      : tree_(tree), seed_(options.seed), part_(part), spare_threads_(options.threads > 1 ? options.threads - 1 : 0) {
    bisection_.coarsen_to = options.coarsen_to;
    bisection_.initial_tries = options.initial_tries;
    bisection_.refined_tries = options.refined_tries;
    bisection_.refine_passes = options.refine_passes;
  }

  void run(const GraphView& g) {
    Workspace ws;
    solve(ws, g, detail::Subproblem{}, wholeNode(0));
  }

 private:
  struct Workspace {
    detail::BisectionWorkspace bisection;
    detail::ExtractionScratch extraction;
  };

  PartRange wholeNode(int node) const { return {node, 0, tree_.node(node).child_count}; }

  // A range holding a single child is that child's own range; repeat down to >= 2 children
  // or a leaf.
  PartRange normalise(PartRange r) const {
    while (r.hi - r.lo == 1) r = wholeNode(tree_.child(r.node, r.lo));
    return r;
  }

  bool isLeaf(const PartRange& r) const { return tree_.node(r.node).child_count == 0; }

  void label(const detail::RawArray<int32_t>& labels, int v, int part_id) { part_[labels.empty() ? v : labels[v]] = part_id; }

  // `g` is the problem's graph (the caller's for the root, else problem.graph). The problem is
  // released as soon as its halves are extracted, so memory stays near twice the input graph.
  void solve(Workspace& ws, GraphView g, detail::Subproblem problem, PartRange range) {
    range = normalise(range);
    if (isLeaf(range)) {
      for (int v = 0; v < g.n; ++v) label(problem.labels, v, tree_.node(range.node).part);
      return;
    }
    if (g.n == 0) return;
    const int mid = range.lo + (range.hi - range.lo) / 2;
    const PartRange halves[2] = {normalise({range.node, range.lo, mid}), normalise({range.node, mid, range.hi})};
    const int64_t target0 = tree_.rangeSize(range.node, range.lo, mid);

    std::vector<uint8_t> where;
    if (target0 == 0 || target0 == g.n) {
      where.assign(static_cast<size_t>(g.n), target0 == 0 ? 1 : 0);
    } else {
      const uint64_t seed = detail::combineSeed(seed_, static_cast<uint64_t>(range.node), static_cast<uint64_t>(range.lo));
      detail::multilevelBisection(g, problem.hierarchy, target0, seed, bisection_, ws.bisection, &pool_, where);
    }

    // Sides that end in a single part are labelled now; the others become subproblems.
    bool want[2] = {false, false};
    for (int s = 0; s < 2; ++s) {
      want[s] = !isLeaf(halves[s]);
      if (want[s]) continue;
      const int part_id = tree_.node(halves[s].node).part;
      for (int v = 0; v < g.n; ++v)
        if (where[v] == s) label(problem.labels, v, part_id);
    }
    if (!want[0] && !want[1]) return;
    detail::Subproblem sub[2];
    detail::splitBySide(g, where, problem.labels.empty() ? nullptr : problem.labels.data(), problem.hierarchy,
                        bisection_.coarsen_to, want, &pool_, sub, ws.extraction);
    problem = detail::Subproblem{};
    std::vector<uint8_t>().swap(where);

    if (want[0] && want[1] && sub[0].graph.n >= kMinVerticesPerThread && takeThread()) {
      // Left half on a worker with its own workspace; results do not depend on the split.
      std::exception_ptr error;
      std::thread worker([&] {
        try {
          Workspace worker_ws;
          const GraphView view = sub[0].graph.view();
          solve(worker_ws, view, std::move(sub[0]), halves[0]);
        } catch (...) {
          error = std::current_exception();
        }
      });
      try {
        const GraphView view = sub[1].graph.view();
        solve(ws, view, std::move(sub[1]), halves[1]);
      } catch (...) {
        worker.join();
        throw;
      }
      worker.join();
      spare_threads_.fetch_add(1);
      if (error) std::rethrow_exception(error);
      return;
    }
    for (int s = 0; s < 2; ++s) {
      if (!want[s]) continue;
      const GraphView view = sub[s].graph.view();
      solve(ws, view, std::move(sub[s]), halves[s]);
    }
  }

  bool takeThread() {
    int spare = spare_threads_.load();
    while (spare > 0)
      if (spare_threads_.compare_exchange_weak(spare, spare - 1)) return true;
    return false;
  }

  const PartTreeIndex& tree_;
  detail::BlockPool pool_;  // declared before anything holding pooled buffers
  const uint64_t seed_;
  std::vector<int>& part_;
  detail::BisectionOptions bisection_;
  std::atomic<int> spare_threads_;
};

void checkRankGraph(const char* fn, const Graph& g) {
  try {
    validateGraph(g);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(fn) + ": " + e.what());
  }
  for (int v = 0; v < g.n; ++v)
    if (g.vwgt[v] != 1)
      throw std::invalid_argument(std::string(fn) + ": vertex " + std::to_string(v) + " has weight " +
                                  std::to_string(g.vwgt[v]) + "; parts are counted in ranks, so every vertex must weigh 1");
}

void checkOptions(const char* fn, const PartitionOptions& o) {
  auto bad = [&](const char* what, int value, const char* rule) {
    throw std::invalid_argument(std::string(fn) + ": options." + what + " = " + std::to_string(value) + " (" + rule + ")");
  };
  if (o.threads < 1) bad("threads", o.threads, "must be >= 1");
  if (o.coarsen_to < 2) bad("coarsen_to", o.coarsen_to, "must be >= 2");
  if (o.initial_tries < 1) bad("initial_tries", o.initial_tries, "must be >= 1");
  if (o.refined_tries < 1) bad("refined_tries", o.refined_tries, "must be >= 1");
  if (o.refine_passes < 0) bad("refine_passes", o.refine_passes, "must be >= 0");
}

std::vector<int> partitionWithTree(const char* fn, const Graph& g, const PartTree& tree, const PartitionOptions& options) {
  checkOptions(fn, options);
  checkRankGraph(fn, g);
  int h = 0;
  try {
    h = validatePartTree(tree);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(fn) + ": " + e.what());
  }
  const PartTreeIndex index(tree);
  if (index.subtreeSize(0) != g.n)
    throw std::invalid_argument(std::string(fn) + ": the " + std::to_string(h) + " part sizes sum to " +
                                std::to_string(index.subtreeSize(0)) + " but the graph has " + std::to_string(g.n) +
                                " vertices");
  std::vector<int> part(static_cast<size_t>(g.n), -1);
  if (g.n == 0) return part;
  const GraphView view{g.n, g.xadj.data(), g.adjncy.data(), g.adjwgt.data(), nullptr, g.n, 1};
  RecursiveBisection(index, options, part).run(view);
  return part;
}

}  // namespace

std::vector<int> partitionGraph(const Graph& g, const std::vector<int>& part_sizes, const PartitionOptions& options) {
  const char* fn = "partitionGraph";
  if (part_sizes.empty()) {
    if (g.n == 0) return {};
    throw std::invalid_argument(std::string(fn) + ": no part sizes for a graph of " + std::to_string(g.n) + " vertices");
  }
  for (size_t u = 0; u < part_sizes.size(); ++u)
    if (part_sizes[u] < 0)
      throw std::invalid_argument(std::string(fn) + ": part " + std::to_string(u) + " has size " +
                                  std::to_string(part_sizes[u]) + " (must be >= 0)");
  return partitionWithTree(fn, g, PartTree::flat(part_sizes), options);
}

std::vector<int> partitionHierarchical(const Graph& g, const PartTree& tree, const PartitionOptions& options) {
  return partitionWithTree("partitionHierarchical", g, tree, options);
}

}  // namespace topocoll::mapping
