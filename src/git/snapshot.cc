// Snapshot: a commit's files, read without a checkout.
#include "git/git.h"

#include "git/snapshot_impl.h"

namespace docwright::git {

Snapshot::Snapshot(std::unique_ptr<Impl> impl, std::string commit)
    : impl_(std::move(impl)), commit_(std::move(commit)) {}
Snapshot::~Snapshot() = default;

void Snapshot::SetBudget(WorkBudget* budget) { impl_->budget = budget; }
WorkBudget* Snapshot::budget() const { return impl_->budget; }

Result<FileContent> Snapshot::Read(const std::string& path) const {
  auto p = CheckPath(path);
  if (!p.ok()) return p.status();
  bool binary = false;
  auto raw = impl_->Raw(*p, kMaxReadBytes, &binary);
  if (!raw.ok()) {
    impl_->Note(raw.status());
    return raw.status();
  }
  if (binary) return FileContent{"", true};
  return FileContent{std::move(*raw), false};
}

Result<std::string> Snapshot::ReadBytes(const std::string& path, size_t max_bytes) const {
  auto p = CheckPath(path);
  if (!p.ok()) return p.status();
  auto raw = impl_->Raw(*p, std::min(max_bytes, kMaxReadBytes), nullptr);
  if (!raw.ok()) impl_->Note(raw.status());
  return raw;
}

Result<std::vector<DirEntry>> Snapshot::List(const std::string& dir) const {
  auto checked = CheckDir(dir);
  if (!checked.ok()) return checked.status();
  const std::string& d = *checked;
  auto tree = impl_->Tree(d);
  if (!tree.ok()) {
    impl_->Note(tree.status());
    return tree.status();
  }
  std::vector<DirEntry> out;
  size_t n = git_tree_entrycount(tree->get());
  if (!impl_->Charge(WorkBudget::Meter::kEntries, n)) return impl_->Spent();
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(tree->get(), i);
    out.push_back(DirEntry{git_tree_entry_name(e), KindOf(git_tree_entry_filemode(e))});
  }
  std::sort(out.begin(), out.end(),
            [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return out;
}

Result<std::vector<std::string>> Snapshot::Walk(const std::string& dir, size_t limit,
                                                bool* cut) const {
  auto checked = CheckDir(dir);
  if (!checked.ok()) return checked.status();
  size_t visits = limit > SIZE_MAX / kWalkVisitsPerPath ? SIZE_MAX : limit * kWalkVisitsPerPath;
  auto leaves = impl_->Leaves(*checked, limit, /*files_only=*/true, visits, cut);
  if (!leaves.ok()) impl_->Note(leaves.status());
  return leaves;
}

std::optional<EntryKind> Snapshot::KindAt(const std::string& path) const {
  auto p = CheckPath(path);
  if (!p.ok()) return std::nullopt;
  auto e = impl_->Entry(*p);
  if (!e.ok()) {
    impl_->Note(e.status());
    return std::nullopt;
  }
  return KindOf(git_tree_entry_filemode(e->get()));
}

std::string Snapshot::BlobIdAt(const std::string& path) const {
  auto p = CheckPath(path);
  if (!p.ok()) return "";
  auto file = impl_->FileAt(*p);
  if (!file.ok()) impl_->Note(file.status());
  return file.ok() ? Hex(file->first) : "";
}

bool Snapshot::IsFile(const std::string& path) const {
  auto p = CheckPath(path);
  if (!p.ok()) return false;
  auto e = impl_->Entry(*p);
  if (!e.ok()) impl_->Note(e.status());
  return e.ok() && IsBlobMode(git_tree_entry_filemode(e->get()));
}

uint64_t Snapshot::failed_reads() const { return impl_->failed_reads; }

}  // namespace docwright::git
