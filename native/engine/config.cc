#include "config.h"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "algorithm_registry.h"
#include "hierarchy/node_override.h"

namespace topocoll {
namespace {

std::string quoted(const char* s) { return std::string("\"") + s + "\""; }

std::string joinChoices(const char* const* choices, int n, const char* prefix = nullptr) {
  std::string out = prefix ? prefix : "";
  for (int i = 0; i < n; ++i) {
    if (!out.empty()) out += ", ";
    out += choices[i];
  }
  return out;
}

bool parseInteger(const char* text, int64_t* value) {
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0') return false;
  *value = v;
  return true;
}

// A variable's value with surrounding whitespace trimmed, for every variable alike (" 1" and
// "ring " read as "1" and "ring"); false when unset.
bool envValue(const char* name, std::string* out) {
  const char* text = std::getenv(name);
  if (!text) return false;
  std::string_view v(text);
  size_t first = v.find_first_not_of(" \t\r\n\v\f");
  size_t last = v.find_last_not_of(" \t\r\n\v\f");
  *out = first == std::string_view::npos ? std::string() : std::string(v.substr(first, last - first + 1));
  return true;
}

// Every TOPOCOLL_* name this package reads: the engine's (collectives, parameters) and the
// tools' (build, addon loader), all from the registry.
std::vector<const char*> knownVariables() {
  std::vector<const char*> names;
  for (const auto& c : generated::kCollectives) names.push_back(c.env);
  for (const auto& p : generated::kParameters) names.push_back(p.env);
  for (const char* t : generated::kToolVariables) names.push_back(t);
  return names;
}

// Optimal string alignment distance: edits, with a swap of two neighbours counting as one.
size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// The first rank prints what all ranks would: MPI's rank once MPI runs (the preload), the
// launcher's before MPI_Init (Node reads its configuration first).
bool firstRank() {
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (initialized && !finalized) {
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank == 0;
  }
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"}) {
    if (const char* r = std::getenv(var)) return std::strcmp(r, "0") == 0;
  }
  return true;
}

// Every variable's value at its registry default: what the engine runs with when nothing is set, and
// what tools that build schedules without MPI (the addon's simulator) see.
Config defaultConfig() {
  Config c;
  c.forced.fill(kAlgorithmAuto);
  std::string ignored;
  for (int i = 0; i < generated::kParameterCount; ++i) {
    const char* text = generated::kParameters[i].default_value;
    parseParameter(static_cast<Parameter>(i), text, &c.values[i], &ignored);
    c.texts[i] = text;
  }
  return c;
}

}  // namespace

Config g_config = defaultConfig();

bool parseAlgorithmChoice(Collective coll, const char* text, int* value, std::string* error) {
  const auto& entry = collectiveEntry(coll);
  if (std::strcmp(text, "auto") == 0 || *text == '\0') {
    *value = kAlgorithmAuto;
    return true;
  }
  if (std::strcmp(text, "native") == 0) {
    *value = kAlgorithmNative;
    return true;
  }
  int index = algorithmIndex(coll, text);
  if (index < 0) {
    *error = std::string(entry.env) + "=" + quoted(text) + " names no " + entry.name +
             " algorithm; valid choices: " + joinChoices(entry.algorithms, entry.algorithm_count, "auto, native");
    return false;
  }
  *value = index;
  return true;
}

bool parseParameter(Parameter p, const char* text, int64_t* value, std::string* error) {
  const auto& entry = generated::kParameters[static_cast<int>(p)];
  switch (entry.kind) {
    case generated::ParameterKind::Bool:
      if (!std::strcmp(text, "0") || !std::strcmp(text, "false") || !std::strcmp(text, "no") || !std::strcmp(text, "off")) {
        *value = 0;
        return true;
      }
      if (!std::strcmp(text, "1") || !std::strcmp(text, "true") || !std::strcmp(text, "yes") || !std::strcmp(text, "on")) {
        *value = 1;
        return true;
      }
      *error = std::string(entry.env) + "=" + quoted(text) + " is not a boolean; valid choices: 0, 1, false, true, no, yes, off, on";
      return false;
    case generated::ParameterKind::Int:
      if (!parseInteger(text, value) || *value < entry.min || *value > entry.max) {
        *error = std::string(entry.env) + "=" + quoted(text) + " is not an integer in [" + std::to_string(entry.min) + ", " +
                 std::to_string(entry.max) + "]";
        return false;
      }
      return true;
    case generated::ParameterKind::Choice:
      for (int i = 0; i < entry.choice_count; ++i) {
        if (!std::strcmp(text, entry.choices[i])) {
          *value = i;
          return true;
        }
      }
      *error = std::string(entry.env) + "=" + quoted(text) + " is not valid; valid choices: " +
               joinChoices(entry.choices, entry.choice_count);
      return false;
    case generated::ParameterKind::String:
      // Strings keep their text (Config::text); those with a syntax are checked here.
      *value = 0;
      if (p == Parameter::VirtualNodes) {
        NodeOverride ignored;
        return parseNodeOverride(text, entry.env, &ignored, error);
      }
      return true;
  }
  return false;
}

std::vector<std::string> unknownVariables(const char* const* env) {
  std::vector<std::string> warnings;
  const std::vector<const char*> known = knownVariables();
  constexpr std::string_view kPrefix = "TOPOCOLL_";
  for (; env && *env; ++env) {
    std::string_view entry(*env);
    std::string_view name = entry.substr(0, entry.find('='));
    if (name.substr(0, kPrefix.size()) != kPrefix) continue;
    if (std::any_of(known.begin(), known.end(), [&](const char* k) { return name == k; })) continue;
    const char* closest = known.front();
    size_t best = editDistance(name, closest);
    for (const char* k : known) {
      size_t d = editDistance(name, k);
      if (d < best) best = d, closest = k;
    }
    std::string w = std::string(name) + " is not a topocoll variable and is ignored; ";
    // Close enough to be a slip of the fingers: name it; otherwise list them all.
    if (best <= std::max<size_t>(2, (name.size() - kPrefix.size()) / 3)) {
      w += std::string("did you mean ") + closest + "?";
    } else {
      w += "valid variables: ";
      for (size_t i = 0; i < known.size(); ++i) w += std::string(i ? ", " : "") + known[i];
    }
    warnings.push_back(std::move(w));
  }
  return warnings;
}

bool loadConfigFromEnvironment(Config* out, std::string* error) {
  // A misspelled variable would silently do nothing: say so, once per process, on the first rank.
  static bool warned = false;
  if (!warned) {
    warned = true;
    if (firstRank()) {
      for (const std::string& w : unknownVariables(environ)) std::fprintf(stderr, "topocoll: warning: %s\n", w.c_str());
    }
  }
  Config c;
  std::string text;
  for (int i = 0; i < generated::kCollectiveCount; ++i) {
    c.forced[i] = kAlgorithmAuto;
    if (envValue(generated::kCollectives[i].env, &text) &&
        !parseAlgorithmChoice(static_cast<Collective>(i), text.c_str(), &c.forced[i], error)) {
      return false;
    }
  }
  for (int i = 0; i < generated::kParameterCount; ++i) {
    const auto& entry = generated::kParameters[i];
    if (!envValue(entry.env, &text)) text = entry.default_value;
    if (!parseParameter(static_cast<Parameter>(i), text.c_str(), &c.values[i], error)) return false;
    c.texts[i] = text;
  }
  *out = c;
  return true;
}

}  // namespace topocoll
