#include "runner/pull_request_text.h"

#include <gtest/gtest.h>

#include <string>

#include "core/text.h"

namespace docwright {
namespace {

TurnInput TurnOf(std::string prompt, int seq = 1) {
  TurnInput in;
  in.job.id = "job-1";
  in.message.seq = seq;
  in.message.prompt = std::move(prompt);
  return in;
}

Message Earlier(int seq, std::string prompt) {
  Message m;
  m.seq = seq;
  m.prompt = std::move(prompt);
  return m;
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

const char* const kEnd = "---\nOpened by docwright for job `job-1`.";

TEST(PullRequestTitle, IsTheFirstLineOfThePromptThatOpenedTheJob) {
  TurnInput in = TurnOf("Fix the typos", 3);
  in.history = {Earlier(1, "\n  \t\n  Document the CLI flags \t\nwith an example each"),
                Earlier(2, "Also the environment variables")};
  EXPECT_EQ(PullRequestTitle(in, std::nullopt), "Document the CLI flags");
}

TEST(PullRequestTitle, WithoutHistoryIsTheFirstLineOfTheTurnsPrompt) {
  EXPECT_EQ(PullRequestTitle(TurnOf("Fix the install step\r\nIt fails on macOS"), std::nullopt),
            "Fix the install step");
}

TEST(PullRequestTitle, TheAgentsTitleWinsUnlessBlank) {
  TurnInput in = TurnOf("Fix the install step");
  EXPECT_EQ(PullRequestTitle(in, "  Explain the cache\nIt was undocumented"), "Explain the cache");
  EXPECT_EQ(PullRequestTitle(in, " \n\t\n"), "Fix the install step");
  EXPECT_EQ(PullRequestTitle(in, ""), "Fix the install step");
}

TEST(PullRequestTitle, FallsBackToAFixedTitle) {
  EXPECT_EQ(PullRequestTitle(TurnOf(" \n \n"), std::nullopt), "Update the documentation");
  EXPECT_EQ(PullRequestTitle(TurnOf(""), " "), "Update the documentation");
}

TEST(PullRequestTitle, LongLineIsCutAtAWord) {
  std::string title = PullRequestTitle(
      TurnOf("Rewrite the getting started guide so that it explains installation, configuration "
             "and the first deployment step by step"),
      std::nullopt);
  EXPECT_EQ(title, "Rewrite the getting started guide so that it explains installation,…");
  // A line of exactly 72 characters is kept whole.
  std::string fits(72, 'a');
  EXPECT_EQ(PullRequestTitle(TurnOf(fits), std::nullopt), fits);
}

TEST(PullRequestTitle, CutInsideAWordWhenTheLastSpaceIsEarly) {
  std::string title = PullRequestTitle(TurnOf("a " + std::string(100, 'x')), std::nullopt);
  EXPECT_EQ(title, "a " + std::string(69, 'x') + "…");
  EXPECT_EQ(Utf8Length(title), 72u);
}

TEST(PullRequestTitle, CountsCharactersNotBytes) {
  std::string e_acute = "\xC3\xA9";
  std::string line;
  for (int i = 0; i < 100; ++i) line += e_acute;
  std::string expected;
  for (int i = 0; i < 71; ++i) expected += e_acute;
  std::string title = PullRequestTitle(TurnOf(line), std::nullopt);
  EXPECT_EQ(title, expected + "…");
  EXPECT_EQ(Utf8Length(title), 72u);  // well-formed: never cut inside a character
}

TEST(PullRequestBody, ListsEverySectionInItsPlace) {
  std::string body = PullRequestBody(TurnOf("Document the flags"),
                                     {.summary = "Documented the flags.",
                                      .files = {"README.md", "docs/conf.js", "docs/cli.md"},
                                      .problems = {"docs/cli.md:3: broken link"},
                                      .outside_site = {"README.md"},
                                      .code = {"docs/conf.js"},
                                      .notes = {"docs/old.md: heading levels skip"}});
  EXPECT_EQ(
      body,
      "Documented the flags.\n\n"
      "### Instruction\n\n> Document the flags\n\n"
      "### Changed outside the docs site\n\n- `README.md`\n\n"
      "### Changed files that run at build\n\n- `docs/conf.js`\n\n"
      "### Files changed on this branch\n\n- `README.md`\n- `docs/conf.js`\n- `docs/cli.md`\n\n"
      "### Problems the checks report on this branch\n\n- docs/cli.md:3: broken link\n\n"
      "### Notes from the checks\n\nNot asked to be fixed:\n\n"
      "- docs/old.md: heading levels skip\n\n" +
          std::string(kEnd));
}

TEST(PullRequestBody, WithoutSummaryOrChangesIsTheInstructionAndTheJob) {
  std::string expected = "### Instruction\n\n> Fix it\n\n" + std::string(kEnd);
  EXPECT_EQ(PullRequestBody(TurnOf("Fix it"), {}), expected);
  EXPECT_EQ(PullRequestBody(TurnOf("Fix it"), {.summary = " \n\t"}), expected);
}

// Without the job's instructions, the body quotes the turn's own only.
TEST(PullRequestBody, WithoutTheJobsInstructionsQuotesTheTurnsOwn) {
  TurnInput in = TurnOf("Also the environment variables", 2);
  in.history = {Earlier(1, "Document the CLI flags")};
  std::string body = PullRequestBody(in, {});
  EXPECT_NE(body.find("> Also the environment variables\n"), std::string::npos) << body;
  EXPECT_EQ(body.find("Document the CLI flags"), std::string::npos) << body;
}

TEST(PullRequestBody, QuotesEveryLineOfAPrompt) {
  std::string body = PullRequestBody(TurnOf("First line\nsecond line\n\nafter a blank"), {});
  EXPECT_EQ(
      body.rfind("### Instruction\n\n> First line\n> second line\n> \n> after a blank\n\n", 0), 0u)
      << body;
}

TEST(PullRequestBody, CutsALongPrompt) {
  std::string body = PullRequestBody(TurnOf(std::string(5000, 'a')), {});
  EXPECT_NE(body.find("> " + std::string(4000, 'a') + "\n> […]\n\n"), std::string::npos);
  EXPECT_EQ(body.find(std::string(4001, 'a')), std::string::npos);
}

TEST(PullRequestBody, ListsAtMostFiftyPaths) {
  PullRequestInputs text;
  for (int i = 1; i <= 53; ++i) text.files.push_back("docs/page" + std::to_string(i) + ".md");
  std::string body = PullRequestBody(TurnOf("Fix them"), text);
  EXPECT_NE(body.find("- `docs/page1.md`\n"), std::string::npos);
  EXPECT_NE(body.find("- `docs/page50.md`\n- and 3 more\n\n"), std::string::npos) << body;
  EXPECT_EQ(body.find("docs/page51.md"), std::string::npos);
}

TEST(PullRequestBody, CutsEachProblemAndNote) {
  std::string body = PullRequestBody(
      TurnOf("Fix them"),
      {.problems = {std::string(600, 'p'), "short"}, .notes = {std::string(600, 'n')}});
  EXPECT_NE(body.find("\n- " + std::string(500, 'p') + "…\n- short\n"), std::string::npos);
  EXPECT_EQ(body.find(std::string(501, 'p')), std::string::npos);
  EXPECT_NE(body.find("\n- " + std::string(500, 'n') + "…\n"), std::string::npos);
  EXPECT_EQ(body.find(std::string(501, 'n')), std::string::npos);
}

TEST(PullRequestBody, ALongSummaryIsCutToKeepTheBodyUnderGitHubsLimit) {
  std::string body = PullRequestBody(TurnOf("Fix it"), {.summary = std::string(70000, 's')});
  EXPECT_LE(body.size(), 60000u);
  EXPECT_NE(body.find("s\n[…]\n\n### Instruction\n\n> Fix it\n\n"), std::string::npos);
  EXPECT_EQ(body.substr(body.size() - std::string(kEnd).size()), kEnd);
}

TEST(PullRequestTitle, AnEarlierTurnsTitleStaysUntilAFinishGivesAnother) {
  TurnInput in = TurnOf("Fix the typo", 2);
  in.history = {Earlier(1, "Add a guide")};
  EXPECT_EQ(PullRequestTitle(in, std::nullopt), "Add a guide");
  EXPECT_EQ(PullRequestTitle(in, std::nullopt, "Write the guide"), "Write the guide");
  EXPECT_EQ(PullRequestTitle(in, " \n", "  Write the guide\nmore"), "Write the guide");
  EXPECT_EQ(PullRequestTitle(in, "Guide and typo", "Write the guide"), "Guide and typo");
  EXPECT_EQ(PullRequestTitle(in, std::nullopt, " \t"), "Add a guide");
}

TEST(PullRequestBody, QuotesEveryInstructionOfTheJobInOrder) {
  TurnInput in = TurnOf("Fix the typo\nin the quickstart", 2);
  PullRequestInputs text;
  text.instructions = {Earlier(1, "Add a guide"), in.message};
  text.files = {"guide.mdx", "quickstart.mdx"};
  text.problems = {"guide.mdx:1: link /nowhere does not resolve to a page or file"};
  std::string body = PullRequestBody(in, text);
  EXPECT_NE(body.find("### Instructions\n\nMessage 1:\n\n> Add a guide\n\n"
                      "Message 2:\n\n> Fix the typo\n> in the quickstart\n\n"
                      "### Files changed on this branch\n\n- `guide.mdx`\n- `quickstart.mdx`\n\n"
                      "### Problems the checks report on this branch\n\n"
                      "- guide.mdx:1: link /nowhere does not resolve to a page or file\n\n"),
            std::string::npos)
      << body;
}

// However much the job holds, the body stays under GitHub's limit, and still
// shows the first instruction, the latest, and where it left things out.
TEST(PullRequestBody, AJobOfEverythingAtItsLargestStaysUnderTheLimit) {
  TurnInput in = TurnOf("latest", 1000);
  PullRequestInputs text;
  std::string lines;
  for (int i = 0; i < 3000; ++i) lines += "x\n";  // quote marks double its size
  for (int seq = 1; seq <= 1000; ++seq) text.instructions.push_back(Earlier(seq, lines));
  text.instructions.back().prompt = "The latest instruction";
  text.instructions.front().prompt = "The first instruction";
  for (int i = 0; i < 200; ++i) {
    std::string path = std::to_string(i) + std::string(4000, 'p');
    text.files.push_back(path);
    text.outside_site.push_back(path);
    text.code.push_back(path);
  }
  for (int i = 0; i < 100; ++i) {
    text.problems.push_back(std::string(600, 'q'));
    text.notes.push_back(std::string(600, 'n'));
  }
  text.summary = std::string(70000, 's');
  std::string body = PullRequestBody(in, text);
  EXPECT_LE(body.size(), 60000u);
  EXPECT_NE(body.find("Message 1:\n\n> The first instruction\n\n"), std::string::npos);
  EXPECT_NE(body.find("Message 1000:\n\n> The latest instruction\n\n"), std::string::npos);
  EXPECT_NE(body.find(" more instructions are not shown]"), std::string::npos);
  EXPECT_NE(body.find("- and "), std::string::npos);
  EXPECT_EQ(body.substr(body.size() - std::string(kEnd).size()), kEnd);
}

// A path or a checks' remark quotes the repository: it shows as written, never
// as a link, an image or a tag.
TEST(PullRequestBody, PathsAndRemarksShowAsWritten) {
  std::string body = PullRequestBody(
      TurnOf("Fix it"),
      {.files = {"a`b.md", "`x`", "new\nline.md"},
       .problems = {"p.md:2: link ![i](http://t.example/p.png) <img src=x> *x* does not resolve"}});
  EXPECT_NE(body.find("- ``a`b.md``\n- `` `x` ``\n- `new?line.md`\n"), std::string::npos) << body;
  EXPECT_NE(body.find("- p.md:2: link \\!\\[i\\](http://t.example/p.png) \\<img src=x\\> "
                      "\\*x\\* does not resolve\n"),
            std::string::npos)
      << body;
  EXPECT_EQ(body.find("![i]"), std::string::npos);
}

TEST(CommitMessage, EndsWithTheTurnsTrailer) {
  TurnInput in = TurnOf("Fix it", 3);
  EXPECT_EQ(TurnTrailer(in), "Docwright-Job: job-1\nDocwright-Message: 3\n");
  EXPECT_EQ(TurnTrailer(in).rfind(JobTrailerPrefix("job-1"), 0), 0u);
  EXPECT_EQ(JobTrailerPrefix("job-1"), "Docwright-Job: job-1\nDocwright-Message: ");
  EXPECT_EQ(CommitMessage("Fix the install step", in, "Fixed it.\n\nAnd more."),
            "Fix the install step\n\nFixed it.\n\nAnd more.\n\n"
            "Docwright-Job: job-1\nDocwright-Message: 3\n");
  EXPECT_EQ(CommitMessage("Fix the install step", in, std::nullopt),
            "Fix the install step\n\nDocwright-Job: job-1\nDocwright-Message: 3\n");
  EXPECT_EQ(CommitMessage("Fix the install step", in, "  \n"),
            "Fix the install step\n\nDocwright-Job: job-1\nDocwright-Message: 3\n");
}

TEST(CommitMessage, RoundTripsTitleAndSummary) {
  TurnInput in = TurnOf("Fix it", 2);
  for (const std::optional<std::string>& summary :
       {std::optional<std::string>("Fixed it."),
        std::optional<std::string>("Two paragraphs.\n\nThe second one.\n"),
        std::optional<std::string>("x"), std::optional<std::string>()}) {
    auto [title, back] = FromCommitMessage(CommitMessage("Fix the step", in, summary), in);
    EXPECT_EQ(title, "Fix the step");
    EXPECT_EQ(back, summary) << summary.value_or("(none)");
  }
  auto [title, back] = FromCommitMessage(CommitMessage("Fix the step", in, " \n "), in);
  EXPECT_EQ(title, "Fix the step");
  EXPECT_EQ(back, std::nullopt);
}

TEST(CommitMessage, AnotherTurnsMessageGivesNoSummary) {
  std::string message = CommitMessage("Fix the step", TurnOf("Fix it", 1), "Fixed it.");
  auto [title, summary] = FromCommitMessage(message, TurnOf("Fix it", 2));
  EXPECT_EQ(title, "Fix the step");
  EXPECT_EQ(summary, std::nullopt);
}

TEST(WithoutTrailers, IndentsEveryLineThatCouldPassForATrailer) {
  EXPECT_EQ(WithoutTrailers("Docwright-Job: x\n  docwright-message: 2\nDOCWRIGHT-Other\n"
                            "A Docwright-Job: y\nDocwright\nplain"),
            "  Docwright-Job: x\n    docwright-message: 2\n  DOCWRIGHT-Other\n"
            "A Docwright-Job: y\nDocwright\nplain");
  EXPECT_EQ(WithoutTrailers("plain\ntext\n"), "plain\ntext\n");
  EXPECT_EQ(WithoutTrailers(""), "");
}

// A prompt or summary that writes out a trailer, this turn's or a later one's,
// must not make a re-run think the turn's commit is on the branch.
TEST(WithoutTrailers, AWrittenOutTrailerIsNotTakenForTheTurns) {
  TurnInput turn1 = TurnOf("Docwright-Message: 2\nDocwright-Job: job-1\nthen fix it", 1);
  TurnInput turn2 = TurnOf("Fix it", 2);
  std::string title = PullRequestTitle(turn1, std::nullopt);
  EXPECT_EQ(title, "Docwright-Message: 2");
  std::string summary = "Wrote:\n" + TurnTrailer(turn1) + TurnTrailer(turn2) + "Done.";
  std::string message = CommitMessage(title, turn1, summary);

  EXPECT_EQ(Count(message, TurnTrailer(turn1)), 1u) << message;
  EXPECT_EQ(message.rfind(TurnTrailer(turn1)), message.size() - TurnTrailer(turn1).size());
  EXPECT_EQ(Count(message, TurnTrailer(turn2)), 0u) << message;

  auto [back_title, back_summary] = FromCommitMessage(message, turn1);
  EXPECT_EQ(back_title, "  Docwright-Message: 2");
  EXPECT_EQ(back_summary, WithoutTrailers(summary));
  // The pull request of a re-run gets the title back as it was.
  EXPECT_EQ(PullRequestTitle(turn1, back_title), title);
}

}  // namespace
}  // namespace docwright
