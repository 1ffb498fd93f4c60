// A small strict JSON reader (RFC 8259) for the files the engine reads at MPI_Init, where no
// Node is around (the preload path): recursive descent, every value and key carries its line,
// errors name the file and line. Strict means: no comments, no trailing commas, no duplicate
// keys, no NaN/Infinity, valid UTF-8, nesting at most kMaxDepth deep.
#pragma once

#include <string>
#include <vector>

namespace topocoll::json {

inline constexpr int kMaxDepth = 64;

struct Value {
  enum class Type { Null, Bool, Number, String, Array, Object };
  Type type = Type::Null;
  int line = 0;              // where the value starts
  bool boolean = false;
  double number = 0;
  bool integral = false;     // a number written without fraction or exponent
  std::string string;
  std::vector<Value> items;  // Array elements; Object member values, in file order
  std::vector<std::string> keys;  // Object: keys[i] names items[i]; keys are unique
  std::vector<int> key_lines;     // Object: the line of keys[i]

  // The index of the member named `key`, or -1. A linear scan: for objects whose keys were
  // checked against a short list; walk keys/items for maps of any size (a topology's groups).
  int indexOf(const std::string& key) const;
  // The member named `key`, or null (linear, as indexOf).
  const Value* find(const std::string& key) const;
};

// "null", "a boolean", "a number", "a string", "a list", "an object": for messages.
const char* describe(Value::Type type);

// Parses the whole of `text` as one JSON value, in time linear in its size. On error returns
// false and sets *error to "<source>:<line>: not valid JSON: <what>".
bool parse(const std::string& text, const std::string& source, Value* out, std::string* error);

// The lines of the file a JSON text was made from: the Node side converts YAML to JSON with one
// value or key per line and says, for JSON line i + 1, the file's line map[i] (0: unknown). The
// readers then name the file's lines in their messages, not the JSON's.
using LineMap = std::vector<int>;

// Rewrites the lines of `v`, its keys and everything inside it through `map`; a line the map does
// not cover becomes 0 (unknown), which messages leave out.
void mapLines(Value* v, const LineMap& map);

// Whether text that failed to parse may be YAML (which only the Node side reads): it does not
// start like JSON and holds no NUL byte (a binary or damaged file is neither).
bool mayBeYaml(const std::string& text);

// Reads the whole of a file the engine is given (`what`: "topology file", "rules file"). False
// with *error = "<path>: cannot read the <what> (<reason>)", or "<path>: is a directory, not a <what>".
bool readFile(const std::string& path, const char* what, std::string* text, std::string* error);

}  // namespace topocoll::json
