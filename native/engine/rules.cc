#include "rules.h"

#include <cmath>
#include <cstring>
#include <memory>

#include "algorithm_registry.h"
#include "select.h"
#include "topology/json.h"

namespace topocoll::rules {
namespace {

std::unique_ptr<RuleSet> g_rules;
bool g_installed = false;  // by the Node side: the environment's path then keeps these rules

const char* const kTopKeys[] = {"$schema", "version", "generator", "created", "machine", "mpi", "job", "notes", "rules"};
const char* const kRuleKeys[] = {"collective", "algorithm", "basis", "minBytes", "maxBytes",
                                 "minRanks",   "maxRanks",  "powerOfTwo", "why"};

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

class Reader {
 public:
  Reader(const std::string& source, std::string* error) : source_(source), error_(error) {}

  bool fail(int line, const std::string& key, const std::string& what) {
    *error_ = source_ + ":" + std::to_string(line) + ": " + key + ": " + what;
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
    r->algorithm = name == "native" ? kAlgorithmNative : algorithmIndex(r->collective, name);
    if (r->algorithm == -1 && name != "native") {
      std::string valid = "native";
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
    if (const json::Value* x = v.find("minRanks")) {
      if (!integer(*x, at + ".minRanks", 1, 1 << 30, &n)) return false;
      r->min_ranks = static_cast<int>(n);
    }
    if (const json::Value* x = v.find("maxRanks")) {
      if (!integer(*x, at + ".maxRanks", 1, 1 << 30, &n)) return false;
      r->max_ranks = static_cast<int>(n);
    }
    if (r->min_ranks >= 0 && r->max_ranks >= 0 && r->max_ranks < r->min_ranks) {
      return fail(v.find("maxRanks")->line, at + ".maxRanks", "must not be less than minRanks");
    }
    if (const json::Value* x = v.find("powerOfTwo")) {
      if (x->type != json::Value::Type::Bool) return fail(x->line, at + ".powerOfTwo", std::string("must be true or false (got ") + json::describe(x->type) + ")");
      r->power_of_two = x->boolean ? 1 : 0;
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
    r.reason = "rules file " + set->source + ":" + std::to_string(r.line) + (r.why.empty() ? "" : ": " + r.why);
  }
}

}  // namespace

bool parse(const std::string& text, const std::string& source, RuleSet* out, std::string* error) {
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
  RuleSet set;
  set.source = source;
  Reader reader(source, error);
  if (!reader.document(doc, &set)) return false;
  buildReasons(&set);
  *out = std::move(set);
  return true;
}

bool install(const std::string& json_text, const std::string& source, const std::vector<int>& lines, std::string* error) {
  auto set = std::make_unique<RuleSet>();
  if (!parse(json_text, source, set.get(), error)) return false;
  for (size_t i = 0; i < set->rules.size() && i < lines.size(); ++i) {
    if (lines[i] > 0) set->rules[i].line = lines[i];
  }
  buildReasons(set.get());
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

bool select(const RuleSet& set, Collective coll, int p, int64_t block_bytes, int64_t total_bytes, const Config& cfg,
            int* algorithm, const char** reason) {
  for (const Rule& rule : set.rules) {
    if (rule.collective != coll || !ruleMatches(rule, p, block_bytes, total_bytes)) continue;
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
