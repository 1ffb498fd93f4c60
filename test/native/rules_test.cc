// Standalone tests of the engine's rules-file reader (native/engine/rules.cc), the one a preloaded
// C/Fortran program runs at MPI_Init (TOPOCOLL_RULES): every key of a valid file, each condition
// of a rule and first-match order, the messages (file and line) for bad input, files that are
// directories, empty, hold NUL bytes or are very large.
//
// MPI-free: linked with choice.cc, json.cc and algorithm_registry.cc only. One stand-in, since
// the units that hold the real ones need MPI: the schedule builders. This test registers
// placeholders for a few algorithms (below), so that a rule naming an algorithm without a builder
// in this binary is one that "cannot run here".
// Build and run: test/native/build.sh
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "algorithm_registry.h"
#include "check.h"
#include "choice.h"
#include "rules.h"

using namespace topocoll;
using topocoll::test::Test;

namespace {

// Placeholder builders: rules::select only asks whether one exists. Allgather's recursive_doubling
// and bcast's scatter_allgather have none here.
Schedule placeholder(const BuildParams&) { return Schedule{}; }
Schedule placeholder2(const BuildParams&) { return Schedule{}; }
Schedule placeholder3(const BuildParams&) { return Schedule{}; }
Schedule placeholder4(const BuildParams&) { return Schedule{}; }
TOPOCOLL_REGISTER_ALGORITHM(Allgather, "ring", placeholder);
TOPOCOLL_REGISTER_ALGORITHM(Allgather, "bruck", placeholder2);
TOPOCOLL_REGISTER_ALGORITHM(Allgather, "hierarchical", placeholder3);  // uses shared memory
TOPOCOLL_REGISTER_ALGORITHM(Bcast, "binomial", placeholder4);

int algo(Collective c, const char* name) { return algorithmIndex(c, name); }

// The error of parsing `text` as "r.json", or "" when it parses.
std::string errorOf(const std::string& text) {
  rules::RuleSet set;
  std::string error;
  return rules::parse(text, "r.json", &set, &error) ? "" : error;
}

// A file of version 1 whose rules start on line 2, one per line.
std::string file(const std::vector<std::string>& rules) {
  std::string s = "{\"version\": 1, \"rules\": [\n";
  for (size_t i = 0; i < rules.size(); ++i) s += (i ? ",\n" : "") + rules[i];
  return s + "\n]}\n";
}

// The registry's algorithms of `c` after "native" and "native:<name>", as the messages list them.
std::string choices(Collective c) {
  const auto& entry = collectiveEntry(c);
  std::string out = "native, native:<name>";
  for (int i = 0; i < entry.algorithm_count; ++i) out += std::string(", ") + entry.algorithms[i];
  return out;
}

Config shmConfig(bool shm) {
  Config cfg;
  cfg.values[static_cast<int>(Parameter::Shm)] = shm ? 1 : 0;
  return cfg;
}

// The algorithm rules::select picks for the call, or -100 when no rule does.
int pick(const rules::RuleSet& set, Collective c, int p, int64_t block, int64_t total, bool shm = true,
         std::string* reason = nullptr, int nodes = 1, const char* mpi = "openmpi", bool nonblocking = false) {
  int algorithm = -100;
  const char* why = "";
  if (!rules::select(set, c, p, block, total, nodes, nonblocking, mpi, shmConfig(shm), &algorithm, &why)) return -100;
  if (reason) *reason = why;
  return algorithm;
}

rules::RuleSet parsed(const std::string& text, const std::string& source = "r.json") {
  rules::RuleSet set;
  std::string error;
  CHECK(rules::parse(text, source, &set, &error), "%s", error.c_str());
  return set;
}

// A fresh directory for files, removed by the test that made it (files inside first).
std::string tempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base && *base ? base : "/tmp") + "/topocoll-rules-test-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) {
    std::perror("mkdtemp");
    std::exit(2);
  }
  return buf.data();
}

void writeFile(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "wb");
  CHECK(f, "cannot write %s", path.c_str());
  if (!f) return;
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
}

void testValidFile() {
  const std::string text =
      "{\n"
      "  \"$schema\": \"../schemas/rules.schema.json\",\n"
      "  \"version\": 1,\n"
      "  \"generator\": \"topocoll tune\",\n"
      "  \"created\": \"2026-11-26T06:00:00Z\",\n"
      "  \"machine\": {\"host\": \"n1\"},\n"
      "  \"mpi\": {\"flavour\": \"openmpi\"},\n"
      "  \"job\": {\"ranks\": 8},\n"
      "  \"notes\": \"by hand\",\n"
      "  \"rules\": [\n"
      "    {\"collective\": \"allgather\", \"algorithm\": \"bruck\", \"basis\": \"block\", \"minBytes\": 0, \"maxBytes\": 1024,\n"
      "     \"minRanks\": 2, \"maxRanks\": 64, \"powerOfTwo\": false, \"why\": \"small blocks\"},\n"
      "    {\"collective\": \"bcast\", \"algorithm\": \"native\"},\n"
      "    {\"collective\": \"alltoall\", \"algorithm\": \"pairwise\", \"basis\": \"total\", \"maxBytes\": 1099511627776}\n"
      "  ]\n"
      "}\n";
  rules::RuleSet set = parsed(text, "tuned.json");
  CHECK(set.source == "tuned.json", "%s", set.source.c_str());
  CHECK(set.rules.size() == 3, "%zu rules", set.rules.size());
  if (set.rules.size() != 3) return;
  const rules::Rule& a = set.rules[0];
  CHECK(a.collective == Collective::Allgather && a.algorithm == algo(Collective::Allgather, "bruck"), "rule 0: %d", a.algorithm);
  CHECK(a.basis == generated::SizeBasis::Block && a.min_bytes == 0 && a.max_bytes == 1024, "rule 0 bytes");
  CHECK(a.min_ranks == 2 && a.max_ranks == 64 && a.power_of_two == 0, "rule 0 ranks");
  CHECK(a.why == "small blocks" && a.line == 11, "rule 0: line %d, why %s", a.line, a.why.c_str());
  CHECK(a.reason == "rules file tuned.json:11: small blocks", "%s", a.reason.c_str());
  const rules::Rule& b = set.rules[1];
  CHECK(b.collective == Collective::Bcast && b.algorithm == kAlgorithmNative, "rule 1: %d", b.algorithm);
  CHECK(b.min_bytes == -1 && b.max_bytes == -1 && b.min_ranks == -1 && b.max_ranks == -1 && b.power_of_two == -1, "rule 1 unbounded");
  CHECK(b.line == 13 && b.reason == "rules file tuned.json:13", "rule 1: %d %s", b.line, b.reason.c_str());
  const rules::Rule& c = set.rules[2];
  CHECK(c.collective == Collective::Alltoall && c.algorithm == algo(Collective::Alltoall, "pairwise"), "rule 2");
  CHECK(c.basis == generated::SizeBasis::Total && c.max_bytes == 1099511627776, "rule 2: max %lld", static_cast<long long>(c.max_bytes));
  // No rules at all is a valid file.
  CHECK(parsed("{\"version\": 1, \"rules\": []}").rules.empty(), "empty list");
}

void testConditions() {
  const auto ring = algo(Collective::Allgather, "ring"), bruck = algo(Collective::Allgather, "bruck");
  // Bytes: [minBytes, maxBytes) of the stated basis.
  rules::RuleSet block = parsed(file({R"({"collective": "allgather", "algorithm": "ring", "basis": "block", "minBytes": 100, "maxBytes": 200})"}));
  CHECK(pick(block, Collective::Allgather, 4, 99, 10000) == -100, "below minBytes");
  CHECK(pick(block, Collective::Allgather, 4, 100, 10000) == ring, "minBytes is inclusive");
  CHECK(pick(block, Collective::Allgather, 4, 199, 0) == ring, "block basis ignores the total");
  CHECK(pick(block, Collective::Allgather, 4, 200, 150) == -100, "maxBytes is exclusive");
  rules::RuleSet total = parsed(file({R"({"collective": "allgather", "algorithm": "ring", "basis": "total", "maxBytes": 200})"}));
  CHECK(pick(total, Collective::Allgather, 4, 150, 199) == ring, "total basis");
  CHECK(pick(total, Collective::Allgather, 4, 150, 200) == -100, "total basis: the total decides");
  // Ranks: [minRanks, maxRanks], inclusive.
  rules::RuleSet ranks = parsed(file({R"({"collective": "allgather", "algorithm": "ring", "minRanks": 3, "maxRanks": 5})"}));
  CHECK(pick(ranks, Collective::Allgather, 2, 0, 0) == -100 && pick(ranks, Collective::Allgather, 3, 0, 0) == ring &&
            pick(ranks, Collective::Allgather, 5, 0, 0) == ring && pick(ranks, Collective::Allgather, 6, 0, 0) == -100,
        "ranks 3..5");
  // Powers of two, either way.
  rules::RuleSet pow2 = parsed(file({R"({"collective": "allgather", "algorithm": "ring", "powerOfTwo": true})",
                                     R"({"collective": "allgather", "algorithm": "bruck", "powerOfTwo": false})"}));
  CHECK(pick(pow2, Collective::Allgather, 8, 0, 0) == ring && pick(pow2, Collective::Allgather, 1, 0, 0) == ring, "powers of two");
  CHECK(pick(pow2, Collective::Allgather, 6, 0, 0) == bruck && pick(pow2, Collective::Allgather, 7, 0, 0) == bruck, "others");
  // The collective: a rule of another collective never matches.
  rules::RuleSet bcast = parsed(file({R"({"collective": "bcast", "algorithm": "binomial"})"}));
  CHECK(pick(bcast, Collective::Allgather, 4, 0, 0) == -100, "another collective");
  CHECK(pick(bcast, Collective::Bcast, 4, 0, 0) == algo(Collective::Bcast, "binomial"), "its collective");
}

void testPlacementAndMpi() {
  const auto ring = algo(Collective::Allgather, "ring"), bruck = algo(Collective::Allgather, "bruck");
  // Nodes: [minNodes, maxNodes], inclusive.
  rules::RuleSet nodes = parsed(file({R"({"collective": "allgather", "algorithm": "ring", "minNodes": 2, "maxNodes": 4})"}));
  CHECK(!nodes.needs_nodes[static_cast<int>(Collective::Bcast)] && nodes.needs_nodes[static_cast<int>(Collective::Allgather)],
        "the collective whose rules look at placement needs the node count");
  CHECK(pick(nodes, Collective::Allgather, 8, 0, 0, true, nullptr, 1) == -100 && pick(nodes, Collective::Allgather, 8, 0, 0, true, nullptr, 2) == ring &&
            pick(nodes, Collective::Allgather, 8, 0, 0, true, nullptr, 4) == ring && pick(nodes, Collective::Allgather, 8, 0, 0, true, nullptr, 5) == -100,
        "nodes 2..4");
  // Ranks per node: the ranks over the nodes, rounded up.
  rules::RuleSet rpn = parsed(file({R"({"collective": "allgather", "algorithm": "ring", "minRanksPerNode": 3, "maxRanksPerNode": 4})"}));
  CHECK(pick(rpn, Collective::Allgather, 8, 0, 0, true, nullptr, 4) == -100, "8 ranks on 4 nodes: 2 per node");
  CHECK(pick(rpn, Collective::Allgather, 9, 0, 0, true, nullptr, 4) == ring, "9 ranks on 4 nodes: 3 per node (rounded up)");
  CHECK(pick(rpn, Collective::Allgather, 16, 0, 0, true, nullptr, 4) == ring && pick(rpn, Collective::Allgather, 17, 0, 0, true, nullptr, 4) == -100,
        "4 per node, then 5");
  CHECK(pick(rpn, Collective::Allgather, 3, 0, 0) == ring, "one node: every rank on it");
  // multiNode as the defaults: several nodes, and several ranks on some node.
  rules::RuleSet multi = parsed(file({R"({"collective": "allgather", "algorithm": "ring", "multiNode": true})",
                                      R"({"collective": "allgather", "algorithm": "bruck", "multiNode": false})"}));
  CHECK(pick(multi, Collective::Allgather, 8, 0, 0, true, nullptr, 2) == ring, "8 ranks on 2 nodes");
  CHECK(pick(multi, Collective::Allgather, 8, 0, 0, true, nullptr, 1) == bruck && pick(multi, Collective::Allgather, 8, 0, 0, true, nullptr, 8) == bruck,
        "one node, or one rank per node");
  // The MPI: a rule for the other MPI never matches; native:<name> hands the call to the MPI.
  std::string reason;
  rules::RuleSet mpi = parsed(file({R"({"collective": "allgather", "algorithm": "native:ring", "mpi": "mpich", "why": "MPICH's ring"})",
                                    R"({"collective": "allgather", "algorithm": "bruck", "mpi": "openmpi"})"}));
  CHECK(pick(mpi, Collective::Allgather, 4, 0, 0, true, &reason, 1, "mpich") == kAlgorithmNative && reason == "rules file r.json:2: MPICH's ring",
        "%s", reason.c_str());
  CHECK(pick(mpi, Collective::Allgather, 4, 0, 0, true, nullptr, 1, "openmpi") == bruck, "the Open MPI rule");
  CHECK(!mpi.needs_nodes[static_cast<int>(Collective::Allgather)], "the MPI is no placement");
  // The call's form: a nonblocking rule never takes a blocking call, nor a blocking rule a nonblocking one.
  rules::RuleSet form = parsed(file({R"({"collective": "allgather", "algorithm": "ring", "nonblocking": true})",
                                     R"({"collective": "allgather", "algorithm": "bruck", "nonblocking": false})"}));
  CHECK(pick(form, Collective::Allgather, 4, 0, 0, true, nullptr, 1, "openmpi", true) == ring, "a nonblocking call");
  CHECK(pick(form, Collective::Allgather, 4, 0, 0, true, nullptr, 1, "openmpi", false) == bruck, "a blocking call");
  CHECK(!form.needs_nodes[static_cast<int>(Collective::Allgather)], "the call's form is no placement");
}

void testFirstMatchOrder() {
  const auto ring = algo(Collective::Allgather, "ring"), bruck = algo(Collective::Allgather, "bruck");
  const auto hier = algo(Collective::Allgather, "hierarchical");
  rules::RuleSet set = parsed(file({
      R"({"collective": "allgather", "algorithm": "recursive_doubling", "why": "no builder in this binary"})",  // line 2
      R"({"collective": "allgather", "algorithm": "hierarchical", "basis": "block", "maxBytes": 1000, "why": "shm"})",  // 3
      R"({"collective": "allgather", "algorithm": "bruck", "basis": "block", "maxBytes": 1000, "why": "small"})",  // 4
      R"({"collective": "allgather", "algorithm": "ring", "basis": "block", "maxBytes": 100, "why": "never: bruck first"})",  // 5
      R"({"collective": "allgather", "algorithm": "native", "minRanks": 16})",  // 6
      R"({"collective": "allgather", "algorithm": "ring", "why": "the rest"})",  // 7
  }));
  std::string reason;
  // The first matching rule whose algorithm can run: recursive_doubling has no builder here.
  CHECK(pick(set, Collective::Allgather, 4, 10, 40, true, &reason) == hier, "shm on");
  CHECK(reason == "rules file r.json:3: shm", "%s", reason.c_str());
  // Under TOPOCOLL_SHM=0 the shared-memory algorithm is skipped, and the next rule decides.
  CHECK(pick(set, Collective::Allgather, 4, 10, 40, false, &reason) == bruck, "shm off");
  CHECK(reason == "rules file r.json:4: small", "%s", reason.c_str());
  // "native" is always runnable; a reason without "why" is the file and line.
  CHECK(pick(set, Collective::Allgather, 16, 5000, 80000, true, &reason) == kAlgorithmNative, "native");
  CHECK(reason == "rules file r.json:6", "%s", reason.c_str());
  CHECK(pick(set, Collective::Allgather, 4, 5000, 20000, true, &reason) == ring && reason == "rules file r.json:7: the rest",
        "%s", reason.c_str());
  // No rule of a collective: false, the caller goes on to the defaults.
  CHECK(pick(set, Collective::Barrier, 4, 0, 0) == -100, "no barrier rule");
}

void testRuleErrors() {
  const std::string rule = "{\"collective\": \"allgather\", \"algorithm\": \"ring\"";
  struct Case {
    std::string text, error;
  } cases[] = {
      {file({R"({"collective": "allgathr", "algorithm": "ring"})"}),
       "r.json:2: rules[0].collective: \"allgathr\" is not a collective; valid choices: allgather, bcast, barrier, alltoall, allreduce, reduce, "
       "reduce_scatter_block, reduce_scatter"},
      {file({rule + "}", R"({"collective": "alltoall", "algorithm": "rng"})"}),
       "r.json:3: rules[1].algorithm: \"rng\" is not an algorithm of alltoall; valid choices: " + choices(Collective::Alltoall)},
      {file({R"({"collective": "allgather", "algorithm": "tiled"})"}),
       "r.json:2: rules[0].algorithm: \"tiled\" is not an algorithm of allgather; valid choices: " + choices(Collective::Allgather)},
      {file({R"({"algorithm": "ring"})"}), "r.json:2: rules[0].collective: missing (every rule names its collective)"},
      {file({R"({"collective": "allgather"})"}), "r.json:2: rules[0].algorithm: missing (every rule names its algorithm)"},
      {file({R"({"collective": 5, "algorithm": "ring"})"}), "r.json:2: rules[0].collective: must be a string (got a number)"},
      {file({rule + ", \"speed\": 1}"}),
       "r.json:2: rules[0].speed: unknown key; valid keys: collective, algorithm, basis, minBytes, maxBytes, minRanks, maxRanks, "
       "powerOfTwo, multiNode, nonblocking, minNodes, maxNodes, minRanksPerNode, maxRanksPerNode, mpi, why"},
      {file({"7"}), "r.json:2: rules[0]: must be an object (got a number)"},
      {file({rule + ",\n\"basis\": \"all\"}"}), "r.json:3: rules[0].basis: \"all\" is not a size basis; valid choices: block, total"},
      {file({rule + ", \"maxBytes\": 5}"}),
       "r.json:2: rules[0].basis: missing: a rule with minBytes or maxBytes must say whether they count one rank's block "
       "(\"block\") or all a rank receives (\"total\")"},
      // Bad numbers.
      {file({rule + ", \"basis\": \"block\",\n\"minBytes\": -1}"}), "r.json:3: rules[0].minBytes: must be a whole number in [0, 4611686018427387903]"},
      {file({rule + ", \"basis\": \"block\",\n\"minBytes\": 1.5}"}), "r.json:3: rules[0].minBytes: must be a whole number in [0, 4611686018427387903]"},
      {file({rule + ", \"basis\": \"block\",\n\"maxBytes\": 1e3}"}), "r.json:3: rules[0].maxBytes: must be a whole number in [0, 4611686018427387903]"},
      {file({rule + ", \"basis\": \"block\",\n\"maxBytes\": 9223372036854775807}"}),
       "r.json:3: rules[0].maxBytes: must be a whole number in [0, 4611686018427387903]"},
      {file({rule + ", \"basis\": \"block\",\n\"minBytes\": \"10\"}"}),
       "r.json:3: rules[0].minBytes: must be a whole number in [0, 4611686018427387903] (got a string)"},
      {file({rule + ", \"basis\": \"block\", \"minBytes\": 10,\n\"maxBytes\": 10}"}),
       "r.json:3: rules[0].maxBytes: must be greater than minBytes (the range is [minBytes, maxBytes))"},
      {file({rule + ",\n\"minRanks\": 0}"}), "r.json:3: rules[0].minRanks: must be a whole number in [1, 1073741824]"},
      {file({rule + ",\n\"maxRanks\": 1073741825}"}), "r.json:3: rules[0].maxRanks: must be a whole number in [1, 1073741824]"},
      {file({rule + ", \"minRanks\": 4,\n\"maxRanks\": 3}"}), "r.json:3: rules[0].maxRanks: must not be less than minRanks"},
      {file({rule + ",\n\"powerOfTwo\": 1}"}), "r.json:3: rules[0].powerOfTwo: must be true or false (got a number)"},
      {file({rule + ",\n\"why\": null}"}), "r.json:3: rules[0].why: must be a string (got null)"},
      // Placement and the MPI.
      {file({rule + ",\n\"multiNode\": \"yes\"}"}), "r.json:3: rules[0].multiNode: must be true or false (got a string)"},
      {file({rule + ",\n\"nonblocking\": 1}"}), "r.json:3: rules[0].nonblocking: must be true or false (got a number)"},
      {file({rule + ",\n\"minNodes\": 0}"}), "r.json:3: rules[0].minNodes: must be a whole number in [1, 1073741824]"},
      {file({rule + ", \"minNodes\": 4,\n\"maxNodes\": 2}"}), "r.json:3: rules[0].maxNodes: must not be less than minNodes"},
      {file({rule + ",\n\"maxRanksPerNode\": 2.5}"}), "r.json:3: rules[0].maxRanksPerNode: must be a whole number in [1, 1073741824]"},
      {file({rule + ", \"minRanksPerNode\": 8,\n\"maxRanksPerNode\": 4}"}),
       "r.json:3: rules[0].maxRanksPerNode: must not be less than minRanksPerNode"},
      {file({rule + ",\n\"mpi\": \"intelmpi\"}"}), "r.json:3: rules[0].mpi: \"intelmpi\" is not an MPI; valid choices: openmpi, mpich"},
      {file({rule + ",\n\"mpi\": 1}"}), "r.json:3: rules[0].mpi: must be a string (got a number)"},
      {file({R"({"collective": "allgather", "algorithm": "native:ring"})"}),
       "r.json:2: rules[0].mpi: missing: a rule choosing native:ring must say whose algorithm it is (\"openmpi\" or \"mpich\")"},
      {file({R"({"collective": "allgather", "mpi": "openmpi",)" "\n" R"("algorithm": "native:Ring"})"}),
       "r.json:3: rules[0].algorithm: \"native:Ring\": native:<name> names one of the MPI's own algorithms in lowercase letters, digits and _ "
       "(native:ring)"},
      {file({R"({"collective": "allgather", "mpi": "openmpi", "algorithm": "native:"})"}),
       "r.json:2: rules[0].algorithm: \"native:\": native:<name> names one of the MPI's own algorithms in lowercase letters, digits and _ "
       "(native:ring)"},
  };
  for (const Case& c : cases) CHECK(errorOf(c.text) == c.error, "%s\n      got:  %s\n      want: %s", c.text.c_str(), errorOf(c.text).c_str(), c.error.c_str());
}

void testDocumentErrors() {
  struct Case {
    std::string text, error;
  } cases[] = {
      {"[]", "r.json:1: (top level): must be an object (got a list)"},
      {"{}", "r.json:1: version: missing (this topocoll reads rules files of version 1)"},
      {"{\n\"version\": 2, \"rules\": []}", "r.json:2: version: must be 1 (the only version this topocoll reads)"},
      {"{\"version\": 1.0, \"rules\": []}", "r.json:1: version: must be 1 (the only version this topocoll reads)"},
      {"{\"version\": 1}", "r.json:1: rules: missing (the list of rules, first match wins)"},
      {"{\"version\": 1,\n\"rules\": {}}", "r.json:2: rules: must be a list (got an object)"},
      {"{\"version\": 1, \"rules\": [],\n\"bogus\": 1}",
       "r.json:2: bogus: unknown key; valid keys: $schema, version, generator, created, machine, mpi, job, notes, rules"},
      {"{\"version\": 1, \"rules\": [],\n\"machine\": \"n1\"}", "r.json:2: machine: must be an object (got a string)"},
      {"{\"version\": 1, \"rules\": [],\n\"created\": 3}", "r.json:2: created: must be a string (got a number)"},
  };
  for (const Case& c : cases) CHECK(errorOf(c.text) == c.error, "%s\n      got:  %s\n      want: %s", c.text.c_str(), errorOf(c.text).c_str(), c.error.c_str());
}

void testNotJson() {
  // Duplicate keys, in a rule and at the top: the repeat's line.
  CHECK(errorOf(file({"{\"collective\": \"allgather\",\n\"collective\": \"bcast\", \"algorithm\": \"ring\"}"})) ==
            "r.json:3: not valid JSON: duplicate key \"collective\"",
        "%s", errorOf(file({"{\"collective\": \"allgather\",\n\"collective\": \"bcast\", \"algorithm\": \"ring\"}"})).c_str());
  CHECK(errorOf("{\"version\": 1, \"rules\": [],\n\n\"version\": 1}") == "r.json:3: not valid JSON: duplicate key \"version\"", "%s",
        errorOf("{\"version\": 1, \"rules\": [],\n\n\"version\": 1}").c_str());
  // NUL bytes: line and column, and not taken for YAML.
  std::string nul = "{\"version\": 1,\n\"rules\": [";
  nul += '\0';
  nul += "]}\n";
  CHECK(errorOf(nul) == "r.json:2: not valid JSON: NUL byte (0x00) at column 11: a text file has none; is it binary or damaged?", "%s",
        errorOf(nul).c_str());
  // Empty, or only whitespace.
  CHECK(errorOf("") == "r.json:1: not valid JSON: the file is empty; expected a JSON value", "%s", errorOf("").c_str());
  CHECK(errorOf(" \n\n") == "r.json:3: not valid JSON: the file is empty; expected a JSON value", "%s", errorOf(" \n\n").c_str());
  CHECK(errorOf("{\"version\": 1, \"rules\": [],}") == "r.json:1: not valid JSON: trailing comma before '}'", "%s",
        errorOf("{\"version\": 1, \"rules\": [],}").c_str());
  CHECK(errorOf(file({"{\"collective\": \"allgather\", \"algorithm\": \"ring\", \"basis\": \"block\",\n\"maxBytes\": 1e400}"})) ==
            "r.json:3: not valid JSON: the number 1e400 is out of range",
        "1e400");
  // YAML: the engine says how to convert it.
  CHECK(errorOf("version: 1\nrules: []\n") ==
            "r.json: this looks like YAML; the engine reads rules files as JSON only when no Node runs the program (a preloaded "
            "C/Fortran program): convert it with `npx topocoll tune --convert r.json > rules.json` and set TOPOCOLL_RULES=rules.json",
        "%s", errorOf("version: 1\nrules: []\n").c_str());
}

void testFiles() {
  const std::string dir = tempDir();
  std::string error;
  const uint64_t epoch = selectionEpoch();
  // A directory, a missing file, an empty file: the variable, the path, what is wrong.
  CHECK(!rules::loadFromEnvironment(dir, &error) && error == "TOPOCOLL_RULES: " + dir + ": is a directory, not a rules file", "%s",
        error.c_str());
  CHECK(!rules::loadFromEnvironment(dir + "/missing.json", &error) &&
            error == "TOPOCOLL_RULES: " + dir + "/missing.json: cannot read the rules file (No such file or directory)",
        "%s", error.c_str());
  writeFile(dir + "/empty.json", "");
  CHECK(!rules::loadFromEnvironment(dir + "/empty.json", &error) &&
            error == "TOPOCOLL_RULES: " + dir + "/empty.json:1: not valid JSON: the file is empty; expected a JSON value",
        "%s", error.c_str());
  std::string nul = file({"{\"collective\": \"allgather\", \"algorithm\": \"ring\"}"});
  nul[nul.size() - 3] = '\0';
  writeFile(dir + "/nul.json", nul);
  CHECK(!rules::loadFromEnvironment(dir + "/nul.json", &error) &&
            error == "TOPOCOLL_RULES: " + dir + "/nul.json:3: not valid JSON: NUL byte (0x00) at column 1: a text file has none; is it binary or damaged?",
        "%s", error.c_str());
  CHECK(rules::current() == nullptr && selectionEpoch() == epoch, "a failed load installs nothing");
  // A good file: installed, the selection epoch moves on.
  writeFile(dir + "/good.json", file({"{\"collective\": \"allgather\", \"algorithm\": \"ring\", \"why\": \"from the file\"}"}));
  CHECK(rules::loadFromEnvironment(dir + "/good.json", &error), "%s", error.c_str());
  CHECK(rules::current() && rules::current()->rules.size() == 1 && rules::current()->rules[0].reason == "rules file " + dir + "/good.json:2: from the file",
        "loaded");
  CHECK(selectionEpoch() > epoch, "epoch");
  // Installed by the Node side with the YAML's line map (JSON line i + 1 is the YAML's map[i];
  // 0: unknown): a later load of the same path keeps them.
  const std::string json = file({"{\"collective\": \"bcast\", \"algorithm\": \"binomial\", \"why\": \"yaml\"}",
                                 "{\"collective\": \"bcast\", \"algorithm\": \"native\"}"});
  const std::vector<int> yaml_lines = {1, 7, 0};
  CHECK(rules::install(json, dir + "/tuned.yaml", &yaml_lines, &error), "%s", error.c_str());
  const rules::RuleSet* set = rules::current();
  CHECK(set && set->rules.size() == 2 && set->rules[0].reason == "rules file " + dir + "/tuned.yaml:7: yaml" && set->rules[1].line == 0 &&
            set->rules[1].reason == "rules file " + dir + "/tuned.yaml",
        "installed");
  CHECK(rules::loadFromEnvironment(dir + "/tuned.yaml", &error) && rules::current() == set, "kept: the YAML file is not read");
  const std::vector<int> bad_lines = {4};
  CHECK(!rules::install("{\"version\": 1}", "bad.yaml", &bad_lines, &error) && error == "bad.yaml:4: rules: missing (the list of rules, first match wins)" &&
            rules::current() == set,
        "%s", error.c_str());
  const std::vector<int> no_lines;
  CHECK(!rules::install("{\"version\": 1}", "object", &no_lines, &error) && error == "object: rules: missing (the list of rules, first match wins)",
        "no line: %s", error.c_str());
  // Empty: no rules.
  CHECK(rules::loadFromEnvironment("", &error) && rules::current() == nullptr, "cleared");
  for (const char* f : {"empty.json", "nul.json", "good.json"}) std::remove((dir + "/" + f).c_str());
  rmdir(dir.c_str());
}

// Sized, not timed: a reader with a step quadratic in the number of rules (a lookup by rule
// index, a copy per rule) would take minutes here instead of about a second.
void testHugeFile() {
  const int n = 400000;
  std::string text = "{\"version\": 1, \"rules\": [\n";
  for (int i = 0; i < n; ++i) {
    text += std::string(i ? ",\n" : "") + "{\"collective\": \"allgather\", \"algorithm\": \"" + (i % 2 ? "ring" : "bruck") +
            "\", \"basis\": \"block\", \"minBytes\": " + std::to_string(i) + ", \"maxBytes\": " + std::to_string(i + 1) + "}";
  }
  text += "\n]}\n";
  const std::string dir = tempDir(), path = dir + "/huge.json";
  writeFile(path, text);
  std::string error;
  CHECK(rules::loadFromEnvironment(path, &error), "%s", error.c_str());
  const rules::RuleSet* set = rules::current();
  CHECK(set && set->rules.size() == static_cast<size_t>(n), "%zu rules", set ? set->rules.size() : 0);
  if (set && set->rules.size() == static_cast<size_t>(n)) {
    CHECK(set->rules[n - 1].line == n + 1 && set->rules[n - 1].min_bytes == n - 1, "last rule: line %d", set->rules[n - 1].line);
    CHECK(pick(*set, Collective::Allgather, 4, n - 2, 0) == algo(Collective::Allgather, "bruck"), "first match, far down");
  }
  // An error in the last rule names its line and index.
  const size_t last = text.rfind("\"maxBytes\": ");
  text.replace(last, std::string("\"maxBytes\": ").size() + std::to_string(n).size(), "\"maxBytes\": 0");
  CHECK(errorOf(text) == "r.json:" + std::to_string(n + 1) + ": rules[" + std::to_string(n - 1) +
                             "].maxBytes: must be greater than minBytes (the range is [minBytes, maxBytes))",
        "%s", errorOf(text).c_str());
  CHECK(rules::loadFromEnvironment("", &error), "clear");
  std::remove(path.c_str());
  rmdir(dir.c_str());
}

}  // namespace

int main() {
  const Test tests[] = {
      {"a valid file: every key", testValidFile},
      {"each condition of a rule", testConditions},
      {"placement (nodes, ranks per node, multiNode), the MPI and the call's form", testPlacementAndMpi},
      {"first match wins, skipping what cannot run here", testFirstMatchOrder},
      {"bad rules: file, line, valid choices", testRuleErrors},
      {"bad documents: file, line", testDocumentErrors},
      {"not JSON: duplicate keys, NUL bytes, empty, YAML", testNotJson},
      {"files: directories, missing, empty, install and reload", testFiles},
      {"400 000 rules", testHugeFile},
  };
  return topocoll::test::runTests(tests);
}
