#include "config.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "algorithm_registry.h"
#include "hierarchy/node_override.h"
#include "rules.h"
#include "select.h"

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

// Every variable at its registry default: what the engine runs with when nothing is set, and
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
    *error = std::string(entry.env) + "=" + quoted(text) + " is not a " + entry.name +
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

bool loadConfigFromEnvironment(Config* out, std::string* error) {
  Config c;
  for (int i = 0; i < generated::kCollectiveCount; ++i) {
    const char* text = std::getenv(generated::kCollectives[i].env);
    c.forced[i] = kAlgorithmAuto;
    if (text && !parseAlgorithmChoice(static_cast<Collective>(i), text, &c.forced[i], error)) return false;
  }
  for (int i = 0; i < generated::kParameterCount; ++i) {
    const auto& entry = generated::kParameters[i];
    const char* text = std::getenv(entry.env);
    if (!parseParameter(static_cast<Parameter>(i), text ? text : entry.default_value, &c.values[i], error)) return false;
    c.texts[i] = text ? text : entry.default_value;
  }
  // TOPOCOLL_RULES: read here (or kept as the Node side installed it), so a bad file stops init.
  if (!rules::loadFromEnvironment(c.text(Parameter::Rules), error)) return false;
  *out = c;
  return true;
}


// engine.cc installs the loaded configuration.
void installConfig(const Config& c) {
  g_config = c;
  bumpSelectionEpoch();
}

}  // namespace topocoll
