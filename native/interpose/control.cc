// A small C API for programs and tools that know about topocoll. They find it with
// dlsym(RTLD_DEFAULT, "topocoll_..."), so the same program still runs without the library.
//
//   int topocoll_algorithms(const char* collective, char* buf, int size)
//       The algorithms of `collective` ("allgather", ...) that this build can run, as a
//       comma-separated list in registry order, written like snprintf; returns the length of the
//       whole list, or -1 for an unknown collective.
//   int topocoll_force_algorithm(const char* collective, const char* algorithm)
//       From the next call on, runs `collective` with `algorithm` ("native" or a name), ahead of
//       TOPOCOLL_<COLL>_ALGORITHM and the rules (the engine's run-time override, which the
//       benchmarks use too); "auto" removes the override. Every rank must make the same change
//       between the same collectives (the choice must agree across a communicator). Returns 0,
//       or -1 with one message on stderr naming the valid choices.
//
// The conformance tests use them to run every algorithm of the build in one job.
#include <mpi.h>

#include <cstdio>
#include <string>

#include "algorithm_registry.h"
#include "config.h"
#include "override.h"

using namespace topocoll;

extern "C" {

__attribute__((visibility("default"))) int topocoll_algorithms(const char* collective, char* buf, int size) {
  Collective coll;
  if (!collective || !collectiveByName(collective, &coll)) return -1;
  std::string list;
  const auto& entry = collectiveEntry(coll);
  for (int i = 0; i < entry.algorithm_count; ++i) {
    if (!findBuilder(coll, i)) continue;
    if (!list.empty()) list += ',';
    list += entry.algorithms[i];
  }
  if (buf && size > 0) std::snprintf(buf, static_cast<size_t>(size), "%s", list.c_str());
  return static_cast<int>(list.size());
}

__attribute__((visibility("default"))) int topocoll_force_algorithm(const char* collective, const char* algorithm) {
  Collective coll;
  if (!collective || !collectiveByName(collective, &coll)) {
    std::fprintf(stderr, "topocoll_force_algorithm: unknown collective \"%s\"; valid choices: %s\n", collective ? collective : "(null)",
                 collectiveNames().c_str());
    return -1;
  }
  int value = kAlgorithmAuto;
  std::string error;
  if (!algorithm || !parseAlgorithmChoice(coll, algorithm, &value, &error)) {
    std::fprintf(stderr, "topocoll_force_algorithm: %s\n", algorithm ? error.c_str() : "no algorithm given");
    return -1;
  }
  override_algorithm::setForced(coll, value);
  return 0;
}

}  // extern "C"
