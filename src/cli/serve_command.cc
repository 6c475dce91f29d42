// `docwright serve` and `docwright worker`: the API server and the worker pool,
// configured from flags and the environment.
#include "cli/serve_command.h"

#include <signal.h>
#include <spdlog/async.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>

#include "api/api.h"
#include "cli/common.h"
#include "core/crash_point.h"
#include "core/job.h"
#include "core/text.h"
#include "forge/forge.h"
#include "http/client.h"
#include "http/server.h"
#include "runner/repository_turns.h"
#include "runner/runner.h"
#include "store/cached_store.h"
#include "store/store.h"

namespace docwright {
namespace {

// Parses "HOST:PORT", "[V6]:PORT" or ":PORT".
bool ParseListen(const std::string& s, std::string* host, uint16_t* port) {
  size_t colon = s.rfind(':');
  if (colon == std::string::npos) return false;
  std::string h = s.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  if (h.empty()) h = "0.0.0.0";
  try {
    size_t used = 0;
    int p = std::stoi(s.substr(colon + 1), &used);
    if (used != s.size() - colon - 1 || p < 0 || p > 65535) return false;
    *port = static_cast<uint16_t>(p);
  } catch (...) {
    return false;
  }
  *host = h;
  return true;
}

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

constexpr int kDefaultWorkers = 64;
constexpr int kMaxWorkers = 2000;

struct ServeOptions {
  std::string listen = "127.0.0.1:8080";
  // Turns in flight on this node. A turn spends nearly all its time waiting for
  // the model, so this is sized for waiting, not for the cores.
  int workers = kDefaultWorkers;
  int io_threads = 0;
  std::string public_url;
  double lease_seconds = 30;
  int turn_deadline_s = 0;  // 0: the agent's wall-time budget plus five minutes
  int git_timeout_s = 60;
  int cache_ms = 250;
  int request_timeout_s = 30;
  int header_timeout_s = 10;
  int max_connections_per_ip = 128;
  std::string port_file;              // written with the port once listening (for --listen ...:0)
  std::string access_log = "stderr";  // off, stderr or a file
  std::vector<std::string> trusted_proxies;          // address ranges of reverse proxies
  std::string forwarded_header = "x-forwarded-for";  // the header they name the client in
  std::string commit_name = "docwright";
  std::string commit_email = "docwright@localhost";
};

// The access log: a line per answered request, written by a thread of its own
// so that no request waits on a disk or a terminal; when it falls behind, the
// oldest lines waiting are dropped, never a request held. nullptr for "off".
Result<std::shared_ptr<spdlog::logger>> MakeAccessLog(const std::string& where) {
  if (where == "off") return std::shared_ptr<spdlog::logger>();
  spdlog::sink_ptr sink;
  try {
    if (where == "stderr") {
      sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    } else {
      sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(where);  // appends
    }
  } catch (const spdlog::spdlog_ex& e) {
    return Status::InvalidArgument("--access-log must be off, stderr or a file to append to: " +
                                   std::string(e.what()));
  }
  spdlog::init_thread_pool(8192, 1);
  auto logger = std::make_shared<spdlog::async_logger>(
      "access", sink, spdlog::thread_pool(), spdlog::async_overflow_policy::overrun_oldest);
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ access %v", spdlog::pattern_time_type::utc);
  logger->flush_on(spdlog::level::info);  // each line, on the log's own thread
  return std::shared_ptr<spdlog::logger>(std::move(logger));
}

// One access log line: method, route pattern, status, time taken, the key's id,
// the client's address and the body's size. Never the key, the query or the body.
void LogAccess(spdlog::logger& log, const AccessRecord& r) {
  auto or_dash = [](std::string_view s) { return s.empty() ? std::string_view("-") : s; };
  log.info("{} {} {} {:.3f}ms key={} client={} bytes={}", or_dash(r.method), or_dash(r.route),
           r.status, static_cast<double>(r.duration.count()) / 1000.0, or_dash(r.principal),
           or_dash(r.client), r.body_bytes);
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

int Serve(const Common& common, const ServeOptions& o, const AgentFactory& make_agent,
          bool with_http) {
  std::string host;
  uint16_t port = 0;
  if (with_http && !ParseListen(o.listen, &host, &port)) {
    return Fail(Status::InvalidArgument("--listen must be HOST:PORT, got " + o.listen));
  }
  if (Status armed = CheckCrashPointSetting(); !armed.ok()) return Fail(armed);
  if (!ArmedCrashPoint().empty()) {
    spdlog::warn("crash point {} armed (DOCWRIGHT_CRASH_AT): this process dies when it reaches it",
                 ArmedCrashPoint());
  }
  if (o.workers < (with_http ? 0 : 1) || o.workers > kMaxWorkers) {
    return Fail(Status::InvalidArgument(
        (with_http ? "--workers must be from 0 to " : "--workers must be from 1 to ") +
        std::to_string(kMaxWorkers)));
  }
  if (o.io_threads < 0 || o.io_threads > 256) {
    return Fail(Status::InvalidArgument("--io-threads must be from 1 to 256 (0: one per core)"));
  }
  if (o.turn_deadline_s < 0 || o.turn_deadline_s > 24 * 3600) {
    return Fail(Status::InvalidArgument("--turn-deadline must be from 1 to 86400 seconds"));
  }
  if (o.git_timeout_s < 1 || o.git_timeout_s > 3600) {
    return Fail(Status::InvalidArgument("--git-timeout must be from 1 to 3600 seconds"));
  }
  if (o.lease_seconds < 0.05 || o.lease_seconds > 3600) {
    return Fail(Status::InvalidArgument("--lease-seconds must be from 0.05 to 3600"));
  }
  if (o.request_timeout_s < 1 || o.request_timeout_s > 3600) {
    return Fail(Status::InvalidArgument("--request-timeout must be from 1 to 3600 seconds"));
  }
  if (o.header_timeout_s < 1 || o.header_timeout_s > 3600) {
    return Fail(Status::InvalidArgument("--header-timeout must be from 1 to 3600 seconds"));
  }
  if (o.max_connections_per_ip < 1 || o.max_connections_per_ip > 1000000) {
    return Fail(Status::InvalidArgument("--max-connections-per-ip must be from 1 to 1000000"));
  }
  if (o.cache_ms < 0 || o.cache_ms > 60000) {
    return Fail(Status::InvalidArgument("--cache-ms must be from 0 to 60000"));
  }
  // The node's own files live here: its mirrors and port file (and, with
  // SQLite, the database). Owner-only: mirrors hold private repositories.
  {
    std::error_code ec;
    if (!std::filesystem::exists(common.data_dir, ec)) {
      std::filesystem::create_directories(common.data_dir, ec);
      if (ec) {
        return Fail(Status::Unavailable("cannot create " + common.data_dir + ": " + ec.message()));
      }
      ::chmod(common.data_dir.c_str(), 0700);
    }
  }
  auto opened = Open(common);
  if (!opened.ok()) return Fail(opened.status());
  std::unique_ptr<Store> store = std::move(*opened);
  if (with_http && o.cache_ms > 0) {  // only API reads use it
    store = NewCachedStore(std::move(store), CacheOptions{std::chrono::milliseconds(o.cache_ms)});
  }

  if (with_http) {
    // A new data directory: say what to do next.
    if (auto orgs = store->ListOrgs(); orgs.ok() && orgs->empty()) {
      spdlog::info(
          "no organisation yet: to make one, with a key and a project, run in another terminal: "
          "docwright quickstart{} --repository PATH-OR-URL",
          common.database.empty() ? " --data-dir " + common.data_dir : " --database URL");
    }
  }
  auto model_config = ReadModelConfig();
  if (!model_config.ok()) return Fail(model_config.status());
  const ModelConfig& model = *model_config;
  WarnAboutModelConfig(model);
  AgentChoice agent = make_agent(model);
  spdlog::info("agent: {}", agent.description);

  RunnerOptions ro;
  ro.workers = o.workers;
  ro.lease = std::chrono::milliseconds(static_cast<int64_t>(o.lease_seconds * 1000));
  // The agent stops itself at its wall-time budget; the watchdog allows for the
  // fetch, push and pull request around it.
  ro.turn_deadline = o.turn_deadline_s > 0
                         ? std::chrono::seconds(o.turn_deadline_s)
                         : std::chrono::seconds(model.max_turn_seconds.value_or(15 * 60) + 5 * 60);
  ro.stuck_grace = std::min<std::chrono::milliseconds>(ro.stuck_grace, ro.turn_deadline);
  RepositoryTurnsOptions to;
  to.mirrors_dir = common.data_dir + "/mirrors";
  to.identity = git::Identity{o.commit_name, o.commit_email};
  to.git_limits.idle_timeout = std::chrono::seconds(o.git_timeout_s);
  to.git_limits.connect_timeout = std::chrono::seconds(std::min(o.git_timeout_s, 10));
  to.public_url = o.public_url;
  to.default_model = model.model;

  if (!with_http) {
    RaiseOpenFileLimit();  // each worker holds a connection to the model, and git's files
    if (to.public_url.empty()) {
      to.public_url = "http://127.0.0.1:8080";
      spdlog::warn("--public-url is not set: local pull request links will use {}", to.public_url);
    }
    RepositoryTurns turns(*store, *agent.agent, to);
    Runner runner(*store, turns, ro);
    // Workers only: wait for SIGINT or SIGTERM on this thread.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    runner.Start();
    spdlog::info("worker started with {} workers on {}", o.workers,
                 RedactCredentials(common.DatabaseUrl()));
    int sig = 0;
    sigwait(&set, &sig);
    spdlog::info("signal {} received: stopping workers", sig);
    if (!runner.Stop()) ExitLeavingThreadsBehind();
    return 0;
  }

  // The runner starts once the server listens (its port makes the default public
  // URL); until then the API's hooks have nothing to wake.
  std::unique_ptr<RepositoryTurns> turns;
  std::unique_ptr<Runner> runner;
  std::mutex runner_mu;
  auto with_runner = [&](auto fn) {
    std::lock_guard lock(runner_mu);
    if (runner) fn(*runner);
  };
  Api api(*store, ApiOptions{model.model},
          ApiHooks{[&] { with_runner([](Runner& r) { r.Wake(); }); },
                   [&](const std::string& id) { with_runner([&](Runner& r) { r.CancelJob(id); }); },
                   [&](const std::string& id) { with_runner([&](Runner& r) { r.StopJob(id); }); }});
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
    if (!range.ok())
      return Fail(Status::InvalidArgument("--trusted-proxy: " + range.status().message()));
    ho.trusted_proxies.push_back(*range);
  }
  if (o.forwarded_header == "forwarded") {
    ho.forwarded_header = ForwardedHeader::kForwarded;
  } else if (o.forwarded_header != "x-forwarded-for") {
    return Fail(Status::InvalidArgument("--forwarded-header must be x-forwarded-for or forwarded"));
  }
  auto access_log = MakeAccessLog(o.access_log);
  if (!access_log.ok()) return Fail(access_log.status());
  std::shared_ptr<spdlog::logger> access = std::move(*access_log);
  // Each worker holds a connection to the model and, while it fetches or pushes,
  // a few files of git's.
  ho.max_connections =
      MaxConnectionsForFdLimit(ho.max_connections, 256 + 4 * static_cast<size_t>(o.workers));
  HttpHandlers handlers{[&api](HttpRequest& r) { return api.Handle(r); },
                        [&api](HttpRequest& r) { return api.Precheck(r); }, &Api::IsQuick};
  if (access) handlers.access_log = [access](const AccessRecord& r) { LogAccess(*access, r); };
  HttpServer server(ho, std::move(handlers));
  Status s = server.Listen();
  if (!s.ok()) return Fail(s);
  std::string shown_host = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  if (to.public_url.empty()) {
    bool any = host == "0.0.0.0" || host == "::";
    to.public_url = "http://" + (any ? std::string("127.0.0.1") : shown_host) + ":" +
                    std::to_string(server.port());
    if (any) {
      spdlog::warn(
          "--public-url is not set: local pull request links will use {}, which only "
          "this machine reaches",
          to.public_url);
    }
  }
  spdlog::info("listening on http://{}:{} (data: {})", shown_host, server.port(),
               RedactCredentials(common.DatabaseUrl()));
  if (!o.port_file.empty()) {
    // Whole or not at all: a reader never sees a half-written port.
    std::string tmp = o.port_file + ".tmp";
    {
      std::ofstream out(tmp, std::ios::trunc);
      out << server.port() << "\n";
      if (!out.flush()) return Fail(Status::Unavailable("cannot write " + tmp));
    }
    if (std::rename(tmp.c_str(), o.port_file.c_str()) != 0) {
      return Fail(Status::Unavailable("cannot write " + o.port_file));
    }
  }
  {
    std::lock_guard lock(runner_mu);
    turns = std::make_unique<RepositoryTurns>(*store, *agent.agent, to);
    runner = std::make_unique<Runner>(*store, *turns, ro);
    runner->Start();
  }
  server.Run();
  if (access) access->flush();
  spdlog::info("HTTP server stopped; handing back running turns");
  if (!runner->Stop()) ExitLeavingThreadsBehind();
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
  serve->add_option("--listen", so->listen, "HOST:PORT to listen on")->envname("DOCWRIGHT_LISTEN");
  serve->add_option("--workers", so->workers, "turns in flight (default 64, at most 2000)")
      ->envname("DOCWRIGHT_WORKERS");
  serve->add_option("--public-url", so->public_url, "URL clients reach this server at")
      ->envname("DOCWRIGHT_PUBLIC_URL");
  serve->add_option("--io-threads", so->io_threads, "HTTP threads (default: one per core)");
  serve
      ->add_option("--turn-deadline", so->turn_deadline_s,
                   "seconds a turn may run before it is stopped and its job fails (default: "
                   "the agent's time budget plus 300)")
      ->envname("DOCWRIGHT_TURN_DEADLINE");
  serve
      ->add_option("--lease-seconds", so->lease_seconds,
                   "how long a crashed worker's turn waits before it is re-run")
      ->envname("DOCWRIGHT_LEASE_SECONDS");
  serve
      ->add_option("--cache-ms", so->cache_ms,
                   "how long a job or key read may lag writes made by other processes "
                   "(0: no cache)")
      ->envname("DOCWRIGHT_CACHE_MS");
  serve->add_option("--request-timeout", so->request_timeout_s,
                    "seconds a client has to send a request's body (or to idle between "
                    "keep-alive requests) and to read the response");
  serve
      ->add_option("--header-timeout", so->header_timeout_s,
                   "seconds a client has to send a request's header, from its first byte "
                   "(from connecting, for the first request)")
      ->envname("DOCWRIGHT_HEADER_TIMEOUT");
  serve
      ->add_option("--max-connections-per-ip", so->max_connections_per_ip,
                   "open connections one client address may hold (IPv6: per /64)")
      ->envname("DOCWRIGHT_MAX_CONNECTIONS_PER_IP");
  serve
      ->add_option("--access-log", so->access_log,
                   "a line per request (method, route, status, time, key id, client): off, "
                   "stderr or a file to append to (default: stderr)")
      ->envname("DOCWRIGHT_ACCESS_LOG");
  serve
      ->add_option("--trusted-proxy", so->trusted_proxies,
                   "address or ADDRESS/BITS of a reverse proxy, comma-separated: from these "
                   "peers the client address is read from Forwarded or X-Forwarded-For, and "
                   "their connections are not capped per address (default: none)")
      ->delimiter(',')
      ->envname("DOCWRIGHT_TRUSTED_PROXIES");
  serve
      ->add_option("--forwarded-header", so->forwarded_header,
                   "the header the trusted proxies name the client in: x-forwarded-for or "
                   "forwarded (RFC 7239); the other is ignored")
      ->capture_default_str()
      ->envname("DOCWRIGHT_FORWARDED_HEADER");
  serve->add_option("--port-file", so->port_file,
                    "once listening, write the port to this file (with --listen HOST:0)");
  serve->callback([&, so] { action = [&, so] { return Serve(common, *so, make_agent, true); }; });

  auto* worker = app.add_subcommand("worker", "run workers only (scale-out)");
  AddCommon(worker, common, false);
  worker->add_option("--workers", so->workers, "turns in flight (default 64, at most 2000)")
      ->envname("DOCWRIGHT_WORKERS");
  worker
      ->add_option("--turn-deadline", so->turn_deadline_s,
                   "seconds a turn may run before it is stopped and its job fails")
      ->envname("DOCWRIGHT_TURN_DEADLINE");
  worker
      ->add_option("--lease-seconds", so->lease_seconds,
                   "how long a crashed worker's turn waits before it is re-run")
      ->envname("DOCWRIGHT_LEASE_SECONDS");
  worker->add_option("--public-url", so->public_url, "URL clients reach the API server at")
      ->envname("DOCWRIGHT_PUBLIC_URL");
  worker->callback([&, so] { action = [&, so] { return Serve(common, *so, make_agent, false); }; });
  for (CLI::App* cmd : {serve, worker}) {
    cmd->add_option("--git-timeout", so->git_timeout_s,
                    "seconds a git remote may stay silent during a fetch or push (and, up to "
                    "10, to accept a connection) before the operation fails")
        ->envname("DOCWRIGHT_GIT_TIMEOUT");
    cmd->add_option("--commit-name", so->commit_name, "author name of the agent's commits")
        ->envname("DOCWRIGHT_COMMIT_NAME");
    cmd->add_option("--commit-email", so->commit_email, "author email of the agent's commits")
        ->envname("DOCWRIGHT_COMMIT_EMAIL");
  }
}

}  // namespace docwright
