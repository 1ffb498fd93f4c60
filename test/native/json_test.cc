// Standalone tests of the engine's JSON reader (native/engine/topology/json.cc), the one the
// preload runs at MPI_Init: duplicate keys found in objects of any size (the first repeat in file
// order, with its line), NUL bytes named with line and column, what may be YAML, directories.
// Build and run: test/native/build.sh
#include <cstdio>
#include <string>

#include "check.h"
#include "topology/json.h"

using namespace topocoll;
using topocoll::test::Test;

namespace {

// The error of parsing `text`, or "" when it parses.
std::string errorOf(const std::string& text) {
  json::Value v;
  std::string error;
  return json::parse(text, "t.json", &v, &error) ? "" : error;
}

// An object of n keys "k0".."k<n-1>", one per line from line 2; `dup` (if >= 0) renames key i
// to the name of key dup.
std::string object(int n, int i = -1, int dup = -1) {
  std::string s = "{\n";
  for (int k = 0; k < n; ++k) s += std::string(k ? ",\n" : "") + "\"k" + std::to_string(k == i ? dup : k) + "\": " + std::to_string(k);
  return s + "\n}\n";
}

void testDuplicateKeys() {
  CHECK(errorOf(object(10)).empty(), "%s", errorOf(object(10)).c_str());
  CHECK(errorOf(object(10, 7, 2)) == "t.json:9: not valid JSON: duplicate key \"k2\"", "%s", errorOf(object(10, 7, 2)).c_str());
  // Past the scanned size: the same message, the first repeat in file order.
  std::string big = object(200000, 150000, 3);
  big.replace(big.find("\"k180000\""), 9, "\"k100\"");
  CHECK(errorOf(big) == "t.json:150002: not valid JSON: duplicate key \"k3\"", "%s", errorOf(big).c_str());
  CHECK(errorOf(object(200000)).empty(), "%s", errorOf(object(200000)).c_str());
  // A repeat among the first keys of a large object is found as it comes.
  std::string early = object(100, 5, 1);
  CHECK(errorOf(early) == "t.json:7: not valid JSON: duplicate key \"k1\"", "%s", errorOf(early).c_str());
}

void testLookupAfterParse() {
  json::Value v;
  std::string error;
  CHECK(json::parse(object(50000), "t.json", &v, &error), "%s", error.c_str());
  CHECK(v.keys.size() == 50000 && v.items[49999].number == 49999 && v.key_lines[49999] == 50001, "keys %zu", v.keys.size());
  CHECK(v.find("k17") && v.find("k17")->number == 17 && !v.find("k50000"), "find");
}

void testNulBytes() {
  std::string text = "{\n  \"a\": \"x";
  text += '\0';
  text += "\"\n}\n";
  CHECK(errorOf(text) == "t.json:2: not valid JSON: NUL byte (0x00) at column 10: a text file has none; is it binary or damaged?", "%s",
        errorOf(text).c_str());
  CHECK(!json::mayBeYaml(std::string(8, '\0')), "a file of zeros is not YAML");
  CHECK(json::mayBeYaml("levels:\n  - name: a\n"), "YAML");
  CHECK(!json::mayBeYaml("  {\"levels\": 1"), "JSON-like");
}

void testReadFile() {
  std::string text, error;
  CHECK(!json::readFile("/tmp", "topology file", &text, &error) && error == "/tmp: is a directory, not a topology file", "%s", error.c_str());
  CHECK(!json::readFile("/nonexistent/x.json", "rules file", &text, &error) &&
            error == "/nonexistent/x.json: cannot read the rules file (No such file or directory)",
        "%s", error.c_str());
}

// A line map (JSON line i + 1 -> the YAML's map[i]) moves every value's and key's line; what it
// does not cover becomes 0.
void testLineMap() {
  json::Value v;
  std::string error;
  CHECK(json::parse("{\n\"a\": [\n1,\n2\n],\n\"b\": {}\n}\n", "t.json", &v, &error), "%s", error.c_str());
  json::mapLines(&v, {10, 11, 12, 14});
  const json::Value* a = v.find("a");
  CHECK(v.line == 10 && v.key_lines[0] == 11 && a->line == 11 && a->items[0].line == 12 && a->items[1].line == 14, "mapped");
  CHECK(v.key_lines[1] == 0 && v.find("b")->line == 0, "beyond the map: 0, not the JSON's line");
}

}  // namespace

int main() {
  const Test tests[] = {
      {"duplicate keys, small and large objects", testDuplicateKeys},
      {"a large object reads whole, find still works", testLookupAfterParse},
      {"NUL bytes, what may be YAML", testNulBytes},
      {"readFile: directories, missing files", testReadFile},
      {"line maps", testLineMap},
  };
  return topocoll::test::runTests(tests);
}
