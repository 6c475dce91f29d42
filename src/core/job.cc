#include "core/job.h"

#include "core/text.h"

namespace docwright {

std::string_view ToString(ForgeKind f) {
  switch (f) {
    case ForgeKind::kLocal:
      return "local";
    case ForgeKind::kGithub:
      return "github";
    case ForgeKind::kGitlab:
      return "gitlab";
    case ForgeKind::kGitea:
      return "gitea";
  }
  return "local";
}

std::optional<ForgeKind> ParseForge(std::string_view s) {
  if (s == "local") return ForgeKind::kLocal;
  if (s == "github") return ForgeKind::kGithub;
  if (s == "gitlab") return ForgeKind::kGitlab;
  if (s == "gitea" || s == "forgejo") return ForgeKind::kGitea;
  return std::nullopt;
}

std::string_view ToString(JobStatus s) {
  switch (s) {
    case JobStatus::kActive:
      return "active";
    case JobStatus::kCompleted:
      return "completed";
    case JobStatus::kArchived:
      return "archived";
    case JobStatus::kFailed:
      return "failed";
  }
  return "failed";
}

std::optional<JobStatus> ParseJobStatus(std::string_view s) {
  if (s == "active") return JobStatus::kActive;
  if (s == "completed") return JobStatus::kCompleted;
  if (s == "archived") return JobStatus::kArchived;
  if (s == "failed") return JobStatus::kFailed;
  return std::nullopt;
}

std::string_view ToString(TurnState s) {
  switch (s) {
    case TurnState::kQueued:
      return "queued";
    case TurnState::kRunning:
      return "running";
    case TurnState::kSucceeded:
      return "succeeded";
    case TurnState::kFailed:
      return "failed";
    case TurnState::kCancelled:
      return "cancelled";
  }
  return "failed";
}

std::optional<TurnState> ParseTurnState(std::string_view s) {
  if (s == "queued") return TurnState::kQueued;
  if (s == "running") return TurnState::kRunning;
  if (s == "succeeded") return TurnState::kSucceeded;
  if (s == "failed") return TurnState::kFailed;
  if (s == "cancelled") return TurnState::kCancelled;
  return std::nullopt;
}

Result<JobStatus> StatusAfterFollowUp(JobStatus current) {
  if (current == JobStatus::kArchived) {
    return Status::Conflict("the job is archived and takes no more messages");
  }
  return JobStatus::kActive;
}

JobStatus StatusAfterTurn(JobStatus current, bool turn_succeeded, bool more_turns_queued) {
  if (current == JobStatus::kArchived) return JobStatus::kArchived;
  if (more_turns_queued) return JobStatus::kActive;
  return turn_succeeded ? JobStatus::kCompleted : JobStatus::kFailed;
}

std::optional<std::string> ResolveModel(const std::optional<std::string>& requested,
                                        const std::optional<std::string>& project_model,
                                        const std::optional<std::string>& server_default) {
  if (requested) return requested;
  if (project_model) return project_model;
  return server_default;
}

Status CheckRequestedModel(const Project& project, const std::optional<std::string>& requested,
                           const std::optional<std::string>& server_default) {
  if (!requested || project.models.empty()) return Status();
  if (requested == project.model || requested == server_default) return Status();
  for (const std::string& m : project.models) {
    if (m == *requested) return Status();
  }
  std::string allowed;
  for (const std::string& m : project.models) allowed += (allowed.empty() ? "" : ", ") + m;
  return Status::InvalidArgument("model \"" + std::string(CutUtf8(*requested, 100)) +
                                 "\" is not allowed for this project; allowed: " + allowed);
}

std::string BranchNameFor(std::string_view job_id, std::string_view prompt) {
  // The tail of a UUIDv7 is random; its head is a timestamp shared by jobs made in
  // the same minute, so the tail is what tells branches apart. 48 random bits keep
  // two jobs with the same prompt on one repository apart.
  std::string shortid;
  for (auto it = job_id.rbegin(); it != job_id.rend() && shortid.size() < 12; ++it) {
    if (*it != '-') shortid.insert(shortid.begin(), *it);
  }
  std::string slug = Slugify(prompt, 40);
  std::string name = "docwright/" + shortid;
  if (!slug.empty()) name += "-" + slug;
  return name;
}

Status CheckBranchName(std::string_view b) {
  auto refuse = [&](std::string_view why) {
    return Status::InvalidArgument("branch " + std::string(why));
  };
  if (b.empty()) return refuse("must not be empty");
  if (b.size() > kMaxBranchNameChars) {
    return refuse("is too long: at most " + std::to_string(kMaxBranchNameChars) + " characters");
  }
  for (char c : b) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f) {
      return refuse("must be printable ASCII without spaces or control characters");
    }
    if (std::string_view("~^:?*[\\").find(c) != std::string_view::npos) {
      return refuse("must not contain any of ~ ^ : ? * [ \\");
    }
  }
  if (b.find("..") != std::string_view::npos) return refuse("must not contain \"..\"");
  if (b.find("@{") != std::string_view::npos) return refuse("must not contain \"@{\"");
  if (b.find("//") != std::string_view::npos) return refuse("must not contain \"//\"");
  if (b.front() == '/' || b.back() == '/') return refuse("must not start or end with \"/\"");
  if (b.front() == '-') return refuse("must not start with \"-\"");
  if (b.back() == '.') return refuse("must not end with \".\"");
  if (b == "@" || b == "HEAD") return refuse("must not be \"" + std::string(b) + "\"");
  for (size_t start = 0; start <= b.size();) {
    size_t end = b.find('/', start);
    if (end == std::string_view::npos) end = b.size();
    std::string_view part = b.substr(start, end - start);
    if (!part.empty() && part.front() == '.') {
      return refuse("must not have a part starting with \".\"");
    }
    if (part.ends_with(".lock")) return refuse("must not have a part ending with \".lock\"");
    start = end + 1;
  }
  return Status();
}

}  // namespace docwright
