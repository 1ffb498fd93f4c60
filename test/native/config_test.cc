// Standalone tests of the engine's configuration (native/engine/config.cc): the TOPOCOLL_* values
// as read at init (whitespace trimmed, for every variable alike), the messages for bad values
// (the variable, the value, the valid choices), the warning for an unknown TOPOCOLL_* variable
// naming the closest one, the defaults, and TOPOCOLL_RULES read through rules.cc at load.
//
// Not MPI-free at build time: config.cc includes <mpi.h> (firstRank() asks PMPI_Initialized and
// PMPI_Comm_rank whether MPI runs, to warn on the first rank only), so build.sh compiles this test
// with an MPI wrapper's flags and links its library. MPI is never initialized here. Linked with
// load_config.cc and rules.cc (TOPOCOLL_RULES: loadConfigAndRules, what init runs), choice.cc,
// topology/json.cc, algorithm_registry.cc and hierarchy/node_override.cc.
// Build and run: test/native/build.sh
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "algorithm_registry.h"
#include "check.h"
#include "config.h"
#include "load_config.h"
#include "rules.h"

extern char** environ;

using namespace topocoll;
using topocoll::test::Test;

namespace {

// parseParameter's result: the value, or the error.
struct Parsed {
  bool ok;
  int64_t value;
  std::string error;
};
Parsed param(Parameter p, const char* text) {
  Parsed r{false, -99, ""};
  r.ok = parseParameter(p, text, &r.value, &r.error);
  return r;
}

struct Chosen {
  bool ok;
  int value;
  std::string error;
};
Chosen choice(Collective c, const char* text) {
  Chosen r{false, -99, ""};
  r.ok = parseAlgorithmChoice(c, text, &r.value, &r.error);
  return r;
}

// Every TOPOCOLL_* name of the registry, as the "valid variables" list names them.
std::string allVariables() {
  std::string out;
  auto add = [&](const char* name) { out += std::string(out.empty() ? "" : ", ") + name; };
  for (const auto& c : generated::kCollectives) add(c.env);
  for (const auto& p : generated::kParameters) add(p.env);
  for (const char* t : generated::kToolVariables) add(t);
  return out;
}

// Unsets every TOPOCOLL_* variable (and the launchers' rank variables), so that the tests see
// only what they set.
void clearEnvironment() {
  std::vector<std::string> names;
  for (char** e = environ; e && *e; ++e) {
    std::string entry(*e);
    if (entry.rfind("TOPOCOLL_", 0) == 0) names.push_back(entry.substr(0, entry.find('=')));
  }
  for (const std::string& n : names) unsetenv(n.c_str());
  unsetenv("OMPI_COMM_WORLD_RANK");
  unsetenv("PMI_RANK");
}

std::string tempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base && *base ? base : "/tmp") + "/topocoll-config-test-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) {
    std::perror("mkdtemp");
    std::exit(2);
  }
  return buf.data();
}

// Runs `load` with stderr sent to a file; returns what it wrote there.
std::string stderrOf(const std::string& dir, bool (*load)(Config*, std::string*), Config* out, std::string* error, bool* ok) {
  const std::string path = dir + "/stderr.txt";
  std::fflush(stderr);
  const int saved = dup(2);
  const int fd = open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
  dup2(fd, 2);
  close(fd);
  *ok = load(out, error);
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
  }
  std::remove(path.c_str());
  return text;
}

void testDefaults() {
  const Config& c = config();
  for (int i = 0; i < generated::kCollectiveCount; ++i) CHECK(c.forced[i] == kAlgorithmAuto, "collective %d forced", i);
  CHECK(c.verbose() == 0 && c.fallback() == FallbackMode::Warn && c.get(Parameter::Shm) == 1, "defaults");
  CHECK(c.get(Parameter::ShmBytes) == 1048576 && c.get(Parameter::AlltoallMaxOutstanding) == 32, "integers");
  for (int i = 0; i < generated::kParameterCount; ++i) {
    CHECK(c.texts[i] == generated::kParameters[i].default_value, "%s: \"%s\"", generated::kParameters[i].env, c.texts[i].c_str());
  }
}

void testParameters() {
  // Booleans: four spellings each way, nothing else.
  for (const char* yes : {"1", "true", "yes", "on"}) CHECK(param(Parameter::Passthrough, yes).ok && param(Parameter::Passthrough, yes).value == 1, "%s", yes);
  for (const char* no : {"0", "false", "no", "off"}) CHECK(param(Parameter::Passthrough, no).ok && param(Parameter::Passthrough, no).value == 0, "%s", no);
  for (const char* bad : {"Yes", "2", ""}) {
    Parsed r = param(Parameter::Passthrough, bad);
    CHECK(!r.ok && r.error == std::string("TOPOCOLL_PASSTHROUGH=\"") + bad + "\" is not a boolean; valid choices: 0, 1, false, true, no, yes, off, on",
          "%s", r.error.c_str());
  }
  // Integers: whole, in the variable's range.
  CHECK(param(Parameter::Verbose, "2").ok && param(Parameter::Verbose, "2").value == 2, "verbose 2");
  CHECK(param(Parameter::ShmBytes, "65536").value == 65536 && param(Parameter::ShmBytes, "1073741824").ok, "shm bytes bounds");
  for (const char* bad : {"3", "-1", "1x", "", "1.0"}) {
    Parsed r = param(Parameter::Verbose, bad);
    CHECK(!r.ok && r.error == std::string("TOPOCOLL_VERBOSE=\"") + bad + "\" is not an integer in [0, 2]", "%s", r.error.c_str());
  }
  Parsed huge = param(Parameter::ShmBytes, "99999999999999999999");
  CHECK(!huge.ok && huge.error == "TOPOCOLL_SHM_BYTES=\"99999999999999999999\" is not an integer in [65536, 1073741824]", "%s", huge.error.c_str());
  // Choices: the index in the registry's order.
  CHECK(param(Parameter::Fallback, "silent").value == static_cast<int>(FallbackMode::Silent), "silent");
  Parsed loud = param(Parameter::Fallback, "loud");
  CHECK(!loud.ok && loud.error == "TOPOCOLL_FALLBACK=\"loud\" is not valid; valid choices: error, warn, silent", "%s", loud.error.c_str());
  Parsed modle = param(Parameter::Select, "modle");
  CHECK(!modle.ok && modle.error == "TOPOCOLL_SELECT=\"modle\" is not valid; valid choices: rules, model", "%s", modle.error.c_str());
  // Strings: any text, except those with a syntax (TOPOCOLL_VIRTUAL_NODES).
  CHECK(param(Parameter::Rules, "any/path.yaml").ok && param(Parameter::Topology, "").ok, "strings");
  CHECK(param(Parameter::VirtualNodes, "block:2").ok && param(Parameter::VirtualNodes, "0,0,1,1").ok && param(Parameter::VirtualNodes, "").ok,
        "virtual nodes");
  const char* forms =
      "valid forms: block:K (K consecutive ranks per node), cyclic:N (ranks dealt round-robin to N nodes), or a list of node "
      "numbers, one per rank (0,0,1,1)";
  Parsed block0 = param(Parameter::VirtualNodes, "block:0");
  CHECK(!block0.ok && block0.error == std::string("TOPOCOLL_VIRTUAL_NODES=\"block:0\" needs a whole number >= 1 after \"block:\"; ") + forms,
        "%s", block0.error.c_str());
  Parsed bogus = param(Parameter::VirtualNodes, "bogus");
  CHECK(!bogus.ok && bogus.error == std::string("TOPOCOLL_VIRTUAL_NODES=\"bogus\" is not valid; ") + forms, "%s", bogus.error.c_str());
}

void testAlgorithmChoices() {
  CHECK(choice(Collective::Bcast, "auto").value == kAlgorithmAuto && choice(Collective::Bcast, "").value == kAlgorithmAuto, "auto");
  CHECK(choice(Collective::Bcast, "native").value == kAlgorithmNative, "native");
  CHECK(choice(Collective::Bcast, "shm_numa").ok && choice(Collective::Bcast, "shm_numa").value == algorithmIndex(Collective::Bcast, "shm_numa"),
        "shm_numa");
  Chosen ring = choice(Collective::Bcast, "ring");
  CHECK(!ring.ok && ring.error ==
                        "TOPOCOLL_BCAST_ALGORITHM=\"ring\" names no bcast algorithm; valid choices: auto, native, binomial, "
                        "scatter_allgather, shm_numa, hierarchical",
        "%s", ring.error.c_str());
  Chosen upper = choice(Collective::Allgather, "Ring");
  CHECK(!upper.ok && upper.error.rfind("TOPOCOLL_ALLGATHER_ALGORITHM=\"Ring\" names no allgather algorithm; valid choices: auto, native, ring, ", 0) == 0,
        "%s", upper.error.c_str());
}

void testUnknownVariables() {
  const char* env[] = {"TOPOCOLL_VERBSE=1",
                       "TOPOCOLL_ALLGATHER_ALGORTIHM=ring",  // a swap of two letters: one edit
                       "TOPOCOLL_RULE=x",
                       "TOPOCOLL_XYZZY_FROB=1",
                       "PATH=/bin",
                       "topocoll_verbose=1",  // not the prefix
                       "TOPOCOLL_VERBOSE=1",
                       "TOPOCOLL_MPICC=/usr/bin/mpicc",  // a tool's variable
                       "TOPOCOLL_SHM",                   // no '=': the name is the entry
                       nullptr};
  const std::vector<std::string> w = unknownVariables(env);
  CHECK(w.size() == 4, "%zu warnings", w.size());
  if (w.size() != 4) return;
  CHECK(w[0] == "TOPOCOLL_VERBSE is not a topocoll variable and is ignored; did you mean TOPOCOLL_VERBOSE?", "%s", w[0].c_str());
  CHECK(w[1] == "TOPOCOLL_ALLGATHER_ALGORTIHM is not a topocoll variable and is ignored; did you mean TOPOCOLL_ALLGATHER_ALGORITHM?", "%s",
        w[1].c_str());
  CHECK(w[2] == "TOPOCOLL_RULE is not a topocoll variable and is ignored; did you mean TOPOCOLL_RULES?", "%s", w[2].c_str());
  // Far from every name: all of them.
  CHECK(w[3] == "TOPOCOLL_XYZZY_FROB is not a topocoll variable and is ignored; valid variables: " + allVariables(), "%s", w[3].c_str());
  CHECK(unknownVariables(nullptr).empty(), "null environment");
}

// The first load of the process: the warning, once, on stderr; values trimmed.
void testLoadTrimsAndWarns() {
  const std::string dir = tempDir();
  clearEnvironment();
  setenv("TOPOCOLL_VERBSE", "1", 1);
  setenv("TOPOCOLL_ALLGATHER_ALGORITHM", "\tbruck\n", 1);
  setenv("TOPOCOLL_BCAST_ALGORITHM", "   ", 1);  // only whitespace: empty, which is auto
  setenv("TOPOCOLL_SHM", " 0 ", 1);
  setenv("TOPOCOLL_FALLBACK", " silent", 1);
  setenv("TOPOCOLL_SHM_BYTES", "65536\r\n", 1);
  setenv("TOPOCOLL_VIRTUAL_NODES", " block:2 ", 1);
  Config c;
  std::string error;
  bool ok = false;
  std::string warned = stderrOf(dir, loadConfigFromEnvironment, &c, &error, &ok);
  CHECK(ok, "%s", error.c_str());
  CHECK(warned == "topocoll: warning: TOPOCOLL_VERBSE is not a topocoll variable and is ignored; did you mean TOPOCOLL_VERBOSE?\n",
        "stderr: %s", warned.c_str());
  CHECK(c.forced[static_cast<int>(Collective::Allgather)] == algorithmIndex(Collective::Allgather, "bruck"), "allgather bruck");
  CHECK(c.forced[static_cast<int>(Collective::Bcast)] == kAlgorithmAuto && c.forced[static_cast<int>(Collective::Alltoall)] == kAlgorithmAuto,
        "auto");
  CHECK(c.get(Parameter::Shm) == 0 && c.text(Parameter::Shm) == "0", "shm: \"%s\"", c.text(Parameter::Shm).c_str());
  CHECK(c.fallback() == FallbackMode::Silent && c.text(Parameter::Fallback) == "silent", "fallback");
  CHECK(c.get(Parameter::ShmBytes) == 65536 && c.text(Parameter::ShmBytes) == "65536", "shm bytes");
  CHECK(c.text(Parameter::VirtualNodes) == "block:2", "virtual nodes: \"%s\"", c.text(Parameter::VirtualNodes).c_str());
  CHECK(c.verbose() == 0 && c.text(Parameter::Verbose) == "0", "unset: the default");
  // A later load does not warn again.
  warned = stderrOf(dir, loadConfigFromEnvironment, &c, &error, &ok);
  CHECK(ok && warned.empty(), "stderr: %s", warned.c_str());
  clearEnvironment();
  rmdir(dir.c_str());
}

void testLoadErrors() {
  clearEnvironment();
  Config c;
  c.values[static_cast<int>(Parameter::Verbose)] = 42;  // untouched on error
  std::string error;
  struct Case {
    const char *name, *value;
    std::string error;
  } cases[] = {
      {"TOPOCOLL_BCAST_ALGORITHM", " ring ",
       "TOPOCOLL_BCAST_ALGORITHM=\"ring\" names no bcast algorithm; valid choices: auto, native, binomial, scatter_allgather, shm_numa, hierarchical"},
      {"TOPOCOLL_VERBOSE", "  ", "TOPOCOLL_VERBOSE=\"\" is not an integer in [0, 2]"},
      {"TOPOCOLL_VERBOSE", "1 2", "TOPOCOLL_VERBOSE=\"1 2\" is not an integer in [0, 2]"},
      {"TOPOCOLL_STATS", " maybe\n", "TOPOCOLL_STATS=\"maybe\" is not an integer in [0, 2]"},
      {"TOPOCOLL_SHM", "maybe", "TOPOCOLL_SHM=\"maybe\" is not a boolean; valid choices: 0, 1, false, true, no, yes, off, on"},
      {"TOPOCOLL_SELECT", "Model", "TOPOCOLL_SELECT=\"Model\" is not valid; valid choices: rules, model"},
      {"TOPOCOLL_ALLTOALL_MAX_OUTSTANDING", "0", "TOPOCOLL_ALLTOALL_MAX_OUTSTANDING=\"0\" is not an integer in [1, 65536]"},
  };
  for (const Case& k : cases) {
    setenv(k.name, k.value, 1);
    CHECK(!loadConfigFromEnvironment(&c, &error) && error == k.error, "%s=\"%s\"\n      got:  %s\n      want: %s", k.name, k.value,
          error.c_str(), k.error.c_str());
    CHECK(c.verbose() == 42, "*out changed on error");
    unsetenv(k.name);
  }
  CHECK(loadConfigFromEnvironment(&c, &error) && c.verbose() == 0, "%s", error.c_str());
  clearEnvironment();
}

// TOPOCOLL_RULES is read at load, so that a bad file stops init; its path is trimmed too.
void testRulesVariable() {
  clearEnvironment();
  const std::string dir = tempDir();
  Config c;
  std::string error;
  setenv("TOPOCOLL_RULES", dir.c_str(), 1);
  CHECK(!loadConfigAndRules(&c, &error) && error == "TOPOCOLL_RULES: " + dir + ": is a directory, not a rules file", "%s", error.c_str());
  const std::string path = dir + "/rules.json";
  if (FILE* f = std::fopen(path.c_str(), "w")) {
    std::fputs("{\"version\": 1, \"rules\": [\n{\"collective\": \"barrier\", \"algorithm\": \"dissemination\"}\n]}\n", f);
    std::fclose(f);
  }
  setenv("TOPOCOLL_RULES", (" " + path + "\n").c_str(), 1);
  CHECK(loadConfigAndRules(&c, &error), "%s", error.c_str());
  CHECK(c.text(Parameter::Rules) == path, "\"%s\"", c.text(Parameter::Rules).c_str());
  const rules::RuleSet* set = rules::current();
  CHECK(set && set->source == path && set->rules.size() == 1 && set->rules[0].reason == "rules file " + path + ":2", "rules loaded");
  unsetenv("TOPOCOLL_RULES");
  CHECK(loadConfigAndRules(&c, &error) && rules::current() == nullptr, "unset: no rules");
  std::remove(path.c_str());
  rmdir(dir.c_str());
}

}  // namespace

int main() {
  const Test tests[] = {
      // First: the warning is printed by the process's first load only.
      {"load: values trimmed, unknown variables warned of once", testLoadTrimsAndWarns},
      {"defaults from the registry", testDefaults},
      {"parameters: booleans, integers, choices, strings", testParameters},
      {"algorithm choices", testAlgorithmChoices},
      {"unknown variables: the closest name, or all", testUnknownVariables},
      {"load: bad values name the variable and the choices", testLoadErrors},
      {"load: TOPOCOLL_RULES", testRulesVariable},
  };
  return topocoll::test::runTests(tests);
}
