#include "runner/repository_turns.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <utility>

#include "agent/write_policy.h"
#include "core/crash_point.h"
#include "core/text.h"
#include "docs/docs.h"
#include "forge/forge.h"

namespace docwright {
namespace {

constexpr size_t kMaxTitleChars = 72;
constexpr size_t kMaxQuotedPromptBytes = 4000;
// GitHub refuses pull request bodies over 65,536 characters.
constexpr size_t kMaxBodyBytes = 60000;
constexpr const char* kFallbackTitle = "Update the documentation";
// How far back from a branch's head a re-run looks for its own commit.
constexpr int kMaxCommitsToSearch = 50;

TurnOutcome Failed(std::string error) {
  TurnOutcome r;
  r.error = std::move(error);
  return r;
}

TurnOutcome Interrupted() {
  TurnOutcome r;
  r.interrupted = true;
  return r;
}

// The first non-blank line of `text`, cut at a word to fit `max_chars` (UTF-8
// safe); empty if there is none.
std::string FirstLine(const std::string& text, size_t max_chars) {
  size_t start = 0;
  std::string line;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!IsBlank(line)) break;
    line.clear();
    start = end == std::string::npos ? text.size() : end + 1;
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) {
    line.pop_back();
  }
  size_t lead = line.find_first_not_of(" \t");
  line.erase(0, lead == std::string::npos ? line.size() : lead);
  if (Utf8Length(line).value_or(line.size()) <= max_chars) return line;
  // Keep max_chars - 1 whole characters, then back up to a word boundary.
  size_t bytes = 0;
  for (size_t chars = 0; bytes < line.size() && chars + 1 < max_chars; ++chars) {
    ++bytes;
    while (bytes < line.size() && (static_cast<unsigned char>(line[bytes]) & 0xC0) == 0x80) ++bytes;
  }
  std::string cut = line.substr(0, bytes);
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
  std::string bounded = text.size() > kMaxQuotedPromptBytes
                            ? std::string(CutUtf8(text, kMaxQuotedPromptBytes)) + "\n[…]"
                            : text;
  std::string out = "> ";
  for (char c : bounded) {
    out.push_back(c);
    if (c == '\n') out += "> ";
  }
  return out;
}

std::string PullRequestTitle(const TurnInput& input, const std::optional<std::string>& title) {
  std::string line;
  if (title) line = FirstLine(*title, kMaxTitleChars);
  if (line.empty()) line = FirstLine(FirstPrompt(input), kMaxTitleChars);
  return line.empty() ? kFallbackTitle : line;
}

std::string PullRequestBody(const TurnInput& input, const std::optional<std::string>& summary,
                            const std::vector<std::string>& files = {},
                            const std::vector<std::string>& problems = {},
                            const std::vector<std::string>& outside_site = {},
                            const std::vector<std::string>& code = {},
                            const std::vector<std::string>& notes = {}) {
  std::string tail = "### Instruction\n\n" + Quote(input.message.prompt) + "\n\n";
  // Paths, each in code quotes, at most 50 of them.
  auto list = [&tail](const std::string& heading, const std::vector<std::string>& paths) {
    if (paths.empty()) return;
    tail += "### " + heading + "\n\n";
    size_t shown = 0;
    for (const std::string& f : paths) {
      if (++shown > 50) {
        tail += "- and " + std::to_string(paths.size() - 50) + " more\n";
        break;
      }
      tail += "- `" + f + "`\n";
    }
    tail += "\n";
  };
  // Allowed, but worth a reviewer's closer look.
  list("Changed outside the docs site", outside_site);
  list("Changed files that run at build", code);
  list("Files changed in this turn", files);
  if (!problems.empty()) {
    tail += "### Problems the checks still report\n\n";
    for (const std::string& p : problems) tail += "- " + std::string(CutUtf8(p, 500)) + "\n";
    tail += "\n";
  }
  if (!notes.empty()) {
    tail += "### Notes from the checks\n\nNot asked to be fixed in this turn:\n\n";
    for (const std::string& n : notes) tail += "- " + std::string(CutUtf8(n, 500)) + "\n";
    tail += "\n";
  }
  tail += "---\nOpened by docwright for job `" + input.job.id + "`.";
  std::string body;
  if (summary && !IsBlank(*summary)) {
    body = std::string(CutUtf8(*summary, kMaxBodyBytes - tail.size() - 8));
    if (body.size() < summary->size()) body += "\n[…]";
    body += "\n\n";
  }
  return body + tail;
}

// The trailer that marks the commit of one turn: a re-run of the turn finds it on
// the branch and does not carry out the instruction a second time.
std::string TurnTrailer(const TurnInput& input) {
  return "Docwright-Job: " + input.job.id +
         "\nDocwright-Message: " + std::to_string(input.message.seq) + "\n";
}

// `text` (the model's) with every line that could pass for one of the service's
// trailers indented, so only TurnTrailer ever starts a line with "Docwright-".
std::string WithoutTrailers(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    std::string_view line(text.data() + start,
                          (end == std::string::npos ? text.size() : end) - start);
    size_t lead = line.find_first_not_of(" \t");
    std::string_view rest = lead == std::string_view::npos ? std::string_view() : line.substr(lead);
    constexpr std::string_view kPrefix = "docwright-";
    bool looks = rest.size() >= kPrefix.size() &&
                 std::equal(kPrefix.begin(), kPrefix.end(), rest.begin(), [](char a, char b) {
                   return a == std::tolower(static_cast<unsigned char>(b));
                 });
    if (looks) out += "  ";
    out.append(line);
    if (end == std::string::npos) break;
    out.push_back('\n');
    start = end + 1;
  }
  return out;
}

std::string CommitMessage(const std::string& title, const TurnInput& input,
                          const std::optional<std::string>& summary) {
  std::string message = WithoutTrailers(title) + "\n\n";
  if (summary && !IsBlank(*summary)) message += WithoutTrailers(*summary) + "\n\n";
  return message + TurnTrailer(input);
}

// The title and summary CommitMessage wrote into `message`.
std::pair<std::string, std::optional<std::string>> FromCommitMessage(const std::string& message,
                                                                     const TurnInput& input) {
  size_t title_end = message.find('\n');
  std::string title = message.substr(0, title_end);
  size_t trailer = message.rfind(TurnTrailer(input));
  std::optional<std::string> summary;
  if (title_end != std::string::npos && trailer != std::string::npos && trailer > title_end + 2) {
    summary = message.substr(title_end + 2, trailer - title_end - 4);
  }
  return {title, summary};
}

}  // namespace

RepositoryTurns::RepositoryTurns(Store& store, agent::Agent& agent, RepositoryTurnsOptions options)
    : store_(store), agent_(agent), options_(std::move(options)) {}

RepositoryTurns::~RepositoryTurns() = default;

Result<std::shared_ptr<git::Mirror>> RepositoryTurns::MirrorFor(const Project& project) {
  std::shared_ptr<MirrorSlot> slot;
  {
    std::lock_guard lock(mu_);
    auto& entry = mirrors_[project.id];
    if (!entry) entry = std::make_shared<MirrorSlot>();
    slot = entry;
  }
  // Opening may wait on another process's lock on this mirror: only this
  // project's turns wait with it.
  git::Credentials credentials = git::CredentialsFor(project);
  std::lock_guard open_lock(slot->mu);
  if (!slot->mirror || slot->url != project.repository) {  // `project update --repository`
    auto opened =
        git::Mirror::Open(options_.mirrors_dir + "/" + project.id + ".git", project.repository,
                          std::move(credentials), options_.git_limits);
    if (!opened.ok()) return opened.status();
    slot->mirror = std::move(*opened);
    slot->url = project.repository;
  } else {
    slot->mirror->SetCredentials(std::move(credentials));  // they may have changed
  }
  return slot->mirror;
}

TurnOutcome RepositoryTurns::RunTurn(const TurnInput& given, CancelToken& cancel) {
  // The model is resolved as the turn starts, from the settings as they are now:
  // a job that failed for want of one is retried by a follow-up once one is set.
  TurnInput input = given;
  auto model = ResolveModel(input.job.requested_model, input.project.model, options_.default_model);
  if (!model) input.job.model.reset();  // none configured now: the agent says so
  if (model && model != input.job.model) {
    input.job.model = model;
    if (Status s = store_.SetJobModel(input.job.id, *model); !s.ok()) {
      spdlog::warn("job {}: cannot record its model {}: {}", input.job.id, *model, s.message());
    }
  }
  const Job& job = input.job;
  const Project& project = input.project;
  const std::string repository = RedactCredentials(project.repository);
  auto mirror = MirrorFor(project);
  if (!mirror.ok()) return Failed(mirror.status().message());
  git::Mirror& repo = **mirror;
  // The mirror keeps the base's head between turns, not every job's branch.
  struct ForgetBranch {
    git::Mirror& repo;
    const std::string& branch;
    ~ForgetBranch() { repo.Forget(branch); }
  } forget{repo, job.ref};

  // A fetch or push under way is abandoned when the job is archived.
  const std::function<bool()> stopped = [&cancel] { return cancel.cancelled(); };
  // What the turn's work over the repository and the model's replies may cost,
  // charged by every walk, read, search, check and diff (docs/operations.md).
  WorkBudget work(WorkBudget::TurnLimits(), &cancel);
  TokenUsage spent;  // by the agent, over both rounds when the branch moved
  for (int round = 1;; ++round) {
    // Where the turn starts: the branch as it is now on the remote (people may
    // push to it), or the base. One fetch brings both.
    auto fetched = repo.FetchBranches({job.ref, project.base_ref}, stopped);
    if (cancel.cancelled()) return Interrupted();
    if (!fetched.ok()) {
      return Failed("cannot read the repository " + repository + ": " + fetched.status().message());
    }
    std::optional<std::string> branch_head = fetched->at(job.ref);
    std::optional<std::string> base_head = fetched->at(project.base_ref);
    if (!branch_head && !base_head) {
      return Failed("the repository " + repository + " has no branch " + project.base_ref +
                    " (is it empty, or is the project's --ref wrong?)");
    }
    std::string start = branch_head ? *branch_head : *base_head;
    if (cancel.cancelled()) return Interrupted();

    TurnOutcome done;
    done.succeeded = true;
    forge::PullRequestSpec spec{.head = job.ref,
                                .head_commit = start,
                                .base = project.base_ref,
                                .base_commit = base_head.value_or(""),
                                .draft = job.draft};

    // A re-run of a turn whose commit was pushed already (the process stopped
    // before recording the outcome): the instruction is not carried out again.
    std::optional<std::string> pushed_before;
    if (branch_head) {
      auto found = repo.FindCommitMessage(*branch_head, TurnTrailer(input), kMaxCommitsToSearch);
      if (!found.ok()) return Failed(found.status().message());
      pushed_before = *found;
    }
    if (pushed_before) {
      auto [title, summary] = FromCommitMessage(*pushed_before, input);
      spdlog::info("job {}: turn {} was pushed before; opening its pull request only", job.id,
                   input.message.seq);
      done.summary = summary;
      spec.title = PullRequestTitle(input, title);
      spec.body = PullRequestBody(input, summary);
    } else {
      auto snapshot = repo.OpenSnapshot(start);
      if (!snapshot.ok()) return Failed(snapshot.status().message());
      (*snapshot)->SetBudget(&work);
      git::Workspace workspace(**snapshot);
      // What the agent may change is decided by the site as it was before the
      // turn: an edit cannot move the site to cover more.
      agent::WritePolicy policy(docs::BuildSiteMap(workspace, {.cancel = &cancel, .turn = &work}),
                                project.write_paths);
      agent::AgentResult result = agent_.Run(input, workspace, cancel);
      spent += result.usage;
      if (result.interrupted) return Interrupted();
      if (!result.succeeded) {
        TurnOutcome failed = Failed(result.error.value_or("the agent failed"));
        failed.steps = std::move(result.steps);
        failed.usage = spent;
        return failed;
      }
      if (work.spent()) {
        // Every way out of the agent checks the budget; this is the last gate
        // before a commit made from reads that may have been refused.
        if (cancel.cancelled()) return Interrupted();
        TurnOutcome failed =
            Failed("the turn's work over the repository was stopped: " + work.status().message() +
                   "; nothing was pushed");
        failed.steps = std::move(result.steps);
        failed.usage = spent;
        return failed;
      }
      done.summary = result.summary;
      done.steps = std::move(result.steps);
      done.usage = spent;
      std::vector<std::string> files, outside_site, code, refused;
      for (const auto& [path, change] : workspace.Changes()) {
        files.push_back(path);
        // The agent's tools refuse these already; this is the last gate before
        // anything is pushed with the project's token.
        if (!git::CheckPath(path).ok() || !policy.Check(path).ok()) {
          refused.push_back(path);
        } else {
          if (policy.OutsideSite(path)) outside_site.push_back(path);
          if (agent::WritePolicy::RunsAtBuild(path)) code.push_back(path);
        }
      }
      if (!refused.empty()) {
        std::string list;
        for (size_t i = 0; i < refused.size() && i < 10; ++i) {
          list += (i ? ", " : "") + std::string(CutUtf8(refused[i], 200));
        }
        spdlog::warn("job {}: the agent changed paths it may not change: {}", job.id, list);
        TurnOutcome failed = Failed(
            "the turn changed files the project does not allow the agent "
            "to change (" +
            list + "); nothing was pushed");
        failed.steps = std::move(done.steps);
        failed.usage = spent;
        return failed;
      }
      spec.title = PullRequestTitle(input, result.title);
      spec.body = PullRequestBody(input, result.summary, files, result.problems, outside_site, code,
                                  result.notes);

      if (!workspace.Changes().empty()) {
        auto commit = repo.Commit(workspace, options_.identity,
                                  CommitMessage(spec.title, input, result.summary));
        if (!commit.ok()) return Failed("cannot commit the changes: " + commit.status().message());
        if (cancel.cancelled()) return Interrupted();  // nothing is pushed after an archive
        Status pushed = repo.Push(*commit, job.ref, branch_head, stopped);
        if (cancel.cancelled() && !pushed.ok()) return Interrupted();
        if (pushed.code() == Code::kConflict) {
          if (round == 1) {
            spdlog::info(
                "job {}: branch {} moved during the turn; carrying it out again from "
                "the new head",
                job.id, job.ref);
            continue;
          }
          return Failed("the branch " + job.ref +
                        " kept changing on the remote while the agent worked; send the "
                        "instruction again to retry");
        }
        if (!pushed.ok()) {
          return Failed("cannot push the branch " + job.ref + ": " + pushed.message());
        }
        CrashPoint("push.ref-moved");
        spec.head_commit = *commit;
      } else if (!branch_head || job.pr_link) {
        // Nothing to push, and either no branch (no pull request wanted) or the
        // pull request exists already.
        done.pr_link = job.pr_link;
        return done;
      }
    }

    if (cancel.cancelled()) return Interrupted();
    forge::ForgeContext context;
    context.pull_requests = &store_;
    context.mirror = &repo;
    // A budget of its own: the branch is pushed, whatever the agent spent.
    WorkBudget diff_budget(WorkBudget::TurnLimits(), &cancel);
    context.budget = &diff_budget;
    context.public_url = options_.public_url;
    context.max_attempts = options_.forge_attempts;
    context.max_delay = options_.forge_max_delay;
    context.sleep = [&cancel](std::chrono::milliseconds d) { return !cancel.WaitFor(d); };
    auto forge = forge::MakeForge(project, context);
    if (!forge.ok()) return Failed("cannot open the pull request: " + forge.status().message());
    auto pr = (*forge)->Ensure(spec);
    if (!pr.ok()) {
      if (cancel.cancelled()) return Interrupted();
      if (pr.status().code() == Code::kResourceExhausted) {
        return Failed("pushed the branch " + job.ref +
                      " but cannot open its pull request: comparing it with " + project.base_ref +
                      " was stopped: " + pr.status().message());
      }
      return Failed("pushed the branch " + job.ref +
                    " but cannot open its pull request: " + pr.status().message());
    }
    CrashPoint("pr.opened");
    done.pr_link = pr->url;
    return done;
  }
}

}  // namespace docwright
