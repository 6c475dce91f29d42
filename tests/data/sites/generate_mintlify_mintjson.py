#!/usr/bin/env python3
"""Writes tests/data/sites/mintlify-mintjson/ and its manifest: a Mintlify site in
the older mint.json format, shaped like a large published one: two versions and a
French localization (mint.json's `versions`, the French one with a `locale`), each
group shown in its `version`; tabs and anchors naming the folders they show, the
API tab generating pages from an OpenAPI spec; nested groups; snippets; redirects
with wildcards (`:slug*`, `:page?`, a partial `kb-*`). Its old problems: the
navigation lists French pages never translated, and a v1 page has carried a
broken link for years. Deterministic: run it again and nothing changes.

    python3 tests/data/sites/generate_mintlify_mintjson.py
"""
import json
import os
import re
import shutil

from generate import put, title

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "mintlify-mintjson"

TOPICS = ["install", "configure", "deploy", "monitor", "scale", "secure", "backup",
          "migrate", "debug", "integrate"]
AREAS = ["getting-started", "guides", "concepts", "operations", "security", "integrations"]
TRANSLATED = AREAS[:3]  # French: the basic pages of these areas only
ENDPOINTS = ["list-users", "get-user", "create-user", "update-user", "delete-user",
             "list-teams", "get-team", "create-team", "list-keys", "revoke-key"]


def v2_pages():
    return [f"{a}/{t}{v}" for a in AREAS for t in TOPICS for v in ("", "-advanced")]


def group_pages(prefix, area, advanced):
    basic = [f"{prefix}/{area}/{t}" for t in TOPICS]
    if not advanced:
        return basic
    return basic + [{"group": "Advanced", "pages": [f"{prefix}/{area}/{t}-advanced"
                                                    for t in TOPICS]}]


def config():
    navigation = []
    for a in AREAS:
        navigation.append({"group": title(a), "version": "v2",
                           "pages": group_pages("v2", a, True)})
    for a in AREAS:  # listed whole, translated in part
        navigation.append({"group": title(a), "version": "Français",
                           "pages": group_pages("v2/fr", a, False)})
    for a in AREAS:
        navigation.append({"group": title(a), "version": "v1",
                           "pages": group_pages("v1", a, False)})
    navigation.append({"group": "Users", "pages": [f"api-reference/users/{e}"
                                                   for e in ENDPOINTS[:5]]})
    navigation.append({"group": "Teams and keys",
                       "pages": [f"api-reference/teams/{e}" for e in ENDPOINTS[5:8]] +
                                [{"group": "Keys", "pages": [f"api-reference/keys/{e}"
                                                             for e in ENDPOINTS[8:]]}]})
    return {
        "$schema": "https://mintlify.com/schema.json",
        "name": "Acme Cloud",
        "logo": {"light": "/logo/light.svg", "dark": "/logo/dark.svg"},
        "colors": {"primary": "#0D9373"},
        "openapi": ["openapi.json"],
        "versions": [{"name": "v2", "locale": "en", "default": True},
                     {"name": "Français", "locale": "fr"},
                     {"name": "v1", "locale": "en"}],
        "tabs": [{"name": "API Reference", "url": "api-reference", "openapi": "openapi.json"},
                 {"name": "Changelog", "url": "https://acme.example.com/changelog"}],
        "anchors": [{"name": "Community", "icon": "discord",
                     "url": "https://community.example.com"},
                    {"name": "Upgrade to v2", "icon": "arrow-up", "url": "v1/getting-started",
                     "version": "v1"}],
        "navigation": navigation,
        "redirects": [
            {"source": "/v2/old/:slug*", "destination": "/v2/guides/:slug*"},
            {"source": "/docs/:slug*", "destination": "/v2/:slug*"},
            {"source": "/articles/kb-*", "destination": "/v2/getting-started/install"},
            {"source": "/v1/legacy/:page?", "destination": "/v1/getting-started/install"},
        ],
    }


def v2_page(i, p, pages):
    area, topic = p.split("/")
    nxt = pages[(i + 1) % len(pages)]
    verb = topic.split("-")[0]
    body = [f"---\ntitle: \"{title(topic)} ({title(area)})\"\n"
            f"description: \"How to {verb} with Acme Cloud.\"\n---\n",
            "import PlanNote from '/snippets/plan-note.mdx';\n",
            "<PlanNote />\n",
            f"## Overview\n\nThis page explains how to {verb} a service. Continue with "
            f"[{title(nxt.split('/')[1])}](/v2/{nxt}) or read the "
            f"[quick start](/v2/getting-started/install#before-you-begin).\n",
            f"![Diagram](/images/{area}-{i % 6}.png)\n",
            "<Steps>\n  <Step title=\"Prepare\">\n    Read [the concepts](../concepts/"
            f"{TOPICS[i % len(TOPICS)]}) first.\n  </Step>\n  <Step title=\"Run\">\n"
            "    ```bash\n    acme run --service api\n    ```\n  </Step>\n</Steps>\n",
            f"<CardGroup cols={{2}}>\n  <Card title=\"Moved guide\" href=\"/v2/old/"
            f"{TOPICS[i % len(TOPICS)]}\">\n    The old address still works.\n  </Card>\n"
            "  <Card title=\"API\" href=\"/api-reference\">The API reference.</Card>\n"
            "</CardGroup>\n",
            "## Troubleshooting\n\n| Symptom | Fix |\n|---|---|\n| `timeout` | See "
            f"[article {1000 + i}](/articles/kb-{1000 + i}-timeouts) |\n| `denied` | List the "
            "[users](/api-reference/users/list-users) and their roles |\n"]
    return "\n".join(body)


def v1_page(i, p):
    area, topic = p.split("/")
    body = [f"---\ntitle: \"{title(topic)} ({title(area)}, v1)\"\n---\n",
            "<Warning>\n  Version 1 is no longer maintained: [upgrade](/v1/getting-started), "
            f"or read [the current version](/v2/{p}).\n</Warning>\n",
            f"## Steps\n\nRun `acme {topic}` with the v1 CLI. The old "
            f"[reference](/v1/legacy/{topic}) moved; so did the [index](/v1/legacy).\n"]
    if i == 7:  # an old problem: a link broken long ago
        body.append("The [v1 dashboard](/v1/dashboard/legacy) shows the same.\n")
    return "\n".join(body)


def expect_removed(root, route, deleted, redirected=()):
    """The problems of deleting the page at `route`: its navigation entry and the
    links of the other pages to it, and to the `redirected` routes that lead to
    it (a redirect to a page that is gone leads nowhere), in the order of the
    checks (navigation first, then by file)."""
    out = [f"mint.json:NAV({route[1:]}): navigation lists \"{route[1:]}\" but neither "
           f"{route[1:]}.mdx nor {route[1:]}.md exists"]
    for target in (route, *redirected):
        pattern = re.compile(r"(?:\]\(|href=\")" + re.escape(target) + r"([)\"])")
        for folder, _, names in sorted(os.walk(root)):
            for name in sorted(names):
                path = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
                if not path.endswith(".mdx") or path == deleted:
                    continue
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    found = pattern.findall(f.read())
                assert len(found) <= 1, path
                if found:
                    out.append(f"{path}:LINE({path},{target}{found[0]}): link {target} no longer "
                               "resolves: these changes delete or move what it pointed at; update "
                               "the link or remove it")
    return [out[0]] + sorted(out[1:])


def make(root):
    put(root, "mint.json", json.dumps(config(), indent=2, ensure_ascii=False) + "\n")
    put(root, "openapi.json", json.dumps({"openapi": "3.0.0",
                                          "info": {"title": "Acme", "version": "2"},
                                          "paths": {}}) + "\n")
    put(root, "snippets/plan-note.mdx", "<Note>\n  Available on the Team plan and above.\n</Note>\n")
    for n in range(6):
        put(root, f"images/{AREAS[n]}-{n}.png", "png\n")
    for a in AREAS:
        for n in range(6):
            put(root, f"images/{a}-{n}.png", "png\n")
    put(root, "logo/light.svg", "<svg/>\n")
    put(root, "logo/dark.svg", "<svg/>\n")
    put(root, "README.md", "# Acme Cloud docs\n\nRun `mintlify dev` to preview.\n")
    pages = v2_pages()
    for i, p in enumerate(pages):
        put(root, f"v2/{p}.mdx", v2_page(i, p, pages))
    for p in pages:
        area, topic = p.split("/")
        if area in TRANSLATED and not topic.endswith("-advanced"):
            put(root, f"v2/fr/{p}.mdx",
                f"---\ntitle: \"{title(topic)}\"\n---\n\nCette page est en cours de traduction : "
                f"lisez la [version anglaise](/v2/{p}).\n")
    v1 = [p for p in pages if not p.endswith("-advanced")]
    for i, p in enumerate(v1):
        put(root, f"v1/{p}.mdx", v1_page(i, p))
    for e in ENDPOINTS:
        folder = "users" if "user" in e else "teams" if "team" in e else "keys"
        method = {"list": "GET", "get": "GET", "create": "POST", "update": "PATCH",
                  "delete": "DELETE", "revoke": "DELETE"}[e.split("-")[0]]
        put(root, f"api-reference/{folder}/{e}.mdx",
            f"---\ntitle: \"{title(e)}\"\nopenapi: \"{method} /{folder}\"\n---\n")

    scale_i = pages.index("concepts/scale")
    backup_i = pages.index("operations/backup")
    return {
        "append": ["v2/guides/deploy.mdx", "v2/getting-started/install.mdx",
                   "v2/concepts/scale-advanced.mdx", "v2/fr/guides/install.mdx",
                   "v1/getting-started/backup.mdx", "api-reference/users/list-users.mdx"],
        "add": {"path": "v2/guides/rollback.mdx",
                "content": "---\ntitle: \"Roll back\"\n---\n\nUndo a [deploy](/v2/guides/deploy), "
                           "an [old one](/v2/old/deploy) or one from the "
                           "[knowledge base](/articles/kb-42-rollback).\n\nSee the "
                           "[API](/api-reference) and [its users](/api-reference/users/get-user).\n",
                "nav_file": "mint.json", "nav_after": "\"v2/guides/install\"",
                "nav_insert": ",\n        \"v2/guides/rollback\""},
        "break": [
            {"delete": "v2/guides/monitor.mdx",
             # /v2/old/:slug* redirects to /v2/guides/:slug*.
             "expect": expect_removed(root, "/v2/guides/monitor", "v2/guides/monitor.mdx",
                                      ("/v2/old/monitor",))},
            {"edit": {"path": "v2/concepts/scale.mdx", "find": "](../concepts/",
                      "replace": "](../concept/"},
             "expect": [f"v2/concepts/scale.mdx:LINE(v2/concepts/scale.mdx,../concept/): link "
                        f"../concept/{TOPICS[scale_i % len(TOPICS)]} does not resolve to a page "
                        "or file"]},
            {"edit": {"path": "v2/operations/backup.mdx", "find": "/images/", "replace": "/img/"},
             "expect": ["v2/operations/backup.mdx:LINE(v2/operations/backup.mdx,/img/): image "
                        f"/img/operations-{backup_i % 6}.png does not resolve to a file"]},
            {"edit": {"path": "v2/security/debug.mdx", "find": "/v2/old/", "replace": "/v2/gone/"},
             "expect": ["v2/security/debug.mdx:LINE(v2/security/debug.mdx,/v2/gone/): link "
                        f"/v2/gone/{TOPICS[pages.index('security/debug') % len(TOPICS)]} does "
                        "not resolve to a page or file"]},
            {"edit": {"path": "mint.json", "find": "\"v1/guides/scale\"",
                      "replace": "\"v1/guides/scales\""},
             "expect": ["mint.json:NAV(v1/guides/scales): navigation lists \"v1/guides/scales\" "
                        "but neither v1/guides/scales.mdx nor v1/guides/scales.md exists"]},
            {"edit": {"path": "v1/guides/backup.mdx", "find": "---\n\n<Warning>",
                      "replace": "sidebarTitle: [broken\n---\n\n<Warning>"},
             "expect": ["v1/guides/backup.mdx:4: frontmatter is not valid YAML: PARSER"]},
        ],
    }


def main():
    root = os.path.join(HERE, NAME)
    shutil.rmtree(root, ignore_errors=True)
    manifest = make(root)
    with open(os.path.join(HERE, NAME + ".json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
