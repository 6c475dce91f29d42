// One operation's dealings with a remote through libgit2: the credentials it
// is offered, the SSH host key check, the cancel check on progress, and the
// errors that result. Internal to the git engine.
#pragma once

#include <git2.h>

#include <functional>
#include <string>

#include "core/status.h"
#include "git/git.h"
#include "git/socket_stream.h"

namespace docwright::git {

// Credentials are given once (libgit2 asks again after a refusal, and answering
// again would loop), and only to the remote's own origin; an SSH host key is
// checked against known_hosts. Lives on the stack of one operation.
struct RemoteSession {
  Credentials credentials;  // a copy: the mirror's may be replaced meanwhile
  std::string url;          // the remote as configured
  const std::function<bool()>* cancelled = nullptr;  // asked as data moves
  const TransferScope* scope = nullptr;              // its connections, and why it stopped
  int asked = 0;
  std::string host_key_problem;  // why the server's host key was refused
  std::string refused_origin;    // why credentials were not offered
  std::string rejected;          // a push's refusal by the server
  bool was_cancelled = false;

  // libgit2 abandons the operation when a progress callback returns non-zero.
  int Progress() {
    if (cancelled && *cancelled && (*cancelled)()) {
      was_cancelled = true;
      return GIT_EUSER;
    }
    return 0;
  }
};

// The callbacks of `session`, which must outlive the libgit2 call.
git_remote_callbacks Callbacks(RemoteSession* session);

// Whether the credentials configured for `session.url` may be offered to a
// server that asks for `asked_url`: same scheme, host and port, and (for what
// the scope saw) the connection it is asking over goes to that host and port.
bool CredentialsMayGo(const RemoteSession& session, const char* asked_url);

// RemoteFail, unless the session knows better: cancelled, a limit reached, a
// host key or an origin refused. Never quotes credentials.
Status SessionFail(const RemoteSession& session, const std::string& what, int rc);

}  // namespace docwright::git
