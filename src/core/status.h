// Errors as values. Every fallible operation in docwright returns a Status or a
// Result<T>; exceptions never cross a layer boundary. Both are [[nodiscard]]: a
// caller handles the error, or says why it may be ignored with a (void) cast
// and a comment.
#pragma once

#include <cassert>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace docwright {

enum class Code {
  kOk,
  kInvalidArgument,    // the caller's input is wrong
  kNotFound,           // no such thing, or not visible to this caller
  kConflict,           // the thing is in a state that forbids the operation
  kRateLimited,        // try again after retry_after_seconds()
  kUnauthenticated,    // no valid credentials
  kUnavailable,        // a transient failure: retrying may succeed
  kInternal,           // a bug or an unexpected environment failure
  kResourceExhausted,  // a budget of the work was spent (WorkBudget): the work was cut short
};

class [[nodiscard]] Status {
 public:
  Status() = default;

  static Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
  static Status Conflict(std::string m) { return {Code::kConflict, std::move(m)}; }
  static Status Unauthenticated(std::string m) { return {Code::kUnauthenticated, std::move(m)}; }
  static Status Unavailable(std::string m) { return {Code::kUnavailable, std::move(m)}; }
  static Status Internal(std::string m) { return {Code::kInternal, std::move(m)}; }
  static Status ResourceExhausted(std::string m) {
    return {Code::kResourceExhausted, std::move(m)};
  }
  static Status RateLimited(std::string m, int64_t retry_after_seconds) {
    Status s{Code::kRateLimited, std::move(m)};
    s.retry_after_seconds_ = retry_after_seconds;
    return s;
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // Only meaningful for kRateLimited.
  int64_t retry_after_seconds() const { return retry_after_seconds_; }

 private:
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  Code code_ = Code::kOk;
  std::string message_;
  int64_t retry_after_seconds_ = 0;
};

// A value or the Status explaining why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    assert(!status_.ok());
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(value()); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace docwright
