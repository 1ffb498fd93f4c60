#include "topology/json.h"

#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <unordered_set>

namespace topocoll::json {
namespace {

// Duplicate keys of an object: while it is small, each new key is compared with those before
// it; a larger one (a topology's groups hold one key per host) is checked once complete, through
// a hash set sized for it, so that reading stays linear. Either way the first key that repeats
// an earlier one, in file order, is reported.
constexpr size_t kScanKeys = 16;

int repeatedKey(const std::vector<std::string>& keys) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!seen.insert(keys[i]).second) return static_cast<int>(i);
  }
  return -1;
}

class Parser {
 public:
  Parser(const std::string& text, const std::string& source) : text_(text), source_(source) {}

  bool parseDocument(Value* out, std::string* error) {
    error_ = error;
    // A UTF-8 byte order mark is not JSON but editors write it; it carries no meaning.
    if (text_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;
    // A NUL byte is never JSON (nor YAML): name where it is, rather than what it breaks.
    if (size_t nul = text_.find('\0'); nul != std::string::npos) {
      size_t line_start = text_.rfind('\n', nul);
      line_start = line_start == std::string::npos ? 0 : line_start + 1;
      for (size_t i = 0; i < nul; ++i) line_ += text_[i] == '\n';
      return fail("NUL byte (0x00) at column " + std::to_string(nul - line_start + 1) + ": a text file has none; is it binary or damaged?");
    }
    skipSpace();
    if (atEnd()) return fail("the file is empty; expected a JSON value");
    if (!parseValue(out, 0)) return false;
    skipSpace();
    if (!atEnd()) return fail("unexpected " + here() + " after the end of the value");
    return true;
  }

 private:
  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }

  // What is at the current position, for messages.
  std::string here() const {
    if (atEnd()) return "end of file";
    unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c < 0x20 || c >= 0x7f) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
      return buf;
    }
    return std::string("'") + static_cast<char>(c) + "'";
  }

  bool fail(const std::string& what) {
    *error_ = source_ + ":" + std::to_string(line_) + ": not valid JSON: " + what;
    return false;
  }

  void skipSpace() {
    while (!atEnd()) {
      char c = text_[pos_];
      if (c == '\n') {
        line_++;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        return;
      }
      pos_++;
    }
  }

  bool expectLiteral(const char* word) {
    size_t n = std::strlen(word);
    if (text_.compare(pos_, n, word) != 0) return fail("unexpected " + here() + "; expected a value");
    pos_ += n;
    return true;
  }

  bool parseValue(Value* v, int depth) {
    v->line = line_;
    char c = peek();
    switch (c) {
      case '{': return parseObject(v, depth);
      case '[': return parseArray(v, depth);
      case '"': v->type = Value::Type::String; return parseString(&v->string);
      case 't': v->type = Value::Type::Bool; v->boolean = true; return expectLiteral("true");
      case 'f': v->type = Value::Type::Bool; v->boolean = false; return expectLiteral("false");
      case 'n': v->type = Value::Type::Null; return expectLiteral("null");
      case '/': return fail("comments are not JSON");
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return parseNumber(v);
        if (c == '\'') return fail("strings take double quotes");
        return fail("unexpected " + here() + "; expected a value");
    }
  }

  bool enter(int depth) {
    if (depth >= kMaxDepth) return fail("nested more than " + std::to_string(kMaxDepth) + " levels deep");
    return true;
  }

  bool parseObject(Value* v, int depth) {
    if (!enter(depth)) return false;
    v->type = Value::Type::Object;
    pos_++;  // '{'
    skipSpace();
    if (peek() == '}') {
      pos_++;
      return true;
    }
    for (;;) {
      skipSpace();
      if (peek() == '}') return fail("trailing comma before '}'");
      if (peek() != '"') return fail("unexpected " + here() + "; expected a key in double quotes");
      int key_line = line_;
      std::string key;
      if (!parseString(&key)) return false;
      v->keys.push_back(std::move(key));
      v->key_lines.push_back(key_line);
      const std::string& name = v->keys.back();
      // A small object's keys are checked as they come; a larger one's at its closing brace.
      const int last = static_cast<int>(v->keys.size()) - 1;
      if (last < static_cast<int>(kScanKeys) && v->indexOf(name) < last) return duplicate(*v, last);
      skipSpace();
      if (peek() != ':') return fail("unexpected " + here() + "; expected ':' after key \"" + name + "\"");
      pos_++;
      skipSpace();
      Value member;
      if (!parseValue(&member, depth + 1)) return false;
      v->items.push_back(std::move(member));
      skipSpace();
      if (peek() == ',') {
        pos_++;
        continue;
      }
      if (peek() == '}') {
        pos_++;
        int repeated = v->keys.size() > kScanKeys ? repeatedKey(v->keys) : -1;
        return repeated < 0 || duplicate(*v, repeated);
      }
      return fail("unexpected " + here() + "; expected ',' or '}' after the value of \"" + v->keys.back() + "\"");
    }
  }

  bool duplicate(const Value& v, size_t i) {
    line_ = v.key_lines[i];
    return fail("duplicate key \"" + v.keys[i] + "\"");
  }

  bool parseArray(Value* v, int depth) {
    if (!enter(depth)) return false;
    v->type = Value::Type::Array;
    pos_++;  // '['
    skipSpace();
    if (peek() == ']') {
      pos_++;
      return true;
    }
    for (;;) {
      skipSpace();
      if (peek() == ']') return fail("trailing comma before ']'");
      Value item;
      if (!parseValue(&item, depth + 1)) return false;
      v->items.push_back(std::move(item));
      skipSpace();
      if (peek() == ',') {
        pos_++;
        continue;
      }
      if (peek() == ']') {
        pos_++;
        return true;
      }
      return fail("unexpected " + here() + "; expected ',' or ']' in a list");
    }
  }

  bool parseNumber(Value* v) {
    size_t start = pos_;
    auto digits = [&] {
      size_t from = pos_;
      while (!atEnd() && text_[pos_] >= '0' && text_[pos_] <= '9') pos_++;
      return pos_ - from;
    };
    if (peek() == '-') pos_++;
    if (peek() == '0') {
      pos_++;
      if (peek() >= '0' && peek() <= '9') return fail("numbers do not start with 0");
    } else if (digits() == 0) {
      return fail("'-' must be followed by digits");
    }
    bool integral = true;
    if (peek() == '.') {
      pos_++;
      integral = false;
      if (digits() == 0) return fail("a decimal point must be followed by digits");
    }
    if (peek() == 'e' || peek() == 'E') {
      pos_++;
      integral = false;
      if (peek() == '+' || peek() == '-') pos_++;
      if (digits() == 0) return fail("an exponent needs digits");
    }
    double d = 0;
    auto [end, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, d);
    if (ec != std::errc() || end != text_.data() + pos_ || !std::isfinite(d)) {
      return fail("the number " + text_.substr(start, pos_ - start) + " is out of range");
    }
    v->type = Value::Type::Number;
    v->number = d;
    v->integral = integral;
    return true;
  }

  static void appendUtf8(std::string* s, uint32_t cp) {
    if (cp < 0x80) {
      s->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      s->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      s->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      s->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  bool hex4(uint32_t* out) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i, ++pos_) {
      char c = peek();
      v <<= 4;
      if (c >= '0' && c <= '9') v |= c - '0';
      else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
      else return fail("\\u needs four hex digits");
    }
    *out = v;
    return true;
  }

  // One UTF-8 sequence starting at pos_ (lead byte >= 0x80), copied to *s when well formed.
  bool copyUtf8(std::string* s) {
    auto byte = [&](size_t i) { return pos_ + i < text_.size() ? static_cast<unsigned char>(text_[pos_ + i]) : 0u; };
    unsigned char c = byte(0);
    int n = c >= 0xF0 && c <= 0xF4 ? 3 : c >= 0xE0 ? 2 : c >= 0xC2 && c < 0xE0 ? 1 : -1;
    if (c >= 0xF5) n = -1;
    if (n < 0) return fail("invalid UTF-8 (byte 0x" + hexByte(c) + ")");
    uint32_t cp = c & (0x3F >> n);
    for (int i = 1; i <= n; ++i) {
      if ((byte(i) & 0xC0) != 0x80) return fail("invalid UTF-8 (truncated sequence)");
      cp = (cp << 6) | (byte(i) & 0x3F);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return fail("invalid UTF-8 (overlong or surrogate)");
    }
    s->append(text_, pos_, n + 1);
    pos_ += n + 1;
    return true;
  }

  static std::string hexByte(unsigned char c) {
    char buf[4];
    std::snprintf(buf, sizeof buf, "%02x", c);
    return buf;
  }

  bool parseString(std::string* s) {
    pos_++;  // opening quote
    for (;;) {
      if (atEnd()) return fail("a string is not closed before the end of the file");
      unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        pos_++;
        return true;
      }
      if (c == '\n') return fail("a string is not closed before the end of the line");
      if (c < 0x20) return fail("control character (byte 0x" + hexByte(c) + ") in a string; write it escaped");
      if (c >= 0x80) {
        if (!copyUtf8(s)) return false;
        continue;
      }
      pos_++;
      if (c != '\\') {
        s->push_back(static_cast<char>(c));
        continue;
      }
      char e = peek();
      pos_++;
      switch (e) {
        case '"': s->push_back('"'); break;
        case '\\': s->push_back('\\'); break;
        case '/': s->push_back('/'); break;
        case 'b': s->push_back('\b'); break;
        case 'f': s->push_back('\f'); break;
        case 'n': s->push_back('\n'); break;
        case 'r': s->push_back('\r'); break;
        case 't': s->push_back('\t'); break;
        case 'u': {
          uint32_t cp = 0;
          if (!hex4(&cp)) return false;
          if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("\\u escape is a lone low surrogate");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low = 0;
            if (text_.compare(pos_, 2, "\\u") != 0) return fail("\\u escape is a high surrogate without its low half");
            pos_ += 2;
            if (!hex4(&low)) return false;
            if (low < 0xDC00 || low > 0xDFFF) return fail("\\u escape is a high surrogate without its low half");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          appendUtf8(s, cp);
          break;
        }
        default:
          pos_--;
          return fail("unknown escape \\ followed by " + here() + " in a string; valid escapes: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX");
      }
    }
  }

  const std::string& text_;
  const std::string& source_;
  size_t pos_ = 0;
  int line_ = 1;
  std::string* error_ = nullptr;
};

}  // namespace

int Value::indexOf(const std::string& key) const {
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) return static_cast<int>(i);
  }
  return -1;
}

const Value* Value::find(const std::string& key) const {
  int i = indexOf(key);
  return i < 0 ? nullptr : &items[i];
}

const char* describe(Value::Type type) {
  switch (type) {
    case Value::Type::Null: return "null";
    case Value::Type::Bool: return "a boolean";
    case Value::Type::Number: return "a number";
    case Value::Type::String: return "a string";
    case Value::Type::Array: return "a list";
    case Value::Type::Object: return "an object";
  }
  return "a value";
}

bool parse(const std::string& text, const std::string& source, Value* out, std::string* error) {
  Value v;
  if (!Parser(text, source).parseDocument(&v, error)) return false;
  *out = std::move(v);
  return true;
}

void mapLines(Value* v, const LineMap& map) {
  auto mapped = [&](int line) { return line >= 1 && static_cast<size_t>(line) <= map.size() ? map[line - 1] : 0; };
  v->line = mapped(v->line);
  for (int& line : v->key_lines) line = mapped(line);
  for (Value& item : v->items) mapLines(&item, map);
}

bool mayBeYaml(const std::string& text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] != '{' && text[first] != '[' && text.find('\0') == std::string::npos;
}

bool readFile(const std::string& path, const char* what, std::string* text, std::string* error) {
  // A directory opens as a stream that reads nothing: it would pass for an empty file.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    *error = path + ": is a directory, not a " + what;
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = path + ": cannot read the " + what + " (" + std::strerror(errno) + ")";
    return false;
  }
  std::stringstream buf;
  buf << in.rdbuf();
  *text = buf.str();
  return true;
}

}  // namespace topocoll::json
