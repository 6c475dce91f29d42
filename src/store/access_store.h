// AccessStore: the store's concern of who may call: organisations' API keys
// and the dashboard's sign-in sessions (store.h bundles it). The API's
// authentication, its key routes and the event streams' credential checks
// take it; the runner and the workflows' engine do not see it.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/api_key.h"
#include "core/status.h"

namespace docwright {

// Owns the rows of API keys (their hashes only) and sessions (their token
// hashes only). Every method is thread-safe and blocks on the database (a read
// or a write transaction); errors are values: NotFound for what does not
// exist; InvalidArgument for what breaks a documented rule; Unavailable when
// the database cannot be reached. A write that returns OK is durable and seen
// by every node at once (one database); a node's read cache (CachedStore) sees
// another node's revocation within its ttl, or at once where the store
// announces writes (keys_changed, wakeups.h).
class AccessStore {
 public:
  virtual ~AccessStore() = default;

  // --- API keys ---
  // Stores a key whose id, prefix and secret_hash the caller made.
  virtual Status CreateApiKey(const ApiKey& key) = 0;
  virtual Result<std::vector<ApiKey>> ListApiKeys(const std::string& org_id) = 0;
  // Idempotent. NotFound if there is no such key. Ends the key's sessions in
  // the same transaction, and is announced (keys_changed).
  virtual Status RevokeApiKey(const std::string& key_id) = 0;
  // The unrevoked key whose secret hashes to `secret_hash`; NotFound otherwise.
  virtual Result<ApiKey> FindActiveApiKey(const std::string& secret_hash) = 0;
  // Makes each key's last_used_at the later of its own and the time given with
  // it (key id, time). Keys that do not exist are skipped. Not announced: a
  // listing may show a use a little late. As a claim, not flushed to the disk
  // on its own (a power loss may lose the last uses).
  virtual Status RecordKeyUses(const std::vector<std::pair<std::string, UnixMillis>>& uses) = 0;

  // --- Sign-in sessions (core/api_key.h) ---
  // Stores `session`; NotFound if its key does not exist. Removes a bounded
  // number of expired sessions on the way, so they do not pile up.
  virtual Status CreateSession(const Session& session) = 0;
  // The session whose token hashes to `token_hash`, if it has not expired as of
  // `now` and its key is not revoked, with that key; NotFound otherwise.
  virtual Result<ActiveSession> FindSession(const std::string& token_hash, UnixMillis now) = 0;
  // Ends the session (sign-out). Idempotent; announced (keys_changed).
  virtual Status DeleteSession(const std::string& token_hash) = 0;
};

}  // namespace docwright
