#include "select.h"

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "algorithm_registry.h"
#include "model/select_model.h"
#include "override.h"
#include "rules.h"

namespace topocoll {
namespace {

// The built-in rules of each collective with their algorithm names resolved, once: selection
// runs on every call and must not compare strings.
constexpr int kUnusable = -3;  // a rule whose algorithm this build cannot run

#if defined(OPEN_MPI)
constexpr const char* kThisMpi = "openmpi";
#elif defined(MPICH)
constexpr const char* kThisMpi = "mpich";
#else
constexpr const char* kThisMpi = "";
#endif

struct ResolvedRule {
  const generated::RuleEntry* rule;
  int algorithm;  // kAlgorithmNative, a registry index, or kUnusable
  bool uses_shm;
  std::string reason;
};

const std::vector<ResolvedRule>& defaultRules(Collective coll) {
  static const auto table = [] {
    std::array<std::vector<ResolvedRule>, generated::kCollectiveCount> t;
    for (const auto& r : generated::kDefaultRules) {
      if (r.mpi && std::strcmp(r.mpi, kThisMpi) != 0) continue;  // a rule for the other MPI
      bool native = std::strcmp(r.algorithm, "native") == 0;
      int index = native ? kAlgorithmNative : algorithmIndex(r.collective, r.algorithm);
      bool shm = index >= 0 && collectiveEntry(r.collective).uses_shm[index];
      if (!native && (index < 0 || !findBuilder(r.collective, index))) index = kUnusable;
      t[static_cast<int>(r.collective)].push_back({&r, index, shm, std::string("default rule: ") + r.why});
    }
    return t;
  }();
  return table[static_cast<int>(coll)];
}

}  // namespace

bool rulesNeedNodes(Collective coll) {
  static const auto need = [] {
    std::array<bool, generated::kCollectiveCount> n{};
    for (const auto& rule : generated::kDefaultRules) n[static_cast<int>(rule.collective)] |= rule.multi_node >= 0;
    return n;
  }();
  const rules::RuleSet* file = rules::current();
  return need[static_cast<int>(coll)] || (file && file->needs_nodes[static_cast<int>(coll)]);
}

Choice selectAlgorithm(Collective coll, int p, int64_t block_bytes, int64_t total_bytes, const Config& cfg,
                       int nodes, bool nonblocking, const model::ModelCall* model_call) {
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
    if (rules::select(*file, coll, p, block_bytes, total_bytes, nodes, nonblocking, kThisMpi, cfg, &ruled.algorithm, &ruled.reason)) return ruled;
  }
  for (const ResolvedRule& r : defaultRules(coll)) {
    if (!ruleMatches(*r.rule, p, block_bytes, total_bytes, nonblocking) || !flagAllows(r.rule->multi_node, multi_node)) continue;
    if (r.algorithm == kUnusable) continue;
    // TOPOCOLL_SHM=0: the rules skip algorithms that use shared memory.
    if (r.uses_shm && !cfg.get(Parameter::Shm)) continue;
    return {r.algorithm, r.reason.c_str()};
  }
  return {kAlgorithmNative, "no rule matched: the system MPI's own collective"};
}

}  // namespace topocoll
