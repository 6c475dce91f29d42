#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "core/api_key.h"
#include "core/ids.h"
#include "core/text.h"
#include "store/cached_store.h"
#include "store/postgres_store.h"
#include "store/sqlite_store.h"
#include "support/postgres_database.h"
#include "support/secrets.h"
#include "support/store_fixture.h"
#include "support/temp_dir.h"
#include "support/test_tools.h"

namespace docwright {
namespace {

using std::chrono::milliseconds;
using testing::StoreTest;
using testing::TempDir;

TEST_P(StoreTest, CreatedJobHasItsFirstMessageAndIsActive) {
  Job j = Create(project_, "Document the rate limits");
  EXPECT_EQ(j.status, JobStatus::kActive);
  EXPECT_EQ(j.repository, project_.repository);
  EXPECT_EQ(j.ref.rfind("docwright/", 0), 0u);
  EXPECT_NE(j.ref.find("document-the-rate-limits"), std::string::npos);
  EXPECT_FALSE(j.pr_link);
  EXPECT_FALSE(j.archived_at);
  auto got = store_->GetJob(ScopeOf(project_), j.id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->id, j.id);
  EXPECT_EQ(got->ref, j.ref);
  auto messages = store_->ListMessages(ScopeOf(project_), j.id);
  ASSERT_TRUE(messages.ok());
  ASSERT_EQ(messages->size(), 1u);
  EXPECT_EQ((*messages)[0].prompt, "Document the rate limits");
  EXPECT_EQ((*messages)[0].state, TurnState::kQueued);
}

// A transcript page reads the steps of its messages in one call, bounded: whole
// messages' steps while they fit, the first message's always, and it says up to
// which message the steps are all there.
TEST_P(StoreTest, StepsAreReadWholeMessagesAtATimeWithinABound) {
  Job j = Create(project_);
  const std::string kilobyte(1000, 'x');
  std::string accented;  // 1,000 bytes, 500 characters: the bound counts bytes
  for (int i = 0; i < 500; ++i) accented += "\u00e9";
  for (int seq = 1; seq <= 4; ++seq) {
    if (seq > 1) {
      ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), j.id, "more").ok());
    }
    TurnInput t = Claim("w");
    ASSERT_EQ(t.message.seq, seq);
    TurnOutcome outcome{.succeeded = true};
    if (seq != 2) {  // the second turn records no steps
      outcome.steps = {TranscriptStep{.kind = TranscriptStep::Kind::kAssistant,
                                      .text = seq == 1 ? accented : kilobyte},
                       TranscriptStep{.kind = TranscriptStep::Kind::kTool,
                                      .tool = "read_file",
                                      .arguments = "{}",
                                      .result = std::to_string(seq)}};
    }
    ASSERT_EQ(*store_->FinishTurn(t.turn_id, "w", outcome), LeaseState::kHeld);
  }
  auto all = store_->ListSteps(ScopeOf(project_), j.id, 1, 4, 1 << 20);
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(all->through_seq, 4);
  ASSERT_EQ(all->steps.size(), 6u);
  EXPECT_EQ(all->steps[1].first, 1);
  EXPECT_EQ(all->steps[1].second.result, "1");
  EXPECT_EQ(all->steps[5].first, 4);
  EXPECT_EQ(all->steps[5].second.tool, "read_file");

  // 1,000 bytes: the first message's steps (1,003) are read whole; the
  // third's would start past the bound; the second has none, and is whole.
  auto bounded = store_->ListSteps(ScopeOf(project_), j.id, 1, 4, 1000);
  ASSERT_TRUE(bounded.ok());
  EXPECT_EQ(bounded->through_seq, 2);
  ASSERT_EQ(bounded->steps.size(), 2u);
  EXPECT_EQ(bounded->steps[0].second.text, accented);

  // A bound smaller than one message still gives the first message's steps;
  // 1,500 bytes take the third's (starting at 1,003) as well.
  auto two = store_->ListSteps(ScopeOf(project_), j.id, 1, 4, 1500);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->through_seq, 3);
  EXPECT_EQ(two->steps.size(), 4u);
  auto tiny = store_->ListSteps(ScopeOf(project_), j.id, 3, 4, 10);
  ASSERT_TRUE(tiny.ok());
  EXPECT_EQ(tiny->through_seq, 3);
  ASSERT_EQ(tiny->steps.size(), 2u);
  EXPECT_EQ(tiny->steps[1].second.result, "3");

  // Tenancy: another organisation sees no steps.
  EXPECT_EQ(store_->ListSteps(ScopeOf(other_project_), j.id, 1, 4, 1 << 20).status().code(),
            Code::kNotFound);
}

TEST_P(StoreTest, ModelComesFromJobThenProjectThenServer) {
  Project with_model = project_;
  with_model.model = "project-model";
  with_model = *store_->CreateProject(with_model);
  Scope s = ScopeOf(with_model);
  auto first = store_->CreateJob(s, NewJob{"a", "job-model", "server", false});
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->model, "job-model");
  EXPECT_EQ(store_->CreateJob(s, NewJob{"a", std::nullopt, "server", false})->model,
            "project-model");
  EXPECT_EQ(store_->CreateJob(ScopeOf(project_), NewJob{"a", std::nullopt, "server", false})->model,
            "server");
}

TEST_P(StoreTest, AJobKeepsItsOwnModelChoiceAndAFollowUpMayChangeIt) {
  Project limited = project_;
  limited.models = {"allowed-model"};
  limited = *store_->CreateProject(limited);
  Scope s = ScopeOf(limited);
  Job made = *store_->CreateJob(s, NewJob{"a", std::nullopt, std::nullopt, false});
  EXPECT_FALSE(made.model.has_value()) << "no model configured anywhere";
  EXPECT_FALSE(made.requested_model.has_value());

  // A turn records the model it resolved; the job shows it from then on.
  ASSERT_TRUE(store_->SetJobModel(made.id, "server-model").ok());
  Job shown = *store_->GetJob(s, made.id);
  EXPECT_EQ(shown.model, "server-model");
  EXPECT_FALSE(shown.requested_model.has_value()) << "the server's choice is not the job's";

  // A follow-up naming a model the project does not allow is refused, and
  // changes nothing: no message is added.
  auto refused = store_->AddMessage(
      s, made.id, NewMessage{.prompt = "b", .requested_model = "other", .default_model = {}});
  EXPECT_EQ(refused.status().code(), Code::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("allowed-model"), std::string::npos);
  EXPECT_EQ(store_->ListMessages(s, made.id)->size(), 1u);

  auto named = store_->AddMessage(
      s, made.id,
      NewMessage{.prompt = "b", .requested_model = "allowed-model", .default_model = {}});
  ASSERT_TRUE(named.ok()) << named.status().message();
  EXPECT_EQ(named->model, "allowed-model");
  EXPECT_EQ(named->requested_model, "allowed-model");
  // A later follow-up without a model keeps the job's choice.
  auto plain = store_->AddMessage(s, made.id, "c");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->requested_model, "allowed-model");
  EXPECT_EQ(store_->GetJob(s, made.id)->requested_model, "allowed-model");
}

TEST_P(StoreTest, OtherOrganisationsSeeNothing) {
  Job j = Create(project_);
  Scope intruder{other_org_.id, project_.id};
  EXPECT_EQ(store_->GetProject(intruder).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->GetJob(intruder, j.id).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->ListJobs(intruder, JobQuery{}).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->AddMessage(intruder, j.id, "x").status().code(), Code::kNotFound);
  EXPECT_EQ(store_->ArchiveJob(intruder, j.id).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->ListMessages(intruder, j.id).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->CreateJob(intruder, NewJob{"x"}).status().code(), Code::kNotFound);
  // The intruder's own project does not reach the job either.
  EXPECT_EQ(store_->GetJob(ScopeOf(other_project_), j.id).status().code(), Code::kNotFound);
  // The error is the same as for a project that does not exist.
  Scope nowhere{org_.id, NewId()};
  EXPECT_EQ(store_->GetJob(nowhere, j.id).status().message(),
            store_->GetJob(intruder, j.id).status().message());
}

TEST_P(StoreTest, DataSurvivesReopening) {
  Job j = Create(project_);
  ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), j.id, "and a follow-up").ok());
  store_.reset();
  store_ = Open();  // migrations run again and must be a no-op
  auto got = store_->GetJob(ScopeOf(project_), j.id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(store_->ListMessages(ScopeOf(project_), j.id)->size(), 2u);
}

TEST_P(StoreTest, RateLimitCountsCreatesAndMessagesPerProject) {
  Project limited = NewProject(org_.id, 3);
  Job j = Create(limited);
  ASSERT_TRUE(store_->AddMessage(ScopeOf(limited), j.id, "second").ok());
  Create(limited);
  auto refused = store_->CreateJob(ScopeOf(limited), NewJob{"fourth"});
  ASSERT_EQ(refused.status().code(), Code::kRateLimited);
  EXPECT_GT(refused.status().retry_after_seconds(), 3500);
  EXPECT_LE(refused.status().retry_after_seconds(), 3600);
  EXPECT_EQ(store_->AddMessage(ScopeOf(limited), j.id, "fifth").status().code(),
            Code::kRateLimited);
  // Refused requests are not counted, and other projects are not affected.
  EXPECT_EQ(store_->ListMessages(ScopeOf(limited), j.id)->size(), 2u);
  Create(project_);
}

TEST_P(StoreTest, ListJobsPagesNewestFirstAndFilters) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(Create(project_, "job " + std::to_string(i)).id);
  Create(other_project_);
  std::vector<std::string> seen;
  JobQuery q;
  q.limit = 2;
  for (int page = 0; page < 10; ++page) {
    auto p = store_->ListJobs(ScopeOf(project_), q);
    ASSERT_TRUE(p.ok());
    for (auto& j : p->jobs) seen.push_back(j.id);
    if (!p->next_after_id) break;
    EXPECT_EQ(p->jobs.size(), 2u);
    q.after_id = p->next_after_id;
  }
  std::vector<std::string> expected(ids.rbegin(), ids.rend());
  EXPECT_EQ(seen, expected);

  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), ids[1]).ok());
  JobQuery archived;
  archived.status = JobStatus::kArchived;
  auto p = store_->ListJobs(ScopeOf(project_), archived);
  ASSERT_EQ(p->jobs.size(), 1u);
  EXPECT_EQ(p->jobs[0].id, ids[1]);
  EXPECT_FALSE(p->next_after_id);
}

TEST_P(StoreTest, TurnsOfAJobRunInOrderOneAtATime) {
  Job j = Create(project_, "first");
  ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), j.id, "second").ok());
  TurnInput t1 = Claim("w1");
  EXPECT_EQ(t1.message.prompt, "first");
  EXPECT_EQ(t1.attempt, 1);
  EXPECT_TRUE(t1.history.empty());
  EXPECT_EQ(t1.project.id, project_.id);
  EXPECT_TRUE(NothingToClaim()) << "the second turn must wait for the first";

  auto done = store_->FinishTurn(
      t1.turn_id, "w1",
      TurnOutcome{.succeeded = true, .pr_link = "http://pr/1", .summary = "did one"});
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(*done, LeaseState::kHeld);
  EXPECT_EQ(store_->GetJob(ScopeOf(project_), j.id)->status, JobStatus::kActive);

  TurnInput t2 = Claim("w2");
  EXPECT_EQ(t2.message.prompt, "second");
  ASSERT_EQ(t2.history.size(), 1u);
  EXPECT_EQ(t2.history[0].summary, "did one");
  ASSERT_TRUE(
      store_->FinishTurn(t2.turn_id, "w2", TurnOutcome{.succeeded = true, .summary = "did two"})
          .ok());
  Job after = *store_->GetJob(ScopeOf(project_), j.id);
  EXPECT_EQ(after.status, JobStatus::kCompleted);
  EXPECT_EQ(after.pr_link, "http://pr/1") << "a turn without a new PR keeps the job's PR";
  EXPECT_EQ(after.summary, "did two");
  EXPECT_FALSE(after.error);
}

TEST_P(StoreTest, TurnsAreClaimedFairlyBetweenOrganisationsThenProjects) {
  // One organisation's backlog, then another organisation's single job: the
  // next free worker takes the newcomer, not the backlog's next turn.
  Project roomy = NewProject(org_.id, 100000);
  std::vector<std::string> backlog;
  for (int i = 0; i < 50; ++i) backlog.push_back(Create(roomy, "backlog").id);
  EXPECT_EQ(Claim("w1").job.id, backlog[0]);
  EXPECT_EQ(Claim("w2").job.id, backlog[1]);
  Job newcomer = Create(other_project_, "first job of another tenant");
  EXPECT_EQ(Claim("w3").job.id, newcomer.id);
  // Busy alike (acme 2, globex 1): the organisation with fewer running goes
  // first, and with nothing of globex queued, acme's backlog resumes in order.
  EXPECT_EQ(Claim("w4").job.id, backlog[2]);
  // Within one organisation, a project with nothing running goes before a busy
  // one, even with its job queued later.
  Job other_project_job = Create(project_, "a second project of acme");
  EXPECT_EQ(Claim("w5").job.id, other_project_job.id);
  // A turn whose worker died counts as not running: its lease has expired.
  Job late = Create(other_project_, "globex again");
  TurnInput short_lived = Claim("w6", milliseconds(1));
  EXPECT_EQ(short_lived.job.id, late.id);
  std::this_thread::sleep_for(milliseconds(5));
  TurnInput rerun = Claim("w7");
  EXPECT_EQ(rerun.job.id, late.id) << "globex has nothing running once the lease expired";
  EXPECT_EQ(rerun.attempt, 2);
}

TEST_P(StoreTest, CapsOfTurnsInFlightHoldPerOrganisationAndPerProject) {
  // acme may run 2 turns at once, and its project_ only 1.
  Org capped = org_;
  capped.max_active = 2;
  ASSERT_TRUE(store_->UpdateOrg(capped).ok());
  EXPECT_EQ(store_->GetOrg(org_.id)->max_active, 2);
  Project narrow = project_;
  narrow.max_active = 1;
  ASSERT_TRUE(store_->UpdateProject(narrow).ok());
  Project roomy = NewProject(org_.id, 100000);
  Job a1 = Create(project_), a2 = Create(project_);
  Job r1 = Create(roomy), r2 = Create(roomy);
  Job g1 = Create(other_project_);
  TurnInput first = Claim("w1");
  EXPECT_EQ(first.job.id, a1.id);
  EXPECT_EQ(first.project.max_active, 1);
  // project_ is at its cap: acme's next turn comes from the other project.
  EXPECT_EQ(Claim("w2").job.id, g1.id) << "globex has nothing running";
  EXPECT_EQ(Claim("w3").job.id, r1.id);
  // acme is at its cap (2): nothing of acme is claimable, whatever is queued.
  EXPECT_TRUE(NothingToClaim());
  ASSERT_TRUE(store_->FinishTurn(first.turn_id, "w1", TurnOutcome{.succeeded = true}).ok());
  // A slot of acme and of project_ is free again.
  EXPECT_EQ(Claim("w4").job.id, a2.id);
  EXPECT_TRUE(NothingToClaim()) << r2.id << " waits for acme's cap";
  // A cap lifted takes effect at the next claim.
  capped.max_active.reset();
  ASSERT_TRUE(store_->UpdateOrg(capped).ok());
  EXPECT_EQ(Claim("w5").job.id, r2.id);
  Org missing = capped;
  missing.id = "no-such-org";
  EXPECT_EQ(store_->UpdateOrg(missing).code(), Code::kNotFound);
}

// A turn given up on whose work still runs (the runner's held projects) counts
// as a turn running of its project and organisation: for the caps, and for
// fairness, until the caller stops naming it.
TEST_P(StoreTest, HeldTurnsCountAgainstTheCapsAndTheFairnessUntilTheyEnd) {
  Project narrow = project_;
  narrow.max_active = 1;
  ASSERT_TRUE(store_->UpdateProject(narrow).ok());
  Job a = Create(project_);
  const std::vector<std::string> held = {project_.id};
  auto refused = store_->ClaimTurn("w", milliseconds(60000), kMaxTurnAttempts, held);
  ASSERT_TRUE(refused.ok()) << refused.status().message();
  EXPECT_FALSE(refused->has_value()) << "the project is at its cap with the held turn";
  // Without a cap, the held turns weigh in the fairness: globex, with nothing
  // running, goes first although acme's job is older.
  narrow.max_active.reset();
  ASSERT_TRUE(store_->UpdateProject(narrow).ok());
  Job g = Create(other_project_);
  auto fair = store_->ClaimTurn("w", milliseconds(60000), kMaxTurnAttempts, held);
  ASSERT_TRUE(fair.ok() && fair->has_value());
  EXPECT_EQ((*fair)->job.id, g.id);
  // Once the held turn has ended, acme's job runs.
  EXPECT_EQ(Claim("w2").job.id, a.id);
}

TEST_P(StoreTest, FailedTurnFailsJobAndFollowUpReactivatesIt) {
  Job j = Create(project_);
  TurnInput t = Claim("w");
  ASSERT_TRUE(
      store_->FinishTurn(t.turn_id, "w", TurnOutcome{.succeeded = false, .error = "model said no"})
          .ok());
  Job failed = *store_->GetJob(ScopeOf(project_), j.id);
  EXPECT_EQ(failed.status, JobStatus::kFailed);
  EXPECT_EQ(failed.error, "model said no");
  auto again = store_->AddMessage(ScopeOf(project_), j.id, "try again");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->status, JobStatus::kActive);
  EXPECT_FALSE(again->error);
}

TEST_P(StoreTest, ExpiredLeaseIsReclaimedAndTheOldWorkerLosesIt) {
  Job j = Create(project_);
  TurnInput t = Claim("crashed", milliseconds(1));
  std::this_thread::sleep_for(milliseconds(5));
  TurnInput again = Claim("rescuer");
  EXPECT_EQ(again.turn_id, t.turn_id);
  EXPECT_EQ(again.attempt, 2);
  EXPECT_EQ(*store_->RenewLease(t.turn_id, "crashed", milliseconds(1000)), LeaseState::kLost);
  EXPECT_EQ(*store_->FinishTurn(t.turn_id, "crashed", TurnOutcome{.succeeded = true}),
            LeaseState::kLost);
  EXPECT_EQ(store_->GetJob(ScopeOf(project_), j.id)->status, JobStatus::kActive);
  EXPECT_EQ(*store_->RenewLease(t.turn_id, "rescuer", milliseconds(1000)), LeaseState::kHeld);
}

TEST_P(StoreTest, TurnIsFailedAfterMaxAttempts) {
  Job j = Create(project_);
  for (int i = 0; i < kMaxTurnAttempts; ++i) {
    Claim("crash-" + std::to_string(i), milliseconds(1));
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_TRUE(NothingToClaim());
  Job failed = *store_->GetJob(ScopeOf(project_), j.id);
  EXPECT_EQ(failed.status, JobStatus::kFailed);
  ASSERT_TRUE(failed.error);
  EXPECT_NE(failed.error->find("interrupted 3 times"), std::string::npos) << *failed.error;
}

TEST_P(StoreTest, ReleasedTurnIsClaimableAtOnceWithoutSpendingAnAttempt) {
  Create(project_);
  TurnInput t = Claim("stopping", milliseconds(60000));
  ASSERT_TRUE(store_->ReleaseTurn(t.turn_id, "stopping").ok());
  TurnInput again = Claim("next");
  EXPECT_EQ(again.turn_id, t.turn_id);
  EXPECT_EQ(again.attempt, 1);
}

TEST_P(StoreTest, ArchivedProjectsTakeNoWorkAndDeletedOnesLeaveNothing) {
  Job done = Create(project_);
  ASSERT_TRUE(store_->FinishTurn(Claim("w").turn_id, "w", TurnOutcome{.succeeded = true}).ok());
  Job waiting = Create(project_);
  Scope intruder{other_org_.id, project_.id};
  EXPECT_EQ(store_->ArchiveProject(intruder).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->DeleteProject(intruder).code(), Code::kNotFound);

  auto archived = store_->ArchiveProject(ScopeOf(project_));
  ASSERT_TRUE(archived.ok()) << archived.status().message();
  ASSERT_TRUE(archived->archived_at);
  EXPECT_EQ(store_->ArchiveProject(ScopeOf(project_))->archived_at, archived->archived_at)
      << "archiving again keeps the first time";
  EXPECT_EQ(store_->CreateJob(ScopeOf(project_), NewJob{"x", std::nullopt, std::nullopt, false})
                .status()
                .code(),
            Code::kConflict);
  EXPECT_EQ(store_->AddMessage(ScopeOf(project_), done.id, "more").status().code(),
            Code::kConflict);
  EXPECT_TRUE(store_->GetJob(ScopeOf(project_), done.id).ok()) << "history stays";
  EXPECT_TRUE(store_->GetProject(ScopeOf(project_))->archived_at);

  // Found by id alone within its organisation only.
  EXPECT_EQ(store_->FindJob(org_.id, done.id)->project_id, project_.id);
  EXPECT_EQ(store_->FindJob(other_org_.id, done.id).status().code(), Code::kNotFound);

  // A project with an active job stays; once it has none, all of it goes.
  auto busy = store_->DeleteProject(ScopeOf(project_));
  EXPECT_EQ(busy.code(), Code::kConflict);
  EXPECT_TRUE(store_->GetJob(ScopeOf(project_), waiting.id).ok());
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), waiting.id).ok());
  ASSERT_TRUE(store_->DeleteProject(ScopeOf(project_)).ok());
  EXPECT_EQ(store_->GetProject(ScopeOf(project_)).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->FindJob(org_.id, done.id).status().code(), Code::kNotFound);
  EXPECT_TRUE(NothingToClaim());
  EXPECT_TRUE(store_->GetProject(ScopeOf(other_project_)).ok()) << "others are untouched";
}

TEST_P(StoreTest, OrganisationsAreListedOldestFirst) {
  auto orgs = store_->ListOrgs();
  ASSERT_TRUE(orgs.ok()) << orgs.status().message();
  ASSERT_EQ(orgs->size(), 2u);
  EXPECT_EQ((*orgs)[0].id, org_.id);
  EXPECT_EQ((*orgs)[1].id, other_org_.id);
}

TEST_P(StoreTest, ATurnStoppedBeforeItStartsIsClaimedStopped) {
  Job j = Create(project_);
  ASSERT_TRUE(store_->StopJob(ScopeOf(project_), j.id).ok());
  TurnInput t = Claim("w");
  EXPECT_EQ(t.job.id, j.id);
  EXPECT_TRUE(t.stop_requested);
  ASSERT_TRUE(store_->FinishTurn(t.turn_id, "w", TurnOutcome{.succeeded = true}).ok());
  ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), j.id, "again").ok());
  EXPECT_FALSE(Claim("w").stop_requested) << "a stop is for one turn";
}

TEST_P(StoreTest, AStopIsToldToTheRunningTurnsWorkerAndOnlyToIt) {
  Job j = Create(project_);
  ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), j.id, "queued one").ok());
  TurnInput t = Claim("w");
  EXPECT_EQ(*store_->RenewLease(t.turn_id, "w", milliseconds(1000)), LeaseState::kHeld);
  Scope other{other_org_.id, project_.id};
  EXPECT_EQ(store_->StopJob(other, j.id).status().code(), Code::kNotFound);
  auto stopped = store_->StopJob(ScopeOf(project_), j.id);
  ASSERT_TRUE(stopped.ok()) << stopped.status().message();
  EXPECT_EQ(stopped->status, JobStatus::kActive);
  EXPECT_EQ(*store_->RenewLease(t.turn_id, "w", milliseconds(1000)), LeaseState::kStopRequested);
  EXPECT_EQ(*store_->RenewLease(t.turn_id, "x", milliseconds(1000)), LeaseState::kLost);
  // The turn ends as it will (kept work: succeeded); the queued follow-up is
  // not stopped, and runs.
  ASSERT_EQ(*store_->FinishTurn(t.turn_id, "w", TurnOutcome{.succeeded = true}), LeaseState::kHeld);
  TurnInput next = Claim("w");
  EXPECT_EQ(next.message.seq, 2);
  EXPECT_EQ(*store_->RenewLease(next.turn_id, "w", milliseconds(1000)), LeaseState::kHeld);
  ASSERT_EQ(*store_->FinishTurn(next.turn_id, "w", TurnOutcome{.succeeded = true}),
            LeaseState::kHeld);
  // Nothing left to stop: a conflict, as for an archived job.
  EXPECT_EQ(store_->StopJob(ScopeOf(project_), j.id).status().code(), Code::kConflict);
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), j.id).ok());
  auto archived = store_->StopJob(ScopeOf(project_), j.id);
  EXPECT_EQ(archived.status().code(), Code::kConflict);
  EXPECT_NE(archived.status().message().find("archived"), std::string::npos);
}

TEST_P(StoreTest, ArchiveCancelsTurnsAndRefusesFollowUps) {
  Job j = Create(project_);
  ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), j.id, "queued one").ok());
  TurnInput t = Claim("w");
  auto archived = store_->ArchiveJob(ScopeOf(project_), j.id);
  ASSERT_TRUE(archived.ok());
  EXPECT_EQ(archived->status, JobStatus::kArchived);
  ASSERT_TRUE(archived->archived_at);
  EXPECT_EQ(*store_->RenewLease(t.turn_id, "w", milliseconds(1000)), LeaseState::kCancelled);
  EXPECT_EQ(
      *store_->FinishTurn(t.turn_id, "w", TurnOutcome{.succeeded = true, .pr_link = "http://pr"}),
      LeaseState::kCancelled);
  EXPECT_TRUE(NothingToClaim()) << "queued turns of an archived job never run";
  Job after = *store_->GetJob(ScopeOf(project_), j.id);
  EXPECT_EQ(after.status, JobStatus::kArchived);
  EXPECT_FALSE(after.pr_link);
  EXPECT_EQ(store_->AddMessage(ScopeOf(project_), j.id, "more").status().code(), Code::kConflict);
  // Archiving again is harmless and keeps the first time.
  EXPECT_EQ(store_->ArchiveJob(ScopeOf(project_), j.id)->archived_at, archived->archived_at);
}

TEST_P(StoreTest, RevokedKeysAreNotFound) {
  GeneratedApiKey k = GenerateApiKey(org_.id, "ci");
  ASSERT_TRUE(store_->CreateApiKey(k.record).ok());
  auto found = store_->FindActiveApiKey(k.record.secret_hash);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->org_id, org_.id);
  ASSERT_TRUE(store_->RevokeApiKey(k.record.id).ok());
  EXPECT_EQ(store_->FindActiveApiKey(k.record.secret_hash).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->RevokeApiKey(NewId()).code(), Code::kNotFound);
  auto keys = store_->ListApiKeys(org_.id);
  ASSERT_EQ(keys->size(), 1u);
  EXPECT_TRUE((*keys)[0].revoked_at);
  GeneratedApiKey orphan = GenerateApiKey(NewId(), "x");
  EXPECT_EQ(store_->CreateApiKey(orphan.record).code(), Code::kNotFound);
}

TEST_P(StoreTest, ConcurrentWritersLoseNothing) {
  constexpr int kThreads = 8, kPerThread = 25;
  Project roomy = NewProject(org_.id, 1000);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        auto j = store_->CreateJob(ScopeOf(roomy), NewJob{"p"});
        if (!j.ok()) {
          ADD_FAILURE() << j.status().message();
          ++failures;
          continue;
        }
        auto m = store_->AddMessage(ScopeOf(roomy), j->id, "f");
        if (!m.ok()) {
          ADD_FAILURE() << m.status().message();
          ++failures;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  JobQuery q;
  q.limit = 100;
  size_t total = 0;
  for (;;) {
    auto page = store_->ListJobs(ScopeOf(roomy), q);
    total += page->jobs.size();
    if (!page->next_after_id) break;
    q.after_id = page->next_after_id;
  }
  EXPECT_EQ(total, size_t{kThreads * kPerThread});
}

// --- The read cache in front of the store ---

TEST_P(StoreTest, CacheSeesItsOwnWritesAtOnce) {
  auto cached = NewCachedStore(Open(), CacheOptions{milliseconds(60000)});
  Job j = *cached->CreateJob(ScopeOf(project_), NewJob{"p"});
  EXPECT_EQ(cached->GetJob(ScopeOf(project_), j.id)->status, JobStatus::kActive);
  auto claimed = cached->ClaimTurn("w", milliseconds(60000), 3);
  ASSERT_TRUE(claimed.ok() && claimed->has_value());
  ASSERT_TRUE(cached
                  ->FinishTurn((*claimed)->turn_id, "w",
                               TurnOutcome{.succeeded = true, .pr_link = "http://pr"})
                  .ok());
  EXPECT_EQ(cached->GetJob(ScopeOf(project_), j.id)->status, JobStatus::kCompleted);
  ASSERT_TRUE(cached->AddMessage(ScopeOf(project_), j.id, "more").ok());
  EXPECT_EQ(cached->GetJob(ScopeOf(project_), j.id)->status, JobStatus::kActive);
  ASSERT_TRUE(cached->ArchiveJob(ScopeOf(project_), j.id).ok());
  EXPECT_EQ(cached->GetJob(ScopeOf(project_), j.id)->status, JobStatus::kArchived);
}

TEST_P(StoreTest, CacheNeverCrossesTenants) {
  auto cached = NewCachedStore(Open(), CacheOptions{milliseconds(60000)});
  Job j = Create(project_);
  ASSERT_TRUE(cached->GetJob(ScopeOf(project_), j.id).ok());  // now cached
  EXPECT_EQ(cached->GetJob(Scope{other_org_.id, project_.id}, j.id).status().code(),
            Code::kNotFound);
  EXPECT_EQ(cached->GetJob(ScopeOf(other_project_), j.id).status().code(), Code::kNotFound);
}

TEST_P(StoreTest, CacheSeesOtherProcessesWritesWithinItsTtl) {
  auto cached = NewCachedStore(Open(), CacheOptions{milliseconds(100)});
  Job j = Create(project_);
  GeneratedApiKey k = GenerateApiKey(org_.id, "ci");
  ASSERT_TRUE(store_->CreateApiKey(k.record).ok());
  ASSERT_TRUE(cached->FindActiveApiKey(k.record.secret_hash).ok());
  ASSERT_EQ(cached->GetJob(ScopeOf(project_), j.id)->status, JobStatus::kActive);
  // Writes through another connection, as another process would make them.
  ASSERT_TRUE(store_->RevokeApiKey(k.record.id).ok());
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), j.id).ok());
  EXPECT_TRUE(testing::WaitUntil(
      [&] { return !cached->FindActiveApiKey(k.record.secret_hash).ok(); }, milliseconds(2000)));
  EXPECT_TRUE(testing::WaitUntil(
      [&] { return cached->GetJob(ScopeOf(project_), j.id)->status == JobStatus::kArchived; },
      milliseconds(2000)));
}

TEST_P(StoreTest, LocalPullRequestsAreOnePerBranchNumberedPerProject) {
  LocalPullRequest pr;
  pr.project_id = project_.id;
  pr.head = "docwright/aaa-one";
  pr.base = "main";
  pr.title = "One";
  pr.body = "First";
  pr.diff = "+a\n";
  auto one = store_->UpsertPullRequest(pr);
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(one->number, 1);
  EXPECT_EQ(one->id.size(), 22u);
  pr.head = "docwright/bbb-two";
  auto two = store_->UpsertPullRequest(pr);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->number, 2);
  EXPECT_NE(two->id, one->id);
  LocalPullRequest elsewhere = pr;
  elsewhere.project_id = other_project_.id;
  EXPECT_EQ(store_->UpsertPullRequest(elsewhere)->number, 1) << "numbers count per project";

  // The same branch again: the same pull request, brought up to date.
  pr.head = "docwright/aaa-one";
  pr.title = "One, revised";
  pr.diff = "+b\n";
  pr.draft = true;
  auto again = store_->UpsertPullRequest(pr);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->id, one->id);
  EXPECT_EQ(again->number, 1);
  EXPECT_EQ(again->created_at, one->created_at);
  auto read = store_->GetPullRequest(one->id);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->title, "One, revised");
  EXPECT_EQ(read->diff, "+b\n");
  EXPECT_TRUE(read->draft);
  EXPECT_EQ(store_->GetPullRequest("nope").status().code(), Code::kNotFound);
}

// Runs every queued turn of `job` to its end, successfully.
void RunQueued(Store& store, const std::string& job_id) {
  for (;;) {
    auto c = store.ClaimTurn("w", milliseconds(60000), kMaxTurnAttempts);
    ASSERT_TRUE(c.ok());
    if (!c->has_value()) return;
    ASSERT_EQ((*c)->job.id, job_id);
    TurnOutcome ok;
    ok.succeeded = true;
    ok.summary = "done";
    ASSERT_TRUE(store.FinishTurn((*c)->turn_id, "w", ok).ok());
  }
}

TEST_P(StoreTest, ATurnIsGivenTheFirstAndTheLatestMessagesOnly) {
  project_ = NewProject(org_.id, 100000);
  Job j = Create(project_, "the first");
  RunQueued(*store_, j.id);
  for (int i = 2; i <= 40; ++i) {
    ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), j.id, "message " + std::to_string(i)).ok());
    if (i < 40) RunQueued(*store_, j.id);
  }
  TurnInput t = Claim("w");
  EXPECT_EQ(t.message.seq, 40);
  ASSERT_EQ(t.history.size(), static_cast<size_t>(kMaxHistoryMessages) + 1);
  EXPECT_EQ(t.history.front().seq, 1);
  EXPECT_EQ(t.history.front().prompt, "the first");
  EXPECT_EQ(t.history[1].seq, 40 - kMaxHistoryMessages);
  EXPECT_EQ(t.history.back().seq, 39);
}

TEST_P(StoreTest, FollowUpsAreCappedWhileQueuedAndPerJob) {
  project_ = NewProject(org_.id, 100000);
  Job j = Create(project_);
  Claim("w");  // the first turn runs; follow-ups queue behind it
  for (int i = 0; i < kMaxQueuedFollowUps; ++i) {
    ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), j.id, "more").ok()) << i;
  }
  auto refused = store_->AddMessage(ScopeOf(project_), j.id, "one too many");
  ASSERT_EQ(refused.status().code(), Code::kRateLimited);
  EXPECT_NE(refused.status().message().find("waiting"), std::string::npos);
  EXPECT_GT(refused.status().retry_after_seconds(), 0);
  EXPECT_EQ(store_->ListMessages(ScopeOf(project_), j.id)->size(),
            static_cast<size_t>(kMaxQueuedFollowUps) + 1);
}

TEST_P(StoreTest, AJobTakesAtMostItsMessageLimit) {
  project_ = NewProject(org_.id, 100000);
  Job j = Create(project_);
  RunQueued(*store_, j.id);
  for (int i = 2; i <= kMaxMessagesPerJob; ++i) {
    ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), j.id, "m").ok()) << i;
    if (i % kMaxQueuedFollowUps == 0) RunQueued(*store_, j.id);
  }
  RunQueued(*store_, j.id);
  auto refused = store_->AddMessage(ScopeOf(project_), j.id, "one too many");
  ASSERT_EQ(refused.status().code(), Code::kConflict);
  EXPECT_NE(refused.status().message().find("new job"), std::string::npos);
}

TEST_P(StoreTest, ProjectSettingsAreUpdatedAndTheModelAllowListApplies) {
  Project p = project_;
  p.models = {"small-model", "large-model"};
  p.write_paths = {"docs/**", "!docs/legal/**"};
  p.model = "small-model";
  p.rate_limit_per_hour = 7;
  ASSERT_TRUE(store_->UpdateProject(p).ok());
  Project read = *store_->GetProject(ScopeOf(project_));
  EXPECT_EQ(read.models, p.models);
  EXPECT_EQ(read.write_paths, p.write_paths);
  EXPECT_EQ(read.model, "small-model");
  EXPECT_EQ(read.rate_limit_per_hour, 7);
  Project missing = p;
  missing.id = NewId();
  EXPECT_EQ(store_->UpdateProject(missing).code(), Code::kNotFound);

  auto create = [&](std::optional<std::string> model) {
    return store_->CreateJob(ScopeOf(project_), NewJob{"x", model, "server-default", false});
  };
  EXPECT_TRUE(create("large-model").ok());
  EXPECT_TRUE(create(std::nullopt).ok());
  EXPECT_TRUE(create("server-default").ok()) << "the server's default is always allowed";
  auto refused = create("expensive-model");
  ASSERT_EQ(refused.status().code(), Code::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("small-model, large-model"), std::string::npos);
}

// The docs site's folder is kept as given, from creation through updates, and
// reaches the turns that check the site.
TEST_P(StoreTest, TheSiteRootIsStoredAndReachesTheTurns) {
  EXPECT_EQ(project_.site_root, "") << "found by its configuration unless set";
  EXPECT_EQ(store_->GetProject(ScopeOf(project_))->site_root, "");
  Project made;
  made.org_id = org_.id;
  made.repository = "https://git.example/acme/handbook";
  made.base_ref = "main";
  made.site_root = "docs/en";
  auto created = store_->CreateProject(made);
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(store_->GetProject(ScopeOf(*created))->site_root, "docs/en");
  EXPECT_EQ(store_->GetProjectById(created->id)->site_root, "docs/en");
  auto listed = store_->ListProjects(org_.id);
  ASSERT_TRUE(listed.ok());
  for (const Project& p : *listed) {
    EXPECT_EQ(p.site_root, p.id == created->id ? "docs/en" : "") << p.id;
  }
  Create(*created);
  TurnInput turn = Claim("w");
  EXPECT_EQ(turn.project.site_root, "docs/en");

  Project moved = *created;
  moved.site_root = "website/i18n";
  ASSERT_TRUE(store_->UpdateProject(moved).ok());
  EXPECT_EQ(store_->GetProject(ScopeOf(moved))->site_root, "website/i18n");
  moved.site_root = "";
  ASSERT_TRUE(store_->UpdateProject(moved).ok());
  EXPECT_EQ(store_->GetProject(ScopeOf(moved))->site_root, "");
}

TEST_P(StoreTest, ArchivingAJobClosesItsLocalPullRequest) {
  Job j = Create(project_);
  LocalPullRequest pr;
  pr.project_id = project_.id;
  pr.head = j.ref;
  pr.base = "main";
  pr.title = "Fix the typo";
  pr.body = "> the secret instruction";
  pr.diff = "+a line";
  auto stored = *store_->UpsertPullRequest(pr);
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), j.id).ok());
  auto closed = *store_->GetPullRequest(stored.id);
  EXPECT_TRUE(closed.archived_at);
  EXPECT_EQ(closed.body, "");
  EXPECT_EQ(closed.diff, "");
  EXPECT_EQ(closed.title, "Fix the typo");
  // A turn that finishes after the archive does not bring the description back.
  ASSERT_TRUE(store_->UpsertPullRequest(pr).ok());
  EXPECT_EQ(store_->GetPullRequest(stored.id)->body, "");
  // Nor does one that opens the job's first pull request after the archive.
  Job late = Create(project_);
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), late.id).ok());
  pr.head = late.ref;
  auto opened = store_->UpsertPullRequest(pr);
  ASSERT_TRUE(opened.ok());
  auto page = *store_->GetPullRequest(opened->id);
  EXPECT_TRUE(page.archived_at);
  EXPECT_EQ(page.body, "");
  EXPECT_EQ(page.diff, "");
}

// Repositories and models hand the store text that is not UTF-8 (a diff of a
// Latin-1 page, a stray NUL): it is stored, never refused. PostgreSQL's text
// cannot hold it as is, so there it is stored scrubbed (core/text.h ScrubUtf8).
TEST_P(StoreTest, TextThatIsNotUtf8IsStoredNotRefused) {
  const std::string latin1("caf\xe9 au lait, nul \0 here", 24);
  LocalPullRequest pr;
  pr.project_id = project_.id;
  pr.head = "docwright/latin-1";
  pr.base = "main";
  pr.title = "A Latin-1 page";
  pr.body = latin1;
  pr.diff = "+" + latin1;
  auto stored = store_->UpsertPullRequest(pr);
  ASSERT_TRUE(stored.ok()) << stored.status().message();
  auto got = store_->GetPullRequest(stored->id);
  ASSERT_TRUE(got.ok()) << got.status().message();
  if (postgres()) {
    EXPECT_EQ(got->body, ScrubUtf8(latin1));
    EXPECT_EQ(got->body, "caf\xEF\xBF\xBD au lait, nul \xEF\xBF\xBD here");
  } else {
    EXPECT_EQ(got->body, latin1);
  }
  EXPECT_EQ(got->diff, "+" + got->body);
}

// --- Many processes on one database: what holds across them ---

// Two stores on one database stand for two nodes (or two processes on one
// SQLite file). Clients on both at once get exactly the project's rate limit,
// never one more.
TEST_P(StoreTest, TheRateLimitHoldsExactlyAcrossNodesWritingAtOnce) {
  Project limited = NewProject(org_.id, 10);
  auto other_node = Open();
  std::atomic<int> admitted{0}, limited_count{0}, other{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t) {
    clients.emplace_back([&, t] {
      Store& node = t % 2 == 0 ? *store_ : *other_node;
      for (int i = 0; i < 4; ++i) {
        auto j = node.CreateJob(ScopeOf(limited), NewJob{"p"});
        if (j.ok()) {
          ++admitted;
        } else if (j.status().code() == Code::kRateLimited) {
          ++limited_count;
        } else {
          ++other;
          ADD_FAILURE() << j.status().message();
        }
      }
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(admitted.load(), 10);
  EXPECT_EQ(limited_count.load(), 22);
  EXPECT_EQ(other.load(), 0);
}

// Workers on both nodes claim at once: a cap of turns in flight is never
// exceeded, and no turn is claimed twice.
TEST_P(StoreTest, CapsHoldAndNoTurnIsClaimedTwiceAcrossNodesClaimingAtOnce) {
  Org capped = org_;
  capped.max_active = 3;
  ASSERT_TRUE(store_->UpdateOrg(capped).ok());
  for (int i = 0; i < 12; ++i) Create(project_);
  auto other_node = Open();
  std::mutex mu;
  std::set<int64_t> claimed;
  std::atomic<int> duplicates{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < 8; ++t) {
    workers.emplace_back([&, t] {
      Store& node = t % 2 == 0 ? *store_ : *other_node;
      auto c = node.ClaimTurn("w" + std::to_string(t), milliseconds(60000), kMaxTurnAttempts);
      ASSERT_TRUE(c.ok()) << c.status().message();
      if (!c->has_value()) return;
      std::lock_guard lock(mu);
      if (!claimed.insert((*c)->turn_id).second) ++duplicates;
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(claimed.size(), 3u);
  EXPECT_EQ(duplicates.load(), 0);
}

// --- Idempotency keys ---

// A keyed request whose response is the job's id and its message count.
IdempotentRequest Keyed(const std::string& key, const std::string& route = "create",
                        const std::string& body = "{\"prompt\":\"p\"}") {
  return IdempotentRequest{.key = key,
                           .route = route,
                           .body_sha256 = Sha256Hex(body),
                           .status = route == "create" ? 201 : 200,
                           .render = [](const Job& j) { return j.id + " " + j.ref; }};
}

class IdempotencyTest : public StoreTest {
 protected:
  // Runs `sql` on the store's database over a connection of its own, as an
  // operator (or time) would change it.
  void Sql(const std::string& sql) {
    if (postgres()) {
      ASSERT_EQ(testing::PostgresDatabase::Exec(url_, sql), "");
      return;
    }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(url_.c_str(), &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
        << (error ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
  }

  int64_t CountJobs(const Project& p) {
    JobQuery q;
    q.limit = 100;
    auto page = store_->ListJobs(ScopeOf(p), q);
    EXPECT_TRUE(page.ok()) << page.status().message();
    return page.ok() ? static_cast<int64_t>(page->jobs.size()) : -1;
  }
};

TEST_P(IdempotencyTest, AKeyedCreateIsWrittenOnceAndReplayedWithItsResponse) {
  auto first = store_->CreateJobWithKey(ScopeOf(project_), NewJob{"p"}, Keyed("k1"));
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->outcome, IdempotentWrite::Outcome::kDone);
  ASSERT_TRUE(first->job);
  EXPECT_EQ(first->status, 201);
  EXPECT_EQ(first->body, first->job->id + " " + first->job->ref);
  // The job moves on; the replay still answers what the first request got.
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), first->job->id).ok());
  auto again = store_->CreateJobWithKey(ScopeOf(project_), NewJob{"p"}, Keyed("k1"));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->outcome, IdempotentWrite::Outcome::kReplayed);
  EXPECT_FALSE(again->job);
  EXPECT_EQ(again->status, 201);
  EXPECT_EQ(again->body, first->body);
  EXPECT_EQ(CountJobs(project_), 1);

  // The key names one request: another body, or another route, is refused.
  auto other_body =
      store_->CreateJobWithKey(ScopeOf(project_), NewJob{"q"}, Keyed("k1", "create", "{}"));
  ASSERT_TRUE(other_body.ok());
  EXPECT_EQ(other_body->outcome, IdempotentWrite::Outcome::kKeyReused);
  auto other_route =
      store_->AddMessageWithKey(ScopeOf(project_), first->job->id, NewMessage{.prompt = "p"},
                                Keyed("k1", "message " + first->job->id));
  ASSERT_TRUE(other_route.ok());
  EXPECT_EQ(other_route->outcome, IdempotentWrite::Outcome::kKeyReused);
  EXPECT_EQ(CountJobs(project_), 1);

  // Keys are per project.
  Project second = NewProject(org_.id, 100);
  auto elsewhere = store_->CreateJobWithKey(ScopeOf(second), NewJob{"p"}, Keyed("k1"));
  ASSERT_TRUE(elsewhere.ok());
  EXPECT_EQ(elsewhere->outcome, IdempotentWrite::Outcome::kDone);
  // A project with keys can still be deleted.
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(second), elsewhere->job->id).ok());
  EXPECT_TRUE(store_->DeleteProject(ScopeOf(second)).ok());
}

TEST_P(IdempotencyTest, AKeyedFollowUpIsAddedOnceAndARefusalKeepsNoKey) {
  Job j = Create(project_);
  const std::string route = "message " + j.id;
  // Refused (no such job): nothing is kept, the key stays free.
  auto refused =
      store_->AddMessageWithKey(ScopeOf(project_), "01a202ea-c483-7000-b7c4-c6f1ad82ddc7",
                                NewMessage{.prompt = "more"}, Keyed("f1", route));
  EXPECT_EQ(refused.status().code(), Code::kNotFound);
  for (int i = 0; i < 3; ++i) {
    auto r = store_->AddMessageWithKey(ScopeOf(project_), j.id, NewMessage{.prompt = "more"},
                                       Keyed("f1", route));
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->outcome,
              i == 0 ? IdempotentWrite::Outcome::kDone : IdempotentWrite::Outcome::kReplayed);
    EXPECT_EQ(r->status, 200);
  }
  auto messages = store_->ListMessages(ScopeOf(project_), j.id);
  ASSERT_TRUE(messages.ok());
  EXPECT_EQ(messages->size(), 2u);
}

// Requests with one key at once, through two nodes (two connections to the
// SQLite file): one job, and every request gets its response.
TEST_P(IdempotencyTest, ConcurrentRequestsWithOneKeyWriteOneJob) {
  auto other_node = Open();
  constexpr int kClients = 16;
  std::mutex mu;
  std::set<std::string> bodies;
  std::atomic<int> done{0}, replayed{0}, other{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < kClients; ++t) {
    clients.emplace_back([&, t] {
      Store& node = t % 2 == 0 ? *store_ : *other_node;
      auto r = node.CreateJobWithKey(ScopeOf(project_), NewJob{"p"}, Keyed("same"));
      if (!r.ok()) {
        ++other;
        ADD_FAILURE() << r.status().message();
        return;
      }
      if (r->outcome == IdempotentWrite::Outcome::kDone) ++done;
      if (r->outcome == IdempotentWrite::Outcome::kReplayed) ++replayed;
      std::lock_guard lock(mu);
      bodies.insert(r->body);
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(done.load(), 1);
  EXPECT_EQ(replayed.load(), kClients - 1);
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(bodies.size(), 1u);
  EXPECT_EQ(CountJobs(project_), 1);
}

// A key is kept 24 hours: then it names a new request, and old keys are
// removed by later keyed writes, a few at a time.
TEST_P(IdempotencyTest, KeysExpireAfterADayAndAreRemovedLazily) {
  auto first = store_->CreateJobWithKey(ScopeOf(project_), NewJob{"p"}, Keyed("old"));
  ASSERT_TRUE(first.ok());
  for (int i = 0; i < 40; ++i) {
    auto r = store_->CreateJobWithKey(ScopeOf(project_), NewJob{"p"},
                                      Keyed("other" + std::to_string(i)));
    ASSERT_TRUE(r.ok()) << r.status().message();
  }
  const std::string count =
      "SELECT COUNT(*) FROM idempotency_keys WHERE project_id = '" + project_.id + "'";
  auto rows = [&] {
    if (postgres()) return testing::PostgresDatabase::Scalar(url_, count);
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(url_.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, count.c_str(), -1, &stmt, nullptr), SQLITE_OK);
    int64_t n = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return n;
  };
  ASSERT_EQ(rows(), 41);
  // A day and a minute later, as far as the keys can tell.
  Sql("UPDATE idempotency_keys SET created_at = created_at - " +
      std::to_string((24 * 3600 + 60) * 1000) + " WHERE project_id = '" + project_.id + "'");
  auto later = store_->CreateJobWithKey(ScopeOf(project_), NewJob{"p"},
                                        Keyed("old", "create", "{\"prompt\":\"new\"}"));
  ASSERT_TRUE(later.ok()) << later.status().message();
  EXPECT_EQ(later->outcome, IdempotentWrite::Outcome::kDone) << "the expired key is free again";
  EXPECT_NE(later->body, first->body);
  // Its own expired row and a bounded number of others went; the new one came.
  int64_t left = rows();
  EXPECT_LT(left, 41);
  EXPECT_GT(left, 1) << "one write removes a bounded number of old keys";
  // Later keyed writes remove the rest; the new keys stay.
  int64_t kept = 1;
  while (kept < 10 && rows() > kept) {
    ASSERT_TRUE(
        store_
            ->CreateJobWithKey(ScopeOf(project_), NewJob{"p"}, Keyed("new" + std::to_string(kept)))
            .ok());
    ++kept;
  }
  EXPECT_EQ(rows(), kept);
}

// --- PostgreSQL: what the nodes tell each other ---

class PostgresStoreTest : public StoreTest {};

// A node's cache forgets what another node changed as soon as it is announced,
// not after its ttl (a minute here).
TEST_P(PostgresStoreTest, AnotherNodesWritesReachTheCacheAtOnce) {
  auto cached = NewCachedStore(Open(), CacheOptions{milliseconds(60000)});
  Job j = Create(project_);
  GeneratedApiKey k = GenerateApiKey(org_.id, "ci");
  ASSERT_TRUE(store_->CreateApiKey(k.record).ok());
  ASSERT_TRUE(cached->FindActiveApiKey(k.record.secret_hash).ok());
  ASSERT_EQ(cached->GetJob(ScopeOf(project_), j.id)->status, JobStatus::kActive);
  ASSERT_TRUE(store_->RevokeApiKey(k.record.id).ok());  // on the other node
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), j.id).ok());
  EXPECT_TRUE(testing::WaitUntil(
      [&] { return !cached->FindActiveApiKey(k.record.secret_hash).ok(); }, milliseconds(5000)));
  EXPECT_TRUE(testing::WaitUntil(
      [&] { return cached->GetJob(ScopeOf(project_), j.id)->status == JobStatus::kArchived; },
      milliseconds(5000)));
}

// Workers hear of a turn queued, and of a job archived, through another node.
TEST_P(PostgresStoreTest, QueuedTurnsAndArchivesAreAnnouncedToOtherNodes) {
  // Declared before the store: its listener calls into them until it stops.
  std::mutex mu;
  int queued = 0;
  std::vector<std::string> archived;
  auto listening = Open();
  ASSERT_TRUE(listening->AnnouncesChanges());
  listening->Watch(StoreWatcher{.turn_queued =
                                    [&] {
                                      std::lock_guard lock(mu);
                                      ++queued;
                                    },
                                .job_archived =
                                    [&](const std::string& id) {
                                      std::lock_guard lock(mu);
                                      archived.push_back(id);
                                    }});
  Job j = Create(project_);
  EXPECT_TRUE(testing::WaitUntil([&] {
    std::lock_guard lock(mu);
    return queued > 0;
  }));
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), j.id).ok());
  EXPECT_TRUE(testing::WaitUntil([&] {
    std::lock_guard lock(mu);
    return archived == std::vector<std::string>{j.id};
  }));
}

// The server drops every connection (a restart, a failover): the next calls
// succeed on new ones, and the listener says it missed what came in between,
// then listens again.
TEST_P(PostgresStoreTest, ConnectionsTheServerDropsAreReplaced) {
  std::mutex mu;
  std::vector<bool> hearing;
  auto node = Open();  // after what its listener calls into
  node->Watch(StoreWatcher{.hearing = [&](bool h) {
    std::lock_guard lock(mu);
    hearing.push_back(h);
  }});
  Job j = Create(project_);
  ASSERT_TRUE(node->GetJob(ScopeOf(project_), j.id).ok());  // pooled connections exist
  std::string error = testing::PostgresDatabase::Exec(
      url_,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
      "WHERE datname = current_database() AND pid <> pg_backend_pid()");
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_TRUE(node->GetJob(ScopeOf(project_), j.id).ok());
  EXPECT_TRUE(node->AddMessage(ScopeOf(project_), j.id, "again").ok());
  EXPECT_TRUE(testing::WaitUntil([&] {
    std::lock_guard lock(mu);
    return hearing == std::vector<bool>{false, true};
  }));
  node.reset();
}

// A node whose database is gone says so (the API's /healthz answers 503 on a
// failed Ping), and its cache serves nothing it can no longer confirm.
TEST_P(PostgresStoreTest, ANodeThatLostItsDatabaseSaysSoAndServesNothingStale) {
  auto cached = NewCachedStore(Open(), CacheOptions{milliseconds(60000)});
  Job j = Create(project_);
  ASSERT_TRUE(cached->GetJob(ScopeOf(project_), j.id).ok());  // cached
  ASSERT_TRUE(cached->Ping().ok());
  database_->Drop();  // WITH (FORCE): every connection is closed, reconnecting fails
  EXPECT_EQ(cached->Ping().code(), Code::kUnavailable);
  EXPECT_TRUE(testing::WaitUntil([&] { return !cached->GetJob(ScopeOf(project_), j.id).ok(); },
                                 milliseconds(5000)));
}

INSTANTIATE_TEST_SUITE_P(Store, PostgresStoreTest, ::testing::Values("postgres"),
                         [](const auto& info) { return info.param; });

INSTANTIATE_TEST_SUITE_P(Store, StoreTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(Store, IdempotencyTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace docwright
