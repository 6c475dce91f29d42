// The corpus of tests/data/sites/ for the docs tests: a site's files read from
// disk, and the edit cases of its manifest (<site>.json) applied to a workspace
// as tools/docs-oracle/run.py applies them to a copy of the site.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "git/git.h"
#include "support/docs_site.h"

namespace docwright::testing {

inline const std::string kCorpusSites = std::string(DOCWRIGHT_SITES);

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Every file of the site, by path relative to its folder.
inline Files SiteFiles(const std::string& name) {
  Files files;
  std::filesystem::path root = kCorpusSites + "/" + name;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    files[std::filesystem::relative(entry.path(), root).generic_string()] = ReadFile(entry.path());
  }
  return files;
}

// The 1-based line `needle` is first on, -1 when it is not in `text`.
inline int LineOf(const std::string& text, const std::string& needle) {
  size_t at = text.find(needle);
  if (at == std::string::npos) return -1;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
}

// The manifest's "append" case: a sentence appended to each listed page.
inline void ApplyAppend(const nlohmann::json& manifest, git::Workspace& work) {
  for (const auto& path : manifest["append"]) {
    std::string text = work.Read(path)->text;
    ASSERT_TRUE(work.Write(path, text + "\nOne more sentence for the readers.\n").ok()) << path;
  }
}

// The manifest's "add" case: a new page and, when given, its navigation entry.
inline void ApplyAdd(const nlohmann::json& manifest, git::Workspace& work) {
  const nlohmann::json& add = manifest["add"];
  ASSERT_TRUE(work.Write(add["path"], add["content"]).ok());
  if (!add["nav_file"].is_string()) return;
  std::string nav = work.Read(add["nav_file"])->text;
  std::string after = add["nav_after"];
  size_t at = nav.find(after);
  ASSERT_NE(at, std::string::npos) << after;
  nav.insert(at + after.size(), add["nav_insert"].get<std::string>());
  ASSERT_TRUE(work.Write(add["nav_file"], nav).ok());
}

// One "break" case: a file deleted, or the first `find` in a file replaced.
inline void ApplyBreak(const nlohmann::json& breakage, git::Workspace& work) {
  if (breakage.contains("delete")) {
    ASSERT_TRUE(work.Delete(breakage["delete"]).ok());
    return;
  }
  const nlohmann::json& edit = breakage["edit"];
  std::string text = work.Read(edit["path"])->text;
  std::string find = edit["find"];
  size_t at = text.find(find);
  ASSERT_NE(at, std::string::npos) << find;
  text.replace(at, find.size(), edit["replace"].get<std::string>());
  ASSERT_TRUE(work.Write(edit["path"], text).ok());
}

}  // namespace docwright::testing
