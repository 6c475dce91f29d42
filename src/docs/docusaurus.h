// The parts of the Docusaurus module (docusaurus.cc) that read
// docusaurus.config.* (docusaurus_config.cc): the docs plugin's instances, their
// versions and where each is served, the locales, the static folders. Internal
// to those two units.
#pragma once

#include <string>
#include <vector>

#include "docs/internal.h"

namespace docwright::docs {

// One version of one docs plugin instance as the published site serves it.
struct DocsVersion {
  std::string name;  // "current", or a name from versions.json ("2.0")
  std::string dir;   // the repository folder of its docs
  // Where it is served under the instance's base route: "" for the last version
  // (by default the newest of versions.json, else the current docs), "next" for
  // the current docs when they are not the last, the version's name for the
  // others; versions.<name>.path overrides each.
  std::string path;
  std::string i18n;  // its folder under i18n/<locale>/<plugin folder>/: "current", "version-2.0"
};

// One instance of @docusaurus/plugin-content-docs (the classic preset's `docs`,
// or a plugin entry with its own `id`).
struct DocsInstance {
  std::string id = "default";
  std::string dir;                    // its current docs' folder (`path`, default docs/)
  std::string route_base;             // `routeBasePath` without slashes ("" for the root)
  std::string sidebar_path;           // `sidebarPath` as a repository path, "" if not given
  std::vector<DocsVersion> versions;  // the versions served, `onlyIncludeVersions` applied
  // The versions the site has, served or not (their folders are the instance's).
  std::vector<DocsVersion> all_versions;
  // i18n/<locale>/<this>/: "docusaurus-plugin-content-docs", with "-<id>" for
  // an instance other than the default.
  std::string i18n_folder;
};

struct DocusaurusConfig {
  std::vector<DocsInstance> instances;   // the default instance first; never empty
  std::vector<std::string> static_dirs;  // repository paths
  // The locales other than the default: a route may start with one
  // ("/fr/docs/intro"), and translations live in i18n/<locale>/.
  std::vector<std::string> locales;
  // `trailingSlash` is not kept: a link resolves with or without the slash, and
  // relative links are tried from both the page's folder and the page itself
  // (PagesAreFolders), which covers the URL the page has either way.
};

// Reads `site.map.config_path` (and each instance's versions.json) as data.
// What cannot be read falls back to Docusaurus' defaults: one instance at docs/
// served at /docs, current docs only. Spends from the budget.
DocusaurusConfig ReadDocusaurusConfig(const SiteLoad& load, const Site& site);

// `route` without slashes at either end.
std::string Unslashed(std::string_view route);

}  // namespace docwright::docs
