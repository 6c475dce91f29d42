// The forges' shared helpers (forge/forge.h): where the local forge's pages
// are, and what a repository URL names.
#include "forge/forge.h"
#include "core/local_pull_request.h"
#include "core/url.h"

namespace docwright::forge {

std::string LocalPullRequestUrl(const std::string& public_url, const std::string& id) {
  std::string base = public_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + PullRequestPagePath(id);
}

Result<RepositoryLocation> ParseRepositoryUrl(const std::string& text) {
  std::optional<Url> url = ParseUrl(text);
  std::string path = url ? url->path : "";
  while (!path.empty() && path.front() == '/') path.erase(0, 1);
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.ends_with(".git")) path.resize(path.size() - 4);
  if (!url || path.empty()) {
    return Status::InvalidArgument("not a URL of a hosted repository: " + text);
  }
  RepositoryLocation where{.scheme = url->scheme, .host = url->host, .path = path};
  if (where.host.find(':') != std::string::npos) where.host = "[" + where.host + "]";
  // The web's port, not an SSH port.
  if (url->explicit_port && url->scheme != "ssh") where.host += ":" + std::to_string(url->port);
  return where;
}

}  // namespace docwright::forge
