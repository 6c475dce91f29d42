#include "cli/usage_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "core/job_json.h"
#include "core/text.h"
#include "core/time.h"
#include "core/usage.h"

namespace docwright {
namespace {

using Json = nlohmann::ordered_json;

struct UsageOptions {
  std::string org, project, since, until, prices;
};

// "2026-11-26" as the first instant of that day in UTC; InvalidArgument naming
// `flag` for anything else (another form, or a day the calendar does not have).
Result<UnixMillis> ParseDay(const std::string& text, const char* flag) {
  const Status bad = Status::InvalidArgument(std::string(flag) +
                                             " must be a day as YYYY-MM-DD (UTC), e.g. 2026-11-01");
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return bad;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (text[i] < '0' || text[i] > '9') return bad;
  }
  std::optional<UnixMillis> t = ParseRfc3339(text + "T00:00:00Z");
  // A day that does not exist (2026-02-30) must not slide into the next month.
  if (!t || FormatRfc3339(*t).compare(0, 10, text) != 0) return bad;
  return *t;
}

// What the usage of each group adds up to, by its key, sorted.
using Groups = std::map<std::string, UsageTotals>;

struct Report {
  UsageTotals total;
  Groups by_model, by_day, by_project;
};

Report Summarise(const std::vector<UsageRow>& rows) {
  Report r;
  for (const UsageRow& row : rows) {
    r.total += row.totals;
    r.by_model[row.model] += row.totals;
    r.by_day[row.day] += row.totals;
    r.by_project[row.project_id] += row.totals;
  }
  return r;
}

// Some turns were priced: the cost means something.
bool Priced(const UsageTotals& t) { return t.turns > t.unpriced_turns; }

Json TotalsJson(const UsageTotals& t, Json j = Json::object()) {
  j["turns"] = t.turns;
  j["unpricedTurns"] = t.unpriced_turns;
  j["inputTokens"] = t.tokens.input_tokens;
  j["cachedInputTokens"] = t.tokens.cached_input_tokens;
  j["cacheWriteTokens"] = t.tokens.cache_write_tokens;
  j["outputTokens"] = t.tokens.output_tokens;
  j["totalTokens"] = t.tokens.total();
  j["estimatedCost"] = Priced(t) ? Json::parse(CostJsonNumber(t.cost_micros)) : Json(nullptr);
  return j;
}

Json GroupsJson(const Groups& groups, const char* key, bool empty_is_null) {
  Json out = Json::array();
  for (const auto& [name, totals] : groups) {
    Json head = Json::object();
    head[key] = empty_is_null && name.empty() ? Json(nullptr) : Json(name);
    out.push_back(TotalsJson(totals, std::move(head)));
  }
  return out;
}

// A value from the store, safe on a terminal and in a column: control
// characters replaced, cut to `max` bytes.
std::string Cell(std::string_view text, size_t max) {
  std::string out(CutUtf8(text, max));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

std::string CostText(const UsageTotals& t, const std::string& currency) {
  return Priced(t) ? FormatCost(t.cost_micros, currency) : "-";
}

void PrintGroups(const char* title, const char* column, const Groups& groups,
                 const std::string& currency) {
  std::cout << "\n" << title << "\n";
  std::printf("  %-40s %8s %14s %14s %14s %14s  %s\n", column, "TURNS", "INPUT", "CACHED",
              "CACHE-WRITE", "OUTPUT", "COST");
  for (const auto& [name, t] : groups) {
    const std::string shown = name.empty() ? "(none)" : Cell(name, 40);
    std::printf("  %-40s %8lld %14lld %14lld %14lld %14lld  %s\n", shown.c_str(),
                static_cast<long long>(t.turns), static_cast<long long>(t.tokens.input_tokens),
                static_cast<long long>(t.tokens.cached_input_tokens),
                static_cast<long long>(t.tokens.cache_write_tokens),
                static_cast<long long>(t.tokens.output_tokens), CostText(t, currency).c_str());
  }
  std::fflush(stdout);
}

int ShowUsage(const Common& common, const UsageOptions& o, const CLI::App& cmd) {
  if (o.org.empty() && o.project.empty()) {
    return Fail(Status::InvalidArgument("give --org ORG_ID or --project PROJECT_ID"));
  }
  const UnixMillis now = NowMillis();
  UnixMillis since = MonthStart(now);
  UnixMillis until = now;
  if (cmd.count("--since") > 0) {
    auto day = ParseDay(o.since, "--since");
    if (!day.ok()) return Fail(day.status());
    since = *day;
  }
  if (cmd.count("--until") > 0) {
    auto day = ParseDay(o.until, "--until");
    if (!day.ok()) return Fail(day.status());
    until = *day;
  }
  if (until <= since) {
    return Fail(Status::InvalidArgument(
        "--until must be after --since (--since defaults to the start of this month in UTC, "
        "--until to now; --until is exclusive)"));
  }
  std::string currency;
  if (cmd.count("--prices") > 0) {
    auto table = PriceTable::Load(o.prices);
    if (!table.ok()) return Fail(table.status());
    currency = table->currency();
  }
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  UsageQuery query{.org_id = o.org, .since = since, .until = until};
  if (!o.project.empty()) {
    // A project named alone is found by its id; with --org it must be that
    // organisation's (NotFound otherwise, as for any other command).
    auto project = o.org.empty() ? (*store)->GetProjectById(o.project)
                                 : (*store)->GetProject(Scope{o.org, o.project});
    if (!project.ok()) return Fail(project.status());
    query.org_id = project->org_id;
    query.project_id = project->id;
  } else if (auto org = (*store)->GetOrg(o.org); !org.ok()) {
    return Fail(org.status());
  }
  auto rows = (*store)->ListUsage(query);
  if (!rows.ok()) return Fail(rows.status());
  if (static_cast<int64_t>(rows->size()) >= kMaxUsageRows) {
    // Totals over a cut list would be wrong without a word.
    return Fail(Status::InvalidArgument(
        "more than " + std::to_string(kMaxUsageRows) +
        " lines of usage (a day, a project and a model each) in this period: name a shorter "
        "one with --since and --until, or one project with --project"));
  }
  const Report report = Summarise(*rows);

  if (common.json) {
    Json j;
    j["orgId"] = query.org_id;
    j["projectId"] = query.project_id ? Json(*query.project_id) : Json(nullptr);
    j["since"] = FormatRfc3339(since);
    j["until"] = FormatRfc3339(until);
    j["currency"] = currency.empty() ? Json(nullptr) : Json(currency);
    j["total"] = TotalsJson(report.total);
    j["byModel"] = GroupsJson(report.by_model, "model", true);
    j["byDay"] = GroupsJson(report.by_day, "day", false);
    j["byProject"] = GroupsJson(report.by_project, "projectId", false);
    std::cout << j.dump() << "\n";
    return 0;
  }
  const UsageTotals& t = report.total;
  std::cout << "Usage of " << (query.project_id ? "project " + *query.project_id : "organisation")
            << (query.project_id ? " (organisation " : "") << query.org_id
            << (query.project_id ? ")" : "") << " from " << FormatRfc3339(since) << " until "
            << FormatRfc3339(until) << " (exclusive)\n"
            << "turns " << t.turns << " (" << t.unpriced_turns << " unpriced)  input "
            << t.tokens.input_tokens << " (cached " << t.tokens.cached_input_tokens
            << ", cache writes " << t.tokens.cache_write_tokens << ")  output "
            << t.tokens.output_tokens << "  total " << t.tokens.total() << "  estimated cost "
            << CostText(t, currency) << "\n";
  std::cout.flush();
  if (rows->empty()) {
    std::cout << "No turn ended in that time.\n";
    return 0;
  }
  PrintGroups("By model", "MODEL", report.by_model, currency);
  PrintGroups("By day (UTC)", "DAY", report.by_day, currency);
  PrintGroups("By project", "PROJECT", report.by_project, currency);
  return 0;
}

}  // namespace

void AddUsageCommand(CLI::App& app, Common& common, std::function<int()>& action) {
  auto o = std::make_shared<UsageOptions>();  // kept alive by the callbacks
  auto* usage = app.add_subcommand(
      "usage",
      "tokens and estimated cost of an organisation's or a project's turns, by model, by day "
      "and by project");
  AddCommon(usage, common, true);
  usage->add_option("--org", o->org, "organisation id");
  usage->add_option("--project", o->project, "project id (alone, or of the --org)");
  usage->add_option("--since", o->since,
                    "first day, YYYY-MM-DD in UTC (default: the start of this month)");
  usage->add_option("--until", o->until,
                    "the day after the last, YYYY-MM-DD in UTC, exclusive (default: now)");
  usage->add_option("--prices", o->prices,
                    "the price table the server uses (serve --prices), to name the currency");
  usage->callback(
      [&, o, usage] { action = [&, o, usage] { return ShowUsage(common, *o, *usage); }; });
}

}  // namespace docwright
