// An SSH server on loopback for tests: Dropbear (Debian's dropbear-bin, which
// installs no service) in a private mount namespace, where a scratch directory
// stands in for the home directory, so its authorized_keys is the test's own and
// nothing on the machine changes. Git runs over it as it does on any SSH host.
#pragma once

#include "support/test_tools.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

namespace docwright::testing {

class SshServer {
 public:
  // Makes a host key and one authorized client key under `dir`.
  explicit SshServer(std::string dir);
  ~SshServer();

  // Starts the server; false (with why()) if this machine cannot run it. Tests
  // skip then, except under CI (the CI environment variable set), where they fail.
  bool Start();
  const std::string& why() const { return why_; }

  // "ssh://USER@127.0.0.1:PORT" + `path` (an absolute path on this machine).
  std::string Url(const std::string& path) const;
  std::string client_key() const { return dir_ + "/client_key"; }    // authorized
  std::string other_key() const { return dir_ + "/other_key"; }      // not authorized
  std::string known_hosts() const { return dir_ + "/known_hosts"; }  // lists the host key

 private:
  std::string dir_;
  std::string why_;
  uint16_t port_ = 0;
  struct Process;
  std::unique_ptr<Process> process_;
};

}  // namespace docwright::testing

// Starts `server` or ends the test: skipped where SSH cannot run, failed under
// ./dw test and CI (support/test_tools.h).
#define DOCWRIGHT_START_SSH_SERVER(server) DOCWRIGHT_REQUIRE_TOOL((server).Start(), (server).why())
