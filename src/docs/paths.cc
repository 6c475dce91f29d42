// Path and line helpers of the docs layer.
#include <algorithm>
#include <cctype>

#include "core/text.h"
#include "docs/internal.h"

namespace docwright::docs {

std::string Join(std::string_view dir, std::string_view name) {
  if (dir.empty()) return std::string(name);
  if (name.empty()) return std::string(dir);
  std::string out(dir);
  out += '/';
  out += name;
  return out;
}

std::string Dirname(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? "" : std::string(path.substr(0, slash));
}

std::string_view Basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string Extension(std::string_view path) {
  std::string_view name = Basename(path);
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return "";
  return Lower(name.substr(dot));
}

std::string StripExtension(std::string_view path) {
  std::string ext = Extension(path);
  return std::string(path.substr(0, path.size() - ext.size()));
}

bool IsPageFile(std::string_view path) {
  std::string ext = Extension(path);
  return ext == ".md" || ext == ".mdx";
}

bool IsUnder(std::string_view path, std::string_view root) {
  if (root.empty()) return true;
  return path.size() > root.size() && path.starts_with(root) && path[root.size()] == '/';
}

std::string RelativeTo(std::string_view path, std::string_view root) {
  return std::string(root.empty() ? path : path.substr(root.size() + 1));
}

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

std::optional<std::string> Normalize(std::string_view path) {
  std::vector<std::string_view> out;
  for (std::string_view part : SplitPath(path)) {
    if (part == ".") continue;
    if (part == "..") {
      if (out.empty()) return std::nullopt;
      out.pop_back();
      continue;
    }
    out.push_back(part);
  }
  std::string joined;
  for (std::string_view part : out) {
    if (!joined.empty()) joined += '/';
    joined += part;
  }
  return joined;
}

bool InIgnoredFolder(std::string_view path, std::string_view root) {
  std::string rel = RelativeTo(path, root);
  std::vector<std::string_view> parts = SplitPath(rel);
  if (!parts.empty()) parts.pop_back();
  for (std::string_view part : parts) {
    if (part.empty() || part[0] == '.' || part == "node_modules") return true;
  }
  return false;
}

std::string StripNumberPrefixes(std::string_view id) {
  std::string out;
  for (std::string_view part : SplitPath(id)) {
    size_t digits = 0;
    while (digits < part.size() && std::isdigit(static_cast<unsigned char>(part[digits]))) {
      ++digits;
    }
    if (digits > 0 && digits + 1 < part.size() &&
        (part[digits] == '-' || part[digits] == '_' || part[digits] == '.' ||
         part[digits] == ' ')) {
      part.remove_prefix(digits + 1);
    }
    if (!out.empty()) out += '/';
    out += part;
  }
  return out;
}

std::string_view Trim(std::string_view s) { return docwright::Trim(s, " \t\n\v\f\r"); }

std::string_view LineFrom(std::string_view text, size_t pos, size_t* next) {
  size_t nl = text.find('\n', pos);
  size_t end = nl == std::string_view::npos ? text.size() : nl;
  *next = nl == std::string_view::npos ? text.size() : nl + 1;
  std::string_view line = text.substr(pos, end - pos);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

int LineOfOffset(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n'));
}

std::string CleanLine(std::string_view s, size_t max_bytes) {
  std::string out;
  for (char c : Trim(s)) {
    out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  if (out.size() > max_bytes) out = std::string(CutUtf8(out, max_bytes)) + "...";
  return out;
}

std::string Shorten(std::string_view message) { return CleanLine(message, kMaxMessageDetail); }

bool DirExists(const git::Workspace& files, const Changes& changes, const std::string& dir) {
  if (dir.empty()) return true;
  if (files.base().KindAt(dir) == git::EntryKind::kDirectory) return true;
  std::string prefix = dir + "/";
  for (auto it = changes.lower_bound(prefix); it != changes.end() && it->first.starts_with(prefix);
       ++it) {
    if (it->second.kind != git::Change::Kind::kDelete) return true;
  }
  return false;
}

std::string Name(std::string_view name) { return std::string(CutUtf8(name, kMaxNameBytes)); }

Json ParseJson(std::string_view text) {
  std::vector<size_t> keys;  // per open object, innermost last
  Json::parser_callback_t keep = [&keys](int, Json::parse_event_t event, Json&) {
    switch (event) {
      case Json::parse_event_t::object_start:
        keys.push_back(0);
        return true;
      case Json::parse_event_t::object_end:
        if (!keys.empty()) keys.pop_back();
        return true;
      case Json::parse_event_t::key:
        return keys.empty() || ++keys.back() <= kMaxObjectKeys;
      default:
        return true;
    }
  };
  return Json::parse(text, keep, /*allow_exceptions=*/false);
}

std::optional<std::string> ReadText(const git::Workspace& files, const std::string& path) {
  auto content = files.Read(path);
  if (!content.ok() || content->binary) return std::nullopt;
  return std::move(content.value().text);
}

}  // namespace docwright::docs
