#include "node_override.h"

#include <cstdlib>

namespace topocoll {
namespace {

bool parseCount(const std::string& text, int min, int* out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 9) return false;
  *out = std::atoi(text.c_str());
  return *out >= min;
}

}  // namespace

int NodeOverride::nodeOf(int world_rank) const {
  switch (kind) {
    case Kind::None: return 0;
    case Kind::Block: return world_rank / param;
    case Kind::Cyclic: return world_rank % param;
    case Kind::List: return world_rank < static_cast<int>(nodes.size()) ? nodes[world_rank] : -1;
  }
  return -1;
}

bool NodeOverride::covers(int world_size, std::string* error) const {
  if (kind != Kind::List || static_cast<int>(nodes.size()) >= world_size) return true;
  *error = "the virtual node list names " + std::to_string(nodes.size()) + " ranks but the job has " +
           std::to_string(world_size) + "; give one node per rank, or use block:K or cyclic:N";
  return false;
}

bool parseNodeOverride(const std::string& text, const char* what, NodeOverride* out, std::string* error) {
  NodeOverride o;
  auto bad = [&](const std::string& why) {
    *error = std::string(what) + "=\"" + text + "\" " + why +
             "; valid forms: block:K (K consecutive ranks per node), cyclic:N (ranks dealt round-robin to N nodes), "
             "or a list of node numbers, one per rank (0,0,1,1)";
    return false;
  };
  if (text.empty()) {
    *out = o;
    return true;
  }
  for (auto [prefix, kind] : {std::pair{"block:", NodeOverride::Kind::Block}, std::pair{"cyclic:", NodeOverride::Kind::Cyclic}}) {
    std::string p = prefix;
    if (text.compare(0, p.size(), p) != 0) continue;
    if (!parseCount(text.substr(p.size()), 1, &o.param)) return bad("needs a whole number >= 1 after \"" + p + "\"");
    o.kind = kind;
    *out = o;
    return true;
  }
  size_t start = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    int node = 0;
    if (!parseCount(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start), 0, &node)) {
      return bad("is not valid");
    }
    o.nodes.push_back(node);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  o.kind = NodeOverride::Kind::List;
  *out = o;
  return true;
}

}  // namespace topocoll
