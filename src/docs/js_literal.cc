// The data of a JavaScript or TypeScript module, read as tokens without running
// anything.
#include <cctype>

#include "docs/internal.h"

namespace docwright::docs {
namespace {

// The data of a JavaScript or TypeScript module that exports an object literal
// (sidebars.js), read without running anything: the first object assigned or
// exported, with every expression that is not a literal (require(...), a
// variable, a function) read as null.
class JsLiteralReader {
 public:
  explicit JsLiteralReader(std::string_view source) { Tokenize(source); }

  std::optional<Json> Read() {
    for (size_t i = 0; i + 1 < tokens_.size(); ++i) {
      const Token& t = tokens_[i];
      bool introduces = (t.kind == Kind::kPunct && t.text == "=") ||
                        (t.kind == Kind::kWord && t.text == "default");
      if (introduces && IsPunct(i + 1, "{")) {
        pos_ = i + 1;
        return Value(0);
      }
    }
    return std::nullopt;
  }

 private:
  enum class Kind { kString, kWord, kPunct };
  struct Token {
    Kind kind;
    std::string text;
    bool literal = true;  // false: a template string with ${...}
  };

  void Tokenize(std::string_view s) {
    size_t i = 0;
    const size_t n = s.size();
    while (i < n) {
      char c = s[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
        size_t nl = s.find('\n', i);
        i = nl == std::string_view::npos ? n : nl;
      } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
        size_t end = s.find("*/", i + 2);
        i = end == std::string_view::npos ? n : end + 2;
      } else if (c == '"' || c == '\'' || c == '`') {
        Token t{Kind::kString, "", true};
        size_t j = i + 1;
        while (j < n && s[j] != c) {
          if (s[j] == '\\' && j + 1 < n) {
            char e = s[j + 1];
            t.text += e == 'n' ? '\n' : e == 't' ? '\t' : e;
            j += 2;
            continue;
          }
          if (c == '`' && s[j] == '$' && j + 1 < n && s[j + 1] == '{') t.literal = false;
          t.text += s[j++];
        }
        i = j + 1;
        tokens_.push_back(std::move(t));
      } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$') {
        size_t j = i;
        while (j < n &&
               (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' || s[j] == '$')) {
          ++j;
        }
        tokens_.push_back(Token{Kind::kWord, std::string(s.substr(i, j - i))});
        i = j;
      } else if (s.substr(i, 3) == "...") {
        tokens_.push_back(Token{Kind::kPunct, "..."});
        i += 3;
      } else {
        tokens_.push_back(Token{Kind::kPunct, std::string(1, c)});
        ++i;
      }
    }
  }

  bool IsPunct(size_t i, std::string_view text) const {
    return i < tokens_.size() && tokens_[i].kind == Kind::kPunct && tokens_[i].text == text;
  }
  bool At(std::string_view text) const { return IsPunct(pos_, text); }

  // Skips to the end of the current expression: a ',' or a closing bracket at
  // this level, which is not consumed.
  void SkipExpression() {
    int depth = 0;
    for (; pos_ < tokens_.size(); ++pos_) {
      const Token& t = tokens_[pos_];
      if (t.kind != Kind::kPunct) continue;
      if (t.text == "(" || t.text == "[" || t.text == "{") {
        ++depth;
      } else if (t.text == ")" || t.text == "]" || t.text == "}") {
        if (depth == 0) return;
        --depth;
      } else if (t.text == "," && depth == 0) {
        return;
      }
    }
  }

  // Skips the rest of an element of a container that ends with `closer`: moves
  // forward unless at a ',' or at `closer`.
  void SkipRest(std::string_view closer) {
    size_t before = pos_;
    SkipExpression();
    if (pos_ == before && pos_ < tokens_.size() && !At(",") && !At(closer)) ++pos_;
  }

  Json Value(int depth) {
    if (pos_ >= tokens_.size()) return nullptr;
    if (depth > kMaxDepth) {
      SkipExpression();
      return nullptr;
    }
    const Token& t = tokens_[pos_];
    if (t.kind == Kind::kPunct && t.text == "{") return Object(depth);
    if (t.kind == Kind::kPunct && t.text == "[") return Array(depth);
    if (t.kind == Kind::kPunct && t.text == "(") return Parenthesised(depth);
    if (t.kind == Kind::kString) {
      ++pos_;
      return t.literal ? Json(t.text) : Json(nullptr);
    }
    if (t.kind == Kind::kWord && (t.text == "true" || t.text == "false")) {
      ++pos_;
      return t.text == "true";
    }
    SkipExpression();
    return nullptr;
  }

  // "({...})", as Docusaurus's template writes its options (with a type comment
  // before). "(a, b) => ..." is a function: null.
  Json Parenthesised(int depth) {
    ++pos_;  // '('
    Json inner = Value(depth + 1);
    for (int open = 0; pos_ < tokens_.size(); ++pos_) {  // the rest, up to its ')'
      const Token& t = tokens_[pos_];
      if (t.kind != Kind::kPunct) continue;
      if (t.text == "(" || t.text == "[" || t.text == "{") {
        ++open;
      } else if (t.text == ")" || t.text == "]" || t.text == "}") {
        if (open == 0) break;
        --open;
      }
    }
    if (At(")")) ++pos_;
    if (At("=") && IsPunct(pos_ + 1, ">")) {
      SkipExpression();
      return nullptr;
    }
    return inner;
  }

  Json Object(int depth) {
    ++pos_;  // '{'
    Json object = Json::object();
    while (pos_ < tokens_.size()) {
      if (At("}")) {
        ++pos_;
        return object;
      }
      if (At(",")) {
        ++pos_;
        continue;
      }
      if (At("...")) {  // a spread of something defined elsewhere
        ++pos_;
        SkipRest("}");
        continue;
      }
      const Token& t = tokens_[pos_];
      if (t.kind != Kind::kString && t.kind != Kind::kWord) {
        SkipRest("}");  // a computed key, or something this reader does not know
        continue;
      }
      std::string key = t.text;
      ++pos_;
      if (At(":")) {
        ++pos_;
        Json value = Value(depth + 1);
        // Inserting into an ordered object is linear in its size.
        if (object.size() < kMaxObjectKeys) object[key] = std::move(value);
      }
      if (!At(",") && !At("}")) SkipRest("}");  // a method, or `value as const`
    }
    return object;
  }

  Json Array(int depth) {
    ++pos_;  // '['
    Json array = Json::array();
    while (pos_ < tokens_.size()) {
      if (At("]")) {
        ++pos_;
        return array;
      }
      if (At(",")) {
        ++pos_;
        continue;
      }
      if (At("...")) {
        ++pos_;
        SkipRest("]");
        continue;
      }
      size_t before = pos_;
      array.push_back(Value(depth + 1));
      if (!At(",") && !At("]")) SkipRest("]");
      if (pos_ == before) ++pos_;
    }
    return array;
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace

std::optional<Json> ReadJsObject(std::string_view source) { return JsLiteralReader(source).Read(); }

}  // namespace docwright::docs
