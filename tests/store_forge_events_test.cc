// Forges' webhook deliveries in the Store (store.h: "Forge events"), and a
// project's hook secret and mention handle, on SQLite and on PostgreSQL: a
// delivery is recorded once per (project, forge, delivery id), listed pending
// oldest first until finished, its first outcome kept, pruned after a week
// and gone with its project; the hook secret is sealed at rest for its row.
#include <sqlite3.h>

#include "core/forge_event.h"
#include "support/store_fixture.h"

namespace docwright {
namespace {

class StoreForgeEventsTest : public testing::StoreTest {
 protected:
  ForgeEvent Push(const std::string& delivery, const Project* p = nullptr) {
    ForgeEvent e;
    e.project_id = (p ? *p : project_).id;
    e.forge = ForgeKind::kGithub;
    e.delivery_id = delivery;
    e.kind = ForgeEventKind::kPush;
    e.sender = "octocat";
    e.repository_urls = {"https://github.com/acme/docs.git", "git@github.com:acme/docs.git"};
    e.branch = "main";
    e.before = std::string(40, 'a');
    e.after = std::string(40, 'b');
    return e;
  }

  bool Record(const ForgeEvent& e) {
    auto r = store_->RecordForgeEvent(e);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() && *r;
  }

  std::vector<ForgeEvent> Pending() {
    auto r = store_->ListPendingForgeEvents(100);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : std::vector<ForgeEvent>{};
  }

  // The first column of the first row of `sql`, read as another process would.
  int64_t Count(const std::string& sql) {
    if (postgres()) return testing::PostgresDatabase::Scalar(url_, sql);
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(url_.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    int64_t n = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return n;
  }
  void Exec(const std::string& sql) {
    if (postgres()) {
      EXPECT_EQ(testing::PostgresDatabase::Exec(url_, sql), "") << sql;
      return;
    }
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(url_.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
    sqlite3_close(db);
  }
};

TEST_P(StoreForgeEventsTest, ADeliveryIsRecordedOnceAndPendingUntilFinished) {
  EXPECT_TRUE(Record(Push("d-1")));
  EXPECT_FALSE(Record(Push("d-1"))) << "the same delivery again";
  EXPECT_TRUE(Record(Push("d-1", &other_project_))) << "another project's delivery";
  ForgeEvent gitlab = Push("d-1");
  gitlab.forge = ForgeKind::kGitlab;
  EXPECT_TRUE(Record(gitlab)) << "another forge's delivery";

  auto pending = Pending();
  ASSERT_EQ(pending.size(), 3u);
  EXPECT_LT(pending[0].id, pending[1].id) << "oldest first";
  const ForgeEvent e = pending[0];  // a copy: `pending` is read again below
  EXPECT_EQ(e.project_id, project_.id);
  EXPECT_EQ(e.forge, ForgeKind::kGithub);
  EXPECT_EQ(e.delivery_id, "d-1");
  EXPECT_EQ(e.kind, ForgeEventKind::kPush);
  EXPECT_EQ(e.sender, "octocat");
  EXPECT_EQ(e.repository_urls, Push("x").repository_urls);
  EXPECT_EQ(e.branch, "main");
  EXPECT_EQ(e.before, std::string(40, 'a'));
  EXPECT_EQ(e.after, std::string(40, 'b'));
  EXPECT_GT(e.received_at, 0);
  EXPECT_FALSE(e.handled_at.has_value());

  ASSERT_TRUE(store_->FinishForgeEvent(e.id, "1 run started").ok());
  ASSERT_TRUE(store_->FinishForgeEvent(e.id, "handled again elsewhere").ok());
  EXPECT_EQ(Count("SELECT COUNT(*) FROM forge_events WHERE outcome = '1 run started' AND "
                  "handled_at IS NOT NULL"),
            1)
      << "the first outcome stays";
  pending = Pending();
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_NE(pending[0].id, e.id);
  EXPECT_FALSE(Record(Push("d-1"))) << "handled, still known";

  Status unknown = store_->FinishForgeEvent(e.id + 1000, "x");
  EXPECT_EQ(unknown.code(), Code::kNotFound);
  ForgeEvent nowhere = Push("d-2");
  nowhere.project_id = "0190f0e0-0000-7000-8000-000000000000";
  auto recorded = store_->RecordForgeEvent(nowhere);
  EXPECT_EQ(recorded.status().code(), Code::kNotFound);
}

TEST_P(StoreForgeEventsTest, ACommentKeepsItsFields) {
  ForgeEvent c;
  c.project_id = project_.id;
  c.forge = ForgeKind::kGitea;
  c.delivery_id = "c-1";
  c.kind = ForgeEventKind::kComment;
  c.pr_number = 42;
  c.pr_url = "https://gitea.example/acme/docs/pulls/42";
  c.pr_head = "docwright/fix-typo";
  c.pr_base = "main";
  c.comment_kind = "review_comment";
  c.comment_id = "981";
  c.comment_body = "@docwright also fix “this” line\nplease";
  c.comment_path = "docs/intro.md";
  c.comment_line = 12;
  c.comment_created = false;
  ASSERT_TRUE(Record(c));
  auto pending = Pending();
  ASSERT_EQ(pending.size(), 1u);
  const ForgeEvent& e = pending[0];
  EXPECT_EQ(e.kind, ForgeEventKind::kComment);
  EXPECT_EQ(e.pr_number, 42);
  EXPECT_EQ(e.pr_url, c.pr_url);
  EXPECT_EQ(e.pr_head, c.pr_head);
  EXPECT_EQ(e.pr_base, "main");
  EXPECT_EQ(e.comment_kind, "review_comment");
  EXPECT_EQ(e.comment_id, "981");
  EXPECT_EQ(e.comment_body, c.comment_body);
  EXPECT_EQ(e.comment_path, "docs/intro.md");
  EXPECT_EQ(e.comment_line, 12);
  EXPECT_FALSE(e.comment_created);
}

TEST_P(StoreForgeEventsTest, EventsOlderThanAWeekArePrunedAndGoWithTheirProject) {
  ASSERT_TRUE(Record(Push("old")));
  const int64_t eight_days = 8LL * 24 * 3600 * 1000;
  Exec("UPDATE forge_events SET received_at = received_at - " + std::to_string(eight_days));
  ASSERT_TRUE(Record(Push("new")));
  EXPECT_EQ(Count("SELECT COUNT(*) FROM forge_events WHERE delivery_id = 'old'"), 0);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM forge_events WHERE delivery_id = 'new'"), 1);

  ASSERT_TRUE(store_->DeleteProject(ScopeOf(project_)).ok());
  EXPECT_EQ(Count("SELECT COUNT(*) FROM forge_events"), 0);
}

TEST_P(StoreForgeEventsTest, TheHookSecretIsSealedForItsRowAndTheMentionHandleKept) {
  EXPECT_FALSE(project_.hook_secret.has_value());
  EXPECT_EQ(store_->GetProjectById(project_.id)->mention_handle, "docwright");
  Project p = project_;
  p.hook_secret = "HookSecretAtRest0123456789abcdefghijklmn";
  p.mention_handle = "docs-bot";
  ASSERT_TRUE(store_->UpdateProject(p).ok());
  auto read = store_->GetProjectById(p.id);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->hook_secret, p.hook_secret);
  EXPECT_EQ(read->mention_handle, "docs-bot");
  EXPECT_EQ(store_->ListProjects(org_.id)->at(0).hook_secret, p.hook_secret);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM projects WHERE hook_secret LIKE '%HookSecretAtRest%'"), 0);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM projects WHERE substr(hook_secret, 1, 9) = 'dwenc:v1:'"),
            1);

  // Copied to another project's row, it does not open there.
  Exec("UPDATE projects SET hook_secret = (SELECT hook_secret FROM projects WHERE id = '" + p.id +
       "') WHERE id = '" + other_project_.id + "'");
  auto other = store_->GetProjectById(other_project_.id);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().message().find("HookSecretAtRest"), std::string::npos);

  p.hook_secret.reset();
  ASSERT_TRUE(store_->UpdateProject(p).ok());
  EXPECT_FALSE(store_->GetProjectById(p.id)->hook_secret.has_value());
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreForgeEventsTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace docwright
