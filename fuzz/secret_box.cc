// Sealed values as the store reads them (core/secret_box.h): whatever the text,
// Open never crashes, opens nothing it did not seal, and names no secret; and
// any bytes sealed open back to themselves, for their context only.
#include <string>

#include "core/secret_box.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  static const SecretBox box = *SecretBox::Make({std::string(kSecretKeyBytes, '\x42')});
  std::string_view text = fuzz::AsText(data, size);
  auto opened = box.Open(text, "fuzz:context");
  // Forging a value that authenticates is beyond a fuzzer: only a value sealed
  // here opens.
  FUZZ_CHECK(!opened.ok());
  if (std::optional<std::string> id = SecretBox::KeyIdOf(text)) FUZZ_CHECK(id->size() == 12);
  if (size <= kMaxSecretBytes) {
    auto sealed = box.Seal(text, "fuzz:context");
    FUZZ_CHECK(sealed.ok());
    auto back = box.Open(*sealed, "fuzz:context");
    FUZZ_CHECK(back.ok() && *back == text);
    FUZZ_CHECK(!box.Open(*sealed, "fuzz:other").ok());
    FUZZ_CHECK(SecretBox::KeyIdOf(*sealed) == box.current_key_id());
  }
  return 0;
}
