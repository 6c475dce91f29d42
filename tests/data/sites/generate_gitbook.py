#!/usr/bin/env python3
"""Writes tests/data/sites/gitbook-large/: a GitBook site synced from docs/ of a
code repository, shaped like a large published one: hundreds of pages, a
SUMMARY.md with groups, nested pages and a draft, .gitbook.yaml's root and
redirects, images in GitBook's .gitbook/assets/, and the old problems real
sites carry (a summary entry for a page never written, a link broken long ago,
a page the summary never listed). Deterministic: run it again and nothing
changes.

    python3 tests/data/sites/generate_gitbook.py

The manifest gitbook-large.json is read by docs_corpus_test.cc (see
generate.py for its format).
"""
import json
import os
import shutil

from generate import AREAS, HERE, TOPICS, put, title

VARIANTS = ["", "-faq", "-examples"]


def gitbook(root):
    redirects = "".join(f"  old/{t}: guides/{t}.md\n" for t in TOPICS)
    put(root, ".gitbook.yaml", "root: ./docs/\n\nstructure:\n  readme: README.md\n"
        "  summary: SUMMARY.md\n\nredirects:\n" + redirects)
    put(root, "README.md", "# Acme\n\nThe documentation lives in [docs/](docs/README.md).\n")
    put(root, "src/main.c", "int main(void) { return 0; }\n")
    put(root, "docs/README.md", "# Acme documentation\n\nStart with "
        "[installing](getting-started/install.md).\n")
    for n in range(8):
        put(root, f"docs/.gitbook/assets/diagram-{n}.png", "png\n")

    pages = [f"{a}/{t}{v}" for a in AREAS for t in TOPICS for v in VARIANTS]  # 240
    summary = ["# Table of contents", "", "* [Introduction](README.md)", ""]
    for area in AREAS:
        summary += [f"## {title(area)}", "", f"* [{title(area)}](README.md)".replace(
            "(README.md)", f"({area}/README.md)")]
        for t in TOPICS:
            summary.append(f"  * [{title(t)}]({area}/{t}.md)")
            for v in VARIANTS[1:]:
                summary.append(f"    * [{title(t + v)}]({area}/{t}{v}.md)")
        if area == "reference":  # an old problem: an entry for a page never written
            summary.append("  * [Legacy API](reference/legacy-api.md)")
        summary.append("")
    summary += ["## Coming soon", "", "* [Roadmap]()", ""]
    put(root, "docs/SUMMARY.md", "\n".join(summary))

    for area in AREAS:
        put(root, f"docs/{area}/README.md", f"# {title(area)}\n\n" +
            "".join(f"- [{title(t)}]({t}.md)\n" for t in TOPICS))
    for i, p in enumerate(pages):
        area, name = p.split("/")
        nxt = pages[(i + 1) % len(pages)]
        rel = os.path.relpath(nxt + ".md", area)
        body = (f"# {title(name)}\n\nThis page explains how to {name.split('-')[0]} a service. "
                f"Continue with [{title(nxt.split('/')[1])}]({rel}).\n\n"
                f"![Diagram](../.gitbook/assets/diagram-{i % 8}.png)\n\n"
                f"See [the {area.replace('-', ' ')} overview](README.md) and the "
                "[old install guide](/old/install).\n\n"
                "{% hint style=\"info\" %}\nGitBook blocks are text to the checks.\n"
                "{% endhint %}\n")
        if i == 17:  # an old problem: a link broken long ago
            body += "\nThe [legacy dashboard](../dashboard/legacy.md) was retired in 2023.\n"
        put(root, f"docs/{p}.md", body)
    # An old page nobody listed, with a broken link of its own.
    put(root, "docs/drafts/next-release.md", "# Next release\n\n[nothing](nowhere.md)\n")

    backup = pages.index("operations/backup")
    return {
        "append": ["docs/README.md", "docs/guides/deploy.md", "docs/getting-started/secure-examples.md",
                   "docs/concepts/scale-faq.md", "docs/reference/README.md"],
        "add": {"path": "docs/guides/rollback.md",
                "content": "# Roll back\n\nUndo a [deploy](deploy.md), see the "
                           "[old install guide](/old/install) and the [overview](./).\n",
                "nav_file": "docs/SUMMARY.md",
                "nav_after": "    * [Deploy examples](guides/deploy-examples.md)\n",
                "nav_insert": "  * [Roll back](guides/rollback.md)\n"},
        "break": [
            {"delete": "docs/guides/monitor.md",
             "expect": ["docs/SUMMARY.md:NAV(guides/monitor.md): SUMMARY.md lists "
                        "\"guides/monitor.md\" but docs/guides/monitor.md does not exist",
                        "docs/guides/README.md:LINE(docs/guides/README.md,(monitor.md)): link "
                        "monitor.md no longer resolves: these changes delete or move what it "
                        "pointed at; update the link or remove it",
                        "docs/guides/deploy-examples.md:LINE(docs/guides/deploy-examples.md,"
                        "(monitor.md)): link monitor.md no longer resolves: these changes delete "
                        "or move what it pointed at; update the link or remove it"]},
            {"edit": {"path": "docs/concepts/scale.md", "find": "](scale-faq.md)",
                      "replace": "](scale-fac.md)"},
             "expect": ["docs/concepts/scale.md:LINE(docs/concepts/scale.md,scale-fac.md): link "
                        "scale-fac.md does not resolve to a page or file"]},
            {"edit": {"path": "docs/operations/backup.md", "find": ".gitbook/assets/",
                      "replace": ".gitbook/asset/"},
             "expect": ["docs/operations/backup.md:LINE(docs/operations/backup.md,.gitbook/asset/): "
                        f"image ../.gitbook/asset/diagram-{backup % 8}.png does not resolve to a "
                        "file"]},
            {"edit": {"path": "docs/SUMMARY.md", "find": "(guides/scale.md)",
                      "replace": "(guides/scales.md)"},
             "expect": ["docs/SUMMARY.md:NAV(guides/scales.md): SUMMARY.md lists "
                        "\"guides/scales.md\" but docs/guides/scales.md does not exist"]},
        ],
    }


def main():
    name = "gitbook-large"
    root = os.path.join(HERE, name)
    shutil.rmtree(root, ignore_errors=True)
    manifest = gitbook(root)
    with open(os.path.join(HERE, name + ".json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
