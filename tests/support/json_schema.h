// A checker of JSON values against the JSON Schema subset OpenAPI 3.0 and 3.1
// documents use for response bodies: type (object, array, string, integer,
// number, boolean, null; one name or a list), nullable (3.0), enum, const,
// required, properties, additionalProperties (false or a schema), items,
// minItems/maxItems, minLength/maxLength (in code points), pattern,
// minimum/maximum, oneOf (with a discriminator's mapping, if it has one),
// anyOf, allOf, $ref into the document (with keywords beside it, as 3.1
// allows), and the date-time and uri formats. Enough for the reference's
// document and for docwright's own; a keyword outside the subset fails the
// check, so a schema is never passed by accident.
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

  // The `status` response object ("200", "default") of `method` on `path`,
  // its $ref followed; null if the document has none.
  const nlohmann::json& Response(const std::string& path, const std::string& method,
                                 const std::string& status) const;

  // `node` with its $ref (into this document) followed, as often as it takes;
  // null for a $ref that leads nowhere.
  const nlohmann::json& Resolve(const nlohmann::json& node) const;

  // Where `value` breaks `schema` ("$.todos[0].status: ..."), or nothing.
  std::vector<std::string> Check(const nlohmann::json& value, const nlohmann::json& schema) const;

  const nlohmann::json& document() const { return doc_; }

 private:
  void CheckAt(const nlohmann::json& value, const nlohmann::json& schema, const std::string& at,
               std::vector<std::string>& errors, int depth) const;
  nlohmann::json doc_;
};

}  // namespace docwright::testing
