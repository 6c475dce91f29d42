// What the agent may write is decided from paths the model chooses and rules an
// operator writes. Input: a line of comma-separated rules, then a path. Whatever
// the input, the policy decides without running away (the glob matcher is linear
// in the path per rule character), a disguise of .gitmodules or of a workflow
// folder is never allowed by default, a workflow definition folder (.docwright/,
// .mintlify/workflows/) is never allowed whatever the rules, "**" matches every
// path, and a path used as an anchored rule matches itself.
#include <string>
#include <vector>

#include "agent/write_policy.h"
#include "fuzz_check.h"
#include "git/git.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  std::string_view text = fuzz::AsText(data, size);
  size_t nl = text.find('\n');
  std::string_view rules_text = text.substr(0, nl);
  std::string_view path = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  std::vector<std::string> rules;
  while (!rules_text.empty() && rules.size() < 70) {
    size_t comma = rules_text.find(',');
    rules.emplace_back(rules_text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    rules_text.remove_prefix(comma + 1);
  }
  Status rules_ok = agent::CheckWriteRules(rules);
  FUZZ_CHECK(rules_ok.ok() || rules_ok.code() == Code::kInvalidArgument);

  auto checked = git::CheckPath(path);
  if (!checked.ok()) return 0;
  const std::string& p = *checked;

  docs::SiteMap site;
  site.framework = docs::Framework::kDocusaurus;
  site.config_path = "website/docusaurus.config.js";
  site.content_root = "website/docs";
  agent::WritePolicy by_default(site, {});
  bool protected_name = false, workflows = false, definitions = false;
  std::string previous;
  size_t start = 0;
  while (true) {
    size_t slash = p.find('/', start);
    std::string name =
        git::ComparableName(p.substr(start, slash == std::string::npos ? slash : slash - start));
    protected_name = protected_name || name == ".gitmodules" || name == ".gitattributes";
    workflows =
        workflows || (previous == ".github" && name == "workflows" && slash != std::string::npos);
    definitions =
        definitions || name == ".docwright" || (previous == ".mintlify" && name == "workflows");
    previous = name;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (protected_name || workflows) FUZZ_CHECK(!by_default.Check(p).ok());

  FUZZ_CHECK(agent::RuleMatches("**", p));
  if (p.find_first_of("*?[") == std::string::npos && p.front() != '!') {
    FUZZ_CHECK(agent::RuleMatches("/" + p, p));
  }
  agent::WritePolicy custom(site, rules);
  Status custom_ok = custom.Check(p);
  if (definitions) FUZZ_CHECK(!custom_ok.ok());
  for (const std::string& rule : rules) (void)agent::RuleMatches(rule, p);
  return 0;
}
