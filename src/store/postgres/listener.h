// Internal to the PostgreSQL store: the thread that LISTENs on its own
// connection for what other nodes wrote (the statements NOTIFY 'docwright' with
// payloads below) and tells the store's watchers.
//
// Payloads: "t" a turn may have become runnable; "j:<job id>" the job changed;
// "a:<job id>" the job was archived (it changed, too); "e:<job id>" the job has
// new events (it changed, too); "k" API keys changed; "w" webhook deliveries
// became due.
// A lost connection is reconnected with backoff (100 ms doubling to 5 s);
// watchers hear `hearing(false)` when it is lost and `hearing(true)` once it
// listens again, since what was sent in between is not heard. A connection
// idle for 5 s is probed (SELECT 1), so a silent loss is noticed within the
// probe's deadline rather than TCP's.
#pragma once

#include <memory>
#include <string>

#include "store/postgres/connection.h"
#include "store/store.h"

namespace docwright::postgres {

class Listener {
 public:
  // Connects and LISTENs before returning; Unavailable if it cannot.
  static Result<std::unique_ptr<Listener>> Start(const std::string& url,
                                                 const ConnectOptions& options);
  // Stops and joins the thread: within its 200 ms poll, or the deadline of the
  // connection attempt or probe under way (10 s at most).
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Thread-safe. The watcher is called on the listener's thread.
  void Add(StoreWatcher watcher);
  // Whether the connection listens now.
  bool hearing() const;

 private:
  class Impl;
  explicit Listener(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace docwright::postgres
