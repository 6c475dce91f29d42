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
// is deleted, or when the hub stops.
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
#include <string>

#include "core/event.h"
#include "core/status.h"
#include "http/server.h"
#include "store/store.h"

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
  int batch = 64;  // events read, and sent, at a time
};

struct StreamRequest {
  Scope scope;
  std::string job_id;  // a job the scope was shown to see
  int64_t after = 0;   // the last event the client has: it gets the ones after it
  std::string key_id;  // counted against max_streams_per_key
  std::unique_ptr<EventFraming> framing;
  // Ends the stream sooner than EventStreamOptions::max_lifetime.
  std::optional<std::chrono::milliseconds> lifetime;
};

class EventStreams {
 public:
  // Watches `store` (which must outlive every stream's source, and this) and
  // starts the hub's thread.
  EventStreams(Store& store, EventStreamOptions options);
  // Ends every stream, as Stop.
  ~EventStreams();
  EventStreams(const EventStreams&) = delete;
  EventStreams& operator=(const EventStreams&) = delete;

  // A stream of the job's events after `request.after`, as the body of a
  // response. RateLimited when the key has max_streams_per_key open;
  // Unavailable when max_streams are open or the hub has stopped.
  Result<std::shared_ptr<BodySource>> Open(StreamRequest request);

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
