// Time limits for libgit2's network transfers. libgit2 1.5 has no timeout of its
// own: a remote that accepts a connection and then says nothing holds a fetch or
// push (and the worker running it) forever.
//
// Contract:
// - RegisterSocketStream() replaces libgit2's plain socket stream, process-wide
//   (git_stream_register, GIT_STREAM_STANDARD). libgit2 1.5 builds every
//   connection on that stream: http:// directly, https:// under its TLS stream
//   (mbedTLS in Debian's build, reading and writing through this stream), git://,
//   and ssh://, where libssh2 is handed the socket itself.
// - A connection takes the limits and the cancel check of the TransferScope
//   alive on the thread that opens it (libgit2 gives streams no payload, and
//   opens them on the thread that called it); with none, TransferLimits' defaults.
// - Connecting tries each resolved address for at most connect_timeout.
//   Reading and writing wait in slices of at most 250 ms, asking the cancel
//   check between them, and fail once nothing has moved for idle_timeout, or
//   once the scope has lasted transfer_timeout.
// - libssh2 reads and writes the socket directly, never through the stream, so
//   the connections of a scope are also watched from a thread of the scope's
//   own: one whose stream is not used is shut down (shutdown(2): libssh2's wait
//   ends and it reports the socket closed) when the wire has been quiet for
//   idle_timeout, and every one when the scope is cancelled or out of time.
// - The first limit a scope's connection reaches stops the whole scope: later
//   connections in it fail at once (libgit2 may retry), and stopped() says why,
//   for an error that means something ("the remote sent nothing for 60 s")
//   where libgit2's own would not ("early EOF").
//
// Thread-safety: a scope belongs to the thread that made it; stopped() may be
// called from any thread. The cancel check is called from the scope's thread,
// and from its watchdog thread while a connection libgit2 does not read
// through (SSH) is open.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "core/status.h"
#include "git/git.h"

namespace docwright::git {

// Installs the stream, once per process; later calls return the first result.
// Call after git_libgit2_init.
Status RegisterSocketStream();

class TransferContext;

// The limits and cancel check of the connections this thread opens while the
// scope lives; the deadline (transfer_timeout) counts from its construction.
// Scopes nest: the inner one applies until it ends. The watchdog thread is
// started with the first connection and stopped (joined) by the destructor,
// after which the cancel check is no longer called.
class TransferScope {
 public:
  TransferScope(const TransferLimits& limits, std::function<bool()> cancelled);
  ~TransferScope();
  TransferScope(const TransferScope&) = delete;
  TransferScope& operator=(const TransferScope&) = delete;

  // Why a limit or the cancel check stopped this scope's transfer ("the remote
  // sent nothing for 1 s", "cancelled"); empty if none did.
  std::string stopped() const;
  // True if it was the cancel check.
  bool cancelled() const;
  // The host and port (as libgit2 named them) of the scope's latest connection:
  // the server a credential request comes from. libgit2 1.5 names the remote's
  // configured URL to the credential callback even after following a redirect
  // elsewhere, so this is how the callback learns who is really asking.
  std::optional<std::pair<std::string, std::string>> last_connected() const;

 private:
  std::shared_ptr<TransferContext> context_;
  std::shared_ptr<TransferContext> previous_;
};

// "1 s", "0.5 s", "600 s": a limit as messages state it.
std::string FormatSeconds(std::chrono::milliseconds d);

}  // namespace docwright::git
