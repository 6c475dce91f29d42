// The secret key file (`--secret-key-file`): the keys a SecretBox seals and
// opens with, kept outside the database and its backups.
//
// One key a line, the base64 of kSecretKeyBytes random bytes; the first line is
// the current key (it seals), later lines are older keys (they still open).
// Blank lines and lines starting with '#' are ignored. The file must be its
// owner's alone: one readable or writable by its group or others is refused,
// as ssh refuses such a private key.
#pragma once

#include <string>

#include "core/secret_box.h"
#include "core/status.h"

namespace docwright {

// The keys of the file at `path`. If there is no file there, creates it (and its
// folder, owner-only, if missing) holding one new random key, with O_EXCL and
// mode 0600: of two processes starting at once, one creates it and the other
// reads what it wrote. InvalidArgument (naming the path, never a key) if the
// file's mode lets its group or others in, it is not a regular file, or it holds
// a line that is not a key, or no key; Unavailable on an I/O error.
Result<SecretBox> LoadSecretKeyFile(const std::string& path);

// Puts a new random key first in the file at `path` (which must load as
// LoadSecretKeyFile loads it), keeping the others after it: the new key seals
// from then on, the older ones still open. The file is replaced whole, by
// rename, with mode 0600. Returns the new key's id.
Result<std::string> AddSecretKey(const std::string& path);

}  // namespace docwright
