// What init reads from the environment: the configuration, then the rules file its TOPOCOLL_RULES
// names. Above both config and rules (rules.h includes config.h), so that neither includes the other.
#pragma once

#include <string>

#include "config.h"

namespace topocoll {

// loadConfigFromEnvironment, then the rules file of TOPOCOLL_RULES (or the rules the Node side
// installed for that path), so that a bad file stops init. False with *error on either; *out is
// written only when both load.
bool loadConfigAndRules(Config* out, std::string* error);

}  // namespace topocoll
