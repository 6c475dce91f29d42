// The SQL store: the sign-in sessions of browsers.
#include "core/api_key.h"
#include "store/sql/internal.h"
#include "store/sql/statements.h"

namespace docwright::sql {

namespace {

ActiveSession ReadSession(const Rows& r) {
  ActiveSession s;
  s.key = ReadKey(r);
  s.session.token_hash = r.Text("token_hash");
  s.session.key_id = s.key.id;
  s.session.org_id = s.key.org_id;
  s.session.csrf_token = r.Text("csrf_token");
  s.session.created_at = r.Int("session_created_at");
  s.session.expires_at = r.Int("expires_at");
  return s;
}

}  // namespace

Status SqlStore::CreateSession(const Session& s) {
  return Write([&](Connection& c) -> Status {
    auto key = c.Exec(kSelectActiveKey, {V(s.key_id), V(s.org_id)});
    if (!key.ok()) return key.status();
    if (key->size() == 0) return Status::NotFound("invalid or revoked API key");
    // Sign-ins clear what expired: bounded, so a sign-in never waits on a backlog.
    if (Status purged = Run(c, kPurgeExpiredSessions, {V(s.created_at)}); !purged.ok()) {
      return purged;
    }
    return Run(c, kInsertSession,
               {V(s.token_hash), V(s.key_id), V(s.org_id), V(s.csrf_token), V(s.created_at),
                V(s.expires_at)});
  });
}

Result<ActiveSession> SqlStore::FindSession(const std::string& token_hash, UnixMillis now) {
  return ReadOne(kSelectSession, {V(token_hash), V(now)}, &ReadSession,
                 "no such session, or it ended");
}

Status SqlStore::DeleteSession(const std::string& token_hash) {
  return Write([&](Connection& c) -> Status {
    auto r = c.Exec(kDeleteSession, {V(token_hash)});
    if (!r.ok()) return r.status();
    // Other nodes' caches forget it at once.
    return r->affected() > 0 ? Notify(c, "k") : Status();
  });
}

}  // namespace docwright::sql
