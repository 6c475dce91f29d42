// The Store contract for key roles, the last use of keys, sign-in sessions and
// jobs counted by status, on SQLite and on PostgreSQL.
#include <gtest/gtest.h>

#include <thread>

#include "core/api_key.h"
#include "core/ids.h"
#include "store/cached_store.h"
#include "support/store_fixture.h"

namespace docwright {
namespace {

using std::chrono::milliseconds;

class StoreSessionsTest : public testing::StoreTest {
 protected:
  ApiKey AddKey(KeyRole role = KeyRole::kAdmin,
                std::optional<std::vector<std::string>> projects = std::nullopt) {
    GeneratedApiKey k = GenerateApiKey(org_.id, "ci", role, std::move(projects));
    EXPECT_TRUE(store_->CreateApiKey(k.record).ok());
    return k.record;
  }

  // A session of `key` made at `now` that lasts `lifetime_ms`.
  Session AddSession(Store& store, const ApiKey& key, UnixMillis now, int64_t lifetime_ms) {
    NewSession s = GenerateSession(key, now, lifetime_ms);
    Status made = store.CreateSession(s.record);
    EXPECT_TRUE(made.ok()) << made.message();
    return s.record;
  }

  ApiKey Listed(const std::string& key_id) {
    auto keys = store_->ListApiKeys(org_.id);
    EXPECT_TRUE(keys.ok());
    for (const ApiKey& k : *keys) {
      if (k.id == key_id) return k;
    }
    ADD_FAILURE() << "key " << key_id << " not listed";
    return {};
  }
};

TEST_P(StoreSessionsTest, KeysKeepTheirRoleAndProjects) {
  ApiKey admin = AddKey();
  ApiKey member = AddKey(KeyRole::kMember, std::vector<std::string>{project_.id, NewId()});
  ApiKey none = AddKey(KeyRole::kMember, std::vector<std::string>{});
  EXPECT_EQ(Listed(admin.id).role, KeyRole::kAdmin);
  EXPECT_FALSE(Listed(admin.id).projects.has_value()) << "unlimited";
  EXPECT_EQ(Listed(member.id).role, KeyRole::kMember);
  EXPECT_EQ(Listed(member.id).projects, member.projects);
  // Limited to no project is not unlimited.
  ASSERT_TRUE(Listed(none.id).projects.has_value());
  EXPECT_TRUE(Listed(none.id).projects->empty());
  auto found = store_->FindActiveApiKey(member.secret_hash);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->role, KeyRole::kMember);
  EXPECT_EQ(found->projects, member.projects);
  EXPECT_FALSE(found->last_used_at.has_value());
}

TEST_P(StoreSessionsTest, AKeysLastUseOnlyMovesForward) {
  ApiKey k = AddKey();
  ASSERT_TRUE(store_->RecordKeyUses({{k.id, 2000000}, {NewId(), 5}}).ok())
      << "an unknown key is skipped";
  EXPECT_EQ(Listed(k.id).last_used_at, 2000000);
  ASSERT_TRUE(store_->RecordKeyUses({{k.id, 1000000}}).ok());
  EXPECT_EQ(Listed(k.id).last_used_at, 2000000) << "an older use does not go back";
  ASSERT_TRUE(store_->RecordKeyUses({{k.id, 3000000}}).ok());
  EXPECT_EQ(Listed(k.id).last_used_at, 3000000);
  ASSERT_TRUE(store_->RecordKeyUses({}).ok());
}

TEST_P(StoreSessionsTest, ASessionIsFoundWithItsKeyUntilItExpires) {
  ApiKey k = AddKey(KeyRole::kMember, std::vector<std::string>{project_.id});
  UnixMillis now = NowMillis();
  Session s = AddSession(*store_, k, now, 60000);
  auto found = store_->FindSession(s.token_hash, now + 1);
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_EQ(found->session.key_id, k.id);
  EXPECT_EQ(found->session.org_id, org_.id);
  EXPECT_EQ(found->session.csrf_token, s.csrf_token);
  EXPECT_EQ(found->session.expires_at, now + 60000);
  EXPECT_EQ(found->key.id, k.id);
  EXPECT_EQ(found->key.role, KeyRole::kMember);
  EXPECT_EQ(found->key.projects, k.projects);
  EXPECT_EQ(store_->FindSession(s.token_hash, now + 60000).status().code(), Code::kNotFound)
      << "expired";
  EXPECT_EQ(store_->FindSession(HashSessionToken("dws_nope"), now).status().code(),
            Code::kNotFound);
}

TEST_P(StoreSessionsTest, RevokingAKeyEndsItsSessionsAndNoneStartsAfter) {
  ApiKey k = AddKey();
  ApiKey other = AddKey();
  UnixMillis now = NowMillis();
  Session s = AddSession(*store_, k, now, 60000);
  Session kept = AddSession(*store_, other, now, 60000);
  ASSERT_TRUE(store_->RevokeApiKey(k.id).ok());
  EXPECT_EQ(store_->FindSession(s.token_hash, now).status().code(), Code::kNotFound);
  EXPECT_TRUE(store_->FindSession(kept.token_hash, now).ok()) << "other keys' sessions stay";
  NewSession late = GenerateSession(k, now, 60000);
  EXPECT_EQ(store_->CreateSession(late.record).code(), Code::kNotFound);
  NewSession stranger = GenerateSession(k, now, 60000);
  stranger.record.org_id = other_org_.id;
  stranger.record.key_id = other.id;
  EXPECT_EQ(store_->CreateSession(stranger.record).code(), Code::kNotFound)
      << "a key of another organisation";
}

TEST_P(StoreSessionsTest, SignOutEndsASessionAndIsIdempotent) {
  ApiKey k = AddKey();
  UnixMillis now = NowMillis();
  Session s = AddSession(*store_, k, now, 60000);
  ASSERT_TRUE(store_->DeleteSession(s.token_hash).ok());
  EXPECT_EQ(store_->FindSession(s.token_hash, now).status().code(), Code::kNotFound);
  EXPECT_TRUE(store_->DeleteSession(s.token_hash).ok());
}

TEST_P(StoreSessionsTest, ExpiredSessionsArePurgedByLaterSignIns) {
  ApiKey k = AddKey();
  UnixMillis now = NowMillis();
  // Made an hour ago, for a minute: expired since.
  Session old = AddSession(*store_, k, now - 3600000, 60000);
  ASSERT_TRUE(store_->FindSession(old.token_hash, now - 3600000 + 1).ok());
  AddSession(*store_, k, now, 60000);
  // Asked as of a time it was still valid: gone, so removed, not filtered.
  EXPECT_EQ(store_->FindSession(old.token_hash, now - 3600000 + 1).status().code(),
            Code::kNotFound);
}

TEST_P(StoreSessionsTest, ACachedSessionIsForgottenAtRevocationAndSignOut) {
  auto cached = NewCachedStore(Open(), CacheOptions{.ttl = milliseconds(60000)});
  ApiKey k = AddKey();
  UnixMillis now = NowMillis();
  Session a = AddSession(*cached, k, now, 60000);
  Session b = AddSession(*cached, k, now, 60000);
  ASSERT_TRUE(cached->FindSession(a.token_hash, now).ok());
  ASSERT_TRUE(cached->FindSession(b.token_hash, now).ok());
  ASSERT_TRUE(cached->DeleteSession(a.token_hash).ok());
  EXPECT_FALSE(cached->FindSession(a.token_hash, now).ok()) << "signed out";
  ASSERT_TRUE(cached->RevokeApiKey(k.id).ok());
  EXPECT_FALSE(cached->FindSession(b.token_hash, now).ok()) << "revoked through the cache";
}

TEST_P(StoreSessionsTest, ARevocationByAnotherProcessReachesTheCacheWhenAnnounced) {
  if (!postgres()) GTEST_SKIP() << "SQLite announces nothing: the cache forgets after its ttl";
  auto cached = NewCachedStore(Open(), CacheOptions{.ttl = milliseconds(60000)});
  ApiKey k = AddKey();
  UnixMillis now = NowMillis();
  Session s = AddSession(*store_, k, now, 60000);
  ASSERT_TRUE(cached->FindSession(s.token_hash, now).ok());
  ASSERT_TRUE(store_->RevokeApiKey(k.id).ok());  // another store object: another node
  EXPECT_TRUE(testing::WaitUntil([&] { return !cached->FindSession(s.token_hash, now).ok(); },
                                 milliseconds(5000)));
}

TEST_P(StoreSessionsTest, JobsAreCountedByStatusPerProject) {
  Project second = NewProject(org_.id, 100);
  Create(project_);
  Create(project_);
  Job archived = Create(second);
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(second), archived.id).ok());
  Create(other_project_);  // another organisation's
  auto counts = store_->CountJobs(org_.id);
  ASSERT_TRUE(counts.ok()) << counts.status().message();
  ASSERT_EQ(counts->size(), 2u);
  for (const ProjectJobCounts& c : *counts) {
    if (c.project_id == project_.id) {
      EXPECT_EQ(c.active, 2);
      EXPECT_EQ(c.archived, 0);
    } else {
      EXPECT_EQ(c.project_id, second.id);
      EXPECT_EQ(c.active, 0);
      EXPECT_EQ(c.archived, 1);
    }
    EXPECT_EQ(c.completed, 0);
    EXPECT_EQ(c.failed, 0);
  }
  auto none = store_->CountJobs(NewId());
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

INSTANTIATE_TEST_SUITE_P(Store, StoreSessionsTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace docwright
