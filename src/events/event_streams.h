// The events room (events/): the jobs' events the store writes, streamed to
// clients (here) and delivered to webhook endpoints (delivery_workers.h).
//
// Streams of jobs' events to clients: the v2 event stream (Server-Sent Events)
// and the v1 endpoint's own framing. One EventStreams per process fans each
// job's events out to every stream open on it, read from the store when they
// are announced (StoreWatcher::job_events: this process's writes, and on
// PostgreSQL every node's) and by a slow poll for what is not announced
// (another process writing to the same SQLite file; a PostgreSQL listener
// that lost its connection).
//
// A stream sends the job's events after the one it was opened after, in
// order, each once, then waits for more; it sends a heartbeat when nothing
// was sent for a while, and ends when its framing says so, after its maximum
// lifetime (a client resumes after the last event it received), when the job
// is deleted, when the hub stops, or when what authenticated it no longer
// does: its API key was revoked, or its sign-in session ended or expired.
// This process's revocations and sign-outs end their streams at once
// (EndStreamsOf, EndSession); others' (another node, `docwright key revoke`)
// when announced (StoreWatcher::keys_changed), and, for a store that does not
// announce them, at the next check of the open streams' keys and sessions
// (EventStreamOptions::credential_check). An ended stream sends nothing more:
// its client's reconnect is then refused (401).
//
// Bounds: streams in all and per API key; a stream is sent at most one batch
// of events at a time, and only once its client has taken the last one, so a
// slow client holds back its own stream, not the others or memory.
//
// Thread-safety: every method may be called from any thread. The hub reads
// the store on a thread of its own.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "core/event.h"
#include "core/status.h"
#include "http/server.h"
#include "store/access_store.h"
#include "store/event_store.h"
#include "store/wakeups.h"

namespace docwright {

// How a stream writes what it sends. Called on the hub's thread, one stream's
// calls never at once.
class EventFraming {
 public:
  virtual ~EventFraming() = default;
  // The first bytes, sent as the stream opens; may be empty.
  virtual std::string Start() = 0;
  // An event's bytes; empty to send nothing for it.
  virtual std::string Event(const JobEvent& event) = 0;
  // Sent when nothing else was sent for EventStreamOptions::heartbeat; empty:
  // nothing is sent.
  virtual std::string Heartbeat() = 0;
  // Whether the stream ends after `event` (its bytes then end it).
  virtual bool EndsAfter(const JobEvent& event) { return false; }
  // The bytes that end a stream whose lifetime is over.
  virtual std::string End() { return {}; }
};

// Server-Sent Events: each event as `id: <sequence>`, `event: <type>`,
// `data: <EventJson>`; heartbeats as comments. Never ends by itself.
std::unique_ptr<EventFraming> ServerSentEventFraming();
inline constexpr const char* kServerSentEventsType = "text/event-stream";

struct EventStreamOptions {
  size_t max_streams = 10000;
  size_t max_streams_per_key = 100;
  std::chrono::milliseconds heartbeat{15000};
  // The store is read again after this long even if nothing was announced;
  // nullopt: 2 s on a store that does not announce other processes' writes,
  // 30 s on one that does (1 s while its announcements are interrupted).
  std::optional<std::chrono::milliseconds> poll;
  std::chrono::milliseconds max_lifetime{std::chrono::hours(1)};
  // The open streams' keys and sessions are checked against the store after
  // this long even if no change was announced; nullopt: 5 s on a store that
  // does not announce other processes' revocations, 60 s on one that does
  // (5 s while its announcements are interrupted). A check reads the store
  // once per organisation and once per session of the open streams.
  std::optional<std::chrono::milliseconds> credential_check;
  int batch = 64;  // events read, and sent, at a time
};

struct StreamRequest {
  Scope scope;
  std::string job_id;  // a job the scope was shown to see
  int64_t after = 0;   // the last event the client has: it gets the ones after it
  std::string key_id;  // counted against max_streams_per_key; its revocation ends the stream
  // The token hash of the sign-in session that authenticated the request, if a
  // session cookie did: the session's end ends the stream.
  std::string session_hash;
  std::unique_ptr<EventFraming> framing;
  // Ends the stream sooner than EventStreamOptions::max_lifetime.
  std::optional<std::chrono::milliseconds> lifetime;
};

class EventStreams {
 public:
  // Watches `wakeups` and starts the hub's thread. `events` (the jobs' events),
  // `keys` (whether a stream's key or session still holds) and `wakeups` must
  // outlive every stream's source, and this; a Store is all three.
  EventStreams(EventStore& events, AccessStore& keys, Wakeups& wakeups, EventStreamOptions options);
  template <typename AStore>
  EventStreams(AStore& store, EventStreamOptions options)
      : EventStreams(static_cast<EventStore&>(store), static_cast<AccessStore&>(store),
                     static_cast<Wakeups&>(store), std::move(options)) {}
  // Ends every stream, as Stop.
  ~EventStreams();
  EventStreams(const EventStreams&) = delete;
  EventStreams& operator=(const EventStreams&) = delete;

  // A stream of the job's events after `request.after`, as the body of a
  // response. RateLimited when the key has max_streams_per_key open;
  // Unavailable when max_streams are open or the hub has stopped.
  Result<std::shared_ptr<BodySource>> Open(StreamRequest request);

  // Ends the streams opened with the API key `key_id` (revoked; call it after
  // the store's revocation). Does not wait for the store or the connections:
  // each stream sends nothing more, and its body ends.
  void EndStreamsOf(const std::string& key_id);
  // Ends the streams opened with the sign-in session whose token hashes to
  // `token_hash` (signed out), as EndStreamsOf.
  void EndSession(const std::string& token_hash);

  // Streams open now.
  size_t open_streams() const;

  // Ends every stream (each ends with its framing's nothing more: the client
  // resumes elsewhere) and stops the thread; Open then refuses. Idempotent.
  void Stop();

  struct Core;

 private:
  std::shared_ptr<Core> core_;
};

}  // namespace docwright
