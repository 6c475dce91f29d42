// The one writer of error bodies (http/server.h): {"error": ..., "code": ...}.
#include "core/json_writer.h"
#include "http/server.h"

namespace docwright {

HttpResponse ErrorResponse(int status, std::string_view message, std::string_view code) {
  std::string body;
  JsonWriter w(&body);
  w.BeginObject().Key("error").String(message).Key("code").String(code).EndObject();
  return HttpResponse{status, std::move(body), "application/json", {}};
}

}  // namespace docwright
