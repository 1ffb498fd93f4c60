#include "rules.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <utility>

#include "algorithm_registry.h"
#include "choice.h"
#include "topology/json.h"

namespace topocoll::rules {
namespace {

std::unique_ptr<RuleSet> g_rules;
bool g_installed = false;  // by the Node side: the environment's path then keeps these rules

const char* const kTopKeys[] = {"$schema", "version", "generator", "created", "machine", "mpi", "job", "notes", "rules"};
const char* const kRuleKeys[] = {"collective", "algorithm",  "basis",     "minBytes",    "maxBytes", "minRanks",
                                 "maxRanks",   "powerOfTwo", "multiNode", "nonblocking", "minNodes", "maxNodes",
                                 "minRanksPerNode", "maxRanksPerNode", "mpi", "why"};
const char* const kMpis[] = {"openmpi", "mpich"};
constexpr const char kNativePrefix[] = "native:";

template <size_t N>
std::string joined(const char* const (&names)[N]) {
  std::string out;
  for (const char* n : names) out += std::string(out.empty() ? "" : ", ") + n;
  return out;
}

template <size_t N>
bool known(const std::string& key, const char* const (&names)[N]) {
  for (const char* n : names)
    if (key == n) return true;
  return false;
}

// The <name> of native:<name>: a lowercase identifier (the MPI's own names are checked where
// they are used: `topocoll tune --export` knows each MPI's algorithms).
bool nativeName(const std::string& name) {
  if (name.empty() || !(name[0] >= 'a' && name[0] <= 'z')) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// Whether a rule looks at where the communicator's ranks are.
bool looksAtPlacement(const Rule& r) {
  return r.multi_node >= 0 || r.min_nodes >= 0 || r.max_nodes >= 0 || r.min_ranks_per_node >= 0 || r.max_ranks_per_node >= 0;
}

// The conditions the size and rank count leave: the MPI and the placement.
bool placementMatches(const Rule& r, int p, int nodes, const char* mpi) {
  if (!r.mpi.empty() && r.mpi != mpi) return false;
  const int ranks_per_node = (p + nodes - 1) / nodes;
  if (!flagAllows(r.multi_node, nodes > 1 && nodes < p)) return false;
  if (r.min_nodes >= 0 && nodes < r.min_nodes) return false;
  if (r.max_nodes >= 0 && nodes > r.max_nodes) return false;
  if (r.min_ranks_per_node >= 0 && ranks_per_node < r.min_ranks_per_node) return false;
  if (r.max_ranks_per_node >= 0 && ranks_per_node > r.max_ranks_per_node) return false;
  return true;
}

class Reader {
 public:
  Reader(const std::string& source, std::string* error) : source_(source), error_(error) {}

  bool fail(int line, const std::string& key, const std::string& what) {
    *error_ = source_ + (line > 0 ? ":" + std::to_string(line) : "") + ": " + key + ": " + what;
    return false;
  }

  // A whole number in [min, max].
  bool integer(const json::Value& v, const std::string& key, int64_t min, int64_t max, int64_t* out) {
    if (v.type != json::Value::Type::Number || !v.integral || v.number < static_cast<double>(min) ||
        v.number > static_cast<double>(max)) {
      std::string got = v.type == json::Value::Type::Number ? "" : std::string(" (got ") + json::describe(v.type) + ")";
      return fail(v.line, key, "must be a whole number in [" + std::to_string(min) + ", " + std::to_string(max) + "]" + got);
    }
    *out = static_cast<int64_t>(v.number);
    return true;
  }

  // An optional true/false key: 1, 0, or -1 when absent.
  bool boolean(const json::Value& rule, const char* key, const std::string& at, int* out) {
    const json::Value* x = rule.find(key);
    if (!x) return true;
    if (x->type != json::Value::Type::Bool) return fail(x->line, at + "." + key, std::string("must be true or false (got ") + json::describe(x->type) + ")");
    *out = x->boolean ? 1 : 0;
    return true;
  }

  // Optional inclusive bounds on a count, min <= max; -1 when absent.
  bool bounds(const json::Value& rule, const char* min_key, const char* max_key, const std::string& at, int* min, int* max) {
    int64_t n = 0;
    for (auto [key, out] : {std::pair{min_key, min}, std::pair{max_key, max}}) {
      const json::Value* x = rule.find(key);
      if (!x) continue;
      if (!integer(*x, at + "." + key, 1, 1 << 30, &n)) return false;
      *out = static_cast<int>(n);
    }
    if (*min >= 0 && *max >= 0 && *max < *min) return fail(rule.find(max_key)->line, at + "." + max_key, std::string("must not be less than ") + min_key);
    return true;
  }

  bool string(const json::Value& v, const std::string& key, std::string* out) {
    if (v.type != json::Value::Type::String) return fail(v.line, key, std::string("must be a string (got ") + json::describe(v.type) + ")");
    *out = v.string;
    return true;
  }

  bool rule(const json::Value& v, const std::string& at, Rule* r) {
    if (v.type != json::Value::Type::Object) return fail(v.line, at, std::string("must be an object (got ") + json::describe(v.type) + ")");
    r->line = v.line;
    for (size_t i = 0; i < v.keys.size(); ++i) {
      if (!known(v.keys[i], kRuleKeys)) {
        return fail(v.key_lines[i], at + "." + v.keys[i], "unknown key; valid keys: " + joined(kRuleKeys));
      }
    }
    const json::Value* coll = v.find("collective");
    if (!coll) return fail(v.line, at + ".collective", "missing (every rule names its collective)");
    std::string name;
    if (!string(*coll, at + ".collective", &name)) return false;
    if (!collectiveByName(name, &r->collective)) {
      return fail(coll->line, at + ".collective", "\"" + name + "\" is not a collective; valid choices: " + collectiveNames());
    }
    const auto& entry = collectiveEntry(r->collective);
    const json::Value* algo = v.find("algorithm");
    if (!algo) return fail(v.line, at + ".algorithm", "missing (every rule names its algorithm)");
    if (!string(*algo, at + ".algorithm", &name)) return false;
    const bool mpi_own = name.compare(0, sizeof(kNativePrefix) - 1, kNativePrefix) == 0;
    if (mpi_own && !nativeName(name.substr(sizeof(kNativePrefix) - 1))) {
      return fail(algo->line, at + ".algorithm", "\"" + name + "\": native:<name> names one of the MPI's own algorithms in lowercase letters, digits and _ (native:ring)");
    }
    if (mpi_own && !v.find("mpi")) {
      return fail(v.line, at + ".mpi", "missing: a rule choosing " + name + " must say whose algorithm it is (\"openmpi\" or \"mpich\")");
    }
    r->algorithm = name == "native" || mpi_own ? kAlgorithmNative : algorithmIndex(r->collective, name);
    if (r->algorithm == -1 && name != "native" && !mpi_own) {
      std::string valid = "native, native:<name>";
      for (int i = 0; i < entry.algorithm_count; ++i) valid += std::string(", ") + entry.algorithms[i];
      return fail(algo->line, at + ".algorithm", "\"" + name + "\" is not an algorithm of " + entry.name + "; valid choices: " + valid);
    }
    if (const json::Value* basis = v.find("basis")) {
      if (!string(*basis, at + ".basis", &name)) return false;
      if (name == "block") r->basis = generated::SizeBasis::Block;
      else if (name == "total") r->basis = generated::SizeBasis::Total;
      else return fail(basis->line, at + ".basis", "\"" + name + "\" is not a size basis; valid choices: block, total");
    }
    int64_t n = 0;
    if (const json::Value* x = v.find("minBytes")) {
      if (!integer(*x, at + ".minBytes", 0, INT64_MAX / 2, &n)) return false;
      r->min_bytes = n;
    }
    if (const json::Value* x = v.find("maxBytes")) {
      if (!integer(*x, at + ".maxBytes", 0, INT64_MAX / 2, &n)) return false;
      r->max_bytes = n;
    }
    if ((r->min_bytes >= 0 || r->max_bytes >= 0) && !v.find("basis")) {
      return fail(v.line, at + ".basis", "missing: a rule with minBytes or maxBytes must say whether they count one rank's block (\"block\") or all a rank receives (\"total\")");
    }
    if (r->min_bytes >= 0 && r->max_bytes >= 0 && r->max_bytes <= r->min_bytes) {
      return fail(v.find("maxBytes")->line, at + ".maxBytes", "must be greater than minBytes (the range is [minBytes, maxBytes))");
    }
    if (!bounds(v, "minRanks", "maxRanks", at, &r->min_ranks, &r->max_ranks)) return false;
    if (!boolean(v, "powerOfTwo", at, &r->power_of_two) || !boolean(v, "multiNode", at, &r->multi_node) ||
        !boolean(v, "nonblocking", at, &r->nonblocking)) {
      return false;
    }
    if (!bounds(v, "minNodes", "maxNodes", at, &r->min_nodes, &r->max_nodes) ||
        !bounds(v, "minRanksPerNode", "maxRanksPerNode", at, &r->min_ranks_per_node, &r->max_ranks_per_node)) {
      return false;
    }
    if (const json::Value* x = v.find("mpi")) {
      if (!string(*x, at + ".mpi", &r->mpi)) return false;
      if (!known(r->mpi, kMpis)) return fail(x->line, at + ".mpi", "\"" + r->mpi + "\" is not an MPI; valid choices: " + joined(kMpis));
    }
    if (const json::Value* x = v.find("why")) {
      if (!string(*x, at + ".why", &r->why)) return false;
    }
    return true;
  }

  bool document(const json::Value& doc, RuleSet* out) {
    if (doc.type != json::Value::Type::Object) return fail(doc.line, "(top level)", std::string("must be an object (got ") + json::describe(doc.type) + ")");
    for (size_t i = 0; i < doc.keys.size(); ++i) {
      if (!known(doc.keys[i], kTopKeys)) return fail(doc.key_lines[i], doc.keys[i], "unknown key; valid keys: " + joined(kTopKeys));
    }
    const json::Value* version = doc.find("version");
    if (!version) return fail(doc.line, "version", "missing (this topocoll reads rules files of version 1)");
    if (version->type != json::Value::Type::Number || !version->integral || version->number != 1) {
      return fail(version->line, "version", "must be 1 (the only version this topocoll reads)");
    }
    for (const char* key : {"generator", "created", "notes"}) {
      std::string ignored;
      if (const json::Value* x = doc.find(key); x && !string(*x, key, &ignored)) return false;
    }
    for (const char* key : {"machine", "mpi", "job"}) {
      const json::Value* x = doc.find(key);
      if (x && x->type != json::Value::Type::Object) return fail(x->line, key, std::string("must be an object (got ") + json::describe(x->type) + ")");
    }
    const json::Value* list = doc.find("rules");
    if (!list) return fail(doc.line, "rules", "missing (the list of rules, first match wins)");
    if (list->type != json::Value::Type::Array) return fail(list->line, "rules", std::string("must be a list (got ") + json::describe(list->type) + ")");
    out->rules.resize(list->items.size());
    for (size_t i = 0; i < list->items.size(); ++i) {
      if (!rule(list->items[i], "rules[" + std::to_string(i) + "]", &out->rules[i])) return false;
    }
    return true;
  }

 private:
  std::string source_;
  std::string* error_;
};

void buildReasons(RuleSet* set) {
  for (Rule& r : set->rules) {
    r.reason = "rules file " + set->source + (r.line > 0 ? ":" + std::to_string(r.line) : "") + (r.why.empty() ? "" : ": " + r.why);
    set->needs_nodes[static_cast<int>(r.collective)] |= looksAtPlacement(r);
  }
}

}  // namespace

bool parse(const std::string& text, const std::string& source, RuleSet* out, std::string* error, const std::vector<int>* lines) {
  json::Value doc;
  if (!json::parse(text, source, &doc, error)) {
    if (json::mayBeYaml(text)) {
      *error = source +
               ": this looks like YAML; the engine reads rules files as JSON only when no Node runs the program (a "
               "preloaded C/Fortran program): convert it with `npx topocoll tune --convert " + source +
               " > rules.json` and set TOPOCOLL_RULES=rules.json";
    }
    return false;
  }
  if (lines) json::mapLines(&doc, *lines);
  RuleSet set;
  set.source = source;
  Reader reader(source, error);
  if (!reader.document(doc, &set)) return false;
  buildReasons(&set);
  *out = std::move(set);
  return true;
}

bool install(const std::string& json_text, const std::string& source, const std::vector<int>* lines, std::string* error) {
  auto set = std::make_unique<RuleSet>();
  if (!parse(json_text, source, set.get(), error, lines)) return false;
  g_rules = std::move(set);
  bumpSelectionEpoch();
  g_installed = true;
  return true;
}

bool loadFromEnvironment(const std::string& path, std::string* error) {
  if (path.empty()) {
    g_rules.reset();
    bumpSelectionEpoch();
    g_installed = false;
    return true;
  }
  if (g_rules && g_rules->source == path && g_installed) return true;
  std::string text;
  auto set = std::make_unique<RuleSet>();
  if (!json::readFile(path, "rules file", &text, error) || !parse(text, path, set.get(), error)) {
    *error = "TOPOCOLL_RULES: " + *error;
    return false;
  }
  g_rules = std::move(set);
  bumpSelectionEpoch();
  g_installed = false;
  return true;
}

const RuleSet* current() { return g_rules.get(); }

bool select(const RuleSet& set, Collective coll, int p, int64_t block_bytes, int64_t total_bytes, int nodes, bool nonblocking,
            const char* mpi, const Config& cfg, int* algorithm, const char** reason) {
  for (const Rule& rule : set.rules) {
    if (rule.collective != coll || !ruleMatches(rule, p, block_bytes, total_bytes, nonblocking)) continue;
    if (!placementMatches(rule, p, std::max(nodes, 1), mpi)) continue;
    if (rule.algorithm != kAlgorithmNative) {
      // As the defaults do: skip what cannot run here, so that the next rule decides.
      if (!findBuilder(coll, rule.algorithm)) continue;
      if (collectiveEntry(coll).uses_shm[rule.algorithm] && !cfg.get(Parameter::Shm)) continue;
    }
    *algorithm = rule.algorithm;
    *reason = rule.reason.c_str();
    return true;
  }
  return false;
}

}  // namespace topocoll::rules
