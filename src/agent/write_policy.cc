#include "agent/write_policy.h"

#include <algorithm>
#include <string_view>

#include "core/glob.h"
#include "core/job.h"
#include "core/text.h"
#include "git/git.h"

namespace docwright::agent {
namespace {

// Protected files, by name at any depth, compared as git::ComparableName gives
// them: CI and build definitions that code hosts and deploy services run with
// the project's secrets, the inputs of package managers and builds (a script in
// package.json runs on the CI's next install), hooks that run on developers'
// machines, and git's own configuration in the tree.
constexpr std::string_view kProtectedNames[] = {
    // git
    ".gitmodules",
    ".gitattributes",
    ".lfsconfig",
    "codeowners",
    // CI and deploy services
    ".gitlab-ci.yml",
    ".gitlab-ci.yaml",
    ".travis.yml",
    "jenkinsfile",
    "azure-pipelines.yml",
    "azure-pipelines.yaml",
    "bitbucket-pipelines.yml",
    "appveyor.yml",
    ".appveyor.yml",
    ".drone.yml",
    ".woodpecker.yml",
    ".cirrus.yml",
    "cloudbuild.yaml",
    "cloudbuild.yml",
    "netlify.toml",
    "vercel.json",
    "amplify.yml",
    ".readthedocs.yaml",
    ".readthedocs.yml",
    "action.yml",
    "action.yaml",
    // package managers and builds
    "package.json",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pnpmfile.cjs",
    "makefile",
    "gnumakefile",
    "dockerfile",
    "requirements.txt",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "pipfile",
    "pipfile.lock",
    "poetry.lock",
    "gemfile",
    "gemfile.lock",
    "go.mod",
    "cargo.toml",
    // hooks
    "lefthook.yml",
    "lefthook.yaml",
    ".pre-commit-config.yaml",
    ".pre-commit-hooks.yaml",
    // instructions to agents (agent/instructions.h): a turn steered by text in the
    // repository must not rewrite what steers every later turn
    "agents.md",
    "claude.md",
    ".cursorrules",
};

// Code a docs build or a CI job may run, by extension: refused by default except
// the site's own configuration files (a Docusaurus config and sidebars), which
// docs jobs edit and which are named in the pull request for review.
constexpr std::string_view kCodeExtensions[] = {
    ".js",  ".jsx", ".ts",  ".tsx", ".mjs", ".cjs", ".mts",  ".cts", ".py",  ".sh",   ".bash",
    ".zsh", ".rb",  ".pl",  ".php", ".go",  ".rs",  ".java", ".kt",  ".c",   ".cc",   ".cpp",
    ".h",   ".lua", ".ps1", ".bat", ".cmd", ".exe", ".so",   ".dll", ".jar", ".wasm",
};

// NTFS 8.3 short names of a protected dotfile, as git's is_ntfs_dotgitmodules
// knows them: the first six letters with "~1" to "~4", or git's fixed fallback
// prefix with "~1" to "~9".
bool IsShortNameOf(std::string_view name, std::string_view six, std::string_view fallback) {
  if (name.size() != 8 || name[6] != '~') return false;
  char digit = name[7];
  if (name.substr(0, 6) == six) return digit >= '1' && digit <= '4';
  if (name.substr(0, 6) == fallback) return digit >= '1' && digit <= '9';
  return false;
}

// Protected folders: everything under them, at any depth. Each entry is a
// sequence of segments.
constexpr std::string_view kProtectedFolders[][2] = {
    {".github", "workflows"},  {".github", "actions"}, {".gitea", "workflows"},
    {".forgejo", "workflows"}, {".gitlab", ""},        {".circleci", ""},
    {".buildkite", ""},        {".woodpecker", ""},    {".husky", ""},
    {".githooks", ""},         {".devcontainer", ""},  {".azure-pipelines", ""},
};

// Folders no project rule opens: where workflows are defined
// (workflows/workflow_file.h). A workflow starts jobs by itself, unattended,
// with the project's credentials; an agent that could write one would decide
// what later jobs do. Compared as git::ComparableName gives them, at any depth.
constexpr std::string_view kWorkflowFolders[][2] = {
    {".docwright", ""},
    {".mintlify", "workflows"},
};

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    size_t slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

// The protected file or folder `path` is, or is under; "" if none.
std::string ProtectedPart(std::string_view path) {
  auto segs = Segments(path);
  std::vector<std::string> names;
  for (auto s : segs) names.push_back(git::ComparableName(s));
  for (size_t i = 0; i < names.size(); ++i) {
    for (auto name : kProtectedNames) {
      if (names[i] == name) return std::string(segs[i]);
    }
    if (IsShortNameOf(names[i], "gitmod", "gi7eba") ||
        IsShortNameOf(names[i], "gitatt", "gi7d29")) {
      return std::string(segs[i]);
    }
    if (names[i].size() > 13 && names[i].compare(0, 13, "requirements-") == 0 &&
        names[i].ends_with(".txt")) {
      return std::string(segs[i]);
    }
    if (i + 1 == names.size()) break;  // folders only above the file
    for (const auto& folder : kProtectedFolders) {
      if (names[i] != folder[0]) continue;
      if (folder[1].empty()) return std::string(segs[i]) + "/";
      if (names[i + 1] == folder[1]) {
        return std::string(segs[i]) + "/" + std::string(segs[i + 1]) + "/";
      }
    }
  }
  return "";
}

// The workflow folder `path` is, or is under; "" if none.
std::string WorkflowPart(std::string_view path) {
  auto segs = Segments(path);
  for (size_t i = 0; i < segs.size(); ++i) {
    std::string name = git::ComparableName(segs[i]);
    for (const auto& folder : kWorkflowFolders) {
      if (name != folder[0]) continue;
      if (folder[1].empty()) return std::string(segs[i]) + "/";
      if (i + 1 < segs.size() && git::ComparableName(segs[i + 1]) == folder[1]) {
        return std::string(segs[i]) + "/" + std::string(segs[i + 1]) + "/";
      }
    }
  }
  return "";
}

bool IsUnder(std::string_view path, std::string_view folder) {
  if (folder.empty()) return true;
  return path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 &&
         path[folder.size()] == '/';
}

bool IsPage(std::string_view path) {
  auto ends = [&](std::string_view ext) { return path.size() > ext.size() && path.ends_with(ext); };
  return ends(".md") || ends(".mdx") || ends(".markdown");
}

std::string_view Dirname(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

}  // namespace

bool RuleMatches(std::string_view rule, std::string_view path) {
  return GitignoreMatches(rule, path);
}

WritePolicy::WritePolicy(const docs::SiteMap& site, std::vector<std::string> rules)
    : framework_(site.framework), config_path_(site.config_path), rules_(std::move(rules)) {
  if (CheckWriteRules(rules_).ok() == false) rules_.clear();
  std::string root(Dirname(site.config_path));
  site_folders_.push_back(root);
  if (!site.content_root.empty() && !IsUnder(site.content_root, root) &&
      site.content_root != root) {
    site_folders_.push_back(site.content_root);
  }
  // The repository's other sites (a turn about one language may touch
  // another's) are the site's as well; a folder inside one already listed adds
  // nothing.
  for (const std::string& other : site.other_sites) {
    other_configs_.push_back(other);
    std::string folder(Dirname(other));
    bool covered = std::any_of(site_folders_.begin(), site_folders_.end(),
                               [&](const auto& f) { return f == folder || IsUnder(folder, f); });
    if (!covered) site_folders_.push_back(std::move(folder));
  }
  // Dot-folders the site itself lives in are its own.
  for (const std::string& folder : site_folders_) {
    for (auto seg : Segments(folder)) {
      if (!seg.empty() && seg.front() == '.') used_dot_folders_.push_back(git::ComparableName(seg));
    }
  }
  if (site.framework == docs::Framework::kMintlify) used_dot_folders_.push_back(".mintlify");
  // GitBook keeps the images of its pages in .gitbook/assets/.
  if (site.framework == docs::Framework::kGitBook) used_dot_folders_.push_back(".gitbook");
}

Status WritePolicy::Default(const std::string& path) const {
  if (std::string part = ProtectedPart(path); !part.empty()) {
    return Status::InvalidArgument(
        "refused: " + part +
        " is protected (CI, build, package and hook definitions and git's own files are "
        "never changed by a docs job); leave it as it is");
  }
  if (RunsAtBuild(path) && !IsSiteConfig(path)) {
    return Status::InvalidArgument("refused: " + path +
                                   " is code that a build may run; a docs job changes pages, "
                                   "images and the site's configuration only");
  }
  for (auto seg : Segments(Dirname(path))) {
    if (seg.empty() || seg.front() != '.') continue;
    std::string name = git::ComparableName(seg);
    if (std::find(used_dot_folders_.begin(), used_dot_folders_.end(), name) ==
        used_dot_folders_.end()) {
      return Status::InvalidArgument("refused: " + std::string(seg) +
                                     "/ is not part of the docs site; change only the site's "
                                     "files");
    }
  }
  if (IsPage(path)) return Status();
  for (const std::string& folder : site_folders_) {
    if (IsUnder(path, folder)) return Status();
  }
  std::string where;
  for (const std::string& folder : site_folders_)
    where += (where.empty() ? "" : ", ") + folder + "/";
  return Status::InvalidArgument("refused: " + path +
                                 " is outside the docs site; change only files under " + where +
                                 " or Markdown pages");
}

Status WritePolicy::Check(const std::string& path) const {
  // Before the rules: no rule widens this.
  if (std::string part = WorkflowPart(path); !part.empty()) {
    return Status::InvalidArgument("refused: " + part +
                                   " holds the project's workflow definitions, which a job "
                                   "never changes, whatever the project's rules; leave it as "
                                   "it is");
  }
  // The last matching rule decides; with none, the default does.
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    if (!RuleMatches(*it, path)) continue;
    if (it->front() == '!') {
      return Status::InvalidArgument("refused: the project does not allow changes to " + path +
                                     " (rule \"" + *it + "\")");
    }
    return Status();
  }
  return Default(path);
}

bool WritePolicy::RunsAtBuild(const std::string& path) {
  std::string name = git::ComparableName(path.substr(path.rfind('/') + 1));
  for (auto ext : kCodeExtensions) {
    if (name.size() > ext.size() && name.ends_with(ext)) return true;
  }
  return false;
}

bool WritePolicy::IsSiteConfig(const std::string& path) const {
  if (path == config_path_) return true;
  if (std::find(other_configs_.begin(), other_configs_.end(), path) != other_configs_.end()) {
    return true;
  }
  // Docusaurus sidebars sit beside its configuration.
  std::string_view name = std::string_view(path).substr(path.rfind('/') + 1);
  if (!name.starts_with("sidebars.")) return false;
  if (framework_ == docs::Framework::kDocusaurus && Dirname(path) == Dirname(config_path_)) {
    return true;
  }
  return std::any_of(other_configs_.begin(), other_configs_.end(), [&](const std::string& c) {
    std::string_view config = std::string_view(c).substr(c.rfind('/') + 1);
    return config.starts_with("docusaurus.config.") && Dirname(path) == Dirname(c);
  });
}

bool WritePolicy::OutsideSite(const std::string& path) const {
  for (const std::string& folder : site_folders_) {
    if (IsUnder(path, folder)) return false;
  }
  return true;
}

}  // namespace docwright::agent
