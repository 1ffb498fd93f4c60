// The standalone native tests' checks and runner (test/native/*_test.cc): CHECK records a failure
// and goes on, runTests prints one line per test and "N passed, M failed".
#pragma once

#include <cstdio>
#include <exception>

namespace topocoll::test {

inline int g_failed_checks = 0;

#define CHECK(cond, ...)                                                                    \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      ++::topocoll::test::g_failed_checks;                                                  \
      std::fprintf(stderr, "    FAILED %s:%d: %s\n      ", __FILE__, __LINE__, #cond);        \
      std::fprintf(stderr, __VA_ARGS__);                                                    \
      std::fprintf(stderr, "\n");                                                           \
    }                                                                                       \
  } while (0)

struct Test {
  const char* name;
  void (*run)();
};

// Runs every test; the exit status of main.
template <size_t N>
int runTests(const Test (&tests)[N]) {
  int passed = 0, failed = 0;
  for (const Test& t : tests) {
    const int before = g_failed_checks;
    bool threw = false;
    try {
      t.run();
    } catch (const std::exception& e) {
      threw = true;
      std::fprintf(stderr, "    unexpected exception: %s\n", e.what());
    }
    const bool ok = !threw && g_failed_checks == before;
    std::printf("%s  %s\n", ok ? "ok  " : "FAIL", t.name);
    (ok ? passed : failed)++;
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace topocoll::test
