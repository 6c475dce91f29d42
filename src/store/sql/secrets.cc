// The SQL store: secrets at rest. A project's forge token and hook secret and
// a webhook endpoint's secrets are stored sealed (core/secret_box.h) for their row,
// opened where they are handed out, and sealed again under the current key on
// rotation; a forge token a docwright from before sealing stored in the clear
// is sealed at open (hook and webhook secrets were never stored in the clear).
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

// What a project's hook secret (its forges' webhooks) is sealed for.
std::string HookSecretContext(const std::string& project_id) {
  return "projects.hook_secret:" + project_id;
}

// What a webhook endpoint's secret is sealed for (`previous`: the one a
// rotation replaced, in a column of its own).
std::string WebhookSecretContext(const std::string& endpoint_id, bool previous) {
  return std::string(previous ? "webhook_endpoints.previous_secret:"
                              : "webhook_endpoints.secret:") +
         endpoint_id;
}

// A stored secret: where it is, and its value.
struct StoredSecret {
  enum class Kind { kForgeToken, kHookSecret, kWebhookSecret, kWebhookPreviousSecret } kind;
  std::string row_id;  // the project's or the endpoint's
  std::string value;   // as stored: sealed, or in the clear from before sealing

  std::string Context() const {
    if (kind == Kind::kForgeToken) return ForgeTokenContext(row_id);
    if (kind == Kind::kHookSecret) return HookSecretContext(row_id);
    return WebhookSecretContext(row_id, kind != Kind::kWebhookSecret);
  }
  // For messages.
  std::string What() const {
    if (kind == Kind::kForgeToken) return "the forge token of project " + row_id;
    if (kind == Kind::kHookSecret) return "the hook secret of project " + row_id;
    return "a secret of webhook endpoint " + row_id;
  }
  // The statement that replaces it only if it is still `value`.
  const Statement& Swap() const {
    switch (kind) {
      case Kind::kForgeToken:
        return kSwapProjectForgeToken;
      case Kind::kHookSecret:
        return kSwapProjectHookSecret;
      case Kind::kWebhookSecret:
        return kSwapWebhookSecret;
      case Kind::kWebhookPreviousSecret:
        break;
    }
    return kSwapWebhookPreviousSecret;
  }
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

Result<std::optional<std::string>> SqlStore::SealHookSecret(const Project& p) const {
  if (!p.hook_secret) return std::optional<std::string>();
  auto sealed = secrets_->Seal(*p.hook_secret, HookSecretContext(p.id));
  if (!sealed.ok()) return About("the hook secret of project " + p.id, sealed.status());
  return std::optional<std::string>(std::move(*sealed));
}

Result<std::string> SqlStore::SealWebhookSecret(const std::string& endpoint_id,
                                                const std::string& secret, bool previous) const {
  auto sealed = secrets_->Seal(secret, WebhookSecretContext(endpoint_id, previous));
  if (!sealed.ok()) return About("a secret of webhook endpoint " + endpoint_id, sealed.status());
  return sealed;
}

Result<std::string> SqlStore::OpenWebhookSecret(const std::string& endpoint_id,
                                                const std::string& sealed, bool previous) const {
  auto opened = secrets_->Open(sealed, WebhookSecretContext(endpoint_id, previous));
  if (!opened.ok()) return About("a secret of webhook endpoint " + endpoint_id, opened.status());
  return opened;
}

Status SqlStore::OpenWebhookSecrets(WebhookEndpoint& e) const {
  auto secret = OpenWebhookSecret(e.id, e.secret, false);
  if (!secret.ok()) return secret.status();
  e.secret = std::move(*secret);
  if (e.previous_secret) {
    auto previous = OpenWebhookSecret(e.id, *e.previous_secret, true);
    if (!previous.ok()) return previous.status();
    e.previous_secret = std::move(*previous);
  }
  return Status();
}

Status SqlStore::OpenProjectSecrets(Project& p) const {
  if (p.forge_token && SecretBox::IsSealed(*p.forge_token)) {
    auto opened = secrets_->Open(*p.forge_token, ForgeTokenContext(p.id));
    if (!opened.ok()) return About("the forge token of project " + p.id, opened.status());
    p.forge_token = std::move(*opened);
  }
  if (p.hook_secret) {
    // Never stored in the clear: a value that does not open is refused.
    auto opened = secrets_->Open(*p.hook_secret, HookSecretContext(p.id));
    if (!opened.ok()) return About("the hook secret of project " + p.id, opened.status());
    p.hook_secret = std::move(*opened);
  }
  return Status();
}

namespace {

Result<std::vector<StoredSecret>> ReadSecrets(Connection& c) {
  using Kind = StoredSecret::Kind;
  std::vector<StoredSecret> out;
  {
    auto r = c.Exec(kSelectProjectSecrets, {});
    if (!r.ok()) return r.status();
    while (r->Next()) out.push_back({Kind::kForgeToken, r->Text("id"), r->Text("forge_token")});
  }
  {
    auto r = c.Exec(kSelectProjectHookSecrets, {});
    if (!r.ok()) return r.status();
    while (r->Next()) out.push_back({Kind::kHookSecret, r->Text("id"), r->Text("hook_secret")});
  }
  auto r = c.Exec(kSelectWebhookSecrets, {});
  if (!r.ok()) return r.status();
  while (r->Next()) {
    out.push_back({Kind::kWebhookSecret, r->Text("id"), r->Text("secret")});
    if (auto previous = r->OptText("previous_secret")) {
      out.push_back({Kind::kWebhookPreviousSecret, r->Text("id"), std::move(*previous)});
    }
  }
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
    auto value = secrets_->Seal(s.value, s.Context());
    if (!value.ok()) return About(s.What(), value.status());
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
      Status w = Run(c, read->Swap(), {V(read->row_id), V(read->value), V(value)});
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
    const std::string context = s.Context();
    std::string plaintext = s.value;
    if (SecretBox::IsSealed(s.value)) {
      if (SecretBox::KeyIdOf(s.value) == secrets_->current_key_id()) continue;
      auto opened = secrets_->Open(s.value, context);
      if (!opened.ok()) return About(s.What(), opened.status());
      plaintext = std::move(*opened);
    }
    auto value = secrets_->Seal(plaintext, context);
    if (!value.ok()) return About(s.What(), value.status());
    int64_t changed = 0;
    Status w = Write([&](Connection& c) -> Status {
      auto r = c.Exec(s.Swap(), {V(s.row_id), V(s.value), V(*value)});
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
