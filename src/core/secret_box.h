// Secrets at rest: short secrets the store keeps (a project's forge token, later
// a webhook's signing secret) sealed with AES-256-GCM under a key the operator
// holds outside the database (core/secret_key_file.h), so the database file, a
// backup of it or a dump of a column gives up no secret.
//
// A sealed value is text, self-describing and versioned:
//
//   dwenc:v1:<key id>:<base64 of nonce (12 bytes) | ciphertext | tag (16 bytes)>
//
// The key id is the first 12 hex digits of the SHA-256 of the key: it names the
// key that opens the value, and says nothing usable about the key. The nonce is
// random for every value (96 bits: a key may seal billions of values before a
// repeat becomes likely). The additional authenticated data is the value's
// header ("dwenc:v1:<key id>:") and then its context, a text saying what the
// value is and whose ("projects.forge_token:<project id>"): a value moved to
// another row or another column, or given another header, does not open.
//
// A SecretBox holds one current key, which seals, and older keys, which only
// open (rotation: values are sealed again under the current key by
// Store::ResealSecrets). Its errors never hold a secret or a key, only key ids.
// Immutable once made, so thread-safe; the key bytes are wiped when it goes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace docwright {

inline constexpr size_t kSecretKeyBytes = 32;         // AES-256
inline constexpr size_t kMaxSecretBytes = 64 * 1024;  // what Seal takes
inline constexpr std::string_view kSealedPrefix = "dwenc:";

class SecretBox {
 public:
  // `keys`: raw keys of kSecretKeyBytes each, the current one first.
  // InvalidArgument if there is none, one has another size, or one is there
  // twice.
  static Result<SecretBox> Make(std::vector<std::string> keys);

  SecretBox(const SecretBox& other) = default;
  SecretBox(SecretBox&& other) = default;
  SecretBox& operator=(const SecretBox&) = delete;
  SecretBox& operator=(SecretBox&&) = delete;
  ~SecretBox();

  // The id of the key that seals.
  const std::string& current_key_id() const { return keys_.front().id; }
  // Whether the key `key_id` names is held, current or older.
  bool HoldsKey(std::string_view key_id) const;

  // `plaintext` sealed under the current key for `context`. InvalidArgument if
  // `plaintext` is over kMaxSecretBytes; Internal if OpenSSL fails.
  Result<std::string> Seal(std::string_view plaintext, std::string_view context) const;

  // The plaintext of `sealed` if it was sealed for `context` under a key this
  // box holds, unaltered. InvalidArgument if it is not a sealed value of a known
  // version; Unavailable if its key is not held (the message names the key id:
  // the key file lacks it); Internal if it does not authenticate (altered, or
  // sealed for another context).
  Result<std::string> Open(std::string_view sealed, std::string_view context) const;

  // Whether `value` claims to be sealed (starts with kSealedPrefix). A stored
  // secret that does not was written before secrets were sealed.
  static bool IsSealed(std::string_view value) { return value.starts_with(kSealedPrefix); }
  // The key id in the header of a sealed value, nullopt if it has none.
  static std::optional<std::string> KeyIdOf(std::string_view sealed);
  // The id of the raw key `key`.
  static std::string KeyId(std::string_view key);

 private:
  struct Key {
    std::string id;
    std::string bytes;
  };
  explicit SecretBox(std::vector<Key> keys) : keys_(std::move(keys)) {}
  const Key* Find(std::string_view key_id) const;

  std::vector<Key> keys_;  // never empty; the current key first
};

}  // namespace docwright
