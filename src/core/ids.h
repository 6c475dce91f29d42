// Identifiers and secrets.
#pragma once

#include <string>
#include <string_view>

namespace docwright {

// A new UUIDv7 in its canonical lowercase form: URL-safe, time-ordered (ids made
// later sort after earlier ones, also within one millisecond in this process) and
// unguessable (74 random bits).
std::string NewId();

// True if `s` has the canonical form NewId() produces (any UUID version).
bool LooksLikeId(std::string_view s);

// `n` bytes from the operating system's CSPRNG, as lowercase base62 text.
// Aborts if the CSPRNG fails: running on with weak secrets is never acceptable.
std::string RandomBase62(size_t n_chars);

// `n` bytes from the operating system's CSPRNG (keys, nonces). Aborts as
// RandomBase62 does.
std::string RandomBytes(size_t n);

// Lowercase hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

// Compares in time that depends only on the lengths.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace docwright
