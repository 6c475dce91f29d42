#include "cli/hook_commands.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "api/hook_signature.h"
#include "cli/common.h"
#include "core/job.h"

namespace docwright {
namespace {

using Json = nlohmann::ordered_json;

constexpr size_t kMaxMentionHandleChars = 39;

struct HookOptions {
  std::string project_id, org, mention_handle, public_url;
  bool rotate = false;
};

// What to select in the forge's webhook settings, in its own words.
struct ForgeSetup {
  std::string where;                // the settings page
  std::string secret_field;         // the field the secret goes into
  std::vector<std::string> events;  // the events to select
};

ForgeSetup SetupOf(ForgeKind forge) {
  switch (forge) {
    case ForgeKind::kGithub:
      return {"the repository's Settings > Webhooks > Add webhook",
              "Secret",
              {"Pushes", "Pull requests", "Issue comments", "Pull request reviews",
               "Pull request review comments"}};
    case ForgeKind::kGitlab:
      return {"the project's Settings > Webhooks > Add new webhook",
              "Secret token",
              {"Push events", "Comments", "Merge request events"}};
    case ForgeKind::kGitea:
      return {"the repository's Settings > Webhooks > Add webhook > Gitea (or Forgejo)",
              "Secret",
              {"Push", "Pull Request", "Pull Request Comment (Issue Comment)",
               "Pull Request Reviewed"}};
    case ForgeKind::kLocal:
      break;
  }
  return {};
}

int ShowHooks(const Common& common, const HookOptions& o, const CLI::App& cmd) {
  const bool handle_given = cmd.count("--mention-handle") > 0;
  if (handle_given) {
    if (Status s = CheckMentionHandle(o.mention_handle); !s.ok()) return Fail(s);
  }
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  auto found = (*store)->GetProject(Scope{o.org, o.project_id});
  if (!found.ok()) return Fail(found.status());
  Project p = std::move(*found);
  if (p.forge == ForgeKind::kLocal) {
    return Fail(Status::InvalidArgument(
        "the project's forge is local: it sends no webhooks (its pull requests take follow-ups "
        "through the API); a project on GitHub, GitLab or Gitea has hooks"));
  }
  std::optional<std::string> made;
  if (!p.hook_secret || o.rotate) made = NewHookSecret();
  const bool changed = made || (handle_given && o.mention_handle != p.mention_handle);
  if (made) p.hook_secret = *made;
  if (handle_given) p.mention_handle = o.mention_handle;
  if (changed) {
    if (Status s = (*store)->UpdateProject(p); !s.ok()) return Fail(s);
  }
  auto contexts = (*store)->ListContextRepositories(p.id);
  if (!contexts.ok()) return Fail(contexts.status());

  const std::string forge(ToString(p.forge));
  std::string base = o.public_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  const std::string url = base + "/hooks/" + forge + "/" + p.id;
  const ForgeSetup setup = SetupOf(p.forge);
  if (common.json) {
    Json contexts_json = Json::array();
    for (const ContextRepository& r : *contexts) contexts_json.push_back(r.repository);
    std::cout << Json{{"projectId", p.id},
                      {"forge", forge},
                      {"url", url},
                      {"secret", made ? Json(*made) : Json(nullptr)},
                      {"secretMade", made.has_value()},
                      {"mentionHandle", p.mention_handle},
                      {"contentType", "application/json"},
                      {"events", setup.events},
                      {"contextRepositories", contexts_json}}
                     .dump()
              << "\n";
    return 0;
  }
  if (made) {
    std::cout << "Hook secret (shown this once; store it in the forge now):\n\n  " << *made
              << "\n\n";
  } else {
    std::cout << "The project has a hook secret already (it is not shown again; --rotate makes "
                 "a new one, and the forge's hook then needs it).\n\n";
  }
  std::cout << "In " << setup.where << ":\n"
            << "  Payload URL:   " << url << "\n"
            << "  Content type:  application/json\n"
            << "  " << setup.secret_field << ":  the hook secret\n"
            << "  Events:        ";
  for (size_t i = 0; i < setup.events.size(); ++i) {
    std::cout << (i ? ", " : "") << setup.events[i];
  }
  std::cout << "\n";
  if (base.empty()) {
    std::cout << "\n(The URL is the path on the server: put the URL the forge reaches the "
                 "server at before it, or give --public-url.)\n";
  }
  if (!contexts->empty()) {
    std::cout << "\nFor merges into a context repository to start workflows at once, add the "
                 "same hook (push events are enough) to:\n";
    for (const ContextRepository& r : *contexts) {
      std::cout << "  " << r.name << "  " << r.repository << "\n";
    }
  }
  std::cout << "\nComments on a job's pull request that mention @" << p.mention_handle
            << " become follow-ups of the job.\n";
  return 0;
}

}  // namespace

Status CheckMentionHandle(std::string_view handle) {
  bool ok = !handle.empty() && handle.size() <= kMaxMentionHandleChars &&
            std::all_of(handle.begin(), handle.end(), [](char c) {
              return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '_';
            });
  if (ok) return Status();
  return Status::InvalidArgument("--mention-handle must be 1 to " +
                                 std::to_string(kMaxMentionHandleChars) +
                                 " letters, digits, '-' or '_' (no '@')");
}

void AddHookCommands(CLI::App* project, Common& common, std::function<int()>& action) {
  auto o = std::make_shared<HookOptions>();
  auto* hooks = project->add_subcommand(
      "hooks",
      "the project's webhooks from its forge: makes the hook secret (when there is none, or "
      "with --rotate) and prints it once, with the URL and the events to set on the forge");
  AddCommon(hooks, common, true);
  hooks->add_option("--project", o->project_id, "id of the project")->required();
  hooks->add_option("--org", o->org, "organisation id")->required();
  hooks->add_flag("--rotate", o->rotate,
                  "make a new hook secret (the forge's hook must then be given it)");
  hooks->add_option("--mention-handle", o->mention_handle,
                    "the handle comments on a job's pull request mention to ask for a follow-up "
                    "(default: docwright)");
  hooks
      ->add_option("--public-url", o->public_url,
                   "the URL the forge reaches the server at, for the printed hook URL")
      ->envname("DOCWRIGHT_PUBLIC_URL");
  hooks->callback(
      [&, o, hooks] { action = [&, o, hooks] { return ShowHooks(common, *o, *hooks); }; });
}

}  // namespace docwright
