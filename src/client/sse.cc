#include "client/sse.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace docwright {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

}  // namespace

SseParser::SseParser(SseLimits limits) : limits_(limits) {}

Status SseParser::Feed(std::string_view piece, const OnEvent& on_event) {
  if (!error_.ok()) return error_;
  size_t i = 0;
  if (after_cr_ && !piece.empty()) {
    if (piece[0] == '\n') i = 1;  // the LF of a CRLF split between two pieces
    after_cr_ = false;
  }
  while (i < piece.size()) {
    const size_t end = piece.find_first_of("\r\n", i);
    const size_t length = (end == std::string_view::npos ? piece.size() : end) - i;
    if (line_.size() + length > limits_.max_line) {
      Fail("a line of the event stream is longer than " + std::to_string(limits_.max_line) +
           " bytes");
      return error_;
    }
    if (end == std::string_view::npos) {
      line_.append(piece.substr(i));
      return Status();
    }
    bool go = true;
    if (line_.empty()) {
      go = Line(piece.substr(i, length), on_event);
    } else {
      line_.append(piece.substr(i, length));
      go = Line(line_, on_event);
      line_.clear();
    }
    if (!error_.ok()) return error_;
    i = end + 1;
    if (piece[end] == '\r') {
      if (i == piece.size()) {
        after_cr_ = true;
      } else if (piece[i] == '\n') {
        ++i;
      }
    }
    if (!go) return Status();
  }
  return Status();
}

void SseParser::Fail(std::string message) {
  error_ = Status::InvalidArgument(std::move(message));
  // Nothing more is parsed: hold nothing.
  std::string().swap(line_);
  std::string().swap(data_);
  std::string().swap(type_);
  std::string().swap(id_buffer_);
}

bool SseParser::Line(std::string_view line, const OnEvent& on_event) {
  if (first_line_) {
    first_line_ = false;
    if (line.starts_with(kBom)) line.remove_prefix(kBom.size());
  }
  if (line.empty()) return Dispatch(on_event);
  if (line.front() == ':') return true;  // a comment (a heartbeat, say)
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    Field(line, {});
    return true;
  }
  std::string_view value = line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  Field(line.substr(0, colon), value);
  return true;
}

void SseParser::Field(std::string_view name, std::string_view value) {
  if (name == "event") {
    type_.assign(value);
  } else if (name == "data") {
    if (data_.size() + value.size() + 1 > limits_.max_data) {
      Fail("an event of the event stream has more than " + std::to_string(limits_.max_data) +
           " bytes of data");
      return;
    }
    data_.append(value);
    data_.push_back('\n');
  } else if (name == "id") {
    if (value.find('\0') == std::string_view::npos) id_buffer_.assign(value);
  } else if (name == "retry") {
    if (value.empty()) return;
    int64_t ms = 0;
    for (char c : value) {
      if (c < '0' || c > '9') return;  // only ASCII digits, else the field is ignored
      ms = std::min<int64_t>(ms * 10 + (c - '0'), INT32_MAX);
    }
    retry_ = std::chrono::milliseconds(ms);
  }
  // Any other field is ignored.
}

bool SseParser::Dispatch(const OnEvent& on_event) {
  last_event_id_ = id_buffer_;
  if (data_.empty()) {
    type_.clear();
    return true;
  }
  data_.pop_back();  // the LF after the last data line
  ServerSentEvent event{type_.empty() ? std::string("message") : std::move(type_), std::move(data_),
                        last_event_id_};
  data_.clear();
  type_.clear();
  return on_event(event);
}

}  // namespace docwright
