// Tuning rules from a file (TOPOCOLL_RULES, written by `topocoll tune`): between a forced
// algorithm and the built-in defaults in the selection order. The first matching rule wins; a
// rule whose algorithm cannot run here (no builder, shared memory off) is skipped, as the
// defaults' are.
//
// The file is JSON, version 1 (schemas/rules.schema.json):
//   {"version": 1, "created": "...", "machine": {...}, "job": {...},
//    "rules": [{"collective": "allgather", "algorithm": "bruck", "basis": "block",
//               "minBytes": 0, "maxBytes": 1024, "minRanks": 2, "maxRanks": 2, "why": "..."}]}
// Byte bounds are [minBytes, maxBytes) in bytes of `basis` ("block": one rank's block, "total":
// what a rank receives in all); a rule with byte bounds must state its basis. The conditions of
// the built-in defaults (powerOfTwo, multiNode, mpi) and the communicator's placement: minNodes,
// maxNodes (the nodes, shared-memory or virtual, it spans) and minRanksPerNode, maxRanksPerNode
// (its ranks over its nodes, rounded up: the most on a node when they are spread evenly), all
// inclusive. "native:<name>" is the system MPI's own algorithm <name> (a rule with `mpi`): the
// engine hands the call to the MPI, which runs it where its own tuning says so (`topocoll tune
// --export`).
//
// Two ways in, as for topology files: a preloaded C/Fortran program reads the file at init
// (JSON only); a Node program's TypeScript converts YAML to JSON with a line map and installs it
// (this reader checks it, naming the YAML's lines), so the engine does not read the file again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config.h"

namespace topocoll::rules {

struct Rule {
  Collective collective = Collective::Allgather;
  int algorithm = kAlgorithmNative;  // registry index or kAlgorithmNative
  generated::SizeBasis basis = generated::SizeBasis::Total;
  int64_t min_bytes = -1, max_bytes = -1;  // [min, max); -1 = unbounded
  int min_ranks = -1, max_ranks = -1;      // inclusive; -1 = unbounded
  int power_of_two = -1;                   // 1: only powers of two, 0: only others, -1: any
  int multi_node = -1;                     // 1: only over several nodes with several ranks on a node, 0: only others
  int min_nodes = -1, max_nodes = -1;      // inclusive; -1 = unbounded
  int min_ranks_per_node = -1, max_ranks_per_node = -1;
  int nonblocking = -1;                    // 1: only nonblocking calls (MPI_I…), 0: only blocking ones
  std::string mpi;                         // only under this MPI ("openmpi", "mpich"); empty: any
  std::string why;
  int line = 0;        // in the file the user wrote
  std::string reason;  // "rules file <path>:<line>: <why>", built once: selection runs on every call
};

struct RuleSet {
  std::string source;  // the file's path
  std::vector<Rule> rules;
  // Per collective: whether a rule looks at the placement (the caller then counts the nodes).
  bool needs_nodes[generated::kCollectiveCount] = {};
};

// Parses a rules file's JSON text. On error returns false with *error = "<source>:<line>: <key>: <what>".
// `lines`, when given, is the json::LineMap of a text converted from YAML: lines are the YAML's.
bool parse(const std::string& text, const std::string& source, RuleSet* out, std::string* error,
           const std::vector<int>* lines = nullptr);

// Installs rules given as JSON by the Node side (with the line map of a YAML file, or null).
// Later loads of the same `source` keep them.
bool install(const std::string& json_text, const std::string& source, const std::vector<int>* lines, std::string* error);

// TOPOCOLL_RULES's value: empty = no rules; a path already installed keeps its rules; otherwise
// the file is read and parsed. False with *error on an unreadable or malformed file.
bool loadFromEnvironment(const std::string& path, std::string* error);

// The rules in force, or null.
const RuleSet* current();

// The first rule of `set` that matches the call and can run here; false when none does. nodes:
// the nodes the communicator spans (1 when unknown); nonblocking: the call's form; mpi: the MPI
// this build runs on.
bool select(const RuleSet& set, Collective coll, int p, int64_t block_bytes, int64_t total_bytes, int nodes, bool nonblocking,
            const char* mpi, const Config& cfg, int* algorithm, const char** reason);

}  // namespace topocoll::rules
