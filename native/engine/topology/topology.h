// Topology files (TOPOCOLL_TOPOLOGY): the machine as a tree of levels, widest first, each with
// the latency and bandwidth of its links (seed 004's t_l, b_l), and how a job's ranks fall into
// the modules of each level: by host group, host, or virtual node. This is the one reader of the
// format: it takes JSON (the preload path has no Node); the TypeScript side (src/topology/)
// converts YAML to JSON with a line map and hands it here. Errors read "file:line: key: message".
// Format and rules: docs/topology.md, schemas/topology.schema.json.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "hierarchy/node_override.h"

namespace topocoll::topology {

// What the modules of a level are. Levels follow this order, widest first, each at most once.
enum class Scope : int { System = 0, Group = 1, Host = 2, VirtualNode = 3 };
const char* scopeName(Scope scope);

struct Level {
  std::string name;
  Scope scope = Scope::System;
  double latency = 0;    // seconds
  double bandwidth = 0;  // bytes per second
  double exchange_bandwidth = 0;  // per direction while a pair sends both ways at once; 0: bandwidth
  int line = 0;
};

struct Topology {
  std::string source;  // the file, for messages
  std::string name, description;
  std::vector<Level> levels;  // widest first
  // Hostname -> group, in file order; non-empty exactly when a level has scope Group.
  std::vector<std::pair<std::string, std::string>> groups;
  // World rank -> virtual node; active exactly when a level has scope VirtualNode.
  NodeOverride virtual_nodes;
  int groups_line = 0, virtual_nodes_line = 0;
  double reduce_bandwidth = 0;  // bytes a reduce op combines per second on one rank (the model's 1/γ); 0: not given
};

// What the engine's messages call a topology file ("<path>: cannot read the topology file ...").
inline constexpr const char* kFileKind = "topology file";

// Parses a topology from JSON text; `source` names it in errors. False with *error set. `lines`,
// when given, is the json::LineMap of a text the Node side converted from YAML: messages and
// Level::line then name the YAML's lines.
bool parseTopologyJson(const std::string& text, const std::string& source, Topology* out, std::string* error,
                       const std::vector<int>* lines = nullptr);
// The same, and text that is not JSON and does not start like JSON (YAML) gets a message saying
// how to convert it.
bool parseTopologyText(const std::string& text, const std::string& source, Topology* out, std::string* error,
                       const std::vector<int>* lines = nullptr);
// json::readFile + parseTopologyText.
bool readTopologyFile(const std::string& path, Topology* out, std::string* error);

// "15 us" -> 1.5e-5 s, "1 Gbit/s" -> 1.25e8 B/s (the units of src/model/machine.ts).
bool parseQuantity(const std::string& text, bool bandwidth, double* out);

// A topology meeting a job: the module of every rank at every level.
struct Resolved {
  int size = 0;
  std::vector<std::vector<int>> module_of;        // [level][world rank], modules numbered in order of first rank
  std::vector<std::vector<std::string>> labels;   // [level][module]: group, host, or "host/vnode"
  std::vector<std::vector<int>> parent;           // [level][module]: its module at level - 1 (-1 at level 0)

  int levels() const { return static_cast<int>(module_of.size()); }
  // Seed 004's z(p, q): the index (0 = widest) of the narrowest level whose module holds both.
  int meetLevel(int p, int q) const;
};

// Resolves `t` for a job whose world rank r runs on host_of_rank[r]. False with *error
// ("file:line: key: message") when a host is in no group, a virtual node list is too short, or
// the widest level does not hold every rank.
bool resolveTopology(const Topology& t, const std::vector<std::string>& host_of_rank, Resolved* out, std::string* error);

}  // namespace topocoll::topology
