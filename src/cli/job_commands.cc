#include "cli/job_commands.h"

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/job_follow.h"
#include "client/api_client.h"
#include "core/ids.h"
#include "core/text.h"
#include "core/url.h"

namespace docwright {
namespace {

using Json = nlohmann::ordered_json;  // prints as the server sent it

struct JobOptions {
  std::string url = "http://127.0.0.1:8080";
  std::string key;
  std::string project;
  std::string job_id;
  std::string prompt;
  std::string prompt_file;
  std::string model;
  std::string status;
  std::string cursor;
  std::string idempotency_key;
  int limit = 20;
  bool draft = false;
  bool wait = false;
  bool follow = false;
  bool json = false;
  double timeout_s = 3600;
  int interval_ms = 1000;
};

// --url and --key; --project, required by commands that name a job's project in
// their path, optional (for a job found by its id alone) elsewhere.
void AddConnection(CLI::App* cmd, JobOptions& o, bool project_required = true) {
  cmd->add_option("--url", o.url, "base URL of the docwright server")
      ->envname("DOCWRIGHT_URL")
      ->capture_default_str();
  cmd->add_option("--key", o.key, "API key (prefer the environment variable)")
      ->envname("DOCWRIGHT_API_KEY")
      ->required();
  auto* project = cmd->add_option("--project", o.project,
                                  project_required ? "project id"
                                                   : "project id (default: found from the job id)")
                      ->envname("DOCWRIGHT_PROJECT");
  if (project_required) project->required();
}

void AddPrompt(CLI::App* cmd, JobOptions& o) {
  auto* text = cmd->add_option("--prompt", o.prompt, "the instruction");
  auto* file = cmd->add_option("--prompt-file", o.prompt_file,
                               "read the instruction from a file, - for stdin");
  text->excludes(file);
}

// --idempotency-key: the server answers every repeat of the request with the
// first one's response, so the command retries its POST on a transient failure,
// and a script that runs the command again with the same key writes once.
void AddIdempotencyKey(CLI::App* cmd, JobOptions& o) {
  cmd->add_option("--idempotency-key", o.idempotency_key,
                  "names this request: the same key with the same request is done once "
                  "(kept 24 hours; default: a new random key, for this command's own retries)");
}

// The request's key: the user's, or a new one.
std::string IdempotencyKey(const JobOptions& o) {
  return o.idempotency_key.empty() ? RandomBase62(32) : o.idempotency_key;
}

void AddWaitFlags(CLI::App* cmd, JobOptions& o) {
  cmd->add_option("--timeout", o.timeout_s, "seconds to wait at most")->capture_default_str();
  cmd->add_option("--interval", o.interval_ms, "milliseconds between polls")->capture_default_str();
}

int Error(const std::string& message) {
  std::cerr << "error: " << message << "\n";
  return 1;
}

// The server's message for a non-2xx reply.
int ReplyError(const http::Response& r) {
  Json body = Json::parse(r.body, nullptr, false);
  std::string message = body.is_object() && body.contains("error") && body["error"].is_string()
                            ? body["error"].get<std::string>()
                            : r.body.substr(0, 200);
  return Error(message + " (HTTP " + std::to_string(r.status) + ")");
}

Result<std::string> ReadPrompt(const JobOptions& o) {
  if (o.prompt_file.empty()) {
    if (o.prompt.empty()) return Status::InvalidArgument("--prompt or --prompt-file is required");
    return o.prompt;
  }
  // The server takes at most 1 MiB in a body; read no more than that and a bit.
  constexpr size_t kLimit = 1 << 20;
  std::ifstream file;
  std::istream* in = &std::cin;
  if (o.prompt_file != "-") {
    file.open(o.prompt_file, std::ios::binary);
    if (!file) return Status::InvalidArgument("cannot read " + o.prompt_file);
    in = &file;
  }
  std::string text(kLimit + 1, '\0');
  in->read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in->gcount()));
  if (text.size() > kLimit) return Status::InvalidArgument("the prompt file is larger than 1 MiB");
  return text;
}

std::string ProjectPath(const JobOptions& o) { return "/v2/agent/" + PercentEncode(o.project); }

std::string JobPath(const JobOptions& o, const std::string& suffix = "") {
  return ProjectPath(o) + "/job" + suffix;
}

// The job's own path, or, without --project, the route that finds it by id.
std::string GetPath(const JobOptions& o, const std::string& id) {
  return o.project.empty() ? "/v2/agent/job/" + PercentEncode(id)
                           : JobPath(o, "/" + PercentEncode(id));
}

bool IsTerminal(const Json& job) {
  return job.is_object() && job.contains("status") && job["status"] != "active";
}

// GET `path`, expecting 200 and a JSON body.
Result<Json> GetJson(ApiClient& client, const std::string& path, int* exit_code) {
  auto r = client.Get(path);
  if (!r.ok()) {
    *exit_code = Error(r.status().message());
    return r.status();
  }
  if (r->status != 200) {
    *exit_code = ReplyError(*r);
    return Status::Unavailable("HTTP " + std::to_string(r->status));
  }
  Json body = Json::parse(r->body, nullptr, false);
  if (body.is_discarded()) {
    *exit_code = Error("the server's answer is not JSON");
    return Status::Unavailable("not JSON");
  }
  return body;
}

// Polls until the job leaves `active`; prints it; exit 0 unless it failed.
int Wait(ApiClient& client, const JobOptions& o, const std::string& id) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000));
  int interval = std::clamp(o.interval_ms, 50, 60000);
  for (;;) {
    int code = 1;
    auto job = GetJson(client, GetPath(o, id), &code);
    if (!job.ok()) return code;
    if (IsTerminal(*job)) {
      std::cout << job->dump() << "\n";
      return (*job)["status"] == "failed" ? 1 : 0;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      std::cout << job->dump() << "\n";
      return Error("timed out waiting for job " + id);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(interval));
  }
}

std::string Field(const Json& j, const char* name) {
  if (!j.is_object() || !j.contains(name) || j[name].is_null()) return "-";
  return j[name].is_string() ? j[name].get<std::string>() : j[name].dump();
}

// One step of a transcript, on one line.
std::string StepLine(const Json& step) {
  std::string type = Field(step, "type");
  if (type == "tool") {
    return std::string(step.value("isError", false) ? "  ! " : "  > ") + Field(step, "tool") + " " +
           OneLogLine(Field(step, "arguments"), 160) + " -> " +
           OneLogLine(Field(step, "result"), 160);
  }
  return "  " + type + ": " + OneLogLine(Field(step, "text"), 320);
}

// Text from a model or a repository, made safe for a terminal: no escape
// sequences or other control characters, line breaks kept.
std::string Printable(const std::string& text) {
  std::string out = ScrubUtf8(text);
  for (char& c : out) {
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) c = ' ';
  }
  return out;
}

void PrintMessage(const Json& m) {
  const Json& turn = m.contains("turn") ? m["turn"] : Json();
  std::cout << "#" << Field(m, "seq") << " " << Field(turn, "state") << "  "
            << OneLogLine(Field(m, "prompt"), 200) << "\n";
  if (turn.is_object() && turn.contains("steps") && turn["steps"].is_array()) {
    for (const Json& step : turn["steps"]) std::cout << StepLine(step) << "\n";
  }
  if (Field(turn, "summary") != "-") {
    std::cout << "  summary: " << Printable(Field(turn, "summary")) << "\n";
  }
  if (Field(turn, "error") != "-")
    std::cout << "  error: " << Printable(Field(turn, "error")) << "\n";
}

// A command's action: builds the client, runs `fn`.
template <typename Fn>
std::function<int()> WithClient(std::shared_ptr<JobOptions> o, Fn fn) {
  return [o, fn]() -> int {
    ApiClient client(o->url, o->key);
    return fn(client, *o);
  };
}

using JobOptionsPtr = std::shared_ptr<JobOptions>;

// The path of the job's messages, from `cursor` on ("": the first page).
std::string MessagesPath(const JobOptions& o, const std::string& cursor) {
  return JobPath(o, "/" + PercentEncode(o.job_id) + "/messages") +
         (cursor.empty() ? "" : "?cursor=" + PercentEncode(cursor));
}

// What `job follow` is given, for job `id`.
FollowOptions Following(const JobOptions& o, const std::string& id) {
  return FollowOptions{
      .project = o.project, .job_id = id, .json = o.json, .timeout_s = o.timeout_s};
}

int CreateJob(ApiClient& client, const JobOptions& o) {
  auto prompt = ReadPrompt(o);
  if (!prompt.ok()) return Error(prompt.status().message());
  Json body = {{"prompt", *prompt}};
  if (!o.model.empty()) body["model"] = o.model;
  if (o.draft) body["draft"] = true;
  auto r = client.Post(JobPath(o), body.dump(), IdempotencyKey(o));
  if (!r.ok()) return Error(r.status().message());
  if (r->status != 201) return ReplyError(*r);
  Json created = Json::parse(r->body, nullptr, false);
  std::string id = created.value("id", "");
  if (o.wait) return Wait(client, o, id);
  if (o.follow) {
    // The job.created event carries the job: --json prints it there.
    if (!o.json) {
      std::cout << "Created job " << id << " on branch " << created["source"].value("ref", "")
                << ".\n";
    }
    return FollowJob(client, Following(o, id));
  }
  if (o.json) {
    std::cout << r->body << "\n";
  } else {
    std::cout << "Created job on branch " << created["source"].value("ref", "") << ".\n"
              << id << "\n";
  }
  return 0;
}

void AddCreateCommand(CLI::App* job, std::function<int()>& action, const JobOptionsPtr& o) {
  auto* create = job->add_subcommand("create", "create a job; prints its id");
  AddConnection(create, *o);
  AddPrompt(create, *o);
  create->add_option("--model", o->model, "model for this job (default: the project's)");
  create->add_flag("--draft", o->draft, "ask for a draft pull request");
  AddIdempotencyKey(create, *o);
  auto* wait = create->add_flag("--wait", o->wait, "wait until the job ends and print it");
  create
      ->add_flag("--follow", o->follow,
                 "print the job's events as they happen until it ends, as `job follow`")
      ->excludes(wait);
  create->add_flag("--json", o->json, "print the job as JSON (with --follow: each event)");
  AddWaitFlags(create, *o);
  create->callback([&action, o] { action = WithClient(o, CreateJob); });
}

int GetJob(ApiClient& client, const JobOptions& o) {
  int code = 1;
  auto job = GetJson(client, GetPath(o, o.job_id), &code);
  if (!job.ok()) return code;
  std::cout << job->dump() << "\n";
  return 0;
}

void AddGetCommand(CLI::App* job, std::function<int()>& action, const JobOptionsPtr& o) {
  auto* get = job->add_subcommand("get", "print a job as JSON");
  AddConnection(get, *o, false);
  get->add_option("JOB_ID", o->job_id, "job id")->required();
  get->callback([&action, o] { action = WithClient(o, GetJob); });
}

int ListJobs(ApiClient& client, const JobOptions& o) {
  std::string query = "?limit=" + std::to_string(o.limit);
  if (!o.status.empty()) query += "&status=" + PercentEncode(o.status);
  if (!o.cursor.empty()) query += "&cursor=" + PercentEncode(o.cursor);
  int code = 1;
  auto page = GetJson(client, ProjectPath(o) + "/jobs" + query, &code);
  if (!page.ok()) return code;
  if (o.json) {
    std::cout << page->dump() << "\n";
    return 0;
  }
  for (const Json& j : (*page)["jobs"]) {
    std::cout << Field(j, "id") << "  " << Field(j, "status") << "  " << Field(j, "createdAt")
              << "  " << Field(j, "model") << "  " << Field(j, "prLink") << "\n";
  }
  if (Field(*page, "nextCursor") != "-") {
    std::cout << "more: --cursor " << Field(*page, "nextCursor") << "\n";
  }
  return 0;
}

void AddListCommand(CLI::App* job, std::function<int()>& action, const JobOptionsPtr& o) {
  auto* list = job->add_subcommand("list", "list a project's jobs, newest first");
  AddConnection(list, *o);
  list->add_option("--status", o->status,
                   "only jobs in this state: active, completed, "
                   "archived or failed (default: all)");
  list->add_option("--limit", o->limit, "jobs per page, 1 to 100")->capture_default_str();
  list->add_option("--cursor", o->cursor, "the page after this cursor (printed last)");
  list->add_flag("--json", o->json, "print the page as the API gives it");
  list->callback([&action, o] { action = WithClient(o, ListJobs); });
}

void AddWaitCommand(CLI::App* job, std::function<int()>& action, const JobOptionsPtr& o) {
  auto* wait = job->add_subcommand(
      "wait", "wait until a job is completed, archived or failed; exit 1 if it failed");
  AddConnection(wait, *o, false);
  wait->add_option("JOB_ID", o->job_id, "job id")->required();
  AddWaitFlags(wait, *o);
  wait->callback([&action, o] {
    action = WithClient(
        o, [](ApiClient& client, const JobOptions& o) { return Wait(client, o, o.job_id); });
  });
}

void AddFollowCommand(CLI::App* job, std::function<int()>& action, const JobOptionsPtr& o) {
  auto* follow = job->add_subcommand(
      "follow",
      "print a job's events as they happen (a progress line on a terminal, a line per event "
      "otherwise), from its first, until it ends; exit 1 if it failed");
  AddConnection(follow, *o);
  follow->add_option("JOB_ID", o->job_id, "job id")->required();
  follow->add_flag("--json", o->json, "print each event as JSON, one a line");
  AddWaitFlags(follow, *o);
  follow->callback([&action, o] {
    action = WithClient(o, [](ApiClient& client, const JobOptions& o) {
      return FollowJob(client, Following(o, o.job_id));
    });
  });
}

int PrintTranscript(ApiClient& client, const JobOptions& o) {
  std::string cursor;
  for (;;) {
    int code = 1;
    auto page = GetJson(client, MessagesPath(o, cursor), &code);
    if (!page.ok()) return code;
    if (o.json) {
      std::cout << page->dump() << "\n";
    } else {
      for (const Json& m : (*page)["messages"]) PrintMessage(m);
    }
    cursor = Field(*page, "nextCursor");
    if (cursor == "-") return 0;
  }
}

void AddTranscriptCommand(CLI::App* job, std::function<int()>& action, const JobOptionsPtr& o) {
  auto* transcript =
      job->add_subcommand("transcript", "print a job's messages and its turns' steps, every page");
  AddConnection(transcript, *o);
  transcript->add_option("JOB_ID", o->job_id, "job id")->required();
  transcript->add_flag("--json", o->json, "print each page as the API gives it, one a line");
  transcript->callback([&action, o] { action = WithClient(o, PrintTranscript); });
}

int SendMessage(ApiClient& client, const JobOptions& o) {
  auto prompt = ReadPrompt(o);
  if (!prompt.ok()) return Error(prompt.status().message());
  Json body{{"prompt", *prompt}};
  if (!o.model.empty()) body["model"] = o.model;
  auto r = client.Post(JobPath(o, "/" + PercentEncode(o.job_id) + "/message"), body.dump(),
                       IdempotencyKey(o));
  if (!r.ok()) return Error(r.status().message());
  if (r->status != 200) return ReplyError(*r);
  if (o.wait) return Wait(client, o, o.job_id);
  std::cout << r->body << "\n";
  return 0;
}

void AddMessageCommand(CLI::App* job, std::function<int()>& action, const JobOptionsPtr& o) {
  auto* message = job->add_subcommand("message", "send a follow-up instruction to a job");
  AddConnection(message, *o);
  message->add_option("JOB_ID", o->job_id, "job id")->required();
  AddPrompt(message, *o);
  message->add_option("--model", o->model,
                      "model for this turn and the job's later ones (default: the job's)");
  AddIdempotencyKey(message, *o);
  message->add_flag("--wait", o->wait, "wait until the turn ends and print the job");
  AddWaitFlags(message, *o);
  message->callback([&action, o] { action = WithClient(o, SendMessage); });
}

int StopJob(ApiClient& client, const JobOptions& o) {
  auto r = client.Post(JobPath(o, "/" + PercentEncode(o.job_id) + "/stop"), "");
  if (!r.ok()) return Error(r.status().message());
  if (r->status != 200) return ReplyError(*r);
  if (o.wait) return Wait(client, o, o.job_id);
  std::cout << r->body << "\n";
  return 0;
}

void AddStopCommand(CLI::App* job, std::function<int()>& action, const JobOptionsPtr& o) {
  auto* stop = job->add_subcommand(
      "stop",
      "end the job's running turn after its current step, keeping its work on the branch and "
      "in the pull request; a later follow-up continues the job");
  AddConnection(stop, *o);
  stop->add_option("JOB_ID", o->job_id, "job id")->required();
  stop->add_flag("--wait", o->wait, "wait until the turn ends and print the job");
  AddWaitFlags(stop, *o);
  stop->callback([&action, o] { action = WithClient(o, StopJob); });
}

int ArchiveJob(ApiClient& client, const JobOptions& o) {
  auto r = client.Post(JobPath(o, "/" + PercentEncode(o.job_id) + "/archive"), "");
  if (!r.ok()) return Error(r.status().message());
  if (r->status != 200) return ReplyError(*r);
  std::cout << r->body << "\n";
  return 0;
}

void AddArchiveCommand(CLI::App* job, std::function<int()>& action, const JobOptionsPtr& o) {
  auto* archive = job->add_subcommand(
      "archive", "archive a job: its running turn stops, later follow-ups are refused");
  AddConnection(archive, *o);
  archive->add_option("JOB_ID", o->job_id, "job id")->required();
  archive->callback([&action, o] { action = WithClient(o, ArchiveJob); });
}

}  // namespace

void AddJobCommands(CLI::App& app, std::function<int()>& action) {
  auto o = std::make_shared<JobOptions>();
  auto* job = app.add_subcommand("job", "client: create and follow jobs on a running server");
  job->require_subcommand(1);
  AddCreateCommand(job, action, o);
  AddGetCommand(job, action, o);
  AddListCommand(job, action, o);
  AddWaitCommand(job, action, o);
  AddFollowCommand(job, action, o);
  AddTranscriptCommand(job, action, o);
  AddMessageCommand(job, action, o);
  AddStopCommand(job, action, o);
  AddArchiveCommand(job, action, o);
}

}  // namespace docwright
