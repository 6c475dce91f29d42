// What the agent may change in a repository. The agent is steered by text nobody
// vetted (the repository, the model's output), and what it writes is pushed with
// the project's token: a workflow file it wrote would run with the project's CI
// secrets. So by default it may change only what a docs job should:
//
//  - files under the docs site's folder (where its configuration file is, and
//    where its pages live) and the folders of the repository's other sites
//    (SiteMap::other_sites), and Markdown pages (.md, .mdx) anywhere;
//  - never a protected file: CI and build definitions (.github/workflows,
//    .gitlab-ci.yml, Jenkinsfile, netlify.toml, action.yml, ...), the inputs of
//    package managers and builds (package.json and lockfiles, .npmrc, Makefile,
//    requirements.txt, pyproject.toml, ...), hooks (.husky, .githooks,
//    .pre-commit-config.yaml), .gitmodules, .gitattributes, .lfsconfig,
//    CODEOWNERS, the repository's instructions to agents (AGENTS.md, CLAUDE.md,
//    .cursorrules); in any case and in every disguise a file system could read as
//    them (git::ComparableName, NTFS short names);
//  - no code a build may run (.js, .ts, .py, .sh, ...), except the site's own
//    configuration files (docusaurus.config.js and its sidebars);
//  - nothing under a dot-folder the site does not use (.mintlify is used by
//    Mintlify sites; a site whose own folder is a dot-folder uses it).
//
// A project's rules (Project::write_paths) are gitignore-style patterns applied
// after that default, the last matching one winning: "docs/**" or "README.md"
// allow, "!docs/legal/**" refuses. A pattern without a slash matches a name at
// any depth; one with a slash is anchored at the root; a trailing slash or a
// folder's name covers everything under it; "*" and "?" stay within a folder and
// "**" spans folders. A rule that matches a protected file allows it: widening
// is the operator's explicit choice. Except for the folders where workflows are
// defined (.docwright/ and .mintlify/workflows/, workflows/workflow_file.h),
// refused whatever the rules: a workflow starts jobs unattended, and a job must
// not decide what later jobs do.
//
// A WritePolicy is immutable once built, and safe to use from several threads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/project_settings.h"
#include "core/status.h"
#include "docs/docs.h"

namespace docwright::agent {

// CheckWriteRules (core/project_settings.h) says which rules are usable.
using docwright::CheckWriteRules;

// Whether one rule (with or without its leading "!") matches `path`. Linear in
// the path for each character of the rule.
bool RuleMatches(std::string_view rule, std::string_view path);

class WritePolicy {
 public:
  // The policy for `site` (read from the turn's base commit, before any edit, so
  // an edit cannot move the site) under `rules` (checked by CheckWriteRules;
  // malformed ones never match).
  WritePolicy(const docs::SiteMap& site, std::vector<std::string> rules);

  // OK if the agent may create, change or delete `path` (a git::CheckPath'd
  // path); else InvalidArgument with a message fit to show the model.
  Status Check(const std::string& path) const;

  // True if `path` lies outside the docs site's folders, though allowed (a
  // Markdown page elsewhere, or a project rule): such changes are named in the
  // pull request body.
  bool OutsideSite(const std::string& path) const;

  // True if `path` is code a build runs (by its extension: .js, .py, ...), such
  // as the site's docusaurus.config.js: when allowed, worth a reviewer's look,
  // and named in the pull request body.
  static bool RunsAtBuild(const std::string& path);

  // The docs site's folders ("" for the whole repository).
  const std::vector<std::string>& site_folders() const { return site_folders_; }

 private:
  // The site's own configuration files that run as code and that docs jobs edit
  // (the Docusaurus configuration and its sidebars).
  bool IsSiteConfig(const std::string& path) const;
  // The default decision, before the project's rules.
  Status Default(const std::string& path) const;

  docs::Framework framework_;
  std::string config_path_;
  std::vector<std::string> other_configs_;  // SiteMap::other_sites
  std::vector<std::string> site_folders_;
  std::vector<std::string> used_dot_folders_;  // compared with git::ComparableName
  std::vector<std::string> rules_;
};

}  // namespace docwright::agent
