#include "load_config.h"

#include "rules.h"

namespace topocoll {

bool loadConfigAndRules(Config* out, std::string* error) {
  Config c;
  if (!loadConfigFromEnvironment(&c, error)) return false;
  if (!rules::loadFromEnvironment(c.text(Parameter::Rules), error)) return false;
  *out = c;
  return true;
}

}  // namespace topocoll
