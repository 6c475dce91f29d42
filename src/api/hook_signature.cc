#include "api/hook_signature.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "core/ids.h"
#include "core/text.h"

namespace docwright {
namespace {

constexpr size_t kHookSecretChars = 40;

}  // namespace

std::string HmacSha256Hex(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, &mac_len)) {
    return "";
  }
  return HexEncode(std::string_view(reinterpret_cast<const char*>(mac), mac_len));
}

bool HexSignatureValid(std::string_view secret, std::string_view header, std::string_view body) {
  if (secret.empty()) return false;
  std::string given = Lower(TrimSpace(header));
  std::string expected = HmacSha256Hex(secret, body);
  return !expected.empty() && ConstantTimeEquals(given, expected);
}

bool HubSignatureValid(std::string_view secret, std::string_view header, std::string_view body) {
  constexpr std::string_view kPrefix = "sha256=";
  header = TrimSpace(header);
  if (header.size() < kPrefix.size() || Lower(header.substr(0, kPrefix.size())) != kPrefix) {
    return false;
  }
  return HexSignatureValid(secret, header.substr(kPrefix.size()), body);
}

bool TokenValid(std::string_view secret, std::string_view header) {
  return !secret.empty() && ConstantTimeEquals(TrimSpace(header), secret);
}

std::string NewHookSecret() { return RandomBase62(kHookSecretChars); }

}  // namespace docwright
