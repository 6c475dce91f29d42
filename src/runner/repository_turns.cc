#include "runner/repository_turns.h"

#include <spdlog/spdlog.h>

#include "core/text.h"
#include "forge/forge.h"

namespace docwright {
namespace {

constexpr size_t kMaxTitleChars = 72;
constexpr size_t kMaxQuotedPromptChars = 4000;

TurnResult Failed(std::string error) {
  TurnResult r;
  r.error = std::move(error);
  return r;
}

TurnResult Interrupted() {
  TurnResult r;
  r.interrupted = true;
  return r;
}

// The first line of `text`, cut at a word to fit `max_chars` (UTF-8 safe).
std::string FirstLine(const std::string& text, size_t max_chars) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
  if (Utf8Length(line) <= max_chars) return line;
  std::string cut;
  size_t chars = 0;
  for (size_t i = 0; i < line.size() && chars < max_chars - 1; ++i) {
    cut.push_back(line[i]);
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++chars;
  }
  // Drop a partly copied character, then back up to a word boundary.
  while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0xC0) cut.pop_back();
  if (size_t space = cut.rfind(' '); space != std::string::npos && space > cut.size() / 2) {
    cut.resize(space);
  }
  return cut + "…";
}

// The prompt that opened the job.
const std::string& FirstPrompt(const TurnInput& input) {
  for (const Message& m : input.history) {
    if (m.seq == 1) return m.prompt;
  }
  return input.message.prompt;
}

std::string Quote(const std::string& text) {
  std::string bounded = text.size() > kMaxQuotedPromptChars
                            ? FirstLine(text, kMaxQuotedPromptChars) + "\n[…]"
                            : text;
  std::string out = "> ";
  for (char c : bounded) {
    out.push_back(c);
    if (c == '\n') out += "> ";
  }
  return out;
}

std::string PullRequestTitle(const TurnInput& input, const AgentResult& result) {
  if (result.title && !IsBlank(*result.title)) return FirstLine(*result.title, kMaxTitleChars);
  return FirstLine(FirstPrompt(input), kMaxTitleChars);
}

std::string PullRequestBody(const TurnInput& input, const AgentResult& result) {
  std::string body;
  if (result.summary && !IsBlank(*result.summary)) body += *result.summary + "\n\n";
  body += "### Instruction\n\n" + Quote(input.message.prompt) + "\n\n";
  body += "---\nOpened by docwright for job `" + input.job.id + "`.";
  return body;
}

std::string CommitMessage(const std::string& title, const TurnInput& input,
                          const AgentResult& result) {
  std::string message = title + "\n\n";
  if (result.summary && !IsBlank(*result.summary)) message += *result.summary + "\n\n";
  message += "Docwright-Job: " + input.job.id + "\n";
  return message;
}

}  // namespace

RepositoryTurns::RepositoryTurns(Store& store, Agent& agent, RepositoryTurnsOptions options)
    : store_(store), agent_(agent), options_(std::move(options)) {}

RepositoryTurns::~RepositoryTurns() = default;

Result<git::Mirror*> RepositoryTurns::MirrorFor(const Project& project) {
  std::lock_guard lock(mu_);
  auto it = mirrors_.find(project.id);
  if (it != mirrors_.end()) return it->second.get();
  git::Credentials credentials;
  credentials.token = project.forge_token;
  if (project.forge == Forge::kGitlab) credentials.token_user = "oauth2";
  credentials.ssh_key_path = project.ssh_key_path;
  credentials.ssh_known_hosts_path = project.ssh_known_hosts_path.value_or("");
  auto opened =
      git::Mirror::Open(options_.mirrors_dir + "/" + project.id + ".git", project.repository,
                        std::move(credentials));
  if (!opened.ok()) return opened.status();
  git::Mirror* mirror = opened->get();
  mirrors_.emplace(project.id, std::move(*opened));
  return mirror;
}

TurnResult RepositoryTurns::RunTurn(const TurnInput& input, CancelToken& cancel) {
  const Job& job = input.job;
  const Project& project = input.project;
  auto mirror = MirrorFor(project);
  if (!mirror.ok()) return Failed(mirror.status().message());
  git::Mirror& repo = **mirror;

  for (int round = 1;; ++round) {
    // Where the turn starts: the branch as it is now on the remote, or the base.
    std::optional<std::string> branch_head;
    auto fetched = repo.FetchBranch(job.ref);
    if (fetched.ok()) {
      branch_head = *fetched;
    } else if (fetched.status().code() != Code::kNotFound) {
      return Failed("cannot read the repository " + project.repository + ": " +
                    fetched.status().message());
    }
    std::string start;
    if (branch_head) {
      start = *branch_head;
    } else {
      auto base = repo.FetchBranch(project.base_ref);
      if (!base.ok()) {
        return Failed(base.status().code() == Code::kNotFound
                          ? "the repository " + project.repository + " has no branch " +
                                project.base_ref + " (is it empty, or is the project's --ref wrong?)"
                          : "cannot read the repository " + project.repository + ": " +
                                base.status().message());
      }
      start = *base;
    }
    if (cancel.cancelled()) return Interrupted();

    auto snapshot = repo.OpenSnapshot(start);
    if (!snapshot.ok()) return Failed(snapshot.status().message());
    git::Workspace workspace(**snapshot);
    AgentResult result = agent_.Run(input, workspace, cancel);
    if (result.interrupted) return Interrupted();
    if (!result.succeeded) return Failed(result.error.value_or("the agent failed"));

    TurnResult done;
    done.succeeded = true;
    done.summary = result.summary;
    std::string title = PullRequestTitle(input, result);
    forge::PullRequestSpec spec{job.ref, start, project.base_ref, title,
                                PullRequestBody(input, result), job.draft};

    if (!workspace.Changes().empty()) {
      auto commit = repo.Commit(workspace, options_.identity, CommitMessage(title, input, result));
      if (!commit.ok()) return Failed("cannot commit the changes: " + commit.status().message());
      if (cancel.cancelled()) return Interrupted();  // nothing is pushed after an archive
      Status pushed = repo.Push(*commit, job.ref, branch_head);
      if (pushed.code() == Code::kConflict) {
        if (round == 1) {
          spdlog::info("job {}: branch {} moved during the turn; carrying it out again from the "
                       "new head",
                       job.id, job.ref);
          continue;
        }
        return Failed("the branch " + job.ref +
                      " kept changing on the remote while the agent worked; send the instruction "
                      "again to retry");
      }
      if (!pushed.ok()) return Failed("cannot push the branch " + job.ref + ": " + pushed.message());
      spec.head_commit = *commit;
    } else if (!branch_head || job.pr_link) {
      // Nothing to push, and either no branch (no pull request wanted) or the
      // pull request exists already.
      done.pr_link = job.pr_link;
      return done;
    }

    if (cancel.cancelled()) return Interrupted();
    forge::ForgeContext context;
    context.store = &store_;
    context.mirror = &repo;
    context.public_url = options_.public_url;
    context.max_attempts = options_.forge_attempts;
    context.max_delay = options_.forge_max_delay;
    context.sleep = [&cancel](std::chrono::milliseconds d) { return !cancel.WaitFor(d); };
    auto forge = forge::MakeForge(project, context);
    if (!forge.ok()) return Failed("cannot open the pull request: " + forge.status().message());
    auto pr = (*forge)->Ensure(spec);
    if (!pr.ok()) {
      if (cancel.cancelled()) return Interrupted();
      return Failed("pushed the branch " + job.ref + " but cannot open its pull request: " +
                    pr.status().message());
    }
    done.pr_link = pr->url;
    return done;
  }
}

}  // namespace docwright
