// A request body's JSON text, for the model's wire formats: byte for byte what
// nlohmann's json::dump(-1, ' ', false, error_handler_t::replace) writes, made
// faster where a body is large (the system prompt's site map, the files the
// model read): a string of well-formed UTF-8 is escaped by the product's JSON
// writer (core/json_writer.h), a run of plain bytes at a time, rather than
// decoded a code point at a time.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace docwright::llm {

// `value` serialized compactly (no spaces), object members in the order
// nlohmann keeps them (by name), invalid UTF-8 replaced by U+FFFD as dump's
// `replace` handler does. Thread-safe; linear in the text written; nesting
// deeper than 64 is written by nlohmann's dump itself.
std::string DumpJson(const nlohmann::json& value);

}  // namespace docwright::llm
