#include "core/secret_box.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <memory>

#include "core/ids.h"
#include "core/text.h"

namespace docwright {
namespace {

constexpr std::string_view kVersion = "v1";
constexpr size_t kKeyIdChars = 12;
constexpr size_t kNonceBytes = 12;
constexpr size_t kTagBytes = 16;
// The longest sealed text Open reads: kMaxSecretBytes sealed, with room to spare.
constexpr size_t kMaxSealedChars = 2 * kMaxSecretBytes;

struct CipherCtxFree {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree>;

const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}
unsigned char* Bytes(std::string& s) { return reinterpret_cast<unsigned char*>(s.data()); }

std::string Header(std::string_view key_id) {
  return std::string(kSealedPrefix) + std::string(kVersion) + ":" + std::string(key_id) + ":";
}

bool IsKeyId(std::string_view s) {
  if (s.size() != kKeyIdChars) return false;
  for (char c : s) {
    if (HexDigitValue(c) < 0 || (c >= 'A' && c <= 'F')) return false;
  }
  return true;
}

// The parts of a sealed value: its key id and the bytes after the header.
struct Parsed {
  std::string key_id;
  std::string box;  // nonce | ciphertext | tag
};

Result<Parsed> Parse(std::string_view sealed) {
  if (!SecretBox::IsSealed(sealed)) return Status::InvalidArgument("not a sealed value");
  if (sealed.size() > kMaxSealedChars) return Status::InvalidArgument("sealed value too long");
  std::string_view rest = sealed.substr(kSealedPrefix.size());
  size_t colon = rest.find(':');
  if (colon == std::string_view::npos || rest.substr(0, colon) != kVersion) {
    return Status::InvalidArgument("sealed value of an unknown version");
  }
  rest.remove_prefix(colon + 1);
  colon = rest.find(':');
  if (colon == std::string_view::npos || !IsKeyId(rest.substr(0, colon))) {
    return Status::InvalidArgument("sealed value without a key id");
  }
  Parsed p{.key_id = std::string(rest.substr(0, colon)), .box = {}};
  auto box = Base64Decode(rest.substr(colon + 1));
  if (!box || box->size() < kNonceBytes + kTagBytes) {
    return Status::InvalidArgument("sealed value with a malformed body");
  }
  p.box = std::move(*box);
  return p;
}

}  // namespace

Result<SecretBox> SecretBox::Make(std::vector<std::string> keys) {
  if (keys.empty()) return Status::InvalidArgument("no secret key");
  std::vector<Key> held;
  for (std::string& k : keys) {
    if (k.size() != kSecretKeyBytes) {
      OPENSSL_cleanse(k.data(), k.size());
      return Status::InvalidArgument("a secret key must be " + std::to_string(kSecretKeyBytes) +
                                     " bytes");
    }
    std::string id = KeyId(k);
    for (const Key& h : held) {
      if (h.id == id) return Status::InvalidArgument("secret key " + id + " is there twice");
    }
    held.push_back(Key{.id = std::move(id), .bytes = std::move(k)});
  }
  return SecretBox(std::move(held));
}

SecretBox::~SecretBox() {
  for (Key& k : keys_) OPENSSL_cleanse(k.bytes.data(), k.bytes.size());
}

std::string SecretBox::KeyId(std::string_view key) { return Sha256Hex(key).substr(0, kKeyIdChars); }

std::optional<std::string> SecretBox::KeyIdOf(std::string_view sealed) {
  auto parsed = Parse(sealed);
  if (!parsed.ok()) return std::nullopt;
  return std::move(parsed->key_id);
}

bool SecretBox::HoldsKey(std::string_view key_id) const { return Find(key_id) != nullptr; }

const SecretBox::Key* SecretBox::Find(std::string_view key_id) const {
  for (const Key& k : keys_) {
    if (k.id == key_id) return &k;
  }
  return nullptr;
}

Result<std::string> SecretBox::Seal(std::string_view plaintext, std::string_view context) const {
  if (plaintext.size() > kMaxSecretBytes) return Status::InvalidArgument("secret too long to seal");
  const Key& key = keys_.front();
  const std::string header = Header(key.id);
  const std::string aad = header + std::string(context);
  std::string box = RandomBytes(kNonceBytes);
  box.resize(kNonceBytes + plaintext.size() + kTagBytes);
  unsigned char* out = Bytes(box) + kNonceBytes;

  CipherCtx ctx(EVP_CIPHER_CTX_new());
  int len = 0, tail = 0;
  if (!ctx ||
      EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, Bytes(key.bytes), Bytes(box)) !=
          1 ||
      EVP_EncryptUpdate(ctx.get(), nullptr, &len, Bytes(aad), static_cast<int>(aad.size())) != 1 ||
      EVP_EncryptUpdate(ctx.get(), out, &len, Bytes(plaintext),
                        static_cast<int>(plaintext.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), out + len, &tail) != 1 ||
      static_cast<size_t>(len + tail) != plaintext.size() ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagBytes),
                          out + plaintext.size()) != 1) {
    return Status::Internal("sealing a secret failed (OpenSSL)");
  }
  return header + Base64Encode(box);
}

Result<std::string> SecretBox::Open(std::string_view sealed, std::string_view context) const {
  auto parsed = Parse(sealed);
  if (!parsed.ok()) return parsed.status();
  const Key* key = Find(parsed->key_id);
  if (!key) {
    return Status::Unavailable("a secret is sealed under key " + parsed->key_id +
                               ", which the secret key file does not hold");
  }
  const std::string aad = Header(key->id) + std::string(context);
  std::string& box = parsed->box;
  const size_t n = box.size() - kNonceBytes - kTagBytes;
  std::string plaintext(n, '\0');
  std::string tag = box.substr(kNonceBytes + n);

  CipherCtx ctx(EVP_CIPHER_CTX_new());
  int len = 0, tail = 0;
  bool ok =
      ctx &&
      EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, Bytes(key->bytes), Bytes(box)) ==
          1 &&
      EVP_DecryptUpdate(ctx.get(), nullptr, &len, Bytes(aad), static_cast<int>(aad.size())) == 1 &&
      EVP_DecryptUpdate(ctx.get(), Bytes(plaintext), &len, Bytes(box) + kNonceBytes,
                        static_cast<int>(n)) == 1 &&
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagBytes),
                          tag.data()) == 1 &&
      EVP_DecryptFinal_ex(ctx.get(), Bytes(plaintext) + len, &tail) == 1 &&
      static_cast<size_t>(len + tail) == n;
  if (!ok) {
    OPENSSL_cleanse(plaintext.data(), plaintext.size());
    return Status::Internal("a secret sealed under key " + key->id +
                            " does not open: it was altered, or sealed for another record");
  }
  return plaintext;
}

}  // namespace docwright
