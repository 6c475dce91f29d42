// known_hosts files are read to accept or refuse an SSH server's host key. The
// input gives a host, a port, a key and the file's text. Whatever the text, a
// line naming the host with the key makes an empty file accept, and a
// "@revoked * ..." line for the key makes any file refuse.
#include <fuzzer/FuzzedDataProvider.h>
#include <openssl/evp.h>

#include <string>

#include "fuzz_check.h"
#include "git/git.h"

namespace {

std::string Base64(const std::string& blob) {
  std::string out(4 * ((blob.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(blob.data()),
                          static_cast<int>(blob.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

bool PlainHostName(const std::string& host) {
  if (host.empty()) return false;
  for (char c : host) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using docwright::git::KnownHostsAccepts;
  FuzzedDataProvider in(data, size);
  std::string host = in.ConsumeRandomLengthString(64);
  int port = in.ConsumeBool() ? 22 : in.ConsumeIntegralInRange(1, 65535);
  std::string key = in.ConsumeRandomLengthString(128);
  std::string text = in.ConsumeRemainingBytesAsString();

  bool accepted = KnownHostsAccepts(text, host, port, key);
  if (key.empty()) {
    FUZZ_CHECK(!accepted);  // no line can carry an empty key
    return 0;
  }
  std::string line_end = " ssh-ed25519 " + Base64(key) + "\n";
  FUZZ_CHECK(!KnownHostsAccepts(text + "\n@revoked *" + line_end, host, port, key));
  if (PlainHostName(host)) {
    std::string name = port == 22 ? host : "[" + host + "]:" + std::to_string(port);
    FUZZ_CHECK(KnownHostsAccepts(name + line_end, host, port, key));
  }
  return 0;
}
