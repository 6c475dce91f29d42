// docwright's OpenAPI document (docs/openapi.json) as the oracle of the API
// tests: every response a test receives from the service is checked against
// the operation's documented response for its status (body schema, media type,
// required headers), an unknown route's or method's against the error schema,
// and the event stream's events against their types' schemas. Mismatches are
// test failures that name the operation and the JSON path ("$.source.ref: ...").
// Thread-safe: the document is read once and only read after.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/http_client.h"
#include "support/json_schema.h"

namespace docwright::testing {

// docs/openapi.json, read once.
const OpenApiDocument& DocwrightOpenApi();

// The document's path template ("/v2/agent/{projectId}/job/{id}") that the
// path of `target` (a query is ignored) falls under and that has `method` (GET
// for HEAD); else, with `*path_known` set, the template of a path the document
// has without that method; "" if no path matches at all.
std::string OpenApiRouteOf(const std::string& method, const std::string& target,
                           bool* path_known = nullptr);

// Where a response breaks the document. `route` is a path template of the
// document, or "" for a target it does not have (then only an error body is
// documented: the Error schema). `content_type` and `headers` (names in lower
// case) may be empty to check the body alone.
std::vector<std::string> OpenApiMismatches(const std::string& method, const std::string& route,
                                           int status, const std::string& body,
                                           const std::string& content_type = "application/json",
                                           const std::map<std::string, std::string>& headers = {},
                                           bool check_headers = false);

// The body of the `status` answer to `method` on `route_pattern` (JSON, or
// what the documented media type says) conforms to the document.
void ExpectConformsToOpenApi(const std::string& method, const std::string& route_pattern,
                             int status, const std::string& body);

// The whole answer to `method` on `target` conforms: its route is matched to
// the document's paths, then status, media type, required headers and body are
// checked. An answer that never came (status 0) is not checked.
void ExpectResponseConformsToOpenApi(const std::string& method, const std::string& target,
                                     const HttpResult& response);

// The answer to raw request bytes: the request line, if it parses, names the
// method and target; otherwise an error answer must still have the error body.
void ExpectRawResponseConformsToOpenApi(const std::string& request_bytes,
                                        const HttpResult& response);

// One event of the event stream (or of a webhook delivery) conforms to
// components.schemas.Event, the schema its `type` maps to.
void ExpectEventConformsToOpenApi(const nlohmann::json& event);

}  // namespace docwright::testing
