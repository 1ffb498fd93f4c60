// Configuration from TOPOCOLL_* environment variables, read once at init. A bad value is an
// error naming the variable and the valid choices; it is never silently replaced by a default.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "generated/registry.h"

namespace topocoll {

using generated::Collective;
using generated::Parameter;

inline constexpr int kAlgorithmAuto = -2;
inline constexpr int kAlgorithmNative = -1;

enum class FallbackMode : int { Error = 0, Warn = 1, Silent = 2 };  // order of the registry's choices

struct Config {
  // Per collective: kAlgorithmAuto, kAlgorithmNative or an algorithm index of the registry.
  std::array<int, generated::kCollectiveCount> forced{};
  std::array<int64_t, generated::kParameterCount> values{};
  std::array<std::string, generated::kParameterCount> texts{};  // every parameter's text as given (or its default)

  int64_t get(Parameter p) const { return values[static_cast<int>(p)]; }
  const std::string& text(Parameter p) const { return texts[static_cast<int>(p)]; }
  int verbose() const { return static_cast<int>(get(Parameter::Verbose)); }
  FallbackMode fallback() const { return static_cast<FallbackMode>(get(Parameter::Fallback)); }
};

// Parses the environment (getenv) into *out. On error returns false and sets *error. Values are
// read with surrounding whitespace trimmed, for every variable alike. The first call also warns
// (on stderr, on the first rank only) of the unknownVariables() of the environment.
bool loadConfigFromEnvironment(Config* out, std::string* error);

// One message per TOPOCOLL_* entry of `env` (a null-terminated "NAME=value" list, as environ)
// that names no variable of the registry, naming the closest one that does.
std::vector<std::string> unknownVariables(const char* const* env);

// Parses one value of a variable; used for the environment and by tools that validate input.
bool parseParameter(Parameter p, const char* text, int64_t* value, std::string* error);
bool parseAlgorithmChoice(Collective coll, const char* text, int* value, std::string* error);

// The process-wide configuration (loaded by engine::initialize()). Inline: read several times
// on every call.
extern Config g_config;
inline const Config& config() { return g_config; }

}  // namespace topocoll
