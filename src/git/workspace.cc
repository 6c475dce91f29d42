// Workspace: edits in memory over a Snapshot, made a commit by the Mirror.
#include "git/git.h"

#include <limits>

#include "git/snapshot_impl.h"

namespace docwright::git {

Result<FileContent> Workspace::Read(const std::string& path) const {
  auto p = CheckPath(path);
  if (!p.ok()) return p.status();
  auto it = edits_.find(*p);
  if (it == edits_.end()) return base_.Read(*p);
  const Change& c = it->second;
  switch (c.kind) {
    case Change::Kind::kDelete:
      return Status::NotFound("no such file or directory: " + *p);
    case Change::Kind::kWrite:
      if (LooksBinary(c.content)) return FileContent{"", true};
      return FileContent{c.content, false};
    case Change::Kind::kCopy: {
      auto id = ParseOid(c.blob);
      if (!id.ok()) return id.status();
      bool binary = false;
      auto raw = base_.impl_->RawById(*id, *p, kMaxReadBytes, &binary);
      if (!raw.ok()) return raw.status();
      if (binary) return FileContent{"", true};
      return FileContent{std::move(*raw), false};
    }
  }
  return Status::Internal("unknown change");
}

bool Workspace::IsFile(const std::string& path) const {
  auto p = CheckPath(path);
  if (!p.ok()) return false;
  if (auto it = edits_.find(*p); it != edits_.end())
    return it->second.kind != Change::Kind::kDelete;
  return base_.IsFile(*p);
}

std::string Workspace::UnchangedBlobId(const std::string& path) const {
  if (edits_.find(path) != edits_.end()) return "";
  return base_.BlobIdAt(path);
}

Result<std::vector<DirEntry>> Workspace::List(const std::string& dir) const {
  auto checked = CheckDir(dir);
  if (!checked.ok()) return checked.status();
  const std::string& d = *checked;
  std::string prefix = d.empty() ? "" : d + "/";
  auto first_below = edits_.lower_bound(prefix);
  bool edited_below = first_below != edits_.end() && first_below->first.starts_with(prefix);
  std::map<std::string, EntryKind> entries;
  auto base = base_.List(d);
  if (base.ok()) {
    for (auto& e : *base) entries[e.name] = e.kind;
  } else if (!edited_below) {
    return base.status();  // not found, or not a directory
  }
  for (auto e = edits_.lower_bound(prefix); e != edits_.end() && e->first.starts_with(prefix);
       ++e) {
    std::string rest = e->first.substr(prefix.size());
    size_t slash = rest.find('/');
    std::string name = rest.substr(0, slash);
    bool present = e->second.kind != Change::Kind::kDelete;
    if (slash != std::string::npos) {
      if (present) entries[name] = EntryKind::kDirectory;
    } else if (present) {
      entries[name] = EntryKind::kFile;
    } else {
      entries.erase(name);
    }
  }
  // A directory whose every entry was deleted disappears, as it would in git.
  for (auto it = entries.begin(); it != entries.end();) {
    bool gone = it->second == EntryKind::kDirectory && !HasContent(prefix + it->first);
    it = gone ? entries.erase(it) : std::next(it);
  }
  if (entries.empty() && !d.empty()) return Status::NotFound("no such file or directory: " + d);
  std::vector<DirEntry> out;
  for (auto& [name, kind] : entries) out.push_back(DirEntry{name, kind});
  return out;
}

bool Workspace::HasContent(const std::string& dir) const {
  std::string sub = dir + "/";
  size_t deleted = 0;
  for (auto e = edits_.lower_bound(sub); e != edits_.end() && e->first.starts_with(sub); ++e) {
    if (e->second.kind != Change::Kind::kDelete) return true;  // something put below
    ++deleted;
  }
  if (deleted == 0) return true;  // untouched: a folder of the base, which git never keeps empty
  // Only the deletions below can empty it: an entry beyond their number, or one
  // of the first deleted + 1 that nobody deleted, is content. The walk is
  // bounded by the edits, never by the size of the tree.
  bool cut = false;
  auto leaves = base_.impl_->Leaves(dir, deleted + 1, /*files_only=*/false,
                                    kWalkVisitsPerPath * (deleted + 1), &cut);
  if (!leaves.ok()) return false;
  // Cut short by the visits (folders nested deep): assume content, as the base has.
  if (leaves->size() > deleted || cut) return true;
  for (const auto& leaf : *leaves) {
    if (edits_.find(leaf) == edits_.end()) return true;  // an entry nobody deleted
  }
  return false;
}

Status Workspace::CheckWritable(const std::string& p) const {
  // Links and submodules are never changed or entered; directories are not
  // files; files are not directories.
  auto kind = base_.KindAt(p);
  if (kind == EntryKind::kSymlink) {
    return Status::InvalidArgument(p + " is a symbolic link; links are not changed");
  }
  if (kind == EntryKind::kSubmodule) {
    return Status::InvalidArgument(p + " is a submodule; submodules are not changed");
  }
  if (List(p).ok()) return Status::InvalidArgument(p + " is a directory");
  for (size_t slash = p.find('/'); slash != std::string::npos; slash = p.find('/', slash + 1)) {
    std::string parent = p.substr(0, slash);
    auto parent_kind = base_.KindAt(parent);
    if (parent_kind == EntryKind::kSymlink || parent_kind == EntryKind::kSubmodule) {
      return Status::InvalidArgument(parent + " is a symbolic link or submodule, not a directory");
    }
    if (IsFile(parent)) return Status::InvalidArgument(parent + " is a file, not a directory");
  }
  return Status();
}

Status Workspace::CheckRoom(const std::string& path, size_t bytes) const {
  auto it = edits_.find(path);
  if (it == edits_.end() && edits_.size() >= kMaxChangedPaths) {
    return Status::InvalidArgument("the turn has changed " + std::to_string(kMaxChangedPaths) +
                                   " paths, the most one turn may change");
  }
  size_t written = 0;
  for (const auto& [p, change] : edits_) {
    if (p != path && change.kind == Change::Kind::kWrite) written += change.content.size();
  }
  if (written + bytes > kMaxChangedBytes) {
    return Status::InvalidArgument("the turn's changes would be over " +
                                   std::to_string(kMaxChangedBytes >> 20) +
                                   " MiB, the most one turn may write");
  }
  return Status();
}

Status Workspace::Write(const std::string& path, std::string content) {
  auto p = CheckPath(path);
  if (!p.ok()) return p.status();
  if (content.size() > kMaxReadBytes) {
    return Status::InvalidArgument("the content is too large: " + std::to_string(content.size()) +
                                   " bytes, the limit is " + std::to_string(kMaxReadBytes));
  }
  Status writable = CheckWritable(*p);
  if (!writable.ok()) return writable;
  if (Status room = CheckRoom(*p, content.size()); !room.ok()) return room;
  // An executable stays executable when rewritten.
  bool executable = false;
  if (auto it = edits_.find(*p); it != edits_.end()) {
    executable = it->second.kind != Change::Kind::kDelete && it->second.executable;
  } else if (auto file = base_.impl_->FileAt(*p); file.ok()) {
    executable = file->second;
  }
  edits_[*p] = Change{Change::Kind::kWrite, std::move(content), "", executable};
  return Status();
}

Status Workspace::Delete(const std::string& path) {
  auto p = CheckPath(path);
  if (!p.ok()) return p.status();
  if (!IsFile(*p)) return Status::NotFound("no such file: " + *p);
  if (base_.IsFile(*p)) {
    edits_[*p] = Change{Change::Kind::kDelete};
  } else {
    edits_.erase(*p);
  }
  return Status();
}

Status Workspace::Move(const std::string& from, const std::string& to) {
  auto f = CheckPath(from);
  if (!f.ok()) return f.status();
  auto t = CheckPath(to);
  if (!t.ok()) return t.status();
  if (*f == *t) return Status();
  if (!IsFile(*f)) return Status::NotFound("no such file: " + *f);
  if (IsFile(*t)) return Status::Conflict(*t + " already exists");
  Change moved;
  if (auto it = edits_.find(*f); it != edits_.end()) {
    moved = it->second;
  } else {
    // A base file moves as the same blob: no size limit, binary or not, mode kept.
    auto file = base_.impl_->FileAt(*f);
    if (!file.ok()) return file.status();
    moved = Change{Change::Kind::kCopy, "", Hex(file->first), file->second};
  }
  Status writable = CheckWritable(*t);
  if (!writable.ok()) return writable;
  // The move changes two paths: room for the one at `from` as well.
  if (Status room = CheckRoom(*t, 0); !room.ok()) return room;
  if (edits_.find(*f) == edits_.end() && edits_.find(*t) == edits_.end() &&
      edits_.size() + 2 > kMaxChangedPaths) {
    return Status::InvalidArgument("the turn has changed " + std::to_string(kMaxChangedPaths) +
                                   " paths, the most one turn may change");
  }
  edits_[*t] = std::move(moved);
  return Delete(*f);
}

Status Workspace::Take(const Snapshot& other, const std::string& path) {
  auto p = CheckPath(path);
  if (!p.ok()) return p.status();
  auto file = other.impl_->FileAt(*p);
  if (!file.ok()) {
    if (file.status().code() != Code::kNotFound && other.KindAt(*p)) {
      return file.status();  // a link or submodule there: not a file to take
    }
    return IsFile(*p) ? Delete(*p) : Status();
  }
  Status writable = CheckWritable(*p);
  if (!writable.ok()) return writable;
  if (Status room = CheckRoom(*p, 0); !room.ok()) return room;
  // The same blob, read from the one object database the snapshots share.
  edits_[*p] = Change{Change::Kind::kCopy, "", Hex(file->first), file->second};
  return Status();
}

std::string BlobIdOf(std::string_view content) {
  EnsureLibrary();  // hashing needs the library set up, not the transports
  git_oid id;
  if (git_odb_hash(&id, content.data(), content.size(), GIT_OBJECT_BLOB) != 0) return "";
  return Hex(id);
}

std::map<std::string, Change> Workspace::Changes() const {
  std::map<std::string, Change> out;
  for (const auto& [path, change] : edits_) {
    if (change.kind != Change::Kind::kDelete && base_.IsFile(path)) {
      auto before = base_.impl_->FileAt(path);
      if (change.kind == Change::Kind::kCopy && before.ok() && Hex(before->first) == change.blob &&
          before->second == change.executable) {
        continue;  // moved back where it was
      }
      if (change.kind == Change::Kind::kWrite) {
        auto bytes = base_.impl_->Raw(path, kMaxReadBytes, nullptr);
        if (bytes.ok() && *bytes == change.content) continue;  // written back as it was
      }
    }
    out.emplace(path, change);
  }
  return out;
}

}  // namespace docwright::git
