// The SQL store: reviews of jobs' branches (core/review.h). The scalars are
// columns; the lists (files, problems, notes) are JSON arrays, written with the
// one JSON writer and read without trusting them (a field of another type reads
// as empty).
#include <nlohmann/json.hpp>

#include "core/json_fields.h"
#include "core/json_writer.h"
#include "core/review_json.h"
#include "store/sql/internal.h"
#include "store/sql/statements.h"

namespace docwright::sql {
namespace {

// The lists as the API shows them (core/review.h).
template <typename List, typename Write>
std::string ListJson(const List& list, Write write) {
  std::string out;
  JsonWriter w(&out);
  write(list, w);
  return out;
}

std::optional<std::string> OptStringField(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::vector<ReviewFile> ParseFiles(const std::string& text) {
  std::vector<ReviewFile> out;
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_array()) return out;
  for (const nlohmann::json& f : parsed) {
    if (!f.is_object()) continue;
    ReviewFile file;
    file.path = StringField(f, "path");
    file.change = StringField(f, "change");
    file.from = OptStringField(f, "from");
    file.additions = IntField(f, "additions");
    file.deletions = IntField(f, "deletions");
    file.preview_html = OptStringField(f, "previewHtml");
    out.push_back(std::move(file));
  }
  return out;
}

std::vector<std::string> ParseStrings(const std::string& text) {
  std::vector<std::string> out;
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_array()) return out;
  for (const nlohmann::json& s : parsed) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}

Review ReadReview(const Rows& r) {
  Review review;
  review.job_id = r.Text("job_id");
  review.project_id = r.Text("project_id");
  review.branch = r.Text("branch");
  review.base = r.Text("base");
  review.base_commit = r.Text("base_commit");
  review.head_commit = r.Text("head_commit");
  review.files = ParseFiles(r.Text("files"));
  review.diff = r.Text("diff");
  review.diff_truncated = r.Int("diff_truncated") != 0;
  review.problems = ParseStrings(r.Text("problems"));
  review.notes = ParseStrings(r.Text("notes"));
  review.pull_request_body_html = r.Text("pull_request_body_html");
  review.updated_at = r.Int("updated_at");
  return review;
}

}  // namespace

Status SqlStore::PutReview(const Review& review) {
  const std::string files = ListJson(review.files, &WriteReviewFiles);
  const std::string problems = ListJson(review.problems, &WriteStringList);
  const std::string notes = ListJson(review.notes, &WriteStringList);
  const UnixMillis updated_at = review.updated_at != 0 ? review.updated_at : NowMillis();
  return Write([&](Connection& c) -> Status {
    auto job = LoadJobById(c, review.job_id);
    if (!job.ok()) return job.status();
    // GetReviewByBranch and a project's deletion go by the stored project: it
    // must be the job's.
    if (job->project_id != review.project_id) {
      return Status::InvalidArgument("the review names another project than its job's");
    }
    return Run(c, kUpsertReview,
               {V(review.job_id), V(review.project_id), V(review.branch), V(review.base),
                V(review.base_commit), V(review.head_commit), V(files), V(review.diff),
                V(review.diff_truncated), V(problems), V(notes), V(review.pull_request_body_html),
                V(updated_at)});
  });
}

Result<Review> SqlStore::GetReview(const Scope& scope, const std::string& job_id) {
  return ReadOne(kSelectReview, {V(job_id), V(scope.project_id), V(scope.org_id)}, &ReadReview,
                 "review not found");
}

Result<Review> SqlStore::GetReviewByBranch(const std::string& project_id,
                                           const std::string& branch) {
  return ReadOne(kSelectReviewByBranch, {V(project_id), V(branch)}, &ReadReview,
                 "review not found");
}

}  // namespace docwright::sql
