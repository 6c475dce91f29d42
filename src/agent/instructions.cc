#include "agent/instructions.h"

#include "core/text.h"

namespace docwright::agent {

std::optional<RepositoryInstructions> ReadInstructions(const git::Workspace& files) {
  for (const char* path : kInstructionFiles) {
    if (!files.IsFile(path)) continue;
    auto content = files.Read(path);
    if (!content.ok() || content->binary || IsBlank(content->text)) continue;
    RepositoryInstructions out;
    out.path = path;
    out.cut = content->text.size() > kMaxInstructionBytes;
    out.text = std::string(CutUtf8(content->text, kMaxInstructionBytes));
    return out;
  }
  return std::nullopt;
}

}  // namespace docwright::agent
