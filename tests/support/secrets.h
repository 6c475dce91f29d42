// Secret boxes for tests that open a store in their own process.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "core/secret_box.h"
#include "core/secret_key_file.h"

namespace docwright::testing {

// A box of one fixed key: every store a test opens with it agrees with the others.
inline std::shared_ptr<const SecretBox> TestSecrets() {
  auto box = SecretBox::Make({std::string(kSecretKeyBytes, '\x5a')});
  return std::make_shared<const SecretBox>(std::move(*box));
}

// The keys of the key file at `path`, created if missing: for a store a test
// shares with the real binary, which reads the same file (`DATA_DIR/secret.key`
// for `--data-dir DATA_DIR`). Null (which OpenStore refuses) if it cannot load.
inline std::shared_ptr<const SecretBox> KeyFileSecrets(const std::string& path) {
  auto box = LoadSecretKeyFile(path);
  if (!box.ok()) {
    std::fprintf(stderr, "secret key file %s: %s\n", path.c_str(), box.status().message().c_str());
    return nullptr;
  }
  return std::make_shared<const SecretBox>(std::move(*box));
}

}  // namespace docwright::testing
