// The fixture of the Store contract's tests: every case runs on SQLite and on
// PostgreSQL (a database of its own on the test run's server,
// support/postgres_database.h), with two organisations and a project of each.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "core/job.h"
#include "core/metrics.h"
#include "store/store.h"
#include "support/postgres_database.h"
#include "support/prometheus_text.h"
#include "support/secrets.h"
#include "support/temp_dir.h"
#include "support/test_tools.h"

namespace docwright::testing {

class StoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgres") {
      std::string why;
      database_ = PostgresDatabase::Create(&why);
      DOCWRIGHT_REQUIRE_TOOL(database_ != nullptr, "no PostgreSQL server: " + why);
      url_ = database_->url();
    } else {
      url_ = dir_ / "docwright.db";
    }
    store_ = Open();
    org_ = *store_->CreateOrg("acme");
    other_org_ = *store_->CreateOrg("globex");
    project_ = NewProject(org_.id, 100);
    other_project_ = NewProject(other_org_.id, 100);
  }

  std::unique_ptr<Store> Open() {
    auto s = OpenStore(url_, TestSecrets());
    EXPECT_TRUE(s.ok()) << s.status().message();
    return std::move(*s);
  }

  Project NewProject(const std::string& org_id, int64_t rate_limit) {
    Project p;
    p.org_id = org_id;
    p.repository = "https://git.example/acme/docs";
    p.base_ref = "main";
    p.rate_limit_per_hour = rate_limit;
    auto created = store_->CreateProject(p);
    EXPECT_TRUE(created.ok()) << created.status().message();
    return *created;
  }

  Scope ScopeOf(const Project& p) { return Scope{p.org_id, p.id}; }

  Job Create(const Project& p, const std::string& prompt = "Fix the typo") {
    auto j = store_->CreateJob(ScopeOf(p), NewJob{prompt, std::nullopt, std::nullopt, false});
    EXPECT_TRUE(j.ok()) << j.status().message();
    return *j;
  }

  TurnInput Claim(const std::string& worker,
                  std::chrono::milliseconds lease = std::chrono::milliseconds(60000)) {
    auto c = store_->ClaimTurn(worker, lease, kMaxTurnAttempts);
    EXPECT_TRUE(c.ok()) << c.status().message();
    EXPECT_TRUE(c->has_value());
    return std::move(**c);
  }

  bool NothingToClaim() {
    auto c = store_->ClaimTurn("probe", std::chrono::milliseconds(60000), kMaxTurnAttempts);
    return c.ok() && !c->has_value();
  }

  bool postgres() const { return GetParam() == "postgres"; }

  // The store's transactions of `kind` ("read", "write") so far, as the
  // process's metrics count them.
  double Transactions(const std::string& kind) {
    PromParse p = ParsePrometheusText(metrics::Default().Render());
    EXPECT_TRUE(p.ok()) << p.error;
    return p.Sum("docwright_store_transaction_duration_seconds_count",
                 {{"driver", GetParam()}, {"kind", kind}});
  }

  TempDir dir_;
  std::unique_ptr<PostgresDatabase> database_;
  std::string url_;
  std::unique_ptr<Store> store_;
  Org org_, other_org_;
  Project project_, other_project_;
};

}  // namespace docwright::testing
