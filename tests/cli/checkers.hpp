#pragma once
// Small validators for the tests: a JSON parser (RFC 8259, recursive descent)
// and an XML well-formedness check (tags balanced, attributes quoted,
// entities known), so the tests need nothing outside the build.
#include <cctype>
#include <cstring>
#include <string>
#include <vector>

namespace locksim::test {

class JsonChecker {
 public:
  explicit JsonChecker(const std::string& s) : s_(s) {}
  // True if the whole text is exactly one JSON value; error() says where it failed.
  bool valid() {
    ws();
    if (!value(0)) return false;
    ws();
    if (i_ != s_.size()) return fail("trailing text");
    return true;
  }
  const std::string& error() const { return error_; }

 private:
  bool fail(const char* why) {
    if (error_.empty()) error_ = std::string(why) + " at offset " + std::to_string(i_);
    return false;
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool lit(const char* w) {
    size_t n = std::strlen(w);
    if (s_.compare(i_, n, w) != 0) return fail("bad literal");
    i_ += n;
    return true;
  }
  bool value(int depth) {
    if (depth > 200) return fail("too deep");
    if (i_ >= s_.size()) return fail("unexpected end");
    char c = s_[i_];
    if (c == '{') return object(depth);
    if (c == '[') return array(depth);
    if (c == '"') return string();
    if (c == 't') return lit("true");
    if (c == 'f') return lit("false");
    if (c == 'n') return lit("null");
    return number();
  }
  bool object(int depth) {
    ++i_;
    ws();
    if (i_ < s_.size() && s_[i_] == '}') {
      ++i_;
      return true;
    }
    for (;;) {
      ws();
      if (i_ >= s_.size() || s_[i_] != '"') return fail("expected a key");
      if (!string()) return false;
      ws();
      if (i_ >= s_.size() || s_[i_] != ':') return fail("expected ':'");
      ++i_;
      ws();
      if (!value(depth + 1)) return false;
      ws();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == '}') {
        ++i_;
        return true;
      }
      return fail("expected ',' or '}'");
    }
  }
  bool array(int depth) {
    ++i_;
    ws();
    if (i_ < s_.size() && s_[i_] == ']') {
      ++i_;
      return true;
    }
    for (;;) {
      ws();
      if (!value(depth + 1)) return false;
      ws();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == ']') {
        ++i_;
        return true;
      }
      return fail("expected ',' or ']'");
    }
  }
  bool string() {
    ++i_;
    while (i_ < s_.size()) {
      unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c < 0x20) return fail("control character in string");
      if (c == '\\') {
        ++i_;
        if (i_ >= s_.size()) return fail("unexpected end in escape");
        char e = s_[i_];
        if (e == 'u') {
          for (int k = 1; k <= 4; ++k)
            if (i_ + k >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_ + k])))
              return fail("bad \\u escape");
          i_ += 4;
        } else if (!std::strchr("\"\\/bfnrt", e)) {
          return fail("bad escape");
        }
      }
      ++i_;
    }
    return fail("unterminated string");
  }
  bool number() {
    size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) return fail("expected a value");
    if (s_[i_] == '0')
      ++i_;
    else
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) return fail("digit expected after '.'");
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_])))
        return fail("digit expected in exponent");
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    return i_ > start;
  }
  std::string s_;
  size_t i_ = 0;
  std::string error_;
};

// Well-formed XML: one root element, every tag closed in order, attributes
// quoted, no raw '<' or stray '&' in text. Returns "" or the first problem.
inline std::string xml_problem(const std::string& s) {
  std::vector<std::string> open;
  size_t i = 0;
  int roots = 0;
  auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' || c == '.';
  };
  auto check_text = [&](size_t from, size_t to) -> std::string {
    for (size_t k = from; k < to; ++k)
      if (s[k] == '&') {
        size_t semi = s.find(';', k);
        if (semi == std::string::npos || semi > to) return "stray '&' at " + std::to_string(k);
        std::string ent = s.substr(k + 1, semi - k - 1);
        if (!(ent == "amp" || ent == "lt" || ent == "gt" || ent == "quot" || ent == "apos" ||
              (!ent.empty() && ent[0] == '#')))
          return "unknown entity &" + ent + "; at " + std::to_string(k);
      }
    return "";
  };
  while (i < s.size()) {
    size_t lt = s.find('<', i);
    std::string text_problem = check_text(i, lt == std::string::npos ? s.size() : lt);
    if (!text_problem.empty()) return text_problem;
    if (lt == std::string::npos) break;
    if (s.compare(lt, 5, "<?xml") == 0) {
      size_t end = s.find("?>", lt);
      if (end == std::string::npos) return "unterminated declaration";
      i = end + 2;
      continue;
    }
    if (s.compare(lt, 4, "<!--") == 0) {
      size_t end = s.find("-->", lt);
      if (end == std::string::npos) return "unterminated comment";
      i = end + 3;
      continue;
    }
    size_t k = lt + 1;
    bool closing = k < s.size() && s[k] == '/';
    if (closing) ++k;
    size_t name_start = k;
    while (k < s.size() && name_char(s[k])) ++k;
    std::string name = s.substr(name_start, k - name_start);
    if (name.empty()) return "empty tag name at " + std::to_string(lt);
    if (closing) {
      while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
      if (k >= s.size() || s[k] != '>') return "bad closing tag at " + std::to_string(lt);
      if (open.empty() || open.back() != name)
        return "</" + name + "> does not close the open element at " + std::to_string(lt);
      open.pop_back();
      i = k + 1;
      continue;
    }
    // attributes
    for (;;) {
      while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
      if (k >= s.size()) return "unterminated tag <" + name;
      if (s[k] == '>' || (s[k] == '/' && k + 1 < s.size() && s[k + 1] == '>')) break;
      size_t an = k;
      while (k < s.size() && name_char(s[k])) ++k;
      if (k == an) return "bad attribute in <" + name + "> at " + std::to_string(k);
      if (k >= s.size() || s[k] != '=') return "attribute without value in <" + name + ">";
      ++k;
      if (k >= s.size() || (s[k] != '"' && s[k] != '\'')) return "unquoted attribute in <" + name + ">";
      char q = s[k];
      size_t end = s.find(q, k + 1);
      if (end == std::string::npos) return "unterminated attribute in <" + name + ">";
      if (s.substr(k + 1, end - k - 1).find('<') != std::string::npos) return "'<' in attribute of <" + name + ">";
      std::string p = check_text(k + 1, end);
      if (!p.empty()) return p;
      k = end + 1;
    }
    bool self_closing = s[k] == '/';
    if (open.empty()) ++roots;
    if (roots > 1) return "more than one root element";
    if (!self_closing) open.push_back(name);
    i = k + (self_closing ? 2 : 1);
  }
  if (!open.empty()) return "<" + open.back() + "> is never closed";
  if (roots != 1) return "no root element";
  return "";
}

}  // namespace locksim::test
