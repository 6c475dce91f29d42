#include "workflows/run_prompt.h"

#include <algorithm>

#include "core/cron.h"
#include "core/job.h"
#include "core/text.h"

namespace docwright::workflows {
namespace {

std::string Short(const std::string& sha) { return OneLogLine(sha.substr(0, 12), 12); }

// One line naming what started the run.
std::string Cause(const Workflow& workflow, const RunTrigger& t) {
  auto quoted = [](const std::string& s) { return "\"" + OneLogLine(s, 200) + "\""; };
  std::string span;
  if (!t.to.empty()) {
    span = t.from.empty() ? ", now at " + Short(t.to)
                          : ", from " + Short(t.from) + " to " + Short(t.to);
  }
  if (t.kind == "schedule") {
    std::string line = "Its schedule";
    if (workflow.trigger.kind == TriggerKind::kSchedule) {
      line += " " + quoted(workflow.trigger.cron) + " (" +
              OneLogLine(workflow.trigger.time_zone, 64) + ")";
    }
    if (t.scheduled_for) {
      line += ", for the time " +
              FormatInZone(*t.scheduled_for, t.time_zone.empty() ? "UTC" : t.time_zone);
    }
    return line + ".";
  }
  if (t.kind == "push") {
    return "A push to the branch " + quoted(t.branch) + " of the docs repository" + span + ".";
  }
  if (t.kind == "merge") {
    return "A merge into the branch " + quoted(t.branch) + " of the context repository " +
           quoted(t.repository) + span + ".";
  }
  if (t.kind == "manual") return "A run by hand.";
  return "A trigger of kind " + quoted(t.kind) + ".";
}

void AppendChanges(std::string& out, const RunChanges& c) {
  if (!c.unavailable.empty()) {
    out += "\nThe changes could not be read: " + OneLogLine(c.unavailable, 500) + "\n";
    return;
  }
  out += "\n### Commits (newest first)\n\n";
  if (c.commits.empty()) out += "(none)\n";
  size_t listed = std::min(c.commits.size(), kMaxRunCommits);
  for (size_t i = 0; i < listed; ++i) {
    out += "- " + Short(c.commits[i].sha) + " " +
           OneLogLine(c.commits[i].subject, kMaxRunCommitLineBytes) + "\n";
  }
  if (c.more_commits || c.commits.size() > listed) out += "- and more, not listed\n";
  out += "\n### Files changed\n\n";
  if (c.files.empty()) out += "(none)\n";
  size_t files = std::min(c.files.size(), kMaxRunFiles);
  for (size_t i = 0; i < files; ++i) {
    const git::DiffFile& f = c.files[i];
    out += "- " + std::string(git::DiffFile::KindName(f.kind)) + " ";
    if (f.from) out += OneLogLine(*f.from, kMaxRunPathBytes) + " -> ";
    out += OneLogLine(f.path, kMaxRunPathBytes);
    out += " (+" + std::to_string(f.additions) + " -" + std::to_string(f.deletions) + ")\n";
  }
  size_t total = std::max(c.file_count, c.files.size());
  if (total > files) out += "- and " + std::to_string(total - files) + " more files\n";
}

}  // namespace

std::string BuildRunPrompt(const Workflow& workflow, const RunTrigger& trigger,
                           const RunChanges* changes) {
  static constexpr std::string_view kCut =
      "\n(cut here: the rest did not fit the prompt's limit)\n";
  std::string prompt(CutUtf8(TrimSpace(workflow.prompt), kMaxPromptChars));
  std::string section = "\n\n## What started this run\n\n" + Cause(workflow, trigger) + "\n";
  if (changes && (trigger.kind == "push" || trigger.kind == "merge")) {
    AppendChanges(section, *changes);
  }
  if (prompt.size() + section.size() <= kMaxPromptChars) return prompt + section;
  // The workflow's prompt first, whole; the section cut at a line, with a word
  // that it was cut, when room is left for it.
  if (prompt.size() + kCut.size() >= kMaxPromptChars) return prompt;
  size_t room = kMaxPromptChars - prompt.size() - kCut.size();
  std::string_view kept = CutUtf8(section, room);
  size_t line_end = kept.rfind('\n');
  kept = kept.substr(0, line_end == std::string_view::npos ? 0 : line_end);
  return prompt + std::string(kept) + std::string(kCut);
}

}  // namespace docwright::workflows
