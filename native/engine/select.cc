#include "select.h"

#include <cstring>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "algorithm_registry.h"
#include "model/select_model.h"
#include "override.h"
#include "rules.h"

namespace topocoll {
namespace {

const char* defaultRuleReason(const generated::RuleEntry& rule) {
  static const std::vector<std::string> texts = [] {
    std::vector<std::string> all;
    for (const auto& r : generated::kDefaultRules) all.push_back(std::string("default rule: ") + r.why);
    return all;
  }();
  return texts[&rule - generated::kDefaultRules].c_str();
}

}  // namespace

const char* internReason(const std::string& text) {
  static std::mutex mutex;
  static std::unordered_set<std::string> texts;  // nodes never move: c_str() stays valid
  std::lock_guard<std::mutex> lock(mutex);
  return texts.insert(text).first->c_str();
}

bool rulesNeedNodes(Collective coll) {
  for (const auto& rule : generated::kDefaultRules) {
    if (rule.collective == coll && rule.multi_node >= 0) return true;
  }
  return false;
}

Choice selectAlgorithm(Collective coll, int p, int64_t block_bytes, int64_t total_bytes, const Config& cfg,
                       int nodes, const model::ModelCall* model_call) {
  const bool multi_node = nodes > 1 && nodes < p;
  // A run-time override (setAlgorithm, for benchmarks and tests) outranks the environment.
  int overridden = override_algorithm::forced(coll);
  if (overridden != kAlgorithmAuto) return {overridden, "forced by setAlgorithm (run-time override)"};
  int forced = cfg.forced[static_cast<int>(coll)];
  if (forced != kAlgorithmAuto) {
    static const std::vector<std::string> by_env = [] {
      std::vector<std::string> texts;
      for (const auto& c : generated::kCollectives) texts.push_back(std::string("forced by ") + c.env);
      return texts;
    }();
    return {forced, by_env[static_cast<int>(coll)].c_str()};
  }
  // TOPOCOLL_SELECT=model: the smallest predicted time; the rules where the model cannot run.
  Choice modelled;
  if (model_call && cfg.get(Parameter::Select) == model::kSelectModel && model::chooseByModel(*model_call, cfg, &modelled)) return modelled;
  // TOPOCOLL_RULES: the first matching rule of the file, before the built-in defaults.
  if (const rules::RuleSet* file = rules::current()) {
    Choice ruled;
    if (rules::select(*file, coll, p, block_bytes, total_bytes, cfg, &ruled.algorithm, &ruled.reason)) return ruled;
  }
  for (const auto& rule : generated::kDefaultRules) {
    if (rule.collective != coll || !ruleMatches(rule, p, block_bytes, total_bytes)) continue;
    if (rule.multi_node >= 0 && multi_node != (rule.multi_node == 1)) continue;
    if (std::strcmp(rule.algorithm, "native") == 0) return {kAlgorithmNative, defaultRuleReason(rule)};
    int index = algorithmIndex(coll, rule.algorithm);
    // TOPOCOLL_SHM=0: the rules skip algorithms that use shared memory.
    bool shm_off = index >= 0 && collectiveEntry(coll).uses_shm[index] && !cfg.get(Parameter::Shm);
    if (index >= 0 && findBuilder(coll, index) && !shm_off) return {index, defaultRuleReason(rule)};
  }
  return {kAlgorithmNative, "no rule matched: the system MPI's own collective"};
}

}  // namespace topocoll
