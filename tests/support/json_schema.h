// A checker of JSON values against the JSON Schema subset OpenAPI 3.0 documents
// use for response bodies: type (object, array, string, integer, number,
// boolean), nullable, enum, required, properties, additionalProperties (false
// or a schema), items, oneOf, anyOf, allOf, $ref into the document, and the
// date-time and uri formats. Enough for the reference's document and for
// docwright's own; a keyword outside the subset fails the check, so a schema is
// never passed by accident.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace docwright::testing {

class OpenApiDocument {
 public:
  // Reads the document at `path`; a document that cannot be read fails the
  // calling test (and leaves an empty one).
  explicit OpenApiDocument(const std::string& path);

  // The schema of the `status` response of `method` (lower case) on `path`
  // (as written in the document: "/v1/agent/{projectId}/jobs") for
  // `media_type`; null if the document has none.
  const nlohmann::json& ResponseSchema(const std::string& path, const std::string& method,
                                       const std::string& status,
                                       const std::string& media_type = "application/json") const;

  // Where `value` breaks `schema` ("$.todos[0].status: ..."), or nothing.
  std::vector<std::string> Check(const nlohmann::json& value, const nlohmann::json& schema) const;

  const nlohmann::json& document() const { return doc_; }

 private:
  void CheckAt(const nlohmann::json& value, const nlohmann::json& schema, const std::string& at,
               std::vector<std::string>& errors, int depth) const;
  nlohmann::json doc_;
};

}  // namespace docwright::testing
