#include "cli/job_commands.h"

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "client/api_client.h"

namespace docwright {
namespace {

using Json = nlohmann::json;

struct JobOptions {
  std::string url = "http://127.0.0.1:8080";
  std::string key;
  std::string project;
  std::string job_id;
  std::string prompt;
  std::string prompt_file;
  std::string model;
  bool draft = false;
  bool wait = false;
  bool json = false;
  double timeout_s = 3600;
  int interval_ms = 1000;
};

void AddConnection(CLI::App* cmd, JobOptions& o) {
  cmd->add_option("--url", o.url, "base URL of the docwright server")->envname("DOCWRIGHT_URL");
  cmd->add_option("--key", o.key, "API key (prefer the environment variable)")
      ->envname("DOCWRIGHT_API_KEY")
      ->required();
  cmd->add_option("--project", o.project, "project id")->required();
}

void AddPrompt(CLI::App* cmd, JobOptions& o) {
  auto* text = cmd->add_option("--prompt", o.prompt, "the instruction");
  auto* file = cmd->add_option("--prompt-file", o.prompt_file,
                               "read the instruction from a file, - for stdin");
  text->excludes(file);
}

void AddWaitFlags(CLI::App* cmd, JobOptions& o) {
  cmd->add_option("--timeout", o.timeout_s, "seconds to wait at most");
  cmd->add_option("--interval", o.interval_ms, "milliseconds between polls");
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

std::string JobPath(const JobOptions& o, const std::string& suffix = "") {
  return "/v2/agent/" + o.project + "/job" + suffix;
}

bool IsTerminal(const Json& job) {
  return job.is_object() && job.contains("status") && job["status"] != "active";
}

// Polls until the job leaves `active`; prints it; exit 0 unless it failed.
int Wait(ApiClient& client, const JobOptions& o, const std::string& id) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000));
  int interval = std::clamp(o.interval_ms, 50, 60000);
  for (;;) {
    auto r = client.Get(JobPath(o, "/" + id));
    if (!r.ok()) return Error(r.status().message());
    if (r->status != 200) return ReplyError(*r);
    Json job = Json::parse(r->body, nullptr, false);
    if (IsTerminal(job)) {
      std::cout << r->body << "\n";
      return job["status"] == "failed" ? 1 : 0;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      std::cout << r->body << "\n";
      return Error("timed out waiting for job " + id);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(interval));
  }
}

}  // namespace

void AddJobCommands(CLI::App& app, std::function<int()>& action) {
  auto o = std::make_shared<JobOptions>();
  auto* job = app.add_subcommand("job", "client: create and follow jobs on a running server");
  job->require_subcommand(1);

  auto* create = job->add_subcommand("create", "create a job; prints its id");
  AddConnection(create, *o);
  AddPrompt(create, *o);
  create->add_option("--model", o->model, "model for this job");
  create->add_flag("--draft", o->draft, "ask for a draft pull request");
  create->add_flag("--wait", o->wait, "wait until the job ends and print it");
  create->add_flag("--json", o->json, "print the job as JSON");
  AddWaitFlags(create, *o);
  create->callback([&action, o] {
    action = [o]() -> int {
      auto prompt = ReadPrompt(*o);
      if (!prompt.ok()) return Error(prompt.status().message());
      Json body = {{"prompt", *prompt}};
      if (!o->model.empty()) body["model"] = o->model;
      if (o->draft) body["draft"] = true;
      ApiClient client(o->url, o->key);
      auto r = client.Post(JobPath(*o), body.dump());
      if (!r.ok()) return Error(r.status().message());
      if (r->status != 201) return ReplyError(*r);
      Json created = Json::parse(r->body, nullptr, false);
      std::string id = created.value("id", "");
      if (o->wait) return Wait(client, *o, id);
      if (o->json) {
        std::cout << r->body << "\n";
      } else {
        std::cout << "Created job on branch " << created["source"].value("ref", "") << ".\n"
                  << id << "\n";
      }
      return 0;
    };
  });

  auto* get = job->add_subcommand("get", "print a job as JSON");
  AddConnection(get, *o);
  get->add_option("JOB_ID", o->job_id, "job id")->required();
  get->callback([&action, o] {
    action = [o]() -> int {
      ApiClient client(o->url, o->key);
      auto r = client.Get(JobPath(*o, "/" + o->job_id));
      if (!r.ok()) return Error(r.status().message());
      if (r->status != 200) return ReplyError(*r);
      std::cout << r->body << "\n";
      return 0;
    };
  });

  auto* wait = job->add_subcommand(
      "wait", "wait until a job is completed, archived or failed; exit 1 if it failed");
  AddConnection(wait, *o);
  wait->add_option("JOB_ID", o->job_id, "job id")->required();
  AddWaitFlags(wait, *o);
  wait->callback([&action, o] {
    action = [o]() -> int {
      ApiClient client(o->url, o->key);
      return Wait(client, *o, o->job_id);
    };
  });

  auto* message = job->add_subcommand("message", "send a follow-up instruction to a job");
  AddConnection(message, *o);
  message->add_option("JOB_ID", o->job_id, "job id")->required();
  AddPrompt(message, *o);
  message->add_flag("--wait", o->wait, "wait until the turn ends and print the job");
  AddWaitFlags(message, *o);
  message->callback([&action, o] {
    action = [o]() -> int {
      auto prompt = ReadPrompt(*o);
      if (!prompt.ok()) return Error(prompt.status().message());
      ApiClient client(o->url, o->key);
      auto r =
          client.Post(JobPath(*o, "/" + o->job_id + "/message"), Json{{"prompt", *prompt}}.dump());
      if (!r.ok()) return Error(r.status().message());
      if (r->status != 200) return ReplyError(*r);
      if (o->wait) return Wait(client, *o, o->job_id);
      std::cout << r->body << "\n";
      return 0;
    };
  });
}

}  // namespace docwright
