// docwright's verdicts against the frameworks' own checkers. The goldens
// tests/data/sites/<site>.oracle.json are what `mkdocs build`, `mint
// broken-links` and Docusaurus's sidebar loading said about each corpus site
// before and after each case of its manifest (tools/docs-oracle/run.py, not run
// here). The checkers report the whole site and docwright what the changes made
// worse, so each case compares the checker's after-minus-before ("new") with
// docwright's problems, on the kinds both check (the golden's "kinds"), as
// (file, kind, target). Every difference must be listed below with its reason;
// a new one fails, and so does a listed one that no longer happens.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "docs/docs.h"
#include "support/docs_corpus.h"
#include "support/docs_site.h"

namespace docwright::docs {
namespace {

using nlohmann::json;

// (file, kind, target): lines are left out, the checkers give none.
using Verdict = std::tuple<std::string, std::string, std::string>;

struct Known {
  const char* site;
  const char* kase;
  const char* only;  // "docwright" or "oracle": which side reports it
  const char* file;  // "*" for any file
  const char* kind;
  const char* target;
  const char* reason;
};

// Differences where docwright is right.
const std::vector<Known> kKnown = {
    {"mkdocs-multilingual", "break4", "oracle", "docs/fr/docs/index.md", "link",
     "docs/fr/docs/guides/deploy.md",
     "docs/fr/mkdocs.yml INHERITs ../en/mkdocs.yml, the layout of sites whose translations "
     "are built by a script that fills in the pages a language lacks from the English docs "
     "(FastAPI's scripts/docs.py): the published French site serves the English page there. "
     "`mkdocs build -f docs/fr/mkdocs.yml` alone does not, so the checker reports the link; "
     "docwright takes the missing pages from docs/en/docs (mkdocs.cc, fallback_root) rather "
     "than send the model to repair a link that works on the site"},
};

// Differences where the checker is right and docwright misses a problem: each is
// a gap of docwright's, kept visible here until it is closed (then the entry
// must go, or the test fails).
const std::vector<Known> kGaps = {};

// The kind a checker would give the problem, "" for kinds no checker reports.
std::string KindOf(const Problem& p) {
  switch (p.kind) {
    case ProblemKind::kLink:
    case ProblemKind::kRemoved:
    case ProblemKind::kImage:
      return "link";  // checkers report missing pages, files and images alike
    case ProblemKind::kNavigation:
      return "nav";
    case ProblemKind::kAnchor:
      return "anchor";
    default:
      return "";
  }
}

// `path` with "." and ".." segments folded, as the checker resolves links.
std::string Fold(const std::string& path) {
  std::vector<std::string> parts;
  size_t at = 0;
  while (at <= path.size()) {
    size_t end = path.find('/', at);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(at, end - at);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    at = end + 1;
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

// docwright's problem as the golden writes a verdict: with "resolved" targets
// (MkDocs) a relative link becomes the repository path it names, its #anchor
// dropped; otherwise the destination stays as written.
Verdict Normalize(const Problem& p, const std::string& kind, const std::string& targets) {
  std::string target = p.subject;
  if (targets == "resolved" && kind == "link") {
    target = target.substr(0, target.find_first_of("#?"));
    if (!target.empty() && target[0] != '/' && target.find("://") == std::string::npos) {
      std::string dir = std::filesystem::path(p.path).parent_path().generic_string();
      target = Fold(dir.empty() ? target : dir + "/" + target);
    }
  }
  return {p.path, kind, target};
}

bool Matches(const Known& k, const std::string& site, const std::string& kase,
             const std::string& only, const Verdict& v) {
  return site == k.site && kase == k.kase && only == k.only &&
         (std::string(k.file) == "*" || std::get<0>(v) == k.file) && std::get<1>(v) == k.kind &&
         std::get<2>(v) == k.target;
}

class DocsOracleTest : public testing::DocsSiteTest,
                       public ::testing::WithParamInterface<std::string> {};

TEST_P(DocsOracleTest, DocwrightAgreesWithTheFrameworksChecker) {
  const std::string site = GetParam();
  const std::string golden = testing::kCorpusSites + "/" + site + ".oracle.json";
  ASSERT_TRUE(std::filesystem::exists(golden)) << golden;
  json oracle = json::parse(testing::ReadFile(golden));
  json manifest = json::parse(testing::ReadFile(testing::kCorpusSites + "/" + site + ".json"));
  std::set<std::string> kinds = oracle["kinds"].get<std::set<std::string>>();
  std::string targets = oracle["targets"];
  // A site whose configuration is deeper than detection looks names its folder,
  // as in tests/docs_corpus_test.cc; a break may name another site of the
  // repository (the golden was made building that one).
  Limits site_limits;
  site_limits.site_root = manifest.value("site_root", "");
  Open(testing::SiteFiles(site));

  std::set<const Known*> used;
  ASSERT_EQ(oracle["cases"].size(), 2 + manifest["break"].size());
  for (const json& c : oracle["cases"]) {
    const std::string kase = c["case"];
    SCOPED_TRACE(site + " " + kase);
    git::Workspace work(*snapshot_);
    Limits limits = site_limits;
    if (kase == "append") {
      testing::ApplyAppend(manifest, work);
    } else if (kase == "add") {
      testing::ApplyAdd(manifest, work);
    } else {
      const json& breakage = manifest["break"][std::stoul(kase.substr(5))];
      testing::ApplyBreak(breakage, work);
      if (breakage.contains("site_root")) limits.site_root = breakage["site_root"];
    }
    // The golden was made building the same site.
    EXPECT_EQ(c.value("site_root", oracle.value("site_root", "")), limits.site_root);
    std::multiset<Verdict> ours, theirs;
    for (const Problem& p : CheckChanges(work, limits).problems) {
      std::string kind = KindOf(p);
      if (kinds.count(kind)) ours.insert(Normalize(p, kind, targets));
    }
    for (const json& v : c["new"]) {
      theirs.insert(Verdict{v["file"].get<std::string>(), v["kind"].get<std::string>(),
                            v["target"].get<std::string>()});
    }

    // What one side reports and the other does not, each to be explained.
    auto unexplained = [&](const std::multiset<Verdict>& a, const std::multiset<Verdict>& b,
                           const std::string& only) {
      std::vector<std::string> out;
      for (const Verdict& v : a) {
        if (b.count(v)) continue;
        const Known* why = nullptr;
        for (const Known& k : kKnown) {
          if (Matches(k, site, kase, only, v)) why = &k;
        }
        for (const Known& k : kGaps) {
          if (Matches(k, site, kase, only, v)) why = &k;
        }
        if (why) {
          used.insert(why);
        } else {
          out.push_back(std::get<0>(v) + " " + std::get<1>(v) + " " + std::get<2>(v));
        }
      }
      return out;
    };
    EXPECT_EQ(unexplained(ours, theirs, "docwright"), std::vector<std::string>{})
        << "docwright reports these and the framework's checker does not";
    EXPECT_EQ(unexplained(theirs, ours, "oracle"), std::vector<std::string>{})
        << "the framework's checker reports these and docwright does not";
  }
  for (const Known& k : kKnown) {
    if (k.site == site) {
      EXPECT_TRUE(used.count(&k)) << "no longer differs: " << k.target;
    }
  }
  for (const Known& k : kGaps) {
    if (k.site == site) {
      EXPECT_TRUE(used.count(&k)) << "gap closed, remove it: " << k.target;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sites, DocsOracleTest,
                         ::testing::Values("mintlify-large", "docusaurus-versioned",
                                           "mkdocs-material", "mkdocs-multilingual",
                                           "mintlify-mintjson", "docusaurus-i18n"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace docwright::docs
