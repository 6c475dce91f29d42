// The SQL store: secrets at rest. A project's forge token is stored sealed
// (core/secret_box.h) for its row, opened where a project is handed out, sealed
// at open if a docwright from before sealing stored it in the clear, and sealed
// again under the current key on rotation.
#include <set>

#include "store/sql/internal.h"
#include "store/sql/statements.h"

namespace docwright::sql {
namespace {

// What a forge token is sealed for: its column and its row, so a token copied
// to another project's row does not open there.
std::string ForgeTokenContext(const std::string& project_id) {
  return "projects.forge_token:" + project_id;
}

struct StoredSecret {
  std::string project_id;
  std::string value;  // as stored: sealed, or in the clear from before sealing
};

// `s` with `what` before its message, of the same code.
Status About(const std::string& what, const Status& s) {
  std::string m = what + ": " + s.message();
  switch (s.code()) {
    case Code::kInvalidArgument:
      return Status::InvalidArgument(std::move(m));
    case Code::kUnavailable:
      return Status::Unavailable(std::move(m));
    default:
      return Status::Internal(std::move(m));
  }
}

}  // namespace

Result<std::optional<std::string>> SqlStore::SealForgeToken(const Project& p) const {
  if (!p.forge_token) return std::optional<std::string>();
  auto sealed = secrets_->Seal(*p.forge_token, ForgeTokenContext(p.id));
  if (!sealed.ok()) return About("the forge token of project " + p.id, sealed.status());
  return std::optional<std::string>(std::move(*sealed));
}

Status SqlStore::OpenForgeToken(Project& p) const {
  if (!p.forge_token || !SecretBox::IsSealed(*p.forge_token)) return Status();
  auto opened = secrets_->Open(*p.forge_token, ForgeTokenContext(p.id));
  if (!opened.ok()) return About("the forge token of project " + p.id, opened.status());
  p.forge_token = std::move(*opened);
  return Status();
}

namespace {

Result<std::vector<StoredSecret>> ReadSecrets(Connection& c) {
  auto r = c.Exec(kSelectProjectSecrets, {});
  if (!r.ok()) return r.status();
  std::vector<StoredSecret> out;
  while (r->Next()) out.push_back(StoredSecret{r->Text("id"), r->Text("forge_token")});
  return out;
}

}  // namespace

Status SqlStore::SealLegacySecrets() {
  auto stored = Read<std::vector<StoredSecret>>(ReadSecrets);
  if (!stored.ok()) return stored.status();
  std::set<std::string> unknown;
  std::vector<std::pair<const StoredSecret*, std::string>> sealed;  // what was read, sealed
  for (const StoredSecret& s : *stored) {
    if (SecretBox::IsSealed(s.value)) {
      // A malformed value is the project's trouble alone, told when it is used.
      auto key_id = SecretBox::KeyIdOf(s.value);
      if (key_id && !secrets_->HoldsKey(*key_id)) unknown.insert(*key_id);
      continue;
    }
    auto value = secrets_->Seal(s.value, ForgeTokenContext(s.project_id));
    if (!value.ok()) return About("the forge token of project " + s.project_id, value.status());
    sealed.emplace_back(&s, std::move(*value));
  }
  if (!unknown.empty()) {
    std::string ids;
    for (const std::string& id : unknown) ids += (ids.empty() ? "" : ", ") + id;
    return Status::InvalidArgument(
        "the database holds secrets sealed under key " + ids +
        ", which the secret key file does not hold (its current key is " +
        secrets_->current_key_id() +
        "): give this process the key file the database's other processes use");
  }
  if (sealed.empty()) return Status();
  return Write([&](Connection& c) -> Status {
    for (const auto& [read, value] : sealed) {
      Status w = Run(c, kSwapProjectForgeToken, {V(read->project_id), V(read->value), V(value)});
      if (!w.ok()) return w;
    }
    return Status();
  });
}

Result<int64_t> SqlStore::ResealSecrets() {
  auto stored = Read<std::vector<StoredSecret>>(ReadSecrets);
  if (!stored.ok()) return stored.status();
  int64_t resealed = 0;
  for (const StoredSecret& s : *stored) {
    const std::string context = ForgeTokenContext(s.project_id);
    std::string plaintext = s.value;
    if (SecretBox::IsSealed(s.value)) {
      if (SecretBox::KeyIdOf(s.value) == secrets_->current_key_id()) continue;
      auto opened = secrets_->Open(s.value, context);
      if (!opened.ok()) return About("the forge token of project " + s.project_id, opened.status());
      plaintext = std::move(*opened);
    }
    auto value = secrets_->Seal(plaintext, context);
    if (!value.ok()) return About("the forge token of project " + s.project_id, value.status());
    int64_t changed = 0;
    Status w = Write([&](Connection& c) -> Status {
      auto r = c.Exec(kSwapProjectForgeToken, {V(s.project_id), V(s.value), V(*value)});
      if (!r.ok()) return r.status();
      changed = r->affected();
      return Status();
    });
    if (!w.ok()) return w;
    resealed += changed;
  }
  return resealed;
}

Result<std::unique_ptr<Store>> OpenSqlStore(std::unique_ptr<Driver> driver,
                                            std::shared_ptr<const SecretBox> secrets) {
  if (!secrets) return Status::InvalidArgument("no secret key to open the store with");
  auto store = std::make_unique<SqlStore>(std::move(driver), std::move(secrets));
  if (Status s = store->SealLegacySecrets(); !s.ok()) return s;
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace docwright::sql
