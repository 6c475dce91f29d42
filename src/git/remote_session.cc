#include "git/remote_session.h"

#include "core/crash_point.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

#include "core/text.h"
#include "git/libgit2.h"
#include "git/remote_origin.h"

namespace docwright::git {
namespace {

// A known_hosts field's base64: never empty.
std::optional<std::string> DecodeField(std::string_view in) {
  if (in.empty()) return std::nullopt;
  return Base64Decode(in);
}

// OpenSSH's host patterns: '*' and '?' are the only wildcards ('[' is literal).
bool WildcardMatch(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++, resume = t;
    } else if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p, ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1, t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

// Whether `name` ("host" or "[host]:port") matches a known_hosts host field.
bool HostFieldMatches(std::string_view field, const std::string& name) {
  bool matched = false;
  while (!field.empty()) {
    size_t comma = field.find(',');
    std::string pattern(field.substr(0, comma));
    field.remove_prefix(comma == std::string_view::npos ? field.size() : comma + 1);
    for (char& c : pattern) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (pattern.starts_with("|1|")) continue;  // hashed: see HashedHostMatches
    bool negated = !pattern.empty() && pattern[0] == '!';
    if (negated) pattern.erase(0, 1);
    if (WildcardMatch(pattern, name)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

bool HashedHostMatches(std::string_view field, const std::string& name) {
  if (!field.starts_with("|1|")) return false;
  size_t bar = field.find('|', 3);
  if (bar == std::string_view::npos) return false;
  auto salt = DecodeField(field.substr(3, bar - 3));
  auto hash = DecodeField(field.substr(bar + 1));
  if (!salt || !hash) return false;
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  if (!HMAC(EVP_sha1(), salt->data(), static_cast<int>(salt->size()),
            reinterpret_cast<const unsigned char*>(name.data()), name.size(), mac, &mac_len)) {
    return false;
  }
  return hash->size() == mac_len && std::memcmp(hash->data(), mac, mac_len) == 0;
}

}  // namespace

bool KnownHostsAccepts(std::string_view known_hosts, const std::string& host, int port,
                       std::string_view host_key) {
  std::string name = port == 22 ? host : "[" + host + "]:" + std::to_string(port);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  bool accepted = false;
  std::istringstream lines{std::string(known_hosts)};
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string first, hosts, type, key;
    if (!(fields >> first) || first[0] == '#') continue;
    bool revoked = false;
    if (first[0] == '@') {
      if (first != "@revoked") continue;  // certificate authorities are not supported
      revoked = true;
      if (!(fields >> hosts)) continue;
    } else {
      hosts = first;
    }
    if (!(fields >> type >> key)) continue;
    auto blob = DecodeField(key);
    if (!blob || *blob != host_key) continue;
    if (!HashedHostMatches(hosts, name) && !HostFieldMatches(hosts, name)) continue;
    if (revoked) return false;
    accepted = true;
  }
  return accepted;
}

namespace {

int ProvideCredentials(git_credential** out, const char* url, const char* username_from_url,
                       unsigned int allowed, void* payload) {
  auto* session = static_cast<RemoteSession*>(payload);
  if (!CredentialsMayGo(*session, url)) {
    session->refused_origin =
        "the remote asked for credentials from another address than its own (a redirect?); "
        "none were offered";
    git_error_set_str(GIT_ERROR_NET, session->refused_origin.c_str());
    return GIT_EAUTH;
  }
  const Credentials& c = session->credentials;
  const char* ssh_user = username_from_url ? username_from_url : "git";
  if (allowed & GIT_CREDENTIAL_USERNAME) return git_credential_username_new(out, ssh_user);
  if (session->asked++ > 0) return GIT_EAUTH;
  if ((allowed & GIT_CREDENTIAL_SSH_KEY) && c.ssh_key_path) {
    return git_credential_ssh_key_new(out, ssh_user, nullptr, c.ssh_key_path->c_str(), nullptr);
  }
  // The token is for HTTPS only: never offered to an SSH server as a password.
  auto origin = OriginOf(session->url);
  bool http = origin && (origin->scheme == "http" || origin->scheme == "https");
  if ((allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) && c.token && http) {
    const char* user = username_from_url ? username_from_url : c.token_user.c_str();
    return git_credential_userpass_plaintext_new(out, user, c.token->c_str());
  }
  return GIT_EAUTH;
}

int CheckCertificate(git_cert* cert, int, const char* host, void* payload) {
  auto* session = static_cast<RemoteSession*>(payload);
  if (cert->cert_type != GIT_CERT_HOSTKEY_LIBSSH2) return GIT_PASSTHROUGH;  // TLS: libgit2's check
  auto* key = reinterpret_cast<git_cert_hostkey*>(cert);
  const std::string& path = session->credentials.ssh_known_hosts_path;
  std::string known;
  if (!path.empty()) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    known = text.str();
  }
  auto origin = OriginOf(session->url);
  int port = origin ? origin->port : 22;
  if ((key->type & GIT_CERT_SSH_RAW) && key->hostkey &&
      KnownHostsAccepts(known, host ? host : "", port,
                        std::string_view(key->hostkey, key->hostkey_len))) {
    return 0;
  }
  session->host_key_problem =
      std::string("the SSH host key of ") + (host ? host : "the remote") + " is not listed in " +
      (path.empty() ? std::string("a known_hosts file (none is configured)") : path) +
      "; add it (ssh-keyscan) after checking it";
  return GIT_ECERTIFICATE;
}

}  // namespace

bool CredentialsMayGo(const RemoteSession& session, const char* asked_url) {
  auto configured = OriginOf(session.url);
  if (!configured || !asked_url || !SameOrigin(session.url, asked_url)) return false;
  // libgit2 1.5 names the configured URL here even when it followed a redirect
  // to another server: the connection says who is asking.
  if (session.scope) {
    if (auto connected = session.scope->last_connected()) {
      auto server =
          OriginOf(configured->scheme + "://" +
                   (connected->first.find(':') != std::string::npos ? "[" + connected->first + "]"
                                                                    : connected->first) +
                   ":" + connected->second);
      if (!server || server->host != configured->host || server->port != configured->port) {
        return false;
      }
    }
  }
  return true;
}

git_remote_callbacks Callbacks(RemoteSession* session) {
  git_remote_callbacks callbacks = GIT_REMOTE_CALLBACKS_INIT;
  callbacks.credentials = ProvideCredentials;
  callbacks.certificate_check = CheckCertificate;
  callbacks.sideband_progress = [](const char*, int, void* payload) {
    return static_cast<RemoteSession*>(payload)->Progress();
  };
  callbacks.transfer_progress = [](const git_indexer_progress* progress, void* payload) {
    if (progress->received_objects * 2 >= progress->total_objects &&
        progress->received_objects < progress->total_objects) {
      CrashPoint("fetch.transfer");
    }
    return static_cast<RemoteSession*>(payload)->Progress();
  };
  callbacks.pack_progress = [](int, uint32_t, uint32_t, void* payload) {
    return static_cast<RemoteSession*>(payload)->Progress();
  };
  callbacks.push_transfer_progress = [](unsigned int, unsigned int, size_t, void* payload) {
    CrashPoint("push.transfer");  // the first report comes as the pack starts to go
    return static_cast<RemoteSession*>(payload)->Progress();
  };
  callbacks.payload = session;
  return callbacks;
}

Status SessionFail(const RemoteSession& session, const std::string& what, int rc) {
  if (session.was_cancelled || (session.scope && session.scope->cancelled())) {
    return Status::Unavailable(what + ": cancelled");
  }
  if (session.scope) {
    if (std::string why = session.scope->stopped(); !why.empty()) {
      return Status::Unavailable(what + ": " + why);
    }
  }
  if (!session.host_key_problem.empty()) {
    return Status::Unauthenticated(what + ": " + session.host_key_problem);
  }
  if (!session.refused_origin.empty()) {
    return Status::Unauthenticated(what + ": " + session.refused_origin);
  }
  return RemoteFail(what, rc);
}

}  // namespace docwright::git
