// The corpus of tests/data/sites/: sites shaped like large published ones, with
// the old problems real sites carry. For each: appending to pages, and adding a
// page with its navigation entry, report no problem at all; each breakage in the
// site's manifest reports exactly its problems, with file and line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "docs/docs.h"
#include "support/docs_corpus.h"
#include "support/docs_site.h"

namespace docwright::docs {
namespace {

using nlohmann::json;
using testing::Files;
using testing::Rows;

using testing::ApplyAdd;
using testing::ApplyAppend;
using testing::ApplyBreak;
using testing::LineOf;
using testing::ReadFile;
using testing::SiteFiles;

const std::string kSites = testing::kCorpusSites;

class DocsCorpusTest : public testing::DocsSiteTest,
                       public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    manifest_ = json::parse(ReadFile(kSites + "/" + GetParam() + ".json"));
    // A site whose configuration is deeper than detection looks names its folder,
    // as its project's site root would.
    limits_.site_root = manifest_.value("site_root", "");
    Open(SiteFiles(GetParam()));
  }

  // A fresh workspace over the site's commit.
  std::unique_ptr<git::Workspace> Fresh() { return std::make_unique<git::Workspace>(*snapshot_); }

  // An expected problem with its placeholders filled from the edited files:
  // LINE(path,text) is the line `text` is first on, NAV(page) the line of the
  // navigation file that names `page`.
  std::string Expand(const std::string& expected, const git::Workspace& work) {
    std::string out = expected;
    for (const char* kind : {"LINE(", "NAV("}) {
      size_t at = out.find(kind);
      if (at == std::string::npos) continue;
      size_t close = out.find("):", at);
      std::string inside = out.substr(at + std::strlen(kind), close - at - std::strlen(kind));
      std::string file, needle;
      if (std::string(kind) == "LINE(") {
        file = inside.substr(0, inside.find(','));
        needle = inside.substr(inside.find(',') + 1);
      } else {
        file = out.substr(0, out.find(':'));
        needle = inside;
      }
      int line = LineOf(work.Read(file)->text, needle);
      out.replace(at, close + 1 - at, std::to_string(line));
    }
    return out;
  }

  json manifest_;
  Limits limits_;
};

TEST_P(DocsCorpusTest, TheSiteIsReadWhole) {
  SiteMap map = BuildSiteMap(*work_, limits_);
  EXPECT_GT(map.pages.size(), 200u);
  EXPECT_GT(map.navigation.size(), 100u);
  EXPECT_FALSE(map.pages_truncated);
}

TEST_P(DocsCorpusTest, AppendingToPagesReportsNothing) {
  ApplyAppend(manifest_, *work_);
  CheckReport report = CheckChanges(*work_, limits_);
  EXPECT_EQ(Rows(report), std::vector<std::string>{});
}

TEST_P(DocsCorpusTest, AddingAPageWithItsNavigationEntryReportsNothing) {
  ApplyAdd(manifest_, *work_);
  EXPECT_EQ(Rows(CheckChanges(*work_, limits_)), std::vector<std::string>{});
}

// `text` as a model rewriting a whole file might write it: JSON re-indented
// (4 spaces, one value a line), anything else with every column doubled: each
// line's indentation, and the column a list item's text starts at after its
// "- " or "* " (YAML mappings in a sequence, Markdown lists and JS keep their
// nesting).
std::string Reformatted(const std::string& path, const std::string& text) {
  if (path.ends_with(".json")) return nlohmann::ordered_json::parse(text).dump(4) + "\n";
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    size_t column = 0;
    while (column < line.size() && line[column] == ' ') {
      out += "  ";
      ++column;
    }
    // "- x": the marker, then spaces up to twice the column of x.
    while (column + 1 < line.size() && (line[column] == '-' || line[column] == '*') &&
           line[column + 1] == ' ') {
      out += line[column];
      out += "   ";
      column += 2;
    }
    out += line.substr(column) + "\n";
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return out;
}

TEST_P(DocsCorpusTest, RewritingTheConfigurationWithOtherFormattingReportsNothing) {
  std::set<std::string> files = {BuildSiteMap(*work_, limits_).config_path};
  if (manifest_["add"]["nav_file"].is_string()) files.insert(manifest_["add"]["nav_file"]);
  for (const std::string& path : files) {
    ASSERT_FALSE(path.empty());
    std::string text = work_->Read(path)->text;
    std::string rewritten = Reformatted(path, text);
    ASSERT_NE(rewritten, text) << path;
    ASSERT_TRUE(work_->Write(path, rewritten).ok()) << path;
  }
  CheckReport report = CheckChanges(*work_, limits_);
  EXPECT_EQ(Rows(report), std::vector<std::string>{});
  // The site's old problems are still there, as notes.
  bool old = false;
  for (const Problem& n : report.notes) old = old || n.message.starts_with("already before");
  EXPECT_TRUE(old) << ::testing::PrintToString(Rows(report.notes));
}

TEST_P(DocsCorpusTest, EachBreakageReportsExactlyItsProblems) {
  for (const json& breakage : manifest_["break"]) {
    SCOPED_TRACE(breakage.dump());
    std::unique_ptr<git::Workspace> work = Fresh();
    ApplyBreak(breakage, *work);
    Limits limits = limits_;
    if (breakage.contains("site_root")) limits.site_root = breakage["site_root"];
    std::vector<std::string> got = Rows(CheckChanges(*work, limits));
    std::vector<std::string> want;
    for (const auto& e : breakage["expect"]) want.push_back(Expand(e, *work));
    // "PARSER" at the end stands for the parser's own words.
    for (std::string& w : want) {
      if (!w.ends_with("PARSER")) continue;
      std::string prefix = w.substr(0, w.size() - 6);
      for (const std::string& g : got) {
        if (g.starts_with(prefix)) w = g;
      }
    }
    // The manifests list problems by file; the order by severity is
    // docs_report_test's to check.
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want);
  }
}

INSTANTIATE_TEST_SUITE_P(Sites, DocsCorpusTest,
                         ::testing::Values("mintlify-large", "docusaurus-versioned",
                                           "mkdocs-material", "mkdocs-multilingual",
                                           "gitbook-large", "mintlify-mintjson", "docusaurus-i18n"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace docwright::docs
