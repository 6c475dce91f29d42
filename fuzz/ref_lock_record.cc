// The record of a branch lock (git/ref_lock.h), read from a file in a repository
// anyone with write access to it may have written. Whatever the bytes: a parsed
// record names a ref under refs/ that cannot climb out of it, and writing it
// back gives the same record.
#include <string>

#include "fuzz_check.h"
#include "git/ref_lock.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright::git;
  std::string_view text = docwright::fuzz::AsText(data, size);
  if (std::optional<RefLockRecord> record = RefLockRecord::Parse(text)) {
    FUZZ_CHECK(record->ref.starts_with("refs/"));
    FUZZ_CHECK(record->ref.find("..") == std::string::npos);
    FUZZ_CHECK(record->ref.find('\n') == std::string::npos);
    FUZZ_CHECK(record->ref.find('\0') == std::string::npos);
    FUZZ_CHECK(!record->content.empty() && record->content.back() == '\n');
    std::optional<RefLockRecord> again = RefLockRecord::Parse(record->Text());
    FUZZ_CHECK(again && again->ref == record->ref && again->dev == record->dev &&
               again->ino == record->ino && again->modified_ns == record->modified_ns &&
               again->content == record->content);
  }
  return 0;
}
