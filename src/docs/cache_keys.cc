// What names an answer in the commit cache (docs/commit_cache.h), and when an
// answer may be kept.
#include <cctype>

#include "core/turn.h"
#include "docs/internal.h"

namespace docwright::docs {
namespace {

// A key longer than this is not made: the check of thousands of changed paths
// is not worth keeping, and its key alone would cost as much as an answer.
constexpr size_t kMaxKeyBytes = 64 * 1024;

// Fields one after the other, each with its length first, so that no two lists
// of fields (a site_root with a separator in it, say) make one key.
class KeyWriter {
 public:
  explicit KeyWriter(std::string_view kind) { Add(kind); }
  KeyWriter& Add(std::string_view field) {
    key_ += std::to_string(field.size());
    key_ += ':';
    key_.append(field);
    return *this;
  }
  KeyWriter& Add(size_t number) { return Add(std::to_string(number)); }
  size_t size() const { return key_.size(); }
  std::string Take() { return std::move(key_); }

 private:
  std::string key_;
};

// The commit a workspace starts from, as one spelling: a snapshot keeps the id
// it was opened with, and git reads hex in either case.
std::string CommitOf(const git::Workspace& files) {
  std::string commit = files.base().commit();
  for (char& c : commit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return commit;
}

}  // namespace

std::string SiteMapKey(const git::Workspace& files, const Limits& limits) {
  if (!files.Changes().empty()) return "";
  KeyWriter key("site map");
  key.Add(CommitOf(files)).Add(limits.site_root).Add(limits.max_files).Add(limits.max_steps);
  return key.size() > kMaxKeyBytes ? "" : key.Take();
}

std::string RenderKey(std::string_view map_key, size_t max_bytes) {
  if (map_key.empty()) return "";
  KeyWriter key("site map text");
  key.Add(map_key).Add(max_bytes);
  return key.size() > kMaxKeyBytes ? "" : key.Take();
}

std::string CheckKey(const git::Workspace& files, const Changes& changes,
                     const std::map<std::string, std::string>& sources, const Limits& limits) {
  KeyWriter key("check");
  key.Add(CommitOf(files))
      .Add(limits.site_root)
      .Add(limits.max_files)
      .Add(limits.max_problems)
      .Add(limits.max_notes)
      .Add(limits.max_steps)
      .Add(changes.size());
  for (const auto& [path, change] : changes) {  // a std::map: by path
    key.Add(path);
    switch (change.kind) {
      case git::Change::Kind::kDelete:
        key.Add("deleted");
        break;
      case git::Change::Kind::kCopy:
        key.Add(change.blob);
        break;
      case git::Change::Kind::kWrite: {
        std::string blob = git::BlobIdOf(change.content);
        if (blob.empty()) return "";
        key.Add(blob);
        break;
      }
    }
    auto from = sources.find(path);
    key.Add(from == sources.end() ? std::string_view() : std::string_view(from->second));
    if (key.size() > kMaxKeyBytes) return "";
  }
  return key.Take();
}

bool CutFromOutside(const git::Workspace& files, const Limits& limits,
                    uint64_t failed_reads_before) {
  if (files.base().failed_reads() != failed_reads_before) return true;
  if (limits.cancel && limits.cancel->cancelled()) return true;
  if (limits.deadline != std::chrono::steady_clock::time_point::max() &&
      std::chrono::steady_clock::now() >= limits.deadline) {
    return true;
  }
  if (limits.turn && limits.turn->spent()) return true;
  const WorkBudget* reads = files.base().budget();
  return reads && reads->spent();
}

}  // namespace docwright::docs
