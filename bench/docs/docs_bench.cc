// Time and memory of the docs engine on a generated Mintlify site of PAGES
// pages: nested navigation groups, links between pages, images, redirects.
// Commits the site in DIR with the git command line, edits it as a turn would
// (appends to a page, adds a page and its navigation entry), then builds the site
// map and runs the checks. With a folder instead of PAGES (a site of the test
// corpus), that site is committed, and a sentence is appended to ten of its pages.
// Prints one line:
//   pages=N files=F map_ms=X check_ms=Y peak_rss_kib=Z problems=P
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "docs/docs.h"
#include "git/git.h"

namespace {

void Put(const std::filesystem::path& path, const std::string& content) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

std::string PageName(int i) {
  return "section-" + std::to_string(i / 100) + "/group-" + std::to_string(i / 10 % 10) + "/page-" +
         std::to_string(i);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace docwright;
  if (argc != 3) {
    std::fprintf(stderr, "usage: docs_bench PAGES|SITE_DIR DIR\n");
    return 2;
  }
  const bool corpus = std::filesystem::is_directory(argv[1]);
  const int pages = corpus ? 0 : std::atoi(argv[1]);
  const std::filesystem::path dir = argv[2];
  const std::filesystem::path seed = dir / "seed";
  std::filesystem::remove_all(dir);
  if (corpus) {
    std::filesystem::create_directories(seed);
    std::filesystem::copy(argv[1], seed, std::filesystem::copy_options::recursive);
  }

  if (!corpus) {
    // docs.json: tabs of sections, groups of ten pages.
    std::string nav = "{\"name\": \"Bench\", \"redirects\": [";
    for (int i = 0; i < 50; ++i) {
      nav += std::string(i ? "," : "") + "{\"source\": \"/old-" + std::to_string(i) +
             "/:slug*\", \"destination\": \"/" + PageName(i) + "\"}";
    }
    nav += "], \"navigation\": {\"tabs\": [";
    for (int s = 0; s * 100 < pages; ++s) {
      nav += std::string(s ? "," : "") + "{\"tab\": \"Section " + std::to_string(s) +
             "\", \"groups\": [";
      for (int g = 0; g < 10 && s * 100 + g * 10 < pages; ++g) {
        nav += std::string(g ? "," : "") + "{\"group\": \"Group " + std::to_string(g) +
               "\", \"pages\": [";
        for (int p = 0; p < 10 && s * 100 + g * 10 + p < pages; ++p) {
          nav += std::string(p ? "," : "") + "\"" + PageName(s * 100 + g * 10 + p) + "\"";
        }
        nav += "]}";
      }
      nav += "]}";
    }
    nav += "]}}\n";
    Put(seed / "docs.json", nav);
    for (int i = 0; i < pages; ++i) {
      std::string body =
          "---\ntitle: Page " + std::to_string(i) + "\n---\n\n# Page " + std::to_string(i) + "\n\n";
      for (int para = 0; para < 8; ++para) {
        body += "Paragraph " + std::to_string(para) + " links to [the next page](/" +
                PageName((i + 1) % pages) + "), [a moved one](/old-" + std::to_string(i % 50) +
                "/x) and shows ![a diagram](/images/diagram-" + std::to_string(i % 20) +
                ".png). `inline code` and **bold** text.\n\n";
      }
      body += "```bash\nrun --page " + std::to_string(i) + "\n```\n\n<Note>\n  See [home](/" +
              PageName(0) + ").\n</Note>\n";
      Put(seed / (PageName(i) + ".mdx"), body);
    }
    for (int i = 0; i < 20; ++i)
      Put(seed / ("images/diagram-" + std::to_string(i) + ".png"), "png");
  }
  std::string git =
      "git -c user.name=Bench -c user.email=bench@example.com -c init.defaultBranch=main";
  std::string cmd = "set -e; cd " + seed.string() + "; " + git + " init -q; " + git + " add -A; " +
                    git + " commit -qm site; " + git + " init -q --bare ../remote.git; " + git +
                    " push -q ../remote.git HEAD:main";
  if (std::system(cmd.c_str()) != 0) return 1;

  auto mirror = git::Mirror::Open((dir / "mirror.git").string(), (dir / "remote.git").string(), {});
  if (!mirror.ok()) return std::fprintf(stderr, "%s\n", mirror.status().message().c_str()), 1;
  auto head = (*mirror)->FetchBranch("main");
  if (!head.ok()) return 1;
  auto snapshot = (*mirror)->OpenSnapshot(*head);
  if (!snapshot.ok()) return 1;
  git::Workspace work(**snapshot);
  if (corpus) {
    auto all = (*snapshot)->Walk("", 100000);
    int appended = 0;
    for (size_t i = 0; all.ok() && i < all->size() && appended < 10; i += 20) {
      const std::string& path = (*all)[i];
      if (!path.ends_with(".md") && !path.ends_with(".mdx")) continue;
      (void)work.Write(path, work.Read(path)->text + "\nOne more sentence.\n");
      ++appended;
    }
  } else {
    std::string first = work.Read(PageName(0) + ".mdx")->text;
    (void)work.Write(PageName(0) + ".mdx", first + "\nOne more sentence.\n");
    (void)work.Write("section-0/group-0/added.mdx",
                     "---\ntitle: Added\n---\n\nSee [home](/" + PageName(0) + ").\n");
    std::string config = work.Read("docs.json")->text;
    config.replace(config.find("\"" + PageName(0) + "\""), PageName(0).size() + 2,
                   "\"" + PageName(0) + "\", \"section-0/group-0/added\"");
    (void)work.Write("docs.json", config);
  }

  const docs::Limits limits{.max_files = corpus ? 2000 : static_cast<size_t>(pages) * 2 + 100};
  auto t0 = std::chrono::steady_clock::now();
  docs::SiteMap map = docs::BuildSiteMap(work, limits);
  std::string rendered = map.Render(24 * 1024);
  auto t1 = std::chrono::steady_clock::now();
  docs::CheckReport report = docs::CheckChanges(work, limits);
  auto t2 = std::chrono::steady_clock::now();
  // The heaviest check: a deleted page, so every other page's links are read to
  // find those it breaks.
  std::string victim = corpus ? map.pages.back() : PageName(pages / 2) + ".mdx";
  (void)work.Delete(victim);
  docs::CheckReport deleted = docs::CheckChanges(work, limits);
  auto t3 = std::chrono::steady_clock::now();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf(
      "pages=%zu map_ms=%.1f check_ms=%.1f check_after_delete_ms=%.1f peak_rss_kib=%ld "
      "problems=%zu problems_after_delete=%zu\n",
      map.pages.size(), std::chrono::duration<double, std::milli>(t1 - t0).count(),
      std::chrono::duration<double, std::milli>(t2 - t1).count(),
      std::chrono::duration<double, std::milli>(t3 - t2).count(), usage.ru_maxrss,
      report.problems.size(), deleted.problems.size());
  for (const auto& p : report.problems)
    std::fprintf(stderr, "problem: %s:%d: %s\n", p.path.c_str(), p.line, p.message.c_str());
  std::filesystem::remove_all(dir);
  return report.problems.empty() ? 0 : 1;
}
