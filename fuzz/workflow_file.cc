// A workflow file is written by whoever can push to the docs repository. Input:
// the file's bytes. Whatever they are, the parser returns without crashing or
// running away (the YAML is bounded: size, no anchors or aliases, nesting), a
// result has its name and path, and a result without an error is a usable
// definition: it passes CheckWorkflow again, unchanged.
#include <string>
#include <vector>

#include "core/workflow.h"
#include "fuzz_check.h"
#include "workflows/workflow_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  std::string_view text = fuzz::AsText(data, size);
  ContextRepository sdk;
  sdk.name = "sdk";
  sdk.repository = "https://github.com/acme/sdk.git";
  const std::vector<ContextRepository> contexts = {sdk};

  Workflow w = workflows::ParseWorkflowFile(".docwright/workflows/fuzz.md", text, contexts,
                                            "https://github.com/acme/docs");
  FUZZ_CHECK(w.name == "fuzz");
  FUZZ_CHECK(w.file_path == ".docwright/workflows/fuzz.md");
  FUZZ_CHECK(w.source == WorkflowSource::kFile);
  if (w.error) {
    FUZZ_CHECK(!w.error->empty());
    FUZZ_CHECK(w.prompt.empty());
    return 0;
  }
  FUZZ_CHECK(size <= workflows::kMaxWorkflowFileBytes);
  FUZZ_CHECK(!w.prompt.empty());
  Workflow again = w;
  FUZZ_CHECK(CheckWorkflow(again).ok());
  FUZZ_CHECK(again.prompt == w.prompt && again.title == w.title);
  if (w.trigger.kind == TriggerKind::kMerge) FUZZ_CHECK(!w.trigger.repository.empty());
  return 0;
}
