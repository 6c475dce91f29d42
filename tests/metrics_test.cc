// Metrics: the registry and its text exposition format, read back with a strict
// parser of the format (support/prometheus_text.h), and the real service's
// --metrics-listen scraped while jobs run on a scripted model.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <thread>

#include "core/metrics.h"
#include "fakes/fake_model.h"
#include "support/http_client.h"
#include "support/prometheus_text.h"
#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

using metrics::Registry;

PromParse Parsed(Registry& r) {
  PromParse p = ParsePrometheusText(r.Render());
  EXPECT_TRUE(p.ok()) << p.error << "\n" << r.Render();
  return p;
}

TEST(MetricsRegistryTest, CountersGaugesAndHistogramsAreWrittenInTheTextFormat) {
  Registry r;
  auto& c = r.MakeCounter("t_requests_total", "Requests.", {"route", "status"});
  auto& g = r.MakeGauge("t_depth", "Depth.", {});
  auto& h = r.MakeHistogram("t_seconds", "Time.", {"op"}, {0.1, 1, 10});
  c.Add({"/a", "200"});
  c.Add({"/a", "200"}, 2);
  c.Add({"/b", "404"});
  c.Add({"/b", "404"}, -5);  // dropped: a counter never goes down
  g.Set({}, 7);
  g.Add({}, -2);
  for (double v : {0.05, 0.1, 0.5, 5.0, 50.0}) h.Observe({"fetch"}, v);
  PromParse p = Parsed(r);
  EXPECT_EQ(p.families["t_requests_total"].type, "counter");
  EXPECT_EQ(p.families["t_requests_total"].help, "Requests.");
  EXPECT_EQ(p.Value("t_requests_total", {{"route", "/a"}, {"status", "200"}}), 3);
  EXPECT_EQ(p.Value("t_requests_total", {{"route", "/b"}, {"status", "404"}}), 1);
  EXPECT_EQ(p.Value("t_depth", {}), 5);
  // A bound is inclusive: 0.1 counts in le="0.1".
  EXPECT_EQ(p.Value("t_seconds_bucket", {{"op", "fetch"}, {"le", "0.1"}}), 2);
  EXPECT_EQ(p.Value("t_seconds_bucket", {{"op", "fetch"}, {"le", "1"}}), 3);
  EXPECT_EQ(p.Value("t_seconds_bucket", {{"op", "fetch"}, {"le", "10"}}), 4);
  EXPECT_EQ(p.Value("t_seconds_bucket", {{"op", "fetch"}, {"le", "+Inf"}}), 5);
  EXPECT_EQ(p.Value("t_seconds_count", {{"op", "fetch"}}), 5);
  EXPECT_DOUBLE_EQ(p.Value("t_seconds_sum", {{"op", "fetch"}}), 55.65);
  // Families sorted by name; each one's HELP and TYPE before its samples.
  std::string text = r.Render();
  EXPECT_LT(text.find("# TYPE t_depth"), text.find("# TYPE t_requests_total"));
  EXPECT_LT(text.find("# HELP t_seconds "), text.find("t_seconds_bucket"));
}

TEST(MetricsRegistryTest, LabelValuesAndHelpAreEscaped) {
  Registry r;
  auto& c = r.MakeCounter("t_total", "A \\ help\nline with \"quotes\".", {"v"});
  const std::string hostile = "a\"b\\c\nd}{,=";
  c.Add({hostile});
  std::string text = r.Render();
  EXPECT_NE(text.find(R"(t_total{v="a\"b\\c\nd}{,="} 1)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(# HELP t_total A \\ help\nline with "quotes".)"), std::string::npos)
      << text;
  PromParse p = Parsed(r);
  EXPECT_EQ(p.Value("t_total", {{"v", hostile}}), 1);
  EXPECT_EQ(p.families["t_total"].help, "A \\ help\nline with \"quotes\".");
}

TEST(MetricsRegistryTest, AFamilyPastItsSeriesLimitCountsNewLabelSetsAsOther) {
  Registry r;
  auto& c = r.MakeCounter("t_total", "T.", {"project"});
  for (size_t i = 0; i < metrics::kMaxSeries + 50; ++i) c.Add({"p" + std::to_string(i)});
  c.Add({"p0"});  // a known one still counts as itself
  PromParse p = Parsed(r);
  EXPECT_EQ(p.families["t_total"].samples.size(), metrics::kMaxSeries + 1);
  EXPECT_EQ(p.Value("t_total", {{"project", "other"}}), 50);
  EXPECT_EQ(p.Value("t_total", {{"project", "p0"}}), 2);
}

// Recording finds its series through a cache of the thread: a cleared gauge
// must not be written through an entry made before the clear.
TEST(MetricsRegistryTest, AClearedGaugeShowsOnlyWhatIsSetAgain) {
  Registry r;
  auto& g = r.MakeGauge("t_g", "G.", {"k"});
  g.Set({"a"}, 1);
  g.Set({"b"}, 2);
  g.Clear();
  g.Set({"b"}, 3);
  EXPECT_EQ(Parsed(r).Value("t_g", {{"k", "a"}}), -1) << "not set since the clear";
  EXPECT_EQ(Parsed(r).Value("t_g", {{"k", "b"}}), 3);
  g.Add({"b"}, 1);
  EXPECT_EQ(Parsed(r).Value("t_g", {{"k", "b"}}), 4);
  g.Clear();
  g.Add({"b"}, 1);
  EXPECT_EQ(Parsed(r).Value("t_g", {{"k", "b"}}), 1) << "from zero after the clear";
}

TEST(MetricsRegistryTest, CollectorsRunAtEachRenderWhileTheirHandleLives) {
  Registry r;
  auto& g = r.MakeGauge("t_queue", "Q.", {"kind"});
  int runs = 0;
  auto handle = r.AddCollector([&] {
    ++runs;
    g.Clear();
    g.Set({"x"}, runs);
  });
  EXPECT_EQ(Parsed(r).Value("t_queue", {{"kind", "x"}}), 1);
  EXPECT_EQ(Parsed(r).Value("t_queue", {{"kind", "x"}}), 2);
  handle.reset();
  EXPECT_EQ(Parsed(r).Value("t_queue", {{"kind", "x"}}), 2);
  EXPECT_EQ(runs, 2);
  // A family made twice by name is the same family.
  EXPECT_EQ(&r.MakeGauge("t_queue", "Q.", {"kind"}), &g);
}

TEST(MetricsRegistryTest, RecordingFromManyThreadsLosesNothing) {
  Registry r;
  auto& c = r.MakeCounter("t_total", "T.", {"t"});
  auto& h = r.MakeHistogram("t_seconds", "T.", {}, metrics::DurationBuckets());
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10000; ++i) {
        c.Add({t % 2 ? "odd" : "even"});
        h.Observe({}, 0.002);
      }
    });
  }
  std::string during = r.Render();  // while they record: still valid
  for (auto& t : threads) t.join();
  EXPECT_TRUE(ParsePrometheusText(during).ok());
  PromParse p = Parsed(r);
  EXPECT_EQ(p.Sum("t_total"), 80000);
  EXPECT_EQ(p.Value("t_seconds_count", {}), 80000);
}

// Budgets are shown from half spent on, the fullest first, at most
// kMaxBudgetSeries: bounded however many projects have budgets.
TEST(MetricsCatalogTest, BudgetUseShowsTheFullestBudgetsOnly) {
  std::vector<metrics::BudgetUse> uses;
  for (size_t i = 0; i < metrics::kMaxBudgetSeries + 500; ++i) {
    uses.push_back(
        {"prj" + std::to_string(i), "project", "tokens", 0.4 + static_cast<double>(i) / 1000.0});
  }
  metrics::SetBudgetUse(uses);
  PromParse p = ParsePrometheusText(metrics::Default().Render());
  ASSERT_TRUE(p.ok()) << p.error;
  size_t series = 0;
  double lowest = 2;
  ASSERT_TRUE(p.families.count("docwright_budget_used_ratio"));
  for (const PromSample& sample : p.families.at("docwright_budget_used_ratio").samples) {
    ++series;
    lowest = std::min(lowest, sample.value);
    EXPECT_NE(sample.labels.at("project"), "other");
  }
  EXPECT_EQ(series, metrics::kMaxBudgetSeries);
  EXPECT_GE(lowest, 0.5);
  EXPECT_DOUBLE_EQ(p.Value("docwright_budget_used_ratio",
                           {{"project", "prj1499"}, {"owner", "project"}, {"kind", "tokens"}}),
                   0.4 + 1.499);
  metrics::SetBudgetUse({});
}

TEST(MetricsCatalogTest, TheDocsCacheIsShownAsItsCountsAndWhatItHolds) {
  metrics::SetDocsCache(
      {.hits = 7, .misses = 3, .stores = 3, .evictions = 1, .bytes = 4096, .entries = 2});
  PromParse p = ParsePrometheusText(metrics::Default().Render());
  ASSERT_TRUE(p.ok()) << p.error;
  for (const char* counter :
       {"docwright_docs_cache_hits_total", "docwright_docs_cache_misses_total",
        "docwright_docs_cache_stores_total", "docwright_docs_cache_evictions_total"}) {
    EXPECT_EQ(p.families[counter].type, "counter") << counter;
  }
  EXPECT_EQ(p.families["docwright_docs_cache_bytes"].type, "gauge");
  EXPECT_EQ(p.Value("docwright_docs_cache_hits_total", {}), 7);
  EXPECT_EQ(p.Value("docwright_docs_cache_misses_total", {}), 3);
  EXPECT_EQ(p.Value("docwright_docs_cache_stores_total", {}), 3);
  EXPECT_EQ(p.Value("docwright_docs_cache_evictions_total", {}), 1);
  EXPECT_EQ(p.Value("docwright_docs_cache_bytes", {}), 4096);
  EXPECT_EQ(p.Value("docwright_docs_cache_entries", {}), 2);
  metrics::SetDocsCache({});
}

TEST(MetricsCatalogTest, TheCatalogIsValidAndItsLabelsBounded) {
  metrics::AllowModelLabels({"claude-sonnet-4*", "claude-*", "docs-model-1"});
  EXPECT_EQ(metrics::ModelLabel("claude-sonnet-4-5-20250929"), "claude-sonnet-4*")
      << "as the price table prices it: the longest prefix key";
  EXPECT_EQ(metrics::ModelLabel("claude-haiku-4-5"), "claude-*");
  metrics::AllowModelLabels({"docs-model-1"});
  EXPECT_EQ(metrics::ModelLabel("docs-model-1"), "docs-model-1");
  EXPECT_EQ(metrics::ModelLabel("someone-elses-model"), "other");
  EXPECT_EQ(metrics::ModelLabel("claude-sonnet-4-5"), "other") << "the earlier list is replaced";
  metrics::RecordHttpRequest("/v2/agent/{projectId}/job", "BREW", 999, 0.01);
  metrics::RecordHttpRequest("", "GET", 404, 0.01);
  metrics::RecordModelRequest("openai", "secret-model", true, 3, 1.5,
                              TokenUsage{.input_tokens = 1000,
                                         .output_tokens = 50,
                                         .cached_input_tokens = 600,
                                         .cache_write_tokens = 100});
  metrics::RecordWebhookDelivery("in", "whatever");
  PromParse p = ParsePrometheusText(metrics::Default().Render());
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_GE(
      p.Value("docwright_http_requests_total",
              {{"route", "/v2/agent/{projectId}/job"}, {"method", "other"}, {"status", "other"}}),
      1);
  EXPECT_GE(p.Value("docwright_http_requests_total",
                    {{"route", "unmatched"}, {"method", "GET"}, {"status", "404"}}),
            1);
  // The billed kinds add up to the input and output: 300 uncached, 600 read, 100 written.
  std::map<std::string, std::string> m = {{"provider", "openai"}, {"model", "other"}};
  auto kind = [&](const char* k) {
    auto l = m;
    l["kind"] = k;
    return p.Value("docwright_model_tokens_total", l);
  };
  EXPECT_GE(kind("input"), 300);
  EXPECT_GE(kind("cached_input"), 600);
  EXPECT_GE(kind("cache_write"), 100);
  EXPECT_GE(kind("output"), 50);
  EXPECT_GE(p.Value("docwright_model_retries_total", m), 2);
  EXPECT_GE(
      p.Value("docwright_webhook_deliveries_total", {{"direction", "in"}, {"outcome", "other"}}),
      1);
  for (const char* family :
       {"docwright_build_info", "docwright_turns_total", "docwright_turn_duration_seconds",
        "docwright_turns_in_flight", "docwright_turn_step_duration_seconds",
        "docwright_git_operation_duration_seconds", "docwright_forge_request_duration_seconds",
        "docwright_model_requests_total", "docwright_model_request_duration_seconds",
        "docwright_store_transaction_duration_seconds", "docwright_store_transaction_retries_total",
        "docwright_budget_stops_total", "docwright_queue_depth",
        "docwright_queue_oldest_age_seconds", "docwright_budget_used_ratio"}) {
    EXPECT_TRUE(p.families.count(family)) << family;
  }
  for (const std::string& v : p.LabelValues()) EXPECT_NE(v, "secret-model");
}

// The parser itself: each rule it checks, broken once.
TEST(PrometheusTextParserTest, RefusesWhatTheFormatDoesNotAllow) {
  const std::string ok = "# HELP a_total A.\n# TYPE a_total counter\na_total{x=\"1\"} 2\n";
  EXPECT_TRUE(ParsePrometheusText(ok).ok()) << ParsePrometheusText(ok).error;
  const char* bad[] = {
      "# TYPE a_total counter\na_total 1",                                 // no final \n
      "a_total 1\n",                                                       // no TYPE
      "# TYPE a_total counter\na_total 1\n# HELP a_total late\n",          // HELP after
      "# TYPE a_total counter\n# TYPE a_total counter\na_total 1\n",       // TYPE twice
      "# TYPE a_total counter\na_total{x=\"1\"} 1\na_total{x=\"1\"} 2\n",  // twice
      "# TYPE a_total counter\na_total{x=\"\\t\"} 1\n",                    // bad escape
      "# TYPE a_total counter\na_total{1x=\"a\"} 1\n",                     // bad label name
      "# TYPE a_total counter\na_total{x=\"a} 1\n",                        // unterminated
      "# TYPE a_total counter\na_total one\n",                             // bad value
      "# TYPE a_total counter\na_total -1\n",                              // counter down
      "# TYPE a gauge\n# TYPE b gauge\na 1\nb 1\na{x=\"y\"} 1\n",          // not together
      "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\n"
      "h_sum 1\nh_count 1\n",  // not cumulative
      "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\n"
      "h_sum 1\nh_count 3\n",                                            // +Inf differs from _count
      "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n",  // no +Inf
  };
  for (const char* text : bad) EXPECT_FALSE(ParsePrometheusText(text).ok()) << text;
}

// --- Over the real service ------------------------------------------------------

constexpr const char* kModelKey = "sk-metrics-model-secret";

class MetricsServiceTest : public ServiceTest {
 protected:
  void StartDefaultServer() override {
    // An edit, then the end: each turn fetches, commits and pushes.
    FakeStep edit;
    edit.tool_calls.push_back(FakeToolCall{"edit_file",
                                           {{"path", "quickstart.mdx"},
                                            {"old_text", "Instal the CLI"},
                                            {"new_text", "Install the CLI"}},
                                           std::nullopt});
    FakeStep finish;
    finish.tool_calls.push_back(FakeToolCall{"finish", {{"summary", "Done."}}, std::nullopt});
    model_ = std::make_unique<FakeModelServer>(FakeModelServer::Wire::kOpenAI, kModelKey,
                                               std::vector<FakeStep>{edit, finish});
    StartServer(
        kReal, {"--metrics-listen", "127.0.0.1:0", "--lease-seconds", "5"},
        {"DOCWRIGHT_LLM_PROVIDER=openai", "DOCWRIGHT_LLM_BASE_URL=" + model_->BaseUrl(),
         std::string("DOCWRIGHT_LLM_API_KEY=") + kModelKey, "DOCWRIGHT_MODEL=docs-model-1"});
    std::smatch m;
    std::string log = server_->Log();
    ASSERT_TRUE(std::regex_search(log, m, std::regex("metrics on http://127\\.0\\.0\\.1:(\\d+)/")))
        << log;
    metrics_port_ = static_cast<uint16_t>(std::stoi(m[1]));
  }

  HttpResult Scrape(const std::string& method = "GET", const std::string& target = "/metrics") {
    HttpClient c(metrics_port_);
    return c.Send(method, target);
  }

  PromParse ScrapeParsed() {
    HttpResult r = Scrape();
    EXPECT_EQ(r.status, 200);
    PromParse p = ParsePrometheusText(r.body);
    EXPECT_TRUE(p.ok()) << p.error << "\n" << r.body;
    return p;
  }

  std::unique_ptr<FakeModelServer> model_;
  uint16_t metrics_port_ = 0;
};

TEST_F(MetricsServiceTest, ScrapesShowJobsRunningAndNothingSecret) {
  PromParse before = ScrapeParsed();
  EXPECT_EQ(before.Value("docwright_build_info", {}), -1);  // it has a version label
  EXPECT_EQ(before.families["docwright_build_info"].samples.size(), 1u);
  EXPECT_EQ(before.Value("docwright_queue_depth", {}), 0);

  const std::string prompt = "Fix the typo in the quickstart, secret-prompt-words";
  std::vector<std::string> ids;
  for (int i = 0; i < 2; ++i) {
    json job = CreateJob(prompt);
    ids.push_back(job.value("id", ""));
  }
  for (const std::string& id : ids) EXPECT_EQ(WaitForEnd(id)["status"], "completed");

  HttpResult r = Scrape();
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  PromParse p = ParsePrometheusText(r.body);
  ASSERT_TRUE(p.ok()) << p.error << "\n" << r.body;
  EXPECT_GE(
      p.Value("docwright_http_requests_total",
              {{"route", "/v2/agent/{projectId}/job"}, {"method", "POST"}, {"status", "201"}}),
      2)
      << r.body;
  EXPECT_GE(p.Sum("docwright_http_request_duration_seconds_count"), 2);
  EXPECT_GE(p.Sum("docwright_turns_total", {{"outcome", "succeeded"}}), 2) << r.body;
  EXPECT_GE(p.Sum("docwright_turn_step_duration_seconds_count"), 2);
  EXPECT_GT(p.Sum("docwright_model_tokens_total",
                  {{"provider", "openai"}, {"model", "docs-model-1"}, {"kind", "output"}}),
            0)
      << r.body;
  EXPECT_GE(p.Sum("docwright_model_requests_total", {{"result", "ok"}}), 2);
  EXPECT_GE(p.Sum("docwright_git_operation_duration_seconds_count", {{"operation", "fetch"}}), 1);
  EXPECT_GE(p.Sum("docwright_git_operation_duration_seconds_count", {{"operation", "push"}}), 1);
  EXPECT_GE(p.Sum("docwright_store_transaction_duration_seconds_count"), 1);
  EXPECT_EQ(p.Value("docwright_turns_in_flight", {}), 0);
  EXPECT_EQ(p.Value("docwright_queue_depth", {}), 0);
  // Both jobs start from one commit: each branch's story finds at least the
  // site map its turn kept (the node's docs cache is on by default).
  EXPECT_GE(p.Value("docwright_docs_cache_stores_total", {}), 2) << r.body;
  EXPECT_GE(p.Value("docwright_docs_cache_hits_total", {}), 2) << r.body;
  EXPECT_GE(p.Value("docwright_docs_cache_entries", {}), 2);
  EXPECT_GT(p.Value("docwright_docs_cache_bytes", {}), 0);

  // No label carries what identifies a tenant's work or could leak.
  for (const std::string& v : p.LabelValues()) {
    for (const std::string& secret : {ids[0], ids[1], prompt, std::string("secret-prompt-words"),
                                      key_a_, org_a_, std::string(kModelKey), remote_a_}) {
      EXPECT_EQ(v.find(secret), std::string::npos) << v;
    }
    EXPECT_EQ(v.find("/tmp"), std::string::npos) << v;
  }
}

TEST_F(MetricsServiceTest, OnlyTheMetricsListenerServesMetricsAndOnlyThem) {
  EXPECT_EQ(Get("/metrics", key_a_).status, 404);  // the API's port
  EXPECT_EQ(client_->Send("GET", "/metrics").status, 404);
  EXPECT_EQ(Scrape("GET", "/v2/agent/" + project_a_ + "/job").status, 404);
  EXPECT_EQ(Scrape("POST", "/metrics").status, 404);
  EXPECT_EQ(Scrape("GET", "/").status, 404);
  EXPECT_EQ(Scrape("GET", "/metrics?x=1").status, 200);
  // Scrapes themselves are counted, by the route the listener names.
  PromParse p = ScrapeParsed();
  EXPECT_GE(p.Sum("docwright_http_requests_total", {{"route", "/metrics"}, {"status", "200"}}), 1);
}

TEST_F(MetricsServiceTest, ABadPriceFileStopsTheStartWithItsError) {
  std::string prices = dir_ / "prices.json";
  std::ofstream(prices) << R"({"currency": "USD", "models": {"m": {"input": "three"}}})";
  CommandResult r = RunCommand(
      kReal, {"serve", "--data-dir", dir_.path(), "--listen", "127.0.0.1:0", "--prices", prices});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--prices"), std::string::npos) << r.err;
  r = RunCommand(kReal, {"serve", "--data-dir", dir_.path(), "--listen", "127.0.0.1:0", "--prices",
                         dir_ / "absent.json"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--prices"), std::string::npos) << r.err;
  r = RunCommand(kReal, {"worker", "--data-dir", dir_.path(), "--metrics-listen", "nonsense"});
  EXPECT_NE(r.exit_code, 0);
}

}  // namespace
}  // namespace docwright::testing
