// `docwright serve` and `docwright worker`: the API server and the worker pool,
// configured from flags and the environment.
#include "cli/serve_command.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>
#include <tuple>

#include "api/api.h"
#include "cli/common.h"
#include "cli/node_sizing.h"
#include "cli/serve_metrics.h"
#include "cli/serve_runner.h"
#include "cli/serve_workflows.h"
#include "core/crash_point.h"
#include "core/job.h"
#include "core/text.h"
#include "events/delivery_workers.h"
#include "events/event_streams.h"
#include "forge/forge.h"
#include "http/client.h"
#include "http/server.h"
#include "runner/repository_turns.h"
#include "runner/runner.h"
#include "store/cached_store.h"
#include "store/store.h"

namespace docwright {
namespace {

// A positive whole number from the environment; nullopt when unset.
Result<std::optional<int64_t>> EnvCount(const char* name, int64_t max) {
  auto text = Env(name);
  if (!text) return std::optional<int64_t>();
  try {
    size_t used = 0;
    int64_t n = std::stoll(*text, &used);
    if (used == text->size() && n >= 1 && n <= max) return std::optional<int64_t>(n);
  } catch (...) {
  }
  return Status::InvalidArgument(std::string(name) + " must be a whole number from 1 to " +
                                 std::to_string(max));
}

Result<ModelConfig> ReadModelConfig() {
  ModelConfig c{Env("DOCWRIGHT_LLM_PROVIDER"), Env("DOCWRIGHT_LLM_BASE_URL"),
                Env("DOCWRIGHT_LLM_API_KEY"), Env("DOCWRIGHT_MODEL")};
  if (c.provider && *c.provider != "openai" && *c.provider != "anthropic") {
    return Status::InvalidArgument("DOCWRIGHT_LLM_PROVIDER must be openai or anthropic, not \"" +
                                   *c.provider + "\"");
  }
  for (auto [name, field, max] :
       {std::tuple{"DOCWRIGHT_MAX_STEPS", &c.max_steps, int64_t{1000}},
        std::tuple{"DOCWRIGHT_MAX_TURN_SECONDS", &c.max_turn_seconds, int64_t{24 * 3600}},
        std::tuple{"DOCWRIGHT_MAX_TURN_TOKENS", &c.max_turn_tokens, int64_t{1'000'000'000}}}) {
    auto n = EnvCount(name, max);
    if (!n.ok()) return n.status();
    *field = *n;
  }
  if (c.provider && !c.base_url) {
    c.base_url =
        *c.provider == "anthropic" ? "https://api.anthropic.com" : "https://api.openai.com/v1";
  }
  return c;
}

// Half a model configuration fails every job later, after a wait: say so at
// start, for each missing part, and whether the provider answers at all.
void WarnAboutModelConfig(const ModelConfig& m) {
  if (!m.provider) {
    for (const char* name :
         {"DOCWRIGHT_LLM_BASE_URL", "DOCWRIGHT_LLM_API_KEY", "DOCWRIGHT_MODEL"}) {
      if (Env(name)) {
        spdlog::warn(
            "{} is set but DOCWRIGHT_LLM_PROVIDER is not, so no model is used: set it "
            "to openai or anthropic",
            name);
      }
    }
    return;
  }
  const std::string where = RedactCredentials(*m.base_url);
  if (!m.api_key) {
    spdlog::warn(
        "DOCWRIGHT_LLM_API_KEY is not set: the {} provider at {} will refuse the "
        "requests, unless it is a server that needs no key",
        *m.provider, where);
  }
  if (!m.model) {
    spdlog::warn(
        "DOCWRIGHT_MODEL is not set: each job needs its project's --model or a model "
        "of its own, or it fails");
  }
  // Whether anything listens there: a connection, nothing sent.
  http::Request probe{.url = *m.base_url,
                      .timeout = std::chrono::seconds(5),
                      .connect_timeout = std::chrono::seconds(3),
                      .connect_only = true};
  auto answered = http::Client().Send(probe);
  if (!answered.ok()) {
    spdlog::warn("the model provider at {} cannot be reached: {}; jobs will fail until it can",
                 where, answered.status().message());
  }
}

constexpr int kMaxWorkers = 2000;

// The options of both `serve` and `worker`: the turns this node runs.
struct NodeOptions {
  // Turns in flight on this node. A turn spends nearly all its time waiting for
  // the model, so this is sized for waiting, not for the cores: -1 (not given)
  // sizes it to the process's memory, descriptors and threads (NodeWorkers).
  int workers = -1;
  std::string public_url;
  double lease_seconds = 30;
  int turn_deadline_s = 0;  // 0: the agent's wall-time budget plus five minutes
  int git_timeout_s = 60;
  std::string commit_name = "docwright";
  std::string commit_email = "docwright@localhost";
  // Webhook deliveries (events/delivery_workers.h).
  int webhook_workers = 4;
  double webhook_timeout_s = 10;
  double webhook_retry_base_s = 5;
  double webhook_disable_after_s = 24 * 3600;
  bool webhook_allow_private = false;
  WorkflowFlags workflows;
  MetricsFlags metrics;
  int docs_cache_mb = 64;  // the node's docs cache (docs/commit_cache.h); 0: none
};

// The options of `serve` alone: its HTTP server.
struct HttpOptions {
  std::string listen = "127.0.0.1:8080";
  int io_threads = 0;
  int cache_ms = 250;
  int request_timeout_s = 30;
  int header_timeout_s = 10;
  int max_connections_per_ip = 128;
  std::string port_file;              // written with the port once listening (for --listen ...:0)
  std::string access_log = "stderr";  // off, stderr or a file
  std::vector<std::string> trusted_proxies;          // address ranges of reverse proxies
  std::string forwarded_header = "x-forwarded-for";  // the header they name the client in
  std::vector<std::string> v1_models;                // NAME=MODEL: the v1 create's model names
  int event_streams_per_key = 100;                   // event streams one API key may hold open
  int event_heartbeat_s = 15;                        // a stream's heartbeat when nothing happens
  int64_t session_lifetime_s = 43200;                // how long a browser's sign-in lasts
};

struct ServeOptions {
  NodeOptions node;
  HttpOptions http;
};

// The options of webhook deliveries, on `serve` and `worker` alike.
void AddWebhookOptions(CLI::App* cmd, NodeOptions& o) {
  cmd->add_option(
         "--webhook-workers", o.webhook_workers,
         "webhook requests in flight on this node, one a job and endpoint at most (default 4; "
         "0: this node delivers none)")
      ->check(CLI::Range(0, 256))
      ->envname("DOCWRIGHT_WEBHOOK_WORKERS");
  cmd->add_option("--webhook-timeout", o.webhook_timeout_s,
                  "seconds a webhook request may take, connection included (default 10)")
      ->check(CLI::Range(0.1, 300.0))
      ->envname("DOCWRIGHT_WEBHOOK_TIMEOUT");
  cmd->add_option("--webhook-retry-base", o.webhook_retry_base_s,
                  "seconds of the first retry's backoff, doubled at each failure up to an hour, "
                  "with full jitter (default 5)")
      ->check(CLI::Range(0.01, 3600.0))
      ->envname("DOCWRIGHT_WEBHOOK_RETRY_BASE");
  cmd->add_option("--webhook-disable-after", o.webhook_disable_after_s,
                  "seconds a delivery may keep failing before its endpoint is disabled "
                  "(default 86400: a day)")
      ->check(CLI::Range(1.0, 30 * 86400.0))
      ->envname("DOCWRIGHT_WEBHOOK_DISABLE_AFTER");
  cmd->add_flag("--webhook-allow-private", o.webhook_allow_private,
                "let webhooks reach private, loopback and link-local addresses (refused by "
                "default, checked on the address connected)")
      ->envname("DOCWRIGHT_WEBHOOK_ALLOW_PRIVATE");
}

// The delivery workers of a node with options `o`; null with --webhook-workers 0.
std::unique_ptr<events::DeliveryWorkers> MakeDeliveryWorkers(Store& store, const NodeOptions& o) {
  if (o.webhook_workers == 0) return nullptr;
  auto ms = [](double s) { return std::chrono::milliseconds(static_cast<int64_t>(s * 1000)); };
  events::DeliveryWorkersOptions wo;
  wo.threads = o.webhook_workers;
  wo.sender.timeout = wo.sender.connect_timeout = ms(o.webhook_timeout_s);
  wo.sender.allow_private = o.webhook_allow_private;
  wo.retry.base = ms(o.webhook_retry_base_s);
  wo.retry.give_up_after = ms(o.webhook_disable_after_s);
  // Past the request's deadline, so a live worker keeps its claim to the end.
  wo.lease = 2 * wo.sender.timeout + std::chrono::seconds(5);
  wo.poll =
      std::clamp(wo.retry.base, std::chrono::milliseconds(100), std::chrono::milliseconds(5000));
  auto workers = std::make_unique<events::DeliveryWorkers>(store, wo);
  workers->Start();
  spdlog::info("webhooks: {} delivery workers{}", o.webhook_workers,
               o.webhook_allow_private ? " (private addresses allowed)" : "");
  return workers;
}

// The options `serve` and `worker` share. `min_workers` is 0 for `serve` (the
// API alone) and 1 for `worker`, which exists to run turns.
void AddNodeOptions(CLI::App* cmd, NodeOptions& o, int min_workers) {
  cmd->add_option("--workers", o.workers,
                  "turns in flight, at most 2000 (default: what the memory, open files and "
                  "threads of the process allow, at most 1000; the log says why)")
      ->check(CLI::Range(min_workers, kMaxWorkers))
      ->envname("DOCWRIGHT_WORKERS");
  cmd->add_option("--public-url", o.public_url, "URL clients reach the API server at")
      ->envname("DOCWRIGHT_PUBLIC_URL");
  cmd->add_option("--turn-deadline", o.turn_deadline_s,
                  "seconds a turn may run before it is stopped and its job fails (default: "
                  "the agent's time budget plus 300)")
      ->check(CLI::Range(0, 24 * 3600))
      ->envname("DOCWRIGHT_TURN_DEADLINE");
  cmd->add_option("--lease-seconds", o.lease_seconds,
                  "how long a crashed worker's turn waits before it is re-run")
      ->check(CLI::Range(0.05, 3600.0))
      ->envname("DOCWRIGHT_LEASE_SECONDS");
  cmd->add_option("--git-timeout", o.git_timeout_s,
                  "seconds a git remote may stay silent during a fetch or push (and, up to "
                  "10, to accept a connection) before the operation fails")
      ->check(CLI::Range(1, 3600))
      ->envname("DOCWRIGHT_GIT_TIMEOUT");
  cmd->add_option("--commit-name", o.commit_name, "author name of the agent's commits")
      ->envname("DOCWRIGHT_COMMIT_NAME");
  cmd->add_option("--commit-email", o.commit_email, "author email of the agent's commits")
      ->envname("DOCWRIGHT_COMMIT_EMAIL");
  cmd->add_option("--docs-cache-mb", o.docs_cache_mb,
                  "MiB of site maps and check reports kept for the turns starting from the "
                  "same commit (default 64; 0: none)")
      ->check(CLI::Range(0, 65536))
      ->envname("DOCWRIGHT_DOCS_CACHE_MB");
  AddWebhookOptions(cmd, o);
  AddWorkflowOptions(cmd, o.workflows);
  AddMetricsOptions(cmd, o.metrics);
}

// `serve`'s options on where it listens and how it reads and caches.
void AddListenOptions(CLI::App* cmd, HttpOptions& o) {
  cmd->add_option("--listen", o.listen, "HOST:PORT to listen on")->envname("DOCWRIGHT_LISTEN");
  cmd->add_option("--io-threads", o.io_threads, "HTTP threads (default: one per core)")
      ->check(CLI::Range(0, 256));
  cmd->add_option("--cache-ms", o.cache_ms,
                  "how long a job or key read may lag writes made by other processes "
                  "(0: no cache)")
      ->check(CLI::Range(0, 60000))
      ->envname("DOCWRIGHT_CACHE_MS");
  cmd->add_option("--access-log", o.access_log,
                  "a line per request (method, route, status, time, key id, client): off, "
                  "stderr or a file to append to (default: stderr)")
      ->envname("DOCWRIGHT_ACCESS_LOG");
  cmd->add_option("--port-file", o.port_file,
                  "once listening, write the port to this file (with --listen HOST:0)");
}

// `serve`'s options on what it allows its clients, and on the proxies in front.
void AddClientOptions(CLI::App* cmd, HttpOptions& o) {
  cmd->add_option("--request-timeout", o.request_timeout_s,
                  "seconds a client has to send a request's body (or to idle between "
                  "keep-alive requests) and to read the response")
      ->check(CLI::Range(1, 3600));
  cmd->add_option("--header-timeout", o.header_timeout_s,
                  "seconds a client has to send a request's header, from its first byte "
                  "(from connecting, for the first request)")
      ->check(CLI::Range(1, 3600))
      ->envname("DOCWRIGHT_HEADER_TIMEOUT");
  cmd->add_option("--max-connections-per-ip", o.max_connections_per_ip,
                  "open connections one client address may hold (IPv6: per /64)")
      ->check(CLI::Range(1, 1000000))
      ->envname("DOCWRIGHT_MAX_CONNECTIONS_PER_IP");
  cmd->add_option("--trusted-proxy", o.trusted_proxies,
                  "address or ADDRESS/BITS of a reverse proxy, comma-separated: from these "
                  "peers the client address is read from Forwarded or X-Forwarded-For, and "
                  "their connections are not capped per address (default: none)")
      ->delimiter(',')
      ->envname("DOCWRIGHT_TRUSTED_PROXIES");
  cmd->add_option("--event-streams-per-key", o.event_streams_per_key,
                  "event streams (GET .../events, v1 creates) one API key may hold open; more "
                  "are answered 429")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str()
      ->envname("DOCWRIGHT_EVENT_STREAMS_PER_KEY");
  cmd->add_option("--event-heartbeat", o.event_heartbeat_s,
                  "seconds after which an event stream with nothing to send sends a heartbeat")
      ->check(CLI::Range(1, 300))
      ->capture_default_str()
      ->envname("DOCWRIGHT_EVENT_HEARTBEAT");
  cmd->add_option("--forwarded-header", o.forwarded_header,
                  "the header the trusted proxies name the client in: x-forwarded-for or "
                  "forwarded (RFC 7239); the other is ignored")
      ->check(CLI::IsMember({"x-forwarded-for", "forwarded"}))
      ->capture_default_str()
      ->envname("DOCWRIGHT_FORWARDED_HEADER");
  cmd->add_option("--v1-model", o.v1_models,
                  "NAME=MODEL: the model a v1 create's \"model\": NAME stands for (the "
                  "reference's names are sonnet and opus); repeatable, or comma-separated")
      ->delimiter(',')
      ->envname("DOCWRIGHT_V1_MODELS");
  cmd->add_option("--session-lifetime", o.session_lifetime_s,
                  "seconds a browser's sign-in (POST /v2/session) lasts")
      ->check(CLI::Range(int64_t{60}, int64_t{30} * 86400))
      ->capture_default_str()
      ->envname("DOCWRIGHT_SESSION_LIFETIME");
}

// The v1 model names of --v1-model, each NAME=MODEL once; InvalidArgument for
// anything else.
Result<std::vector<std::pair<std::string, std::string>>> ParseV1Models(
    const std::vector<std::string>& entries) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& entry : entries) {
    size_t eq = entry.find('=');
    std::string name = eq == std::string::npos ? "" : std::string(TrimSpace(entry.substr(0, eq)));
    std::string model = eq == std::string::npos ? "" : std::string(TrimSpace(entry.substr(eq + 1)));
    bool valid = Utf8Length(entry) && !name.empty() && !model.empty() &&
                 model.size() <= kMaxModelNameChars && name.size() <= kMaxModelNameChars &&
                 !HasControlCharacter(name + model, /*allow_line_breaks=*/false) &&
                 (name + model).find_first_of(" \t") == std::string::npos;
    if (!valid) {
      return Status::InvalidArgument("--v1-model must be NAME=MODEL (no spaces), got \"" +
                                     OneLogLine(entry, 200) + "\"");
    }
    for (const auto& [n, m] : out) {
      if (n == name) return Status::InvalidArgument("--v1-model names " + name + " twice");
    }
    out.emplace_back(std::move(name), std::move(model));
  }
  return out;
}

// Threads the runner left behind still run: the normal exit would destroy what
// they may touch. Their turns' leases expire and the turns are re-run elsewhere.
[[noreturn]] void ExitLeavingThreadsBehind() {
  spdlog::warn("exiting with worker threads still busy");
  spdlog::default_logger()->flush();
  spdlog::shutdown();  // joins the access log's thread: its queued lines are written
  std::fflush(nullptr);
  std::_Exit(0);
}

// Says so when a crash point is armed; InvalidArgument when one is misnamed.
Status ReportCrashPoint() {
  if (Status armed = CheckCrashPointSetting(); !armed.ok()) return armed;
  if (!ArmedCrashPoint().empty()) {
    spdlog::warn("crash point {} armed (DOCWRIGHT_CRASH_AT): this process dies when it reaches it",
                 ArmedCrashPoint());
  }
  return Status();
}

// Opens the node's store, making its data directory if need be. The node's own
// files live there: its mirrors and port file (and, with SQLite, the database).
// Owner-only: mirrors hold private repositories. `cache_ms` > 0 puts a cache of
// that lag in front of the store.
Result<std::unique_ptr<Store>> OpenNodeStore(const Common& common, int cache_ms) {
  std::error_code ec;
  if (!std::filesystem::exists(common.data_dir, ec)) {
    std::filesystem::create_directories(common.data_dir, ec);
    if (ec) return Status::Unavailable("cannot create " + common.data_dir + ": " + ec.message());
    ::chmod(common.data_dir.c_str(), 0700);
  }
  auto opened = Open(common);
  if (!opened.ok()) return opened.status();
  spdlog::info("secrets in the database sealed with the keys of {}", common.SecretKeyFile());
  std::unique_ptr<Store> store = std::move(*opened);
  if (cache_ms > 0) {
    store = NewCachedStore(std::move(store), CacheOptions{std::chrono::milliseconds(cache_ms)});
  }
  return store;
}

// A new data directory: say what to do next.
void SuggestQuickstart(Store& store, const Common& common) {
  if (auto orgs = store.ListOrgs(); orgs.ok() && orgs->empty()) {
    spdlog::info(
        "no organisation yet: to make one, with a key and a project, run in another terminal: "
        "docwright quickstart{} --repository PATH-OR-URL",
        common.database.empty() ? " --data-dir " + common.data_dir : " --database URL");
  }
}

// The agent turns run with, after a word on what is missing from `model`.
AgentChoice MakeNodeAgent(const ModelConfig& model, const AgentFactory& make_agent) {
  WarnAboutModelConfig(model);
  AgentChoice agent = make_agent(model);
  spdlog::info("agent: {}", agent.description);
  return agent;
}

RunnerOptions MakeRunnerOptions(const Common& common, const NodeOptions& o,
                                const ModelConfig& model) {
  RunnerOptions ro;
  ro.workers = o.workers;
  // A claim on PostgreSQL is a few round trips, which a create's answer would
  // wait for (RunnerOptions::claim_when_queued).
  ro.claim_when_queued = !IsPostgresUrl(common.DatabaseUrl());
  ro.lease = std::chrono::milliseconds(static_cast<int64_t>(o.lease_seconds * 1000));
  // The agent stops itself at its wall-time budget; the watchdog allows for the
  // fetch, push and pull request around it.
  ro.turn_deadline = o.turn_deadline_s > 0
                         ? std::chrono::seconds(o.turn_deadline_s)
                         : std::chrono::seconds(model.max_turn_seconds.value_or(15 * 60) + 5 * 60);
  ro.stuck_grace = std::min<std::chrono::milliseconds>(ro.stuck_grace, ro.turn_deadline);
  return ro;
}

RepositoryTurnsOptions MakeTurnsOptions(const Common& common, const NodeOptions& o,
                                        const ModelConfig& model) {
  RepositoryTurnsOptions to;
  to.mirrors_dir = common.data_dir + "/mirrors";
  to.identity = git::Identity{o.commit_name, o.commit_email};
  to.git_limits.idle_timeout = std::chrono::seconds(o.git_timeout_s);
  to.git_limits.connect_timeout = std::chrono::seconds(std::min(o.git_timeout_s, 10));
  to.public_url = o.public_url;
  to.default_model = model.model;
  to.docs_cache = MakeDocsCache(o.docs_cache_mb);  // one per process: this is called once
  return to;
}

// What the workflows' engine needs to handle the forges' events, as the turns
// reach the forges.
workflows::ForgeEventContext ForgeEventsOf(const RepositoryTurnsOptions& to) {
  return workflows::ForgeEventContext{.public_url = to.public_url,
                                      .forge_attempts = to.forge_attempts,
                                      .forge_max_delay = to.forge_max_delay,
                                      .identity = to.identity};
}

// `worker`: runs turns until SIGINT or SIGTERM.
int RunWorker(const Common& common, const NodeOptions& given, const AgentFactory& make_agent) {
  // Blocked first, before any thread starts, so that every thread inherits the
  // mask and the signals come to sigwait on this thread; one sent while the
  // worker still starts waits there (a graceful stop once started) rather than
  // ending the process at once.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  NodeOptions o = given;
  o.workers = NodeWorkers(given.workers, kMaxWorkers);
  if (Status s = ReportCrashPoint(); !s.ok()) return Fail(s);
  auto store = OpenNodeStore(common, 0);  // the cache serves API reads only
  if (!store.ok()) return Fail(store.status());
  auto model = ReadModelConfig();
  if (!model.ok()) return Fail(model.status());
  AgentChoice agent = MakeNodeAgent(*model, make_agent);
  RepositoryTurnsOptions to = MakeTurnsOptions(common, o, *model);
  auto prices = PrepareMetrics(o.metrics, model->model);
  if (!prices.ok()) return Fail(prices.status());
  to.prices = *prices;
  RaiseOpenFileLimit();  // each worker holds a connection to the model, and git's files
  if (to.public_url.empty()) {
    to.public_url = "http://127.0.0.1:8080";
    spdlog::warn("--public-url is not set: local pull request links will use {}", to.public_url);
  }
  auto mirrors = std::make_shared<git::MirrorPool>(to.mirrors_dir, to.git_limits);
  RepositoryTurns turns(**store, *agent.agent, to, mirrors);
  Runner runner(**store, turns, MakeRunnerOptions(common, o, *model));
  auto metrics = MetricsListener::Start(o.metrics, nullptr);  // the queue is serve's to report
  if (!metrics.ok()) return Fail(metrics.status());
  runner.Start();
  auto deliveries = MakeDeliveryWorkers(**store, o);
  auto engine = StartWorkflowEngine(**store, mirrors, o.workflows, ForgeEventsOf(to));
  spdlog::info("worker started with {} workers on {}", o.workers,
               RedactCredentials(common.DatabaseUrl()));
  int sig = 0;
  sigwait(&set, &sig);
  spdlog::info("signal {} received: stopping workers", sig);
  engine->Stop();
  if (deliveries) deliveries->Stop();
  if (!runner.Stop()) ExitLeavingThreadsBehind();
  return 0;
}

// The server's settings from `serve`'s options; InvalidArgument on a trusted
// proxy that is no address range.
Result<HttpServerOptions> MakeServerOptions(const HttpOptions& o, const std::string& host,
                                            uint16_t port, int workers) {
  HttpServerOptions ho;
  ho.host = host;
  ho.port = port;
  ho.io_threads =
      o.io_threads > 0 ? o.io_threads : std::max(2u, std::thread::hardware_concurrency());
  ho.handle_signals = true;
  ho.read_timeout = ho.write_timeout = std::chrono::seconds(o.request_timeout_s);
  ho.header_timeout = std::chrono::seconds(o.header_timeout_s);
  ho.max_connections_per_ip = static_cast<size_t>(o.max_connections_per_ip);
  for (const std::string& cidr : o.trusted_proxies) {
    auto range = ParseIpRange(cidr);
    if (!range.ok()) {
      return Status::InvalidArgument("--trusted-proxy: " + range.status().message());
    }
    ho.trusted_proxies.push_back(*range);
  }
  if (o.forwarded_header == "forwarded") ho.forwarded_header = ForwardedHeader::kForwarded;
  // What the turns may hold at once, and the rest of the process (node_sizing.h).
  ho.max_connections = MaxConnectionsForFdLimit(
      ho.max_connections,
      kDescriptorsBesideTurns + kTurnDescriptors * static_cast<size_t>(workers));
  return ho;
}

HttpHandlers MakeHandlers(Api& api, std::shared_ptr<spdlog::logger> access) {
  HttpHandlers handlers{[&api](HttpRequest& r) { return api.Handle(r); },
                        [&api](HttpRequest& r) { return api.Precheck(r); }, &Api::IsQuick};
  if (access) handlers.access_log = [access](const AccessRecord& r) { LogAccess(*access, r); };
  return handlers;
}

// "HOST", or "[HOST]" for an IPv6 address, as a URL writes it.
std::string UrlHost(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

// The public URL when --public-url is not set: where the server listens, as
// reached from this machine.
std::string LocalPublicUrl(const std::string& host, uint16_t port) {
  bool any = host == "0.0.0.0" || host == "::";
  std::string url =
      "http://" + (any ? std::string("127.0.0.1") : UrlHost(host)) + ":" + std::to_string(port);
  if (any) {
    spdlog::warn(
        "--public-url is not set: local pull request links will use {}, which only "
        "this machine reaches",
        url);
  }
  return url;
}

// Whole or not at all: a reader never sees a half-written port.
Status WritePortFile(const std::string& file, uint16_t port) {
  std::string tmp = file + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << port << "\n";
    if (!out.flush()) return Status::Unavailable("cannot write " + tmp);
  }
  bool renamed = std::rename(tmp.c_str(), file.c_str()) == 0;
  return renamed ? Status() : Status::Unavailable("cannot write " + file);
}

// `serve`: the HTTP API and the runner, until the server stops on a signal.
int RunServer(const Common& common, const ServeOptions& given, const AgentFactory& make_agent) {
  ServeOptions o = given;
  o.node.workers = NodeWorkers(given.node.workers, kMaxWorkers);
  std::string host;
  uint16_t port = 0;
  if (!ParseListen(o.http.listen, &host, &port)) {
    return Fail(Status::InvalidArgument("--listen must be HOST:PORT, got " + o.http.listen));
  }
  if (Status s = ReportCrashPoint(); !s.ok()) return Fail(s);
  auto store = OpenNodeStore(common, o.http.cache_ms);
  if (!store.ok()) return Fail(store.status());
  SuggestQuickstart(**store, common);
  auto model = ReadModelConfig();
  if (!model.ok()) return Fail(model.status());
  AgentChoice agent = MakeNodeAgent(*model, make_agent);
  auto prices = PrepareMetrics(o.node.metrics, model->model);
  if (!prices.ok()) return Fail(prices.status());
  LateRunner runner;
  EventStreams streams(
      **store,
      EventStreamOptions{.max_streams_per_key = static_cast<size_t>(o.http.event_streams_per_key),
                         .heartbeat = std::chrono::seconds(o.http.event_heartbeat_s)});
  auto v1_models = ParseV1Models(o.http.v1_models);
  if (!v1_models.ok()) return Fail(v1_models.status());
  // A v1 create's stream follows its job's first turn: up to the turn's
  // deadline, and a minute for the claim and the outcome.
  const auto v1_lifetime =
      MakeRunnerOptions(common, o.node, *model).turn_deadline + std::chrono::milliseconds(60000);
  Api api(**store,
          ApiOptions{.default_model = model->model,
                     .v1_models = std::move(*v1_models),
                     .v1_stream_lifetime = v1_lifetime,
                     .public_url = o.node.public_url,
                     .session_lifetime = std::chrono::seconds(o.http.session_lifetime_s),
                     .prices = *prices},
          runner.Hooks(), &streams);
  auto server_options = MakeServerOptions(o.http, host, port, o.node.workers);
  if (!server_options.ok()) return Fail(server_options.status());
  auto access_log = MakeAccessLog(o.http.access_log);
  if (!access_log.ok()) return Fail(access_log.status());
  std::shared_ptr<spdlog::logger> access = std::move(*access_log);
  HttpServer server(*server_options, MakeHandlers(api, access));
  if (Status s = server.Listen(); !s.ok()) return Fail(s);
  auto metrics = MetricsListener::Start(o.node.metrics, store->get());
  if (!metrics.ok()) return Fail(metrics.status());
  RepositoryTurnsOptions to = MakeTurnsOptions(common, o.node, *model);
  to.prices = *prices;
  if (to.public_url.empty()) to.public_url = LocalPublicUrl(host, server.port());
  spdlog::info("listening on http://{}:{} (data: {}); the dashboard: {}/ui/", UrlHost(host),
               server.port(), RedactCredentials(common.DatabaseUrl()), to.public_url);
  if (!o.http.port_file.empty()) {
    if (Status s = WritePortFile(o.http.port_file, server.port()); !s.ok()) return Fail(s);
  }
  auto mirrors = std::make_shared<git::MirrorPool>(to.mirrors_dir, to.git_limits);
  runner.Start(**store, *agent.agent, to, MakeRunnerOptions(common, o.node, *model), mirrors);
  auto deliveries = MakeDeliveryWorkers(**store, o.node);
  auto engine = StartWorkflowEngine(**store, mirrors, o.node.workflows, ForgeEventsOf(to));
  server.Run();
  engine->Stop();  // first: it starts no job while the turns are handed back
  streams.Stop();
  if (access) access->flush();
  if (deliveries) deliveries->Stop();
  spdlog::info("HTTP server stopped; handing back running turns");
  if (!runner.Stop()) ExitLeavingThreadsBehind();
  spdlog::info("stopped");
  return 0;
}

}  // namespace

void AddServeCommands(CLI::App& app, Common& common, std::function<int()>& action,
                      const AgentFactory& make_agent) {
  // Options of both commands, alive as long as the commands' callbacks.
  auto so = std::make_shared<ServeOptions>();
  auto* serve = app.add_subcommand("serve", "run the HTTP API and workers");
  AddCommon(serve, common, false);
  AddNodeOptions(serve, so->node, 0);
  AddListenOptions(serve, so->http);
  AddClientOptions(serve, so->http);
  serve->callback([&, so] { action = [&, so] { return RunServer(common, *so, make_agent); }; });

  auto* worker = app.add_subcommand("worker", "run workers only (scale-out)");
  AddCommon(worker, common, false);
  AddNodeOptions(worker, so->node, 1);
  worker->callback(
      [&, so] { action = [&, so] { return RunWorker(common, so->node, make_agent); }; });
}

}  // namespace docwright
