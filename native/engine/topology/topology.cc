#include "topology/topology.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "topology/json.h"

namespace topocoll::topology {
namespace {

using json::Value;
using Type = json::Value::Type;

constexpr const char* kTopKeys[] = {"$schema", "name", "description", "levels", "groups", "virtual_nodes", "reduce_bandwidth"};
constexpr const char* kLevelKeys[] = {"name", "scope", "latency", "bandwidth", "exchange_bandwidth"};
constexpr const char* kScopeNames[] = {"system", "group", "host", "virtual_node"};
constexpr const char* kVirtualNodeForms =
    "block:K (K consecutive ranks per node), cyclic:N (ranks dealt round-robin to N nodes), or a list with the node of "
    "each rank ([0, 0, 1, 1])";

struct Unit {
  const char* name;
  double factor;
};
constexpr Unit kTimeUnits[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"\xC2\xB5s", 1e-6}, {"\xCE\xBCs", 1e-6}, {"ns", 1e-9}};
// MB is 10^6 bytes; MiB is 2^20.
constexpr Unit kBandwidthUnits[] = {{"B/s", 1},          {"KB/s", 1e3},         {"MB/s", 1e6},      {"GB/s", 1e9},
                                    {"KiB/s", 1024.0},   {"MiB/s", 1048576.0},  {"GiB/s", 1073741824.0},
                                    {"bit/s", 1.0 / 8},  {"Kbit/s", 1e3 / 8},   {"Mbit/s", 1e6 / 8}, {"Gbit/s", 1e9 / 8}};

template <size_t N>
std::string joined(const char* const (&names)[N]) {
  std::string out;
  for (const char* n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

template <size_t N>
std::string unitNames(const Unit (&units)[N]) {
  std::string out;
  for (const Unit& u : units) out += (out.empty() ? "" : ", ") + std::string(u.name);
  return out;
}

std::string quotedJson(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A value in messages: number 5, string "x", a list, a mapping, nothing.
std::string describe(const Value& v) {
  switch (v.type) {
    case Type::Null: return "nothing";
    case Type::Bool: return v.boolean ? "boolean true" : "boolean false";
    case Type::Number: {
      std::ostringstream s;
      s.precision(15);
      s << v.number;
      return "number " + s.str();
    }
    case Type::String: return "string " + quotedJson(v.string);
    case Type::Array: return "a list";
    case Type::Object: return "a mapping";
  }
  return "a value";
}

bool isWhole(const std::string& s) {
  return !s.empty() && s.size() <= 9 && s.find_first_not_of("0123456789") == std::string::npos && (s == "0" || s[0] != '0');
}

class Reader {
 public:
  Reader(const std::string& source, std::string* error) : source_(source), error_(error) {}

  bool fail(const std::string& key, int line, const std::string& detail) {
    *error_ = source_ + (line > 0 ? ":" + std::to_string(line) : "") + ": " + (key.empty() ? "" : key + ": ") + detail;
    return false;
  }

  // An object whose keys are all in `allowed`.
  bool mapping(const Value& v, const std::string& key, const char* const* allowed, size_t n) {
    if (v.type != Type::Object) return fail(key, v.line, "must be a mapping, got " + describe(v));
    for (size_t i = 0; i < v.keys.size(); ++i) {
      bool ok = false;
      std::string valid;
      for (size_t j = 0; j < n; ++j) {
        ok = ok || v.keys[i] == allowed[j];
        valid += (j ? ", " : "") + std::string(allowed[j]);
      }
      if (!ok) return fail(child(key, v.keys[i]), v.key_lines[i], "unknown key; valid keys: " + valid);
    }
    return true;
  }

  // A non-empty string at member `name` of `obj` (which names `key`); absent is fine unless required.
  bool string(const Value& obj, const char* name, const std::string& key, bool required, std::string* out) {
    return string(obj.find(name), obj.line, child(key, name), required, out);
  }

  // The same for a member already at hand (null: absent, reported at `line`).
  bool string(const Value* v, int line, const std::string& path, bool required, std::string* out) {
    if (!v || v->type == Type::Null) return required ? fail(path, v ? v->line : line, "is required") : true;
    if (v->type != Type::String || v->string.find_first_not_of(" \t\r\n") == std::string::npos) {
      return fail(path, v->line, "must be a non-empty string, got " + describe(*v));
    }
    *out = v->string;
    return true;
  }

  bool quantity(const Value& obj, const char* name, const std::string& key, bool bandwidth, double* out) {
    const Value* v = obj.find(name);
    std::string path = child(key, name);
    const char* example = bandwidth ? "\"1 Gbit/s\"" : "\"15 us\"";
    const char* base = bandwidth ? "bytes per second" : "seconds";
    const char* dim = bandwidth ? "bandwidth" : "time";
    if (!v || v->type == Type::Null) {
      return fail(path, v ? v->line : obj.line,
                  std::string("is required (a number in ") + base + ", or a string with a unit such as " + example + ")");
    }
    double value = 0;
    if (v->type == Type::Number) {
      value = v->number;
    } else if (v->type == Type::String) {
      if (!parseQuantity(v->string, bandwidth, &value)) {
        return fail(path, v->line, quotedJson(v->string) + " is not a " + dim + " with a unit (" +
                                       (bandwidth ? unitNames(kBandwidthUnits) : unitNames(kTimeUnits)) + ")");
      }
    } else {
      return fail(path, v->line, std::string("must be a number in ") + base + " or a string with a unit such as " + example +
                                     ", got " + describe(*v));
    }
    if (!std::isfinite(value) || value < 0 || (bandwidth && value == 0)) {
      return fail(path, v->line, std::string("must be a finite ") + (bandwidth ? "positive" : "non-negative") + " " + dim +
                                     ", got " + (v->type == Type::String ? quotedJson(v->string) : describe(*v).substr(7)));
    }
    *out = value;
    return true;
  }

  static std::string child(const std::string& key, const std::string& name) { return key.empty() ? name : key + "." + name; }
  static std::string index(const std::string& key, size_t i) { return key + "[" + std::to_string(i) + "]"; }

 private:
  const std::string& source_;
  std::string* error_;
};

bool readVirtualNodes(Reader& r, const Value& v, NodeOverride* out) {
  const std::string key = "virtual_nodes";
  NodeOverride o;
  if (v.type == Type::String) {
    const std::string& text = v.string;
    auto bad = [&](const std::string& why) {
      return r.fail(key, v.line, quotedJson(text) + " " + why + "; valid forms: " + kVirtualNodeForms);
    };
    for (auto [prefix, kind] : {std::pair{"block:", NodeOverride::Kind::Block}, std::pair{"cyclic:", NodeOverride::Kind::Cyclic}}) {
      std::string p = prefix;
      if (text.compare(0, p.size(), p) != 0) continue;
      std::string n = text.substr(p.size());
      if (!isWhole(n) || std::stoi(n) < 1) return bad("needs a whole number >= 1 after \"" + p + "\"");
      o.kind = kind;
      o.param = std::stoi(n);
      *out = o;
      return true;
    }
    size_t start = 0;
    for (;;) {
      size_t comma = text.find(',', start);
      std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!isWhole(item)) return bad("is not valid");
      o.nodes.push_back(std::stoi(item));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  } else if (v.type == Type::Array) {
    if (v.items.empty()) return r.fail(key, v.line, std::string("is an empty list; valid forms: ") + kVirtualNodeForms);
    for (size_t i = 0; i < v.items.size(); ++i) {
      const Value& n = v.items[i];
      if (n.type != Type::Number || !n.integral || n.number < 0 || n.number > 999999999) {
        return r.fail(Reader::index(key, i), n.line, "must be a virtual node number >= 0, got " + describe(n));
      }
      o.nodes.push_back(static_cast<int>(n.number));
    }
  } else {
    return r.fail(key, v.line, "must be a string or a list, got " + describe(v) + "; valid forms: " + kVirtualNodeForms);
  }
  o.kind = NodeOverride::Kind::List;
  *out = o;
  return true;
}

bool readTopology(Reader& r, const Value& root, const std::string& source, Topology* out) {
  Topology t;
  t.source = source;
  if (!r.mapping(root, "", kTopKeys, std::size(kTopKeys))) return false;
  const Value* levels = root.find("levels");
  if (!levels || levels->type == Type::Null) {
    return r.fail("levels", levels ? levels->line : root.line, "is required: a list of levels, widest first");
  }
  if (levels->type != Type::Array || levels->items.empty()) {
    return r.fail("levels", levels->line, "must be a non-empty list of levels, widest first, got " + describe(*levels));
  }
  for (size_t i = 0; i < levels->items.size(); ++i) {
    const Value& lv = levels->items[i];
    std::string key = Reader::index("levels", i);
    if (!r.mapping(lv, key, kLevelKeys, std::size(kLevelKeys))) return false;
    Level level;
    level.line = lv.line;
    std::string scope;
    if (!r.string(lv, "name", key, true, &level.name)) return false;
    for (const Level& other : t.levels) {
      if (other.name == level.name) {
        return r.fail(key + ".name", lv.find("name")->line, quotedJson(level.name) + " names two levels; level names must differ");
      }
    }
    if (!r.string(lv, "scope", key, true, &scope)) return false;
    int s = -1;
    for (int j = 0; j < 4; ++j) {
      if (scope == kScopeNames[j]) s = j;
    }
    if (s < 0) return r.fail(key + ".scope", lv.find("scope")->line, quotedJson(scope) + " is not valid; valid choices: " + joined(kScopeNames));
    level.scope = static_cast<Scope>(s);
    if (!r.quantity(lv, "latency", key, false, &level.latency)) return false;
    if (!r.quantity(lv, "bandwidth", key, true, &level.bandwidth)) return false;
    if (lv.find("exchange_bandwidth") && !r.quantity(lv, "exchange_bandwidth", key, true, &level.exchange_bandwidth)) return false;
    if (!t.levels.empty() && static_cast<int>(level.scope) <= static_cast<int>(t.levels.back().scope)) {
      return r.fail(key + ".scope", lv.find("scope")->line,
                    quotedJson(scope) + " cannot follow " + quotedJson(scopeName(t.levels.back().scope)) +
                        ": levels go from the widest to the narrowest, each scope at most once, in the order " +
                        joined(kScopeNames));
    }
    t.levels.push_back(level);
  }

  auto levelWith = [&](Scope s) -> int {
    for (size_t i = 0; i < t.levels.size(); ++i) {
      if (t.levels[i].scope == s) return static_cast<int>(i);
    }
    return -1;
  };
  auto scopeLine = [&](int i) { return levels->items[i].find("scope")->line; };

  const Value* groups = root.find("groups");
  int group_level = levelWith(Scope::Group);
  if (groups) {
    t.groups_line = root.key_lines[root.indexOf("groups")];
    if (group_level < 0) return r.fail("groups", t.groups_line, "is given but no level has scope group; add one, or remove groups");
    if (groups->type != Type::Object) return r.fail("groups", groups->line, "must be a mapping, got " + describe(*groups));
    if (groups->keys.empty()) return r.fail("groups", groups->line, "must map at least one hostname to its group");
    t.groups.reserve(groups->keys.size());
    for (size_t i = 0; i < groups->keys.size(); ++i) {
      std::string group;
      if (!r.string(&groups->items[i], groups->line, Reader::child("groups", groups->keys[i]), true, &group)) return false;
      t.groups.emplace_back(groups->keys[i], std::move(group));
    }
  } else if (group_level >= 0) {
    return r.fail(Reader::index("levels", group_level) + ".scope", scopeLine(group_level),
                  "a level with scope group needs `groups` (hostname -> group name)");
  }

  const Value* vnodes = root.find("virtual_nodes");
  int vnode_level = levelWith(Scope::VirtualNode);
  if (vnodes) {
    t.virtual_nodes_line = root.key_lines[root.indexOf("virtual_nodes")];
    if (vnode_level < 0) {
      return r.fail("virtual_nodes", t.virtual_nodes_line, "is given but no level has scope virtual_node; add one, or remove virtual_nodes");
    }
    if (!readVirtualNodes(r, *vnodes, &t.virtual_nodes)) return false;
  } else if (vnode_level >= 0) {
    return r.fail(Reader::index("levels", vnode_level) + ".scope", scopeLine(vnode_level),
                  std::string("a level with scope virtual_node needs `virtual_nodes`: ") + kVirtualNodeForms);
  }

  if (!r.string(root, "name", "", false, &t.name) || !r.string(root, "description", "", false, &t.description)) return false;
  if (root.find("reduce_bandwidth") && !r.quantity(root, "reduce_bandwidth", "", true, &t.reduce_bandwidth)) return false;
  *out = std::move(t);
  return true;
}

}  // namespace

const char* scopeName(Scope scope) { return kScopeNames[static_cast<int>(scope)]; }

bool parseQuantity(const std::string& text, bool bandwidth, double* out) {
  // [ws] [+-] (digits[.digits] | .digits) [e[+-]digits] [ws] unit [ws], like parseQuantity in TypeScript.
  size_t i = text.find_first_not_of(" \t\r\n");
  if (i == std::string::npos) return false;
  size_t start = i;
  if (text[i] == '+' || text[i] == '-') i++;
  auto digits = [&] {
    size_t from = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') i++;
    return i - from;
  };
  size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    i++;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    size_t mark = i++;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) i++;
    if (digits() == 0) i = mark;  // "5e" is 5 with unit "e...": let the unit check reject it
  }
  std::string number = text.substr(start, i - start);
  if (number[0] == '+') number.erase(0, 1);
  double value = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size()) return false;
  size_t u = text.find_first_not_of(" \t\r\n", i);
  if (u == std::string::npos) return false;
  size_t u_end = text.find_first_of(" \t\r\n", u);
  if (u_end != std::string::npos && text.find_first_not_of(" \t\r\n", u_end) != std::string::npos) return false;
  std::string unit = text.substr(u, u_end == std::string::npos ? std::string::npos : u_end - u);
  auto match = [&](const Unit* units, size_t n) {
    for (size_t k = 0; k < n; ++k) {
      if (unit == units[k].name) {
        *out = value * units[k].factor;
        return true;
      }
    }
    return false;
  };
  return bandwidth ? match(kBandwidthUnits, std::size(kBandwidthUnits)) : match(kTimeUnits, std::size(kTimeUnits));
}

bool parseTopologyJson(const std::string& text, const std::string& source, Topology* out, std::string* error,
                       const std::vector<int>* lines) {
  Value root;
  if (!json::parse(text, source, &root, error)) return false;
  if (lines) json::mapLines(&root, *lines);
  Reader r(source, error);
  return readTopology(r, root, source, out);
}

bool parseTopologyText(const std::string& text, const std::string& source, Topology* out, std::string* error,
                       const std::vector<int>* lines) {
  if (parseTopologyJson(text, source, out, error, lines)) return true;
  // Not JSON and not even starting like JSON: a YAML file, which only Node converts (yamlToJson).
  if (error->find("not valid JSON") != std::string::npos && json::mayBeYaml(text)) {
    *error = source +
             ": this looks like YAML; the engine reads topology files as JSON only when no Node runs the program (a "
             "preloaded C/Fortran program): convert it with `npx topocoll topology --json " + source +
             " > topology.json` and set TOPOCOLL_TOPOLOGY=topology.json";
  }
  return false;
}

bool readTopologyFile(const std::string& path, Topology* out, std::string* error) {
  std::string text;
  return json::readFile(path, kFileKind, &text, error) && parseTopologyText(text, path, out, error);
}

int Resolved::meetLevel(int p, int q) const {
  for (int l = levels() - 1; l > 0; --l) {
    if (module_of[l][p] == module_of[l][q]) return l;
  }
  return 0;
}

bool resolveTopology(const Topology& t, const std::vector<std::string>& host_of_rank, Resolved* out, std::string* error) {
  Reader r(t.source, error);
  const int n = static_cast<int>(host_of_rank.size());
  if (n == 0) return r.fail("", 0, "cannot be resolved for a job without ranks");
  const NodeOverride& vn = t.virtual_nodes;
  if (vn.kind == NodeOverride::Kind::List && static_cast<int>(vn.nodes.size()) < n) {
    return r.fail("virtual_nodes", t.virtual_nodes_line,
                  "the list names " + std::to_string(vn.nodes.size()) + " ranks but the job has " + std::to_string(n) +
                      "; give one node per rank, or use block:K or cyclic:N");
  }
  Resolved res;
  res.size = n;
  // Hostname -> group, hashed: a job looks up every rank's host in a map of any size.
  std::unordered_map<std::string_view, const std::string*> group_of;
  if (!t.groups.empty()) {
    group_of.reserve(t.groups.size());
    for (const auto& [host, group] : t.groups) group_of.emplace(host, &group);
  }
  // A module is its own key appended to its parent's: levels always nest, and a virtual node
  // never spans hosts.
  std::vector<std::string> full(n);
  for (size_t l = 0; l < t.levels.size(); ++l) {
    const Level& level = t.levels[l];
    std::unordered_map<std::string, int> ids;
    std::vector<int> module_of(n);
    std::vector<std::string> labels;
    std::vector<int> parent;
    for (int rank = 0; rank < n; ++rank) {
      const std::string& host = host_of_rank[rank];
      std::string own;
      switch (level.scope) {
        case Scope::System: break;
        case Scope::Group: {
          auto g = group_of.find(host);
          if (g == group_of.end()) {
            std::string known;
            for (size_t k = 0; k < t.groups.size() && k < 16; ++k) known += (k ? ", " : "") + t.groups[k].first;
            if (t.groups.size() > 16) known += ", ...";
            return r.fail("groups", t.groups_line,
                          "host " + quotedJson(host) + " (rank " + std::to_string(rank) + ") is in no group; groups names the hosts " + known);
          }
          own = *g->second;
          break;
        }
        case Scope::Host: own = host; break;
        case Scope::VirtualNode: own = host + "/" + std::to_string(vn.nodeOf(rank)); break;
      }
      full[rank] += '\0' + own;
      auto [it, fresh] = ids.emplace(full[rank], static_cast<int>(ids.size()));
      if (fresh) {
        labels.push_back(level.scope == Scope::System ? level.name : own);
        parent.push_back(l == 0 ? -1 : res.module_of[l - 1][rank]);
      }
      module_of[rank] = it->second;
    }
    res.module_of.push_back(std::move(module_of));
    res.labels.push_back(std::move(labels));
    res.parent.push_back(std::move(parent));
  }
  if (res.labels[0].size() > 1) {
    int other = 0;
    while (res.module_of[0][other] == 0) other++;
    const Level& w = t.levels[0];
    return r.fail("levels[0].scope", w.line,
                  "the widest level " + quotedJson(w.name) + " (scope " + scopeName(w.scope) + ") must hold every rank, but rank 0 is in " +
                      res.labels[0][0] + " and rank " + std::to_string(other) + " in " + res.labels[0][res.module_of[0][other]] +
                      "; add a wider level (scope system)");
  }
  *out = std::move(res);
  return true;
}

}  // namespace topocoll::topology
