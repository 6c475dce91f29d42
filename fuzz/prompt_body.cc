// The body of POST .../job and .../message, v2, and of the v1 create. The first
// byte says which (bit 1: v1; else bit 0: whether `draft` is read); the rest is
// the body. A body that is accepted must give what the contract in
// api/request_body.h promises.
#include "api/request_body.h"

#include "core/job.h"
#include "core/text.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  if (size == 0) return 0;
  bool create = (data[0] & 1) != 0;
  std::string_view body = fuzz::AsText(data + 1, size - 1);
  if ((data[0] & 2) != 0) {
    auto v1 = ParseV1JobBody(body);
    if (!v1.ok()) {
      FUZZ_CHECK(v1.status().code() == Code::kInvalidArgument);
      FUZZ_CHECK(!v1.status().message().empty());
      return 0;
    }
    auto chars = Utf8Length(v1->prompt);
    FUZZ_CHECK(chars && *chars <= kMaxPromptChars);
    FUZZ_CHECK(!IsBlank(v1->prompt));
    if (v1->branch) FUZZ_CHECK(CheckBranchName(*v1->branch).ok());
    return 0;
  }
  auto parsed = ParsePromptBody(body, create);
  if (!parsed.ok()) {
    FUZZ_CHECK(parsed.status().code() == Code::kInvalidArgument);
    FUZZ_CHECK(!parsed.status().message().empty());
    return 0;
  }
  FUZZ_CHECK(Utf8Length(body).has_value());
  auto chars = Utf8Length(parsed->prompt);
  FUZZ_CHECK(chars && *chars <= kMaxPromptChars);
  FUZZ_CHECK(!IsBlank(parsed->prompt));
  if (parsed->model) {
    FUZZ_CHECK(!IsBlank(*parsed->model) && parsed->model->size() <= kMaxModelNameChars);
  }
  if (!create) FUZZ_CHECK(!parsed->draft);
  return 0;
}
