// A minimal JSON writer that appends to a string: the polling path renders a job
// per request, and building a DOM first costs more than the rest of the request.
// Invalid UTF-8 in a value is replaced by U+FFFD, so the output is always valid.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace docwright {

void AppendJsonString(std::string_view s, std::string* out);

class JsonWriter {
 public:
  explicit JsonWriter(std::string* out) : out_(out) {}

  JsonWriter& BeginObject() {
    Sep();
    out_->push_back('{');
    first_ = true;
    return *this;
  }
  JsonWriter& EndObject() {
    out_->push_back('}');
    first_ = false;
    return *this;
  }
  JsonWriter& BeginArray() {
    Sep();
    out_->push_back('[');
    first_ = true;
    return *this;
  }
  JsonWriter& EndArray() {
    out_->push_back(']');
    first_ = false;
    return *this;
  }
  JsonWriter& Key(std::string_view k) {
    Sep();
    AppendJsonString(k, out_);
    out_->push_back(':');
    first_ = true;  // the value follows without a comma
    return *this;
  }
  JsonWriter& String(std::string_view v) {
    Sep();
    AppendJsonString(v, out_);
    return *this;
  }
  JsonWriter& Int(int64_t v) {
    Sep();
    out_->append(std::to_string(v));
    return *this;
  }
  JsonWriter& Bool(bool v) {
    Sep();
    out_->append(v ? "true" : "false");
    return *this;
  }
  JsonWriter& Null() {
    Sep();
    out_->append("null");
    return *this;
  }
  JsonWriter& OptString(const std::optional<std::string>& v) { return v ? String(*v) : Null(); }
  // Pastes already-rendered JSON as a value.
  JsonWriter& Raw(std::string_view json) {
    Sep();
    out_->append(json);
    return *this;
  }

 private:
  void Sep() {
    if (!first_) out_->push_back(',');
    first_ = false;
  }
  std::string* out_;
  bool first_ = true;
};

}  // namespace docwright
