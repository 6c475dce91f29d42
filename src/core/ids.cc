#include "core/ids.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/text.h"
#include "core/time.h"

namespace docwright {
namespace {

void FillRandom(unsigned char* out, size_t n) {
  if (RAND_bytes(out, static_cast<int>(n)) != 1) {
    std::fputs("docwright: the system random number generator failed\n", stderr);
    std::abort();
  }
}

}  // namespace

std::string NewId() {
  // UUIDv7 (RFC 9562): 48-bit Unix ms timestamp, then version, a 12-bit counter
  // field (method 1: monotonic within a millisecond), variant, 62 random bits.
  static std::atomic<uint64_t> last{0};  // (ms << 12) | counter of the last id made
  uint64_t ms = static_cast<uint64_t>(NowMillis());
  uint64_t candidate = ms << 12;
  uint64_t prev = last.load(std::memory_order_relaxed);
  uint64_t next;
  do {
    next = candidate > prev ? candidate : prev + 1;
  } while (!last.compare_exchange_weak(prev, next, std::memory_order_relaxed));
  uint64_t ts = next >> 12;
  uint64_t counter = next & 0xfff;

  std::array<unsigned char, 16> b{};
  FillRandom(b.data() + 8, 8);
  for (int i = 0; i < 6; ++i) b[i] = static_cast<unsigned char>(ts >> (40 - 8 * i));
  b[6] = static_cast<unsigned char>(0x70 | (counter >> 8));
  b[7] = static_cast<unsigned char>(counter & 0xff);
  b[8] = static_cast<unsigned char>(0x80 | (b[8] & 0x3f));

  std::string out;
  out.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    AppendHex(out, b[i]);
  }
  return out;
}

bool LooksLikeId(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return false;
    }
  }
  return true;
}

std::string RandomBase62(size_t n_chars) {
  static constexpr char kAlphabet[] =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  std::string out;
  out.reserve(n_chars);
  unsigned char buf[64];
  while (out.size() < n_chars) {
    FillRandom(buf, sizeof buf);
    for (unsigned char c : buf) {
      // Rejection sampling keeps every character equally likely: 248 = 4 * 62.
      if (c < 248 && out.size() < n_chars) out.push_back(kAlphabet[c % 62]);
    }
  }
  return out;
}

std::string RandomBytes(size_t n) {
  std::string out(n, '\0');
  FillRandom(reinterpret_cast<unsigned char*>(out.data()), n);
  return out;
}

std::string Sha256Hex(std::string_view data) {
  // Fetched once: an implicit fetch on every call costs more than the hash
  // (this runs for every authenticated request). Immutable after initialisation.
  static EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!kSha256 || EVP_Digest(data.data(), data.size(), digest, &len, kSha256, nullptr) != 1) {
    std::fputs("docwright: SHA-256 is unavailable\n", stderr);
    std::abort();
  }
  return HexEncode(std::string_view(reinterpret_cast<const char*>(digest), len));
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace docwright
