#!/usr/bin/env python3
"""Writes a Mintlify docs repository shaped like a large published one, as a
`git fast-import` stream on stdout, for bench/job-start/run.sh:

    python3 bench/job-start/mintlify_site.py PAGES | git --git-dir=X fast-import

PAGES pages (.mdx) in tabs and nested groups of a docs.json, with an OpenAPI
spec, snippets, images, redirects, an AGENTS.md and a few files around the
site (a README, a CI workflow, a package.json), about PAGES + 50 files in all.
Each page has frontmatter, headings, prose, a code block, links to its
neighbours and a snippet import. Deterministic.
"""
import json
import sys

pages = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
out = sys.stdout.buffer
files = {}

TABS = ["Guides", "API reference", "SDKs", "Integrations"]
AREAS = ["getting-started", "concepts", "guides", "operations", "security",
         "reference", "tutorials", "migration", "troubleshooting", "billing"]


def title(slug):
    return slug.replace("-", " ").capitalize()


# Pages: tab / area / subgroup / page-N, 10 subgroups an area.
paths = []
for i in range(pages):
    tab = TABS[i % len(TABS)]
    area = AREAS[(i // len(TABS)) % len(AREAS)]
    sub = f"part-{(i // (len(TABS) * len(AREAS))) % 10}"
    slug = f"{tab.lower().replace(' ', '-')}/{area}/{sub}/topic-{i}"
    paths.append((tab, area, sub, slug))

for n, (tab, area, sub, slug) in enumerate(paths):
    prev_slug = paths[n - 1][3] if n else paths[-1][3]
    next_slug = paths[(n + 1) % len(paths)][3]
    body = (
        f"---\ntitle: \"{title(area)} topic {n}\"\n"
        f"description: \"How topic {n} of {title(area).lower()} works\"\n---\n\n"
        f"import Note from '/snippets/note-{n % 20}.mdx';\n\n"
        f"# {title(area)} topic {n}\n\n"
        + ("This page explains one part of the product in the words its users read. " * 6)
        + f"\n\nSee [the previous topic](/{prev_slug}) and [the next one](/{next_slug}).\n\n"
        f"## Configure it\n\n```yaml\nsetting_{n}: true\nretries: 3\n```\n\n<Note />\n\n"
        f"## Limits\n\n" + ("Each limit is listed with its default and its maximum. " * 4)
        + f"\n\n![Diagram](/images/diagram-{n % 30}.png)\n"
    )
    files[slug + ".mdx"] = body.encode()

for k in range(20):
    files[f"snippets/note-{k}.mdx"] = f"<Note>Shared note {k}.</Note>\n".encode()
for k in range(30):
    files[f"images/diagram-{k}.png"] = b"\x89PNG\r\n\x1a\n" + bytes(64 + k)

# Navigation: tabs > groups (areas) > nested groups (parts) > pages.
nav_tabs = []
for tab in TABS:
    groups = []
    for area in AREAS:
        parts = []
        for p in range(10):
            sub = f"part-{p}"
            entries = [s for (t, a, u, s) in paths if t == tab and a == area and u == sub]
            if entries:
                parts.append({"group": title(sub), "pages": entries})
        if parts:
            groups.append({"group": title(area), "pages": parts})
    nav_tabs.append({"tab": tab, "groups": groups})
nav_tabs[1]["groups"].append({"group": "Endpoints", "openapi": "openapi.json",
                              "pages": ["GET /users", "POST /users"]})
config = {
    "$schema": "https://mintlify.com/docs.json", "theme": "mint", "name": "Acme Cloud",
    "colors": {"primary": "#0D9373"},
    "navigation": {"tabs": nav_tabs},
    "redirects": [{"source": f"/old/{a}/:slug*", "destination": f"/guides/{a}/part-0/:slug*"}
                  for a in AREAS],
}
files["docs.json"] = (json.dumps(config, indent=2) + "\n").encode()
files["openapi.json"] = json.dumps({
    "openapi": "3.0.0", "info": {"title": "Acme", "version": "1"},
    "paths": {"/users": {"get": {"summary": "List users"}, "post": {"summary": "Create a user"}}},
}, indent=2).encode()
files["AGENTS.md"] = b"# Writing these docs\n\nUse sentence case for headings. Keep pages short.\n"
files["README.md"] = b"# Acme docs\n\nThe source of docs.acme.example.\n"
files["package.json"] = b'{"name": "acme-docs", "private": true, "scripts": {"dev": "mint dev"}}\n'
files[".github/workflows/ci.yml"] = b"on: [push]\njobs:\n  check:\n    runs-on: ubuntu-latest\n"

out.write(b"commit refs/heads/main\ncommitter bench <bench@example.com> 1700000000 +0000\n"
          b"data 4\ninit\n")
for path in sorted(files):
    data = files[path]
    out.write(f"M 100644 inline {path}\ndata {len(data)}\n".encode())
    out.write(data + b"\n")
out.write(b"\n")
