// The SQL store: the forges' webhook deliveries (core/forge_event.h), each
// recorded once per (project, forge, delivery id) and kept
// kForgeEventRetention. What an event says beyond its keys is one JSON
// document (`data`), read back field by field: a field this version does not
// know is left out, one it lacks is empty.
#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "core/text.h"
#include "store/sql/forge_event_statements.h"
#include "store/sql/internal.h"
#include "store/sql/workflow_statements.h"

namespace docwright::sql {
namespace {

using Json = nlohmann::json;

// The old events one record removes at most.
constexpr int64_t kPrunedPerRecord = 20;
constexpr size_t kMaxOutcomeBytes = 1000;
constexpr int kMaxPendingPage = 1000;

std::string EventData(const ForgeEvent& e) {
  Json j = {{"sender", e.sender},
            {"repositoryUrls", e.repository_urls},
            {"branch", e.branch},
            {"before", e.before},
            {"after", e.after},
            {"prNumber", e.pr_number},
            {"prUrl", e.pr_url},
            {"prHead", e.pr_head},
            {"prBase", e.pr_base},
            {"prAction", e.pr_action},
            {"prMerged", e.pr_merged},
            {"commentKind", e.comment_kind},
            {"commentId", e.comment_id},
            {"commentBody", e.comment_body},
            {"commentUrl", e.comment_url},
            {"commentPath", e.comment_path},
            {"commentLine", e.comment_line ? Json(*e.comment_line) : Json(nullptr)},
            {"reviewState", e.review_state},
            {"commentCreated", e.comment_created}};
  // The parsers keep valid UTF-8 only; a value that is not is replaced, never thrown on.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string Text(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

ForgeEvent ReadForgeEvent(const Rows& r) {
  ForgeEvent e;
  e.id = r.Int("id");
  e.project_id = r.Text("project_id");
  e.forge = ParseForge(r.Text("forge")).value_or(ForgeKind::kLocal);
  e.delivery_id = r.Text("delivery_id");
  e.kind = ParseForgeEventKind(r.Text("kind")).value_or(ForgeEventKind::kPush);
  e.received_at = r.Int("received_at");
  e.handled_at = r.OptInt("handled_at");
  e.outcome = r.OptText("outcome").value_or("");
  Json j = Json::parse(r.Text("data"), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return e;
  e.sender = Text(j, "sender");
  if (auto urls = j.find("repositoryUrls"); urls != j.end() && urls->is_array()) {
    for (const Json& u : *urls) {
      if (u.is_string()) e.repository_urls.push_back(u.get<std::string>());
    }
  }
  e.branch = Text(j, "branch");
  e.before = Text(j, "before");
  e.after = Text(j, "after");
  if (auto n = j.find("prNumber"); n != j.end() && n->is_number_integer()) {
    e.pr_number = n->get<int64_t>();
  }
  e.pr_url = Text(j, "prUrl");
  e.pr_head = Text(j, "prHead");
  e.pr_base = Text(j, "prBase");
  e.pr_action = Text(j, "prAction");
  e.pr_merged = j.value("prMerged", false);
  e.comment_kind = Text(j, "commentKind");
  e.comment_id = Text(j, "commentId");
  e.comment_body = Text(j, "commentBody");
  e.comment_url = Text(j, "commentUrl");
  e.comment_path = Text(j, "commentPath");
  if (auto n = j.find("commentLine"); n != j.end() && n->is_number_integer()) {
    e.comment_line = n->get<int64_t>();
  }
  e.review_state = Text(j, "reviewState");
  e.comment_created = j.value("commentCreated", true);
  return e;
}

}  // namespace

Result<bool> SqlStore::RecordForgeEvent(ForgeEvent event) {
  if (event.project_id.empty() || event.delivery_id.empty()) {
    return Status::InvalidArgument("a forge event needs its project and delivery id");
  }
  const std::string data = EventData(event);
  const std::string forge(ToString(event.forge));
  const std::string kind(ToString(event.kind));
  bool recorded = false;
  Status s = Write([&](Connection& c) -> Status {
    recorded = false;
    auto exists = One(c, kProjectExists, {V(event.project_id)});
    if (!exists.ok()) return exists.status();
    if (*exists == 0) return Status::NotFound("project not found");
    auto now = Now(c);
    if (!now.ok()) return now.status();
    const int64_t retention =
        std::chrono::duration_cast<std::chrono::milliseconds>(kForgeEventRetention).count();
    if (Status w = Run(c, kPruneForgeEvents, {V(*now - retention), V(kPrunedPerRecord)}); !w.ok()) {
      return w;
    }
    auto r = c.Exec(kInsertForgeEvent, {V(event.project_id), V(forge), V(event.delivery_id),
                                        V(kind), V(data), V(*now)});
    if (!r.ok()) return r.status();
    recorded = r->affected() > 0;
    return Status();
  });
  if (!s.ok()) return s;
  return recorded;
}

Result<std::vector<ForgeEvent>> SqlStore::ListPendingForgeEvents(int limit) {
  limit = std::clamp(limit, 1, kMaxPendingPage);
  return ReadAll(kSelectPendingForgeEvents, {V(limit)}, &ReadForgeEvent);
}

Status SqlStore::FinishForgeEvent(int64_t id, const std::string& outcome) {
  const std::string text(CutUtf8(ScrubUtf8(outcome), kMaxOutcomeBytes));
  return Write([&](Connection& c) -> Status {
    auto now = Now(c);
    if (!now.ok()) return now.status();
    return Change(c, kFinishForgeEvent, {V(id), V(*now), V(text)}, "forge event not found");
  });
}

}  // namespace docwright::sql
