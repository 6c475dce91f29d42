#include "api/account_views.h"

#include <string_view>
#include <unordered_map>

#include "core/json_writer.h"
#include "core/text.h"
#include "core/time.h"

namespace docwright {
namespace {

void OptTime(JsonWriter& w, const std::optional<UnixMillis>& t) {
  if (t) {
    w.String(FormatRfc3339(*t));
  } else {
    w.Null();
  }
}

void WriteKey(JsonWriter& w, const ApiKey& k, const std::string* secret) {
  w.BeginObject();
  w.Key("id").String(k.id);
  w.Key("name").String(k.name);
  w.Key("prefix").String(k.prefix);
  w.Key("role").String(ToString(k.role));
  w.Key("projects");
  if (k.projects) {
    w.BeginArray();
    for (const std::string& p : *k.projects) w.String(p);
    w.EndArray();
  } else {
    w.Null();
  }
  w.Key("createdAt").String(FormatRfc3339(k.created_at));
  w.Key("lastUsedAt");
  OptTime(w, k.last_used_at);
  w.Key("revokedAt");
  OptTime(w, k.revoked_at);
  if (secret) w.Key("key").String(*secret);
  w.EndObject();
}

HttpResponse Rendered(std::string body) {
  HttpResponse r;
  r.body = std::move(body);
  return r;
}

}  // namespace

std::string KeyRecordJson(const ApiKey& key, const std::string* secret) {
  std::string out;
  JsonWriter w(&out);
  WriteKey(w, key, secret);
  return out;
}

HttpResponse KeyListResponse(const std::vector<ApiKey>& keys) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("keys").BeginArray();
  for (const ApiKey& k : keys) WriteKey(w, k, nullptr);
  w.EndArray();
  w.EndObject();
  return Rendered(std::move(out));
}

HttpResponse SessionInfoResponse(const Org& org, const ApiKey& key, const Session* session) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("org").BeginObject();
  w.Key("id").String(org.id);
  w.Key("name").String(org.name);
  w.EndObject();
  w.Key("key");
  WriteKey(w, key, nullptr);
  w.Key("csrfToken");
  if (session) {
    w.String(session->csrf_token);
  } else {
    w.Null();
  }
  w.Key("expiresAt");
  OptTime(w, session ? std::optional<UnixMillis>(session->expires_at) : std::nullopt);
  w.EndObject();
  HttpResponse r = Rendered(std::move(out));
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

HttpResponse ProjectListResponse(const std::vector<Project>& projects,
                                 const std::vector<ProjectJobCounts>& counts) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("projects").BeginArray();
  std::unordered_map<std::string_view, const ProjectJobCounts*> by_project;
  for (const ProjectJobCounts& c : counts) by_project[c.project_id] = &c;
  for (const Project& p : projects) {
    auto found = by_project.find(p.id);
    const ProjectJobCounts n = found == by_project.end() ? ProjectJobCounts{} : *found->second;
    w.BeginObject();
    w.Key("id").String(p.id);
    // A repository URL may carry credentials; a member's key never shows them.
    w.Key("repository").String(RedactCredentials(p.repository));
    w.Key("ref").String(p.base_ref);
    w.Key("forge").String(ToString(p.forge));
    w.Key("model").OptString(p.model);
    w.Key("createdAt").String(FormatRfc3339(p.created_at));
    w.Key("archivedAt");
    OptTime(w, p.archived_at);
    w.Key("jobs").BeginObject();
    w.Key("active").Int(n.active);
    w.Key("completed").Int(n.completed);
    w.Key("failed").Int(n.failed);
    w.Key("archived").Int(n.archived);
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return Rendered(std::move(out));
}

}  // namespace docwright
