// Server-Sent Events, read incrementally: the HTML standard's "event stream
// interpretation" (https://html.spec.whatwg.org/multipage/server-sent-events.html),
// fed the bytes of a `text/event-stream` body as they arrive, in pieces of any
// size (a CR at the end of one piece and an LF at the start of the next are one
// line break).
//
// What the standard leaves to the user agent is decided here: the bytes of a
// field's value are handed over as they came (the standard decodes them as
// UTF-8, replacing what is malformed; the caller, which parses the data as
// JSON, refuses malformed text instead); one leading BOM is skipped, as the
// standard says, and no other.
//
// Bounds: a line over SseLimits::max_line bytes, or an event's data over
// max_data, is an error; the parser then holds nothing more and refuses every
// later piece. Each byte is looked at a bounded number of times, so a Feed is
// linear in its piece.
//
// Not thread-safe: one parser per stream, used by one thread at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace docwright {

struct ServerSentEvent {
  std::string type;           // the `event` field, "message" when the stream gave none
  std::string data;           // the `data` lines, joined by "\n"
  std::string last_event_id;  // the stream's last event id as this event was dispatched
};

struct SseLimits {
  size_t max_line = 1u << 20;  // bytes of one line, without its line break
  size_t max_data = 4u << 20;  // bytes of one event's data
};

class SseParser {
 public:
  // Called for each event dispatched, in order; returning false stops the
  // parsing of the piece at hand (Feed returns OK; what followed the event in
  // the piece is dropped, and the parser should not be fed again).
  using OnEvent = std::function<bool(const ServerSentEvent&)>;

  explicit SseParser(SseLimits limits = {});

  // Parses the next piece of the stream. InvalidArgument when a bound is
  // exceeded (and for every later call).
  Status Feed(std::string_view piece, const OnEvent& on_event);

  // The stream's last event id (what a client resuming sends as
  // Last-Event-ID): set by the `id` field of each event dispatched, kept
  // across events that set none. Empty until one is set.
  const std::string& last_event_id() const { return last_event_id_; }
  // The reconnection time the stream asked for in its last valid `retry`
  // field, if it sent one (at most 2^31-1 ms).
  std::optional<std::chrono::milliseconds> retry() const { return retry_; }

 private:
  // Handles one complete line (without its line break); false when on_event
  // asked to stop.
  bool Line(std::string_view line, const OnEvent& on_event);
  void Field(std::string_view name, std::string_view value);
  bool Dispatch(const OnEvent& on_event);
  void Fail(std::string message);  // sets error_ and lets go of every buffer

  SseLimits limits_;
  Status error_;
  std::string line_;        // the line under way (the piece's part that has no line break yet)
  bool after_cr_ = false;   // the last byte was a CR: an LF right after it ends no line
  bool first_line_ = true;  // a BOM is skipped at the start of the stream only
  std::string data_;        // the event under way: its data buffer
  std::string type_;        // its event type buffer
  std::string id_buffer_;   // the last event id buffer
  std::string last_event_id_;
  std::optional<std::chrono::milliseconds> retry_;
};

}  // namespace docwright
