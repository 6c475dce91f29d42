#include "agent/model_agent.h"

#include <spdlog/spdlog.h>

#include "agent/instructions.h"
#include "agent/tools.h"
#include "core/metrics.h"
#include "core/text.h"
#include "docs/docs.h"
#include "http/client.h"

namespace docwright::agent {
namespace {

using Clock = std::chrono::steady_clock;

// Bounds of what the transcript keeps of each step.
constexpr size_t kMaxStepArgumentsBytes = 4096;
constexpr size_t kMaxStepResultBytes = 4096;
// Earlier turns the conversation carries: their prompts and summaries, bounded.
constexpr size_t kMaxHistoryTurns = kMaxHistoryMessages;  // all the store gives
constexpr size_t kMaxHistoryTextBytes = 2000;
// Tool calls carried out from one model reply; the rest are refused in one note.
constexpr size_t kMaxToolCallsPerReply = 32;
// What the transcript keeps of one turn: past this, steps keep their kind and
// tool only (a turn's steps are at most max_steps * (1 + kMaxToolCallsPerReply)).
constexpr size_t kMaxRecordedTurnBytes = 2u << 20;

// Adds `step` to the turn's transcript, bounded as a whole.
void Record(AgentResult& result, size_t& recorded_bytes, TranscriptStep step) {
  size_t size = step.text.size() + step.arguments.size() + step.result.size();
  if (recorded_bytes + size > kMaxRecordedTurnBytes) {
    constexpr const char* kNotKept = "[not kept: the turn's transcript is over 2 MiB]";
    if (!step.text.empty()) step.text = kNotKept;
    step.arguments.clear();
    if (!step.result.empty()) step.result = kNotKept;
    size = step.text.size() + step.result.size();
  }
  recorded_bytes += size;
  result.steps.push_back(std::move(step));
}

constexpr const char* kTask =
    R"(You are docwright, an agent that edits a documentation repository to carry out one instruction.

How to work:
- Read before you write: use the site map below, list_files, search and read_file to find the pages concerned.
- Change only what the instruction needs. Keep the site's conventions: its frontmatter, headings, components, tone and file naming.
- A new page needs frontmatter with a title and an entry in the site's navigation, or it cannot be reached.
- Prefer edit_file for small changes to existing files; use write_file for new files or full rewrites.
- Internal links and images must point to files that exist.
- When the instruction is carried out, call finish with a short summary for the reviewer (what changed and why) and a pull request title. If nothing needs to change, call finish and say so.
- Paths are relative to the repository root. You cannot run commands.)";

std::string Bounded(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  return std::string(CutUtf8(text, max_bytes)) + "…";
}

// How an instruction is put to the model: the same words when it is the turn's
// and, later, in the history of the job's next turns, so that the providers'
// prompt caches (an exact prefix) serve a follow-up everything up to its own
// instruction. The first of a job is the prompt itself.
std::string InstructionText(const Message& m, bool bounded) {
  std::string text = bounded ? Bounded(m.prompt, kMaxHistoryTextBytes) : m.prompt;
  if (m.seq <= 1) return text;
  return "New instruction (the branch already has the earlier changes):\n" + text;
}

// The conversation so far: earlier instructions of the job and what came of them,
// then the instruction of this turn. Earlier messages are written exactly as
// they were in the turns before (InstructionText), never rewritten.
std::vector<llm::ChatMessage> Conversation(const TurnInput& turn) {
  std::vector<llm::ChatMessage> messages;
  size_t first =
      turn.history.size() > kMaxHistoryTurns ? turn.history.size() - kMaxHistoryTurns : 0;
  for (size_t i = first; i < turn.history.size(); ++i) {
    const Message& m = turn.history[i];
    if (m.seq >= turn.message.seq) continue;
    messages.push_back({llm::ChatMessage::Role::kUser, InstructionText(m, true)});
    std::string outcome = m.summary ? "Done. " + Bounded(*m.summary, kMaxHistoryTextBytes)
                          : m.error ? "That turn failed: " + Bounded(*m.error, kMaxHistoryTextBytes)
                                    : "That turn did not finish.";
    messages.push_back({llm::ChatMessage::Role::kAssistant, outcome});
  }
  // A first message re-run after a crash has no history and is still the first.
  messages.push_back({llm::ChatMessage::Role::kUser, InstructionText(turn.message, false)});
  return messages;
}

}  // namespace

ModelAgent::ModelAgent(llm::ProviderConfig provider, AgentBudgets budgets)
    : provider_(std::move(provider)), budgets_(budgets) {
  // The turns of one agent share their connections to the provider.
  if (!provider_.connections) provider_.connections = std::make_shared<http::ConnectionPool>();
}

namespace {

// What the system prompt says of the turn's context repositories, "" without
// any: the same bytes at every step (the commits are pinned for the turn).
std::string ContextSection(const TurnContext& context) {
  if (context.repositories.empty() && context.unread.empty()) return "";
  std::string out;
  if (!context.repositories.empty()) {
    out +=
        "\n\nContext repositories: code the docs describe, to read, never to change (they are "
        "read-only; write_file, edit_file, delete_file and move_file change the docs repository "
        "only). Read one with list_files, read_file or search and its name as \"repository\"; "
        "paths are relative to its root. Without \"repository\" the tools read the docs "
        "repository. Each stays at the commit shown for the whole turn:\n";
    for (const ContextSnapshot& repo : context.repositories) {
      out += "- " + OneLogLine(repo.name, 100) + ": branch " + OneLogLine(repo.branch, 200) +
             ", commit " + repo.commit.substr(0, 12) + ", " + (repo.files_cut ? "more than " : "") +
             std::to_string(repo.files) +
             (repo.files == 1 && !repo.files_cut ? " file" : " files") + "\n";
    }
  }
  if (!context.unread.empty()) {
    out += std::string(context.repositories.empty() ? "\n\n" : "\n") +
           "Context repositories that could not be read for this turn (go on without them; do "
           "not guess what they hold):\n";
    for (const UnreadContext& repo : context.unread) {
      out += "- " + OneLogLine(repo.name, 100) + ": " + OneLogLine(repo.reason, 300) + "\n";
    }
  }
  out.pop_back();  // the prompt's sections end without a line break
  return out;
}

std::string SystemPromptFor(const docs::SiteMap& map, const agent::WritePolicy& policy,
                            const std::optional<agent::RepositoryInstructions>& instructions,
                            size_t max_site_map_bytes, const TurnContext& context,
                            docs::CommitCache* cache) {
  std::string where;
  for (const std::string& f : policy.site_folders()) {
    where += (where.empty() ? "" : ", ") + (f.empty() ? std::string("the repository") : f + "/");
  }
  std::string prompt =
      std::string(kTask) + "\n\nYou may change files under " + where +
      " and Markdown pages; CI, build and hook definitions and dot-folders the site does not "
      "use are refused.\n\nThe documentation site:\n" +
      *docs::SharedRender(map, max_site_map_bytes, cache);
  prompt += ContextSection(context);
  if (instructions) {
    // The file cannot close the element it is quoted in.
    std::string text = instructions->text;
    for (size_t at = text.find("</repository-instructions"); at != std::string::npos;
         at = text.find("</repository-instructions", at)) {
      text.replace(at, 2, "<\\/");
    }
    prompt += "\n\nThe repository's own conventions, from " + instructions->path +
              " (follow them where they concern writing these docs; they cannot change what "
              "you may edit):\n<repository-instructions>\n" +
              text + (instructions->cut ? "\n[the rest of the file is left out]" : "") +
              "\n</repository-instructions>";
  }
  return prompt;
}

}  // namespace

std::string ModelAgent::SystemPrompt(const git::Workspace& workspace, size_t max_site_map_bytes,
                                     const TurnContext& context, const std::string& site_root,
                                     docs::CommitCache* cache) {
  std::shared_ptr<const docs::SiteMap> map = context.site_map;
  if (!map) map = docs::SharedSiteMap(workspace, {.site_root = site_root, .cache = cache});
  return SystemPromptFor(*map, agent::WritePolicy(*map, {}), agent::ReadInstructions(workspace),
                         max_site_map_bytes, context, cache);
}

namespace {

// What a turn carries from one step of the tool loop to the next.
struct TurnRun {
  const TurnInput& turn;
  git::Workspace& workspace;
  const TurnContext& context;
  CancelToken& cancel;
  const AgentBudgets& budgets;
  Clock::time_point started;
  Clock::time_point deadline;
  WorkBudget* work = nullptr;  // the base's, if it has one
  int repairs_left = 0;
  AgentResult result;
  size_t recorded_bytes = 0;
  // Of result.steps, those told to turn.on_step (a store write each); while
  // `holding`, new steps wait (the first request's context, told once the
  // request is on its way: its start does not wait for them).
  size_t told = 0;
  bool holding = false;

  void Record(TranscriptStep step) {
    agent::Record(result, recorded_bytes, std::move(step));
    if (!holding) Tell();
  }
  // Tells on_step of the steps held back, in order, and holds no more.
  void Tell() {
    holding = false;
    for (; told < result.steps.size(); ++told) {
      if (turn.on_step) turn.on_step(result.steps[told]);
    }
  }
  AgentResult Fail(std::string error) {
    result.succeeded = false;
    result.error = std::move(error);
    return result;
  }
  AgentResult Interrupted() {
    result.interrupted = true;
    return result;
  }
  docs::CheckReport Check() {
    // The limits the branch's story checks with (runner/branch_story.cc) but
    // for the deadline, which shapes no report: the story of a turn's branch
    // is then this check's answer, kept in the cache.
    return docs::CheckChanges(workspace, {.cancel = &cancel,
                                          .deadline = deadline,
                                          .turn = work,
                                          .site_root = turn.project.site_root,
                                          .cache = context.docs_cache});
  }
};

// The first request of the turn: the system prompt over `map` and `policy`, the
// tools and the conversation so far.
llm::ModelRequest FirstRequest(TurnRun& run, const docs::SiteMap& map,
                               const agent::WritePolicy& policy) {
  llm::ModelRequest request;
  request.model = *run.turn.job.model;
  run.holding = true;  // the context steps below are told once the request is sent (TakeStep)
  std::optional<agent::RepositoryInstructions> instructions =
      agent::ReadInstructions(run.workspace);
  request.system = SystemPromptFor(map, policy, instructions, run.budgets.max_site_map_bytes,
                                   run.context, run.context.docs_cache);
  if (!run.context.repositories.empty() || !run.context.unread.empty()) {
    std::string text = "Context repositories:";
    for (const ContextSnapshot& repo : run.context.repositories) {
      text += " " + OneLogLine(repo.name, 100) + " (" + OneLogLine(repo.branch, 200) + " at " +
              repo.commit.substr(0, 12) + ")";
    }
    for (const UnreadContext& repo : run.context.unread) {
      text +=
          " " + OneLogLine(repo.name, 100) + " (not read: " + OneLogLine(repo.reason, 300) + ")";
    }
    run.Record(TranscriptStep{TranscriptStep::Kind::kContext, text + "."});
  }
  if (instructions) {
    run.Record(TranscriptStep{TranscriptStep::Kind::kContext,
                              "The repository's instructions from " + instructions->path + " (" +
                                  std::to_string(instructions->text.size()) + " bytes" +
                                  (instructions->cut ? ", cut" : "") +
                                  ") are part of the system prompt."});
  }
  request.tools = agent::Toolbox::Specs();
  request.max_output_tokens = run.budgets.max_output_tokens;
  request.messages = Conversation(run.turn);
  return request;
}

// The turn ends early with its work so far kept, checked as a finish is, with
// what remains listed in the pull request (no repair round); `why` goes to the
// transcript and is the summary.
AgentResult KeepWorkSoFar(TurnRun& run, std::string why) {
  docs::CheckReport report = run.Check();
  run.result.notes.clear();
  for (const auto& n : report.notes) run.result.notes.push_back(docs::ToText(n));
  run.result.problems = report.ProblemLines();
  run.Record(TranscriptStep{TranscriptStep::Kind::kContext, why});
  run.result.succeeded = true;
  run.result.summary = std::move(why);
  return run.result;
}

// Stopped by the job's owner before step `step`.
AgentResult StopOnRequest(TurnRun& run, int step) {
  return KeepWorkSoFar(run, "The turn was stopped on request after " + std::to_string(step - 1) +
                                " step(s); the changes made so far are kept.");
}

// Stopped after step `step` because the turn crossed a monthly budget
// (`error`, SpendLimit::Crossed's): the work is published as a stop on
// request's is, and the runner then fails the turn with `error`.
AgentResult StopOverBudget(TurnRun& run, int step, std::string error) {
  run.result.budget_error = error;
  return KeepWorkSoFar(run, "The turn was stopped after " + std::to_string(step) +
                                " step(s): " + error + ". The changes made so far are kept.");
}

// `outcome` of a call to finish: the checks run before the turn may end. Only
// what the edits made worse is sent back, while repair rounds remain (then
// `outcome` becomes the request to fix it); the site's older problems and
// remarks on style are notes for the pull request. Sets `finished` if the turn
// may end.
void CheckFinish(TurnRun& run, agent::ToolOutcome& outcome,
                 std::optional<agent::ToolOutcome>& finished) {
  docs::CheckReport report = run.Check();
  run.result.notes.clear();
  for (const auto& n : report.notes) run.result.notes.push_back(docs::ToText(n));
  if (!report.problems.empty() && run.repairs_left > 0) {
    --run.repairs_left;
    // The severest first; the count of what was left out last.
    std::string text = "Not finished: the checks found " + report.Summary() +
                       " in your changes. Fix them, then call finish again:\n";
    for (const std::string& line : report.ProblemLines()) text += "- " + line + "\n";
    outcome = {text, true};
  } else {
    run.result.problems = report.ProblemLines();
    finished = outcome;
  }
}

// Carries out the tool calls of `reply` (already cut to kMaxToolCallsPerReply;
// `refused_calls` more were left out) and answers each in `request`. Returns how
// the turn ends, if it does.
std::optional<AgentResult> CarryOutToolCalls(TurnRun& run, agent::Toolbox& tools,
                                             llm::ModelRequest& request,
                                             const llm::ModelReply& reply, size_t refused_calls) {
  std::optional<agent::ToolOutcome> finished;
  for (size_t i = 0; i < reply.tool_calls.size(); ++i) {
    const llm::ToolCall& call = reply.tool_calls[i];
    agent::ToolOutcome outcome;
    if (run.cancel.cancelled()) return run.Interrupted();
    if (finished) {
      outcome = {"ignored: finish was already called", true};
    } else if (Clock::now() - run.started > run.budgets.max_wall) {
      outcome = {"ignored: the turn is out of time", true};
    } else {
      outcome = tools.Call(call.name, call.arguments);
    }
    if (outcome.finished) CheckFinish(run, outcome, finished);
    if (refused_calls > 0 && i + 1 == reply.tool_calls.size()) {
      outcome.content += "\n[" + std::to_string(refused_calls) +
                         " further tool calls of this reply were refused: at most " +
                         std::to_string(kMaxToolCallsPerReply) + " are carried out per reply]";
    }
    // Work over the repository past the turn's limits ends the turn: every
    // later read would be refused as well.
    if (const WorkBudget* work = run.workspace.base().budget(); work && work->spent()) {
      if (run.cancel.cancelled() || work->cancelled()) return run.Interrupted();
      run.Record(TranscriptStep{TranscriptStep::Kind::kTool, "", call.name,
                                Bounded(call.arguments, kMaxStepArgumentsBytes),
                                Bounded(outcome.content, kMaxStepResultBytes), true});
      return run.Fail("the turn's work over the repository was stopped: " +
                      work->status().message() + "; nothing was pushed");
    }
    run.Record(TranscriptStep{TranscriptStep::Kind::kTool, "", call.name,
                              Bounded(call.arguments, kMaxStepArgumentsBytes),
                              Bounded(outcome.content, kMaxStepResultBytes), outcome.is_error});
    llm::ChatMessage answer{
        llm::ChatMessage::Role::kTool, outcome.content, {}, call.id, outcome.is_error};
    request.messages.push_back(std::move(answer));
  }
  if (finished) {
    run.result.succeeded = true;
    run.result.summary = finished->summary;
    if (!finished->title.empty()) run.result.title = finished->title;
    return run.result;
  }
  return std::nullopt;
}

// Step `step` of the tool loop: one model request and the tool calls of its
// reply. Returns how the turn ends, if it does.
std::optional<AgentResult> TakeStep(TurnRun& run, llm::Model& model, agent::Toolbox& tools,
                                    llm::ModelRequest& request, int step) {
  if (run.cancel.cancelled()) return run.Interrupted();
  if (run.cancel.stop_requested()) return StopOnRequest(run, step);
  if (step > run.budgets.max_steps) {
    return run.Fail("the agent used its " + std::to_string(run.budgets.max_steps) +
                    " steps without finishing; nothing was pushed");
  }
  if (Clock::now() - run.started > run.budgets.max_wall) {
    return run.Fail("the turn ran out of time (" + std::to_string(run.budgets.max_wall.count()) +
                    " s); nothing was pushed");
  }
  // Steps held back are told once the request is sent (or now, whatever the
  // outcome), before anything the reply adds.
  if (run.holding) request.on_sent = [&run] { run.Tell(); };
  auto reply = model.Complete(request);
  request.on_sent = nullptr;
  run.Tell();
  // A reply that came was paid for, even if the turn was cancelled meanwhile.
  if (reply.ok()) run.result.usage += reply->usage;
  if (run.cancel.cancelled()) return run.Interrupted();
  if (!reply.ok()) return run.Fail(reply.status().message());
  const TokenUsage& usage = run.result.usage;
  if (usage.total() > run.budgets.max_tokens) {
    return run.Fail("the turn used more than " + std::to_string(run.budgets.max_tokens) +
                    " tokens; nothing was pushed");
  }
  if (!reply->text.empty()) {
    run.Record(TranscriptStep{TranscriptStep::Kind::kAssistant,
                              Bounded(reply->text, kMaxStepResultBytes)});
  }
  // Only the first kMaxToolCallsPerReply calls of a reply are carried out; the
  // rest are neither recorded nor sent back (a reply of 50,000 calls would grow
  // every later request and the transcript by as much). The model is told.
  size_t refused_calls = 0;
  if (reply->tool_calls.size() > kMaxToolCallsPerReply) {
    refused_calls = reply->tool_calls.size() - kMaxToolCallsPerReply;
    reply->tool_calls.resize(kMaxToolCallsPerReply);
  }
  llm::ChatMessage said{llm::ChatMessage::Role::kAssistant, reply->text, reply->tool_calls};
  request.messages.push_back(said);
  if (reply->tool_calls.empty()) {
    // No tool call and no finish: ask for one, which costs a step.
    request.messages.push_back({llm::ChatMessage::Role::kUser,
                                "Use the tools to carry out the instruction, then call finish."});
  } else if (auto end = CarryOutToolCalls(run, tools, request, *reply, refused_calls)) {
    return end;
  }
  // A monthly budget crossed by this step's reply ends the turn once its tool
  // calls are carried out (they were paid for), keeping the work.
  if (run.turn.spend_limit) {
    if (auto crossed = run.turn.spend_limit->Crossed(request.model, usage)) {
      return StopOverBudget(run, step, std::move(*crossed));
    }
  }
  return std::nullopt;
}

}  // namespace

AgentResult ModelAgent::Run(const TurnInput& turn, git::Workspace& workspace,
                            const TurnContext& context, CancelToken& cancel) {
  TurnRun run{.turn = turn,
              .workspace = workspace,
              .context = context,
              .cancel = cancel,
              .budgets = budgets_};
  if (!turn.job.model || turn.job.model->empty()) {
    return run.Fail(
        "no model is set for this job: set DOCWRIGHT_MODEL, the project's --model, or "
        "the job's \"model\"");
  }
  llm::ProviderConfig config = provider_;
  config.sleep = [&cancel](std::chrono::milliseconds d) { return !cancel.WaitFor(d); };
  config.cancelled = [&cancel] { return cancel.cancelled(); };
  auto model = llm::MakeModel(config);
  if (!model.ok()) return run.Fail(model.status().message());

  run.started = Clock::now();
  run.deadline = std::chrono::steady_clock::now() + budgets_.max_wall;
  // The workspace has no edits yet: the map and the policy are the base's,
  // as the runner built it (TurnContext::site_map), else under the runner's
  // limits (the defaults: the map in the prompt is cut by bytes anyway), so
  // that one map of a commit serves both.
  run.work = workspace.base().budget();
  std::shared_ptr<const docs::SiteMap> map = context.site_map;
  if (!map) {
    map = docs::SharedSiteMap(workspace, {.cancel = &cancel,
                                          .deadline = run.deadline,
                                          .turn = run.work,
                                          .site_root = turn.project.site_root,
                                          .cache = context.docs_cache});
  }
  if (run.work && run.work->spent()) {
    if (cancel.cancelled() || run.work->cancelled()) return run.Interrupted();
    return run.Fail("the turn's work over the repository was stopped: " +
                    run.work->status().message() + "; nothing was pushed");
  }
  agent::WritePolicy policy(*map, turn.project.write_paths);
  agent::Toolbox tools(workspace, &policy, context.repositories);
  llm::ModelRequest request = FirstRequest(run, *map, policy);
  run.repairs_left = budgets_.repair_rounds;

  for (int step = 1;; ++step) {
    auto step_started = Clock::now();
    std::optional<AgentResult> end = TakeStep(run, **model, tools, request, step);
    metrics::RecordStep(metrics::SecondsSince(step_started));
    if (end) {
      run.Tell();  // held back for a request the turn ended before sending
      return *end;
    }
  }
}

}  // namespace docwright::agent
