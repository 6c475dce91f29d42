// Secrets at rest in the store: a project's forge token is sealed in the
// database (store/sql/secrets.cc), on SQLite and on PostgreSQL.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <iterator>

#include "core/secret_box.h"
#include "store/store.h"
#include "support/postgres_database.h"
#include "support/secrets.h"
#include "support/temp_dir.h"
#include "support/test_tools.h"

namespace docwright {
namespace {

using testing::TempDir;

constexpr const char* kToken = "ghp_SealedAtRest0123456789abcdefABCDEF";

std::shared_ptr<const SecretBox> Keys(std::vector<std::string> keys) {
  auto box = SecretBox::Make(std::move(keys));
  EXPECT_TRUE(box.ok()) << box.status().message();
  return std::make_shared<const SecretBox>(std::move(*box));
}

std::string KeyA() { return std::string(kSecretKeyBytes, 'a'); }
std::string KeyB() { return std::string(kSecretKeyBytes, 'b'); }

class StoreSecretsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgres") {
      std::string why;
      database_ = testing::PostgresDatabase::Create(&why);
      DOCWRIGHT_REQUIRE_TOOL(database_ != nullptr, "no PostgreSQL server: " + why);
      url_ = database_->url();
    } else {
      url_ = dir_ / "docwright.db";
    }
    store_ = Open(Keys({KeyA()}));
    ASSERT_NE(store_, nullptr);
    org_ = store_->CreateOrg("acme")->id;
  }

  std::unique_ptr<Store> Open(std::shared_ptr<const SecretBox> keys) {
    auto s = OpenStore(url_, std::move(keys));
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? std::move(*s) : nullptr;
  }

  Project NewProject(std::optional<std::string> token) {
    Project p;
    p.org_id = org_;
    p.repository = "https://github.com/acme/docs";
    p.base_ref = "main";
    p.forge = ForgeKind::kGithub;
    p.forge_token = std::move(token);
    auto made = store_->CreateProject(p);
    EXPECT_TRUE(made.ok()) << made.status().message();
    return *made;
  }

  // The first column of the first row of `sql`, as an integer, read from the
  // database itself, past the store.
  int64_t RawInt(const std::string& sql) {
    if (database_) return testing::PostgresDatabase::Scalar(url_, sql);
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(url_.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    int64_t n = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return n;
  }

  void RawExec(const std::string& sql) {
    if (database_) {
      EXPECT_EQ(testing::PostgresDatabase::Exec(url_, sql), "") << sql;
      return;
    }
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(url_.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
    sqlite3_close(db);
  }

  // Whether the stored forge token of `project_id` is sealed under `key_id`
  // (any key, when empty).
  bool StoredSealed(const std::string& project_id, const std::string& key_id = "") {
    std::string prefix = "dwenc:v1:" + key_id;
    return RawInt("SELECT COUNT(*) FROM projects WHERE id = '" + project_id +
                  "' AND substr(forge_token, 1, " + std::to_string(prefix.size()) + ") = '" +
                  prefix + "'") == 1;
  }

  static std::string FileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  TempDir dir_;
  std::unique_ptr<testing::PostgresDatabase> database_;
  std::string url_;
  std::unique_ptr<Store> store_;
  std::string org_;
};

TEST_P(StoreSecretsTest, AForgeTokenIsSealedInTheDatabaseAndOpenedForItsReaders) {
  Project p = NewProject(kToken);
  EXPECT_EQ(p.forge_token, kToken);
  EXPECT_TRUE(StoredSealed(p.id, SecretBox::KeyId(KeyA()) + ":"));
  EXPECT_EQ(RawInt("SELECT COUNT(*) FROM projects WHERE forge_token LIKE '%SealedAtRest%'"), 0);
  EXPECT_EQ(store_->GetProject(Scope{org_, p.id})->forge_token, kToken);
  EXPECT_EQ(store_->ListProjects(org_)->at(0).forge_token, kToken);

  p.forge_token = std::string(kToken) + "-updated";
  ASSERT_TRUE(store_->UpdateProject(p).ok());
  EXPECT_TRUE(StoredSealed(p.id));
  EXPECT_EQ(store_->GetProject(Scope{org_, p.id})->forge_token, std::string(kToken) + "-updated");

  // A turn's input carries the token in the clear, for git and the forge.
  ASSERT_TRUE(store_->CreateJob(Scope{org_, p.id}, NewJob{.prompt = "Fix the typo"}).ok());
  auto claimed = store_->ClaimTurn("w1", std::chrono::milliseconds(60000), kMaxTurnAttempts);
  ASSERT_TRUE(claimed.ok() && claimed->has_value()) << claimed.status().message();
  EXPECT_EQ((*claimed)->project.forge_token, std::string(kToken) + "-updated");

  if (!database_) {  // the bytes of the SQLite files hold no trace of it
    store_.reset();
    for (const char* suffix : {"", "-wal"}) {
      EXPECT_EQ(FileBytes(url_ + suffix).find("SealedAtRest"), std::string::npos) << suffix;
    }
  }
}

TEST_P(StoreSecretsTest, ATokenCopiedToAnotherProjectDoesNotOpenThere) {
  Project a = NewProject(kToken);
  Project b = NewProject("ghp_other");
  RawExec("UPDATE projects SET forge_token = (SELECT forge_token FROM projects WHERE id = '" +
          a.id + "') WHERE id = '" + b.id + "'");
  auto got = store_->GetProject(Scope{org_, b.id});
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find(b.id), std::string::npos) << got.status().message();
  EXPECT_EQ(got.status().message().find("SealedAtRest"), std::string::npos);
  // Its turns fail, saying why, and the store goes on.
  Job job = *store_->CreateJob(Scope{org_, b.id}, NewJob{.prompt = "Fix the typo"});
  auto claimed = store_->ClaimTurn("w1", std::chrono::milliseconds(60000), kMaxTurnAttempts);
  ASSERT_TRUE(claimed.ok()) << claimed.status().message();
  EXPECT_FALSE(claimed->has_value());
  auto failed = store_->GetJob(Scope{org_, b.id}, job.id);
  EXPECT_EQ(failed->status, JobStatus::kFailed);
  EXPECT_NE(failed->error.value_or("").find("forge token"), std::string::npos)
      << failed->error.value_or("");
  EXPECT_TRUE(store_->GetProject(Scope{org_, a.id}).ok());
}

TEST_P(StoreSecretsTest, ATokenStoredInTheClearBeforeSealingIsSealedAtOpen) {
  Project p = NewProject(std::nullopt);
  RawExec("UPDATE projects SET forge_token = 'ghp_LegacyPlaintext' WHERE id = '" + p.id + "'");
  // Read before the next open: taken as it is.
  EXPECT_EQ(store_->GetProject(Scope{org_, p.id})->forge_token, "ghp_LegacyPlaintext");
  store_ = Open(Keys({KeyA()}));
  ASSERT_NE(store_, nullptr);
  EXPECT_TRUE(StoredSealed(p.id, SecretBox::KeyId(KeyA()) + ":"));
  EXPECT_EQ(RawInt("SELECT COUNT(*) FROM projects WHERE forge_token LIKE '%LegacyPlaintext%'"), 0);
  EXPECT_EQ(store_->GetProject(Scope{org_, p.id})->forge_token, "ghp_LegacyPlaintext");
}

TEST_P(StoreSecretsTest, RotationSealsEveryTokenAgainUnderTheNewKey) {
  Project p = NewProject(kToken);
  Project q = NewProject("ghp_second");
  NewProject(std::nullopt);
  // The new key first, the old one kept: what the old key sealed still opens.
  store_ = Open(Keys({KeyB(), KeyA()}));
  ASSERT_NE(store_, nullptr);
  EXPECT_EQ(store_->GetProject(Scope{org_, p.id})->forge_token, kToken);
  auto resealed = store_->ResealSecrets();
  ASSERT_TRUE(resealed.ok()) << resealed.status().message();
  EXPECT_EQ(*resealed, 2);
  EXPECT_TRUE(StoredSealed(p.id, SecretBox::KeyId(KeyB()) + ":"));
  EXPECT_TRUE(StoredSealed(q.id, SecretBox::KeyId(KeyB()) + ":"));
  EXPECT_EQ(*store_->ResealSecrets(), 0);  // nothing left to do
  // The old key may now go.
  store_ = Open(Keys({KeyB()}));
  ASSERT_NE(store_, nullptr);
  EXPECT_EQ(store_->GetProject(Scope{org_, q.id})->forge_token, "ghp_second");
  // A process with only the old key refuses to start, naming the key it lacks.
  store_.reset();
  auto refused = OpenStore(url_, Keys({KeyA()}));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(SecretBox::KeyId(KeyB())), std::string::npos)
      << refused.status().message();
  EXPECT_EQ(refused.status().message().find("ghp_"), std::string::npos);
}

TEST_P(StoreSecretsTest, AStoreWithoutKeysDoesNotOpen) {
  EXPECT_FALSE(OpenStore(url_, nullptr).ok());
}

INSTANTIATE_TEST_SUITE_P(Store, StoreSecretsTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace docwright
