// YAML helpers. yaml-cpp builds aliases as shared nodes, so a tree is no larger
// than its text; only a walk that follows aliases can blow up, and the walks of
// this layer spend from a Budget for each node they visit.
#include <yaml-cpp/eventhandler.h>

#include <sstream>

#include "docs/internal.h"

namespace docwright::docs {
namespace {

// Parses YAML without building nodes; remembers where the last document began.
class YamlDocumentStarts final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  YAML::Mark start = YAML::Mark::null_mark();
};

// Remembers the kind of the first node of the first document.
class FirstNode final : public YAML::EventHandler {
 public:
  enum class Kind { kNone, kNull, kScalar, kSequence, kMap };
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override { Saw(Kind::kNull); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { Saw(Kind::kScalar); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {
    Saw(Kind::kScalar);
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    Saw(Kind::kSequence);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    Saw(Kind::kMap);
  }
  void OnMapEnd() override {}

  Kind kind = Kind::kNone;

 private:
  void Saw(Kind k) {
    if (kind == Kind::kNone) kind = k;
  }
};

}  // namespace

bool YamlRootIsMap(std::string_view text) {
  std::istringstream in{std::string(text)};
  try {
    YAML::Parser parser(in);
    FirstNode first;
    parser.HandleNextDocument(first);
    return first.kind != FirstNode::Kind::kScalar && first.kind != FirstNode::Kind::kSequence;
  } catch (const YAML::Exception&) {
    return true;  // not YAML at all: FindYamlError says so
  }
}

std::optional<YAML::Node> ParseYaml(std::string_view yaml) {
  // A tree costs a few hundred bytes a node, and a node can be two bytes.
  if (yaml.size() > kMaxYamlTreeBytes) return std::nullopt;
  try {
    return YAML::Load(std::string(yaml));
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}

std::string YamlString(const YAML::Node& map, const char* key) {
  try {
    if (!map.IsMap()) return "";
    const YAML::Node value = map[key];
    if (value && value.IsScalar()) return value.Scalar();
  } catch (const YAML::Exception&) {
  }
  return "";
}

std::optional<bool> YamlBool(std::string_view value) {
  for (std::string_view yes : {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"}) {
    if (value == yes) return true;
  }
  for (std::string_view no : {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"}) {
    if (value == no) return false;
  }
  return std::nullopt;
}

// The value of a top-level `title: ...` line when it is a plain or simply quoted
// scalar, without a YAML parse: titles are read for every page of a map, and most
// are that simple. nullopt when the line needs the parser (or is absent).
std::optional<std::string> SimpleTitle(std::string_view yaml) {
  for (size_t pos = 0; pos < yaml.size();) {
    size_t end = yaml.find('\n', pos);
    std::string_view line = yaml.substr(pos, end == std::string_view::npos ? end : end - pos);
    pos = end == std::string_view::npos ? yaml.size() : end + 1;
    if (!line.starts_with("title:")) continue;
    std::string_view value = Trim(line.substr(6));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      std::string_view inner = value.substr(1, value.size() - 2);
      if (inner.find(value.front()) != std::string_view::npos ||
          inner.find('\\') != std::string_view::npos) {
        return std::nullopt;  // escapes: the parser knows them
      }
      return std::string(inner);
    }
    if (value.empty() ||
        std::string_view("[{|>&*!%@`#\"'").find(value.front()) != std::string_view::npos ||
        value.find(": ") != std::string_view::npos || value.find(" #") != std::string_view::npos) {
      return std::nullopt;
    }
    return std::string(value);
  }
  return std::nullopt;
}

std::optional<YamlError> FindYamlError(std::string_view text, size_t max_documents) {
  std::istringstream in{std::string(text)};
  try {
    // Not YAML::LoadAll: on some malformed input (", ]") yaml-cpp 0.7 returns
    // the same document forever. A document that starts where the previous one
    // did is that case.
    YAML::Parser parser(in);
    YamlDocumentStarts handler;
    std::optional<int> previous;
    for (size_t documents = 0; parser.HandleNextDocument(handler); ++documents) {
      if (previous == handler.start.pos) {
        return YamlError{0, "there is text the parser cannot read (a stray ] or }?)"};
      }
      if (documents >= max_documents) {
        return YamlError{handler.start.line + 1,
                         "more than " + std::to_string(max_documents) + " documents"};
      }
      previous = handler.start.pos;
    }
  } catch (const YAML::ParserException& e) {
    return YamlError{e.mark.line >= 0 ? e.mark.line + 1 : 0, Shorten(e.msg)};
  } catch (const YAML::Exception& e) {
    return YamlError{0, Shorten(e.msg)};
  }
  return std::nullopt;
}

}  // namespace docwright::docs
