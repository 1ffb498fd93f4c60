#include "mapping/mapping_cost.h"

#include <stdexcept>
#include <string>

#include "mapping/part_tree_index.h"

namespace topocoll::mapping {

namespace {

void checkParts(const char* fn, const Graph& g, const std::vector<int>& part, int h) {
  if (part.size() != static_cast<size_t>(g.n))
    throw std::invalid_argument(std::string(fn) + ": part has " + std::to_string(part.size()) +
                                " entries but the graph has " + std::to_string(g.n) + " vertices");
  for (int v = 0; v < g.n; ++v)
    if (part[v] < 0 || (h >= 0 && part[v] >= h))
      throw std::invalid_argument(std::string(fn) + ": vertex " + std::to_string(v) + " is in part " +
                                  std::to_string(part[v]) + ", outside 0.." + (h >= 0 ? std::to_string(h - 1) : "INT_MAX"));
}

}  // namespace

int64_t cutWeight(const Graph& g, const std::vector<int>& part) {
  checkParts("cutWeight", g, part, -1);
  int64_t twice = 0;
  for (int v = 0; v < g.n; ++v)
    for (int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e)
      if (part[g.adjncy[e]] != part[v]) twice += g.adjwgt[e];
  return twice / 2;
}

double hierarchicalCost(const Graph& g, const std::vector<int>& part, const PartTree& tree) {
  const int h = validatePartTree(tree);
  checkParts("hierarchicalCost", g, part, h);
  const detail::PartTreeIndex index(tree);
  double cost = 0;
  for (int v = 0; v < g.n; ++v)
    for (int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      const int u = g.adjncy[e];
      if (u > v && part[u] != part[v])
        cost += static_cast<double>(g.adjwgt[e]) / index.node(index.meetingNode(part[u], part[v])).bandwidth;
    }
  return cost;
}

}  // namespace topocoll::mapping
