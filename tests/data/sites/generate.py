#!/usr/bin/env python3
"""Writes the docs-site corpus of tests/data/sites/: three sites shaped like large
published ones (hundreds of pages, nested navigation, redirects, snippets and
includes, static assets, versioned docs, folders in nav), each with the old
problems real sites carry (links broken long ago, navigation entries for pages
never written). Deterministic: run it again and nothing changes.

    python3 tests/data/sites/generate.py

Each site is a folder (the repository's files) and a manifest NAME.json that
docs_corpus_test.cc reads: pages to append to, a page to add with its
navigation entry, and breakages with the exact problems they must produce.
"""
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))

TOPICS = ["install", "configure", "deploy", "monitor", "scale", "secure", "backup",
          "migrate", "debug", "integrate"]
AREAS = ["getting-started", "guides", "concepts", "operations", "integrations",
         "reference", "security", "tutorials"]


def put(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def title(slug):
    return slug.replace("-", " ").capitalize()


# --- Mintlify: two languages (Japanese half translated), tabs, anchors,
# nested groups, OpenAPI operations, snippets, redirects in a $ref'd file.
def mintlify(root):
    en = []  # (area, topic) pages
    for a in AREAS:
        for t in TOPICS:
            for variant in ("", "-advanced", "-faq"):
                en.append(f"{a}/{t}{variant}")
    # 240 English pages
    def group_pages(lang, area):
        pages = [f"{lang}/{p}" for p in en if p.startswith(area + "/")]
        basic = [p for p in pages if not p.endswith(("-advanced", "-faq"))]
        advanced = [p for p in pages if p.endswith("-advanced")]
        faq = [p for p in pages if p.endswith("-faq")]
        return basic + [{"group": "Advanced", "pages": advanced},
                        {"group": "FAQ", "pages": faq}]

    def language(lang):
        tabs = []
        for i in range(0, len(AREAS), 2):
            tabs.append({"tab": title(AREAS[i]),
                         "groups": [{"group": title(a), "pages": group_pages(lang, a)}
                                    for a in AREAS[i:i + 2]]})
        tabs.append({"tab": "API reference", "groups": [
            {"group": "Users", "openapi": "openapi.json",
             "pages": [f"{lang}/api/users/overview", "GET /users", "POST /users",
                       "DELETE /users/{id}"]}]})
        return {"language": lang, "tabs": tabs,
                "global": {"anchors": [{"anchor": "Status", "href": "https://status.example.com"}]}}

    config = {"$schema": "https://mintlify.com/docs.json", "theme": "mint", "name": "Acme Cloud",
              "colors": {"primary": "#0D9373"},
              "navigation": {"languages": [language("en"), language("ja")]},
              "redirects": {"$ref": "./config/redirects.json"}}
    put(root, "docs.json", json.dumps(config, indent=2, ensure_ascii=False) + "\n")
    redirects = [{"source": f"/en/old/{t}", "destination": f"/en/guides/{t}"} for t in TOPICS]
    redirects.append({"source": "/en/v1/:slug*", "destination": "/en/reference/:slug*"})
    put(root, "config/redirects.json", json.dumps(redirects, indent=2) + "\n")
    put(root, "openapi.json", json.dumps({"openapi": "3.0.0", "info": {"title": "Acme", "version": "1"},
                                          "paths": {}}) + "\n")
    put(root, "snippets/plan-note.mdx", "<Note>\n  Available on the Team plan and above.\n</Note>\n")
    put(root, "snippets/cli-install.mdx", "```bash\ncurl -fsSL https://get.example.com | sh\n```\n")
    for n in range(12):
        put(root, f"images/{AREAS[n % len(AREAS)]}-{n}.png", "png\n")
    put(root, "logo/dark.svg", "<svg/>\n")
    put(root, "README.md", "# Acme Cloud docs\n\nRun `mint dev` to preview.\n")
    for i, p in enumerate(en):
        area, topic = p.split("/")
        nxt = en[(i + 1) % len(en)]
        body = [f"---\ntitle: \"{title(topic)} ({title(area)})\"\n"
                f"description: \"How to {topic.split('-')[0]} with Acme Cloud.\"\n---\n",
                "import PlanNote from '/snippets/plan-note.mdx';\n",
                "<PlanNote />\n",
                f"## Overview\n\nThis page explains how to {topic.split('-')[0]} a service. "
                f"Continue with [{title(nxt.split('/')[1])}](/en/{nxt}) or see the "
                f"[quick start](/en/getting-started/install#before-you-begin).\n",
                f"<Frame>\n  <img src=\"/images/{area}-{i % 12}.png\" alt=\"Diagram\" />\n</Frame>\n"
                if i % 3 == 0 else
                f"![Diagram](/images/{AREAS[i % 12 % len(AREAS)]}-{i % 12}.png)\n",
                "<Steps>\n  <Step title=\"Prepare\">\n    Read [the concepts](../concepts/"
                f"{TOPICS[i % len(TOPICS)]}) first.\n  </Step>\n  <Step title=\"Run\">\n"
                "    ```bash\n    acme run --service api\n    ```\n  </Step>\n</Steps>\n",
                f"<CardGroup cols={{2}}>\n  <Card title=\"Moved guide\" icon=\"arrow-right\" "
                f"href=\"/en/old/{TOPICS[i % len(TOPICS)]}\">\n    The old address still works.\n"
                f"  </Card>\n  <Card title=\"API\" href=\"/en/api/users/overview\">Users API</Card>\n"
                f"</CardGroup>\n",
                "## Troubleshooting\n\n| Symptom | Fix |\n|---|---|\n| `timeout` | Retry with "
                f"[backoff](/en/v1/backoff) |\n| `denied` | Check [roles](/en/security/{TOPICS[5]}) |\n"]
        if i == 17:  # an old problem: a link broken long ago
            body.append("See also the [legacy dashboard](/en/dashboard/legacy), retired in 2023.\n")
        put(root, f"en/{p}.mdx", "\n".join(body))
    put(root, "en/api/users/overview.mdx", "---\ntitle: \"Users\"\n---\n\nThe Users API.\n")
    # Japanese: the basic pages of the first three areas only.
    for p in en:
        area, topic = p.split("/")
        if area in AREAS[:3] and not topic.endswith(("-advanced", "-faq")):
            put(root, f"ja/{p}.mdx",
                f"---\ntitle: \"{title(topic)}\"\n---\n\nこのページは翻訳中です。"
                f"[英語版](/en/{p})をご覧ください。\n")
    put(root, "ja/api/users/overview.mdx", "---\ntitle: \"ユーザー\"\n---\n\nユーザー API。\n")
    return {
        "append": ["en/guides/deploy.mdx", "en/getting-started/install.mdx",
                   "en/concepts/scale-faq.mdx", "en/getting-started/secure-advanced.mdx",
                   "ja/guides/install.mdx"],
        "add": {"path": "en/guides/rollback.mdx",
                "content": "---\ntitle: \"Roll back\"\n---\n\nUndo a [deploy](/en/guides/deploy) "
                           "or an [old one](/en/old/deploy).\n\n<Snippet />\n",
                "nav_file": "docs.json", "nav_after": "\"en/guides/install\"",
                "nav_insert": ",\n                  \"en/guides/rollback\""},
        "break": [
            {"delete": "en/guides/monitor.mdx",
             "expect": ["docs.json:NAV(en/guides/monitor): navigation lists \"en/guides/monitor\" "
                        "but neither en/guides/monitor.mdx nor en/guides/monitor.md exists",
                        "en/guides/deploy-faq.mdx:LINE(en/guides/deploy-faq.mdx,/en/guides/monitor): "
                        "link /en/guides/monitor no longer resolves: these changes delete or move "
                        "what it pointed at; update the link or remove it",
                        "ja/guides/monitor.mdx:LINE(ja/guides/monitor.mdx,/en/guides/monitor): link "
                        "/en/guides/monitor no longer resolves: these changes delete or move what "
                        "it pointed at; update the link or remove it"]},
            {"edit": {"path": "en/concepts/scale.mdx", "find": "](../concepts/",
                      "replace": "](../concept/"},
             "expect": ["en/concepts/scale.mdx:LINE(en/concepts/scale.mdx,../concept/): link "
                        "../concept/deploy does not resolve to a page or file"]},
            {"edit": {"path": "en/operations/backup.mdx", "find": "/images/", "replace": "/img/"},
             "expect": ["en/operations/backup.mdx:LINE(en/operations/backup.mdx,/img/): image "
                        "/img/operations-0.png does not resolve to a file"]},
            {"edit": {"path": "docs.json", "find": "\"en/guides/scale\"",
                      "replace": "\"en/guides/scales\""},
             "expect": ["docs.json:NAV(en/guides/scales): navigation lists \"en/guides/scales\" "
                        "but neither en/guides/scales.mdx nor en/guides/scales.md exists"]},
            {"edit": {"path": "en/guides/backup.mdx", "find": "---\n\nimport",
                      "replace": "title: [broken\n---\n\nimport"},
             "expect": ["en/guides/backup.mdx:5: frontmatter is not valid YAML: PARSER"]},
        ],
    }


# --- Docusaurus: versioned docs, numbered prefixes, ids and slugs, categories
# with index pages, autogenerated sidebars, static assets, a blog.
def docusaurus(root):
    put(root, "docusaurus.config.js", """// @ts-check
const {themes} = require('prism-react-renderer');

/** @type {import('@docusaurus/types').Config} */
const config = {
  title: 'Acme Platform',
  url: 'https://docs.example.com',
  baseUrl: '/',
  onBrokenLinks: 'throw',
  staticDirectories: ['static'],
  presets: [
    [
      'classic',
      /** @type {import('@docusaurus/preset-classic').Options} */
      ({
        docs: {
          path: 'docs',
          routeBasePath: 'docs',
          sidebarPath: require.resolve('./sidebars.js'),
          editUrl: 'https://github.com/acme/docs/edit/main/',
        },
        blog: {showReadingTime: true},
        theme: {customCss: require.resolve('./src/css/custom.css')},
      }),
    ],
  ],
  themeConfig: {prism: {theme: themes.github}},
};

module.exports = config;
""")
    sections = ["01-getting-started", "02-guides", "03-concepts", "04-operations", "05-reference"]
    items = []
    pages = []
    for s in sections:
        name = s[3:]
        doc_ids = []
        put(root, f"docs/{s}/index.md", f"---\ntitle: {title(name)}\n---\n\n# {title(name)}\n\n"
            f"Everything about {name}.\n")
        for n, t in enumerate(TOPICS):
            for variant in ("", "-in-depth", "-checklist", "-examples"):
                slug = f"{t}{variant}"
                fname = f"{n:02d}-{slug}.md" if variant == "" else f"{slug}.mdx"
                pages.append((s, fname))
                doc_ids.append(f"{name}/{slug}")
        items.append({"type": "category", "label": title(name),
                      "link": {"type": "doc", "id": f"{name}/index"},
                      "items": [d for d in doc_ids if not d.endswith("-examples")]})
    for i, (s, fname) in enumerate(pages):
        name = s[3:]
        slug = fname.split("-", 1)[1][:-3] if fname[0].isdigit() else fname.rsplit(".", 1)[0]
        other = pages[(i + 7) % len(pages)]
        other_id = f"{other[0][3:]}/" + (other[1].split("-", 1)[1][:-3] if other[1][0].isdigit()
                                         else other[1].rsplit(".", 1)[0])
        head = f"---\ntitle: {title(slug)}\n"
        if i == 3:
            head += "id: install-checklist-renamed\n"
        if i == 9:
            head += "slug: /secure-by-default\n"
        head += "---\n\n"
        mdx = fname.endswith(".mdx")
        body = head + f"# {title(slug)}\n\nThis page covers {slug.replace('-', ' ')}. Read " \
            f"[the next topic](/docs/{other_id}) and [the section](./index.md).\n\n" \
            f"![Architecture](/img/diagram-{i % 8}.png)\n\n"
        if mdx:
            body = head + "import Tabs from '@theme/Tabs';\nimport TabItem from '@theme/TabItem';\n\n" \
                + body[len(head):] + "<Tabs>\n  <TabItem value=\"npm\" label=\"npm\">\n\n" \
                "```bash\nnpm install @acme/sdk\n```\n\n  </TabItem>\n  <TabItem value=\"yarn\">\n\n" \
                "```bash\nyarn add @acme/sdk\n```\n\n  </TabItem>\n</Tabs>\n\n" \
                ":::tip\n\nUse [the CLI](/docs/reference/install) for automation.\n\n:::\n"
        else:
            body += "```yaml title=\"acme.yaml\"\nservice: api\nreplicas: 3\n```\n\n" \
                    "See the [blog post](/blog/2024/05/01/launch) and the " \
                    "[changelog](pathname:///changelog.html).\n"
        if i == 11:  # an old problem
            body += "\nThe [old migration guide](/docs/guides/migrate-v1) was removed.\n"
        put(root, f"docs/{s}/{fname}", body)
    put(root, "docs/05-reference/_shared-options.md", "Options shared by every command.\n")
    items.append({"type": "category", "label": "Examples",
                  "items": [{"type": "autogenerated", "dirName": "02-guides"}]})
    items.append("guides/never-written")  # an old problem: a sidebar entry without a doc
    put(root, "sidebars.js", "// @ts-check\n\n/** @type {import('@docusaurus/plugin-content-docs')"
        ".SidebarsConfig} */\nconst sidebars = " + json.dumps({"docs": items}, indent=2) +
        ";\n\nmodule.exports = sidebars;\n")
    put(root, "versions.json", json.dumps(["2.0", "1.0"]) + "\n")
    for v in ("2.0", "1.0"):
        for t in TOPICS[:6]:
            put(root, f"versioned_docs/version-{v}/guides/{t}.md",
                f"---\ntitle: {title(t)}\n---\n\n# {title(t)} ({v})\n\nSee [{TOPICS[0]}](./{TOPICS[0]}.md)"
                f" and [current docs](/docs/guides/{t}).\n")
        put(root, f"versioned_sidebars/version-{v}-sidebars.json",
            json.dumps({"docs": [f"guides/{t}" for t in TOPICS[:6]]}, indent=2) + "\n")
    for n in range(8):
        put(root, f"static/img/diagram-{n}.png", "png\n")
    put(root, "static/changelog.html", "<html></html>\n")
    put(root, "blog/2024-05-01-launch.md", "---\ntitle: Launch\n---\n\nWe launched.\n")
    put(root, "src/pages/index.js", "export default function Home() { return null; }\n")
    put(root, "src/css/custom.css", ":root {}\n")
    return {
        "append": ["docs/02-guides/00-install.md", "docs/02-guides/install-in-depth.mdx",
                   "docs/01-getting-started/index.md", "docs/03-concepts/09-integrate.md",
                   "versioned_docs/version-1.0/guides/install.md"],
        "add": {"path": "docs/02-guides/rollback.md",
                "content": "---\ntitle: Roll back\n---\n\n# Roll back\n\nUndo a "
                           "[deploy](./02-deploy.md), see [security](/docs/secure-by-default) and "
                           "the [1.0 guide](/docs/1.0/guides/install).\n",
                "nav_file": "sidebars.js", "nav_after": "\"guides/install\",",
                "nav_insert": "\n        \"guides/rollback\","},
        "break": [
            {"delete": "docs/03-concepts/02-deploy.md",
             "expect": ["docs/03-concepts/install-in-depth.mdx:LINE(docs/03-concepts/install-in-depth.mdx,/docs/concepts/deploy): "
                        "link /docs/concepts/deploy no longer resolves: these changes delete or move "
                        "what it pointed at; update the link or remove it",
                        "sidebars.js:NAV(concepts/deploy): sidebar lists doc \"concepts/deploy\" but no "
                        "docs/concepts/deploy.md or .mdx exists"]},
            {"edit": {"path": "docs/02-guides/01-configure.md", "find": "/img/diagram",
                      "replace": "/img/diagrams"},
             "expect": ["docs/02-guides/01-configure.md:LINE(docs/02-guides/01-configure.md,/img/diagrams): "
                        "image /img/diagrams-4.png does not resolve to a file"]},
            {"edit": {"path": "docs/02-guides/backup-examples.mdx", "find": "</Tabs>",
                      "replace": ""},
             "expect": ["docs/02-guides/backup-examples.mdx:LINE(docs/02-guides/backup-examples.mdx,<Tabs>): "
                        "<Tabs> is never closed: add </Tabs> or write it as <Tabs />"]},
        ],
    }


# --- MkDocs (Material): nav naming folders, nested sections, external links,
# exclude_docs, not_in_nav, !ENV and !!python/name: tags, snippets.
def mkdocs(root):
    put(root, "mkdocs.yml", """site_name: Acme Handbook
site_url: !ENV [SITE_URL, "https://handbook.example.com/"]
repo_url: https://github.com/acme/handbook
theme:
  name: material
  features:
    - navigation.tabs
    - navigation.indexes
markdown_extensions:
  - admonition
  - pymdownx.snippets:
      base_path: ["docs/includes"]
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
      emoji_generator: !!python/name:material.extensions.emoji.to_svg
exclude_docs: |
  drafts/
  *.tmp.md
not_in_nav: |
  /changelog/*.md
nav:
  - Home: index.md
  - Getting started:
      - getting-started/index.md
      - Install: getting-started/install.md
      - First steps: getting-started/first-steps.md
  - User guide: user-guide/
  - Administration:
      - admin/index.md
      - Operations: admin/operations/
      - Security: admin/security/
  - Reference:
      - reference/index.md
      - CLI: reference/cli.md
      - API: reference/api.md
      - Glossary: reference/glossary-never-written.md
  - Blog: https://blog.example.com/
""")
    put(root, "docs/index.md", "# Acme Handbook\n\nStart with [installing](getting-started/install.md).\n")
    put(root, "docs/getting-started/index.md", "# Getting started\n\n- [Install](install.md)\n"
        "- [First steps](first-steps.md)\n")
    put(root, "docs/getting-started/install.md", "# Install\n\n```bash\npip install acme\n```\n\n"
        "--8<-- \"warning.md\"\n\nNext: [first steps](first-steps.md).\n")
    put(root, "docs/getting-started/first-steps.md", "# First steps\n\nOpen the "
        "[user guide](../user-guide/index.md).\n")
    put(root, "docs/includes/warning.md", "!!! warning\n    Back up first.\n")
    pages = []
    for chapter in ["basics", "projects", "teams", "billing", "automation"]:
        for t in TOPICS:
            for variant in ("", "-howto", "-reference"):
                pages.append(f"user-guide/{chapter}/{t}{variant}.md")
    for area in ["operations", "security"]:
        for t in TOPICS:
            for variant in ("", "-runbook", "-policy", "-faq"):
                pages.append(f"admin/{area}/{t}{variant}.md")
    put(root, "docs/user-guide/index.md", "# User guide\n\nThe chapters: [basics](basics/install.md).\n")
    put(root, "docs/admin/index.md", "# Administration\n")
    for i, p in enumerate(pages):
        folder = os.path.dirname(p)
        other = pages[(i + 5) % len(pages)]
        rel = os.path.relpath(other, folder)
        name = os.path.basename(p)[:-3]
        body = f"# {title(name)}\n\nAbout {name.replace('-', ' ')}. See [{title(os.path.basename(other)[:-3])}]" \
            f"({rel}) and the [CLI reference]({os.path.relpath('reference/cli.md', folder)}#options).\n\n" \
            f"!!! note\n    Changed in 2.0.\n\n![Screenshot]({os.path.relpath('assets/screen.png', folder)})\n"
        if i == 20:  # an old problem
            body += "\nThe [old FAQ](../faq-removed.md) has moved to the forum.\n"
        put(root, f"docs/{p}", body)
    put(root, "docs/assets/screen.png", "png\n")
    put(root, "docs/reference/index.md", "# Reference\n")
    put(root, "docs/reference/cli.md", "# CLI\n\n## Options\n\n`--verbose`\n")
    put(root, "docs/reference/api.md", "# API\n\nSee the [CLI](cli.md).\n")
    put(root, "docs/drafts/next-release.md", "# Next release\n\n[nothing](nowhere.md)\n")
    put(root, "docs/changelog/2024.md", "# 2024\n\nReleased [2.0](../index.md).\n")
    return {
        "append": ["docs/index.md", "docs/user-guide/teams/deploy-howto.md",
                   "docs/admin/security/secure-policy.md", "docs/getting-started/install.md",
                   "docs/user-guide/basics/install.md"],
        "add": {"path": "docs/user-guide/teams/rotation.md",
                "content": "# Rotation\n\nSee [install](install.md) and the "
                           "[CLI](../../reference/cli.md).\n",
                "nav_file": None},
        "break": [
            {"delete": "docs/getting-started/first-steps.md",
             "expect": ["docs/getting-started/index.md:LINE(docs/getting-started/index.md,first-steps.md): "
                        "link first-steps.md no longer resolves: these changes delete or move what it "
                        "pointed at; update the link or remove it",
                        "docs/getting-started/install.md:LINE(docs/getting-started/install.md,first-steps.md): "
                        "link first-steps.md no longer resolves: these changes delete or move what it "
                        "pointed at; update the link or remove it",
                        "mkdocs.yml:NAV(getting-started/first-steps.md): nav lists "
                        "\"getting-started/first-steps.md\" but docs/getting-started/first-steps.md "
                        "does not exist"]},
            {"edit": {"path": "docs/admin/operations/scale-runbook.md", "find": "](../../reference/",
                      "replace": "](../reference/"},
             "expect": ["docs/admin/operations/scale-runbook.md:LINE(docs/admin/operations/scale-runbook.md,](../reference/): "
                        "link ../reference/cli.md#options does not resolve to a page or file"]},
            # A working link's fragment changed to a heading the page does not have.
            {"edit": {"path": "docs/admin/operations/deploy-runbook.md", "find": "cli.md#options",
                      "replace": "cli.md#flags"},
             "expect": ["docs/admin/operations/deploy-runbook.md:LINE(docs/admin/operations/deploy-runbook.md,cli.md#flags): "
                        "anchor #flags of link ../../reference/cli.md#flags names no heading of "
                        "docs/reference/cli.md"]},
            {"edit": {"path": "mkdocs.yml", "find": "      - Install: getting-started/install.md",
                      "replace": "      - Install: getting-started/instal.md"},
             "expect": ["mkdocs.yml:NAV(getting-started/instal.md): nav lists "
                        "\"getting-started/instal.md\" but docs/getting-started/instal.md does not exist"]},
        ],
    }


def links_through_redirect(root, manifest):
    """Deleting en/guides/monitor.mdx also breaks the links to /en/old/monitor:
    the redirect (config/redirects.json) now leads to a page that is gone, and
    the published site answers 404 there (as `mint broken-links` says)."""
    rows = []
    for folder, _, names in sorted(os.walk(root)):
        for name in sorted(names):
            if not name.endswith((".md", ".mdx")):
                continue
            path = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            if path == "en/guides/monitor.mdx":
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                if 'href="/en/old/monitor"' not in f.read():
                    continue
            rows.append(f"{path}:LINE({path},/en/old/monitor): link /en/old/monitor no longer "
                        "resolves: these changes delete or move what it pointed at; update the "
                        "link or remove it")
    manifest["break"][0]["expect"] += rows


def main():
    for name, make in [("mintlify-large", mintlify), ("docusaurus-versioned", docusaurus),
                       ("mkdocs-material", mkdocs)]:
        root = os.path.join(HERE, name)
        shutil.rmtree(root, ignore_errors=True)
        manifest = make(root)
        if name == "mintlify-large":
            links_through_redirect(root, manifest)
        with open(os.path.join(HERE, name + ".json"), "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=2, ensure_ascii=False)
            f.write("\n")


if __name__ == "__main__":
    main()
