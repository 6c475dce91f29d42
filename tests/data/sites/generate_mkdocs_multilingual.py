#!/usr/bin/env python3
"""Writes tests/data/sites/mkdocs-multilingual/: a multilingual MkDocs site laid
out like the published ones that build one site per language (docs/<lang>/
mkdocs.yml, each language's pages under docs/<lang>/docs/, the translations
inheriting the English configuration and its nav, the pages they lack built from
the English ones). Hundreds of pages, nested nav with links to other sites, and
the old problems of its own: a link broken long ago, a nav entry for a page never
written. Deterministic.

    python3 tests/data/sites/generate_mkdocs_multilingual.py
"""
import json
import os
import shutil

from generate import AREAS, TOPICS, put, title

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "mkdocs-multilingual"


def site(root):
    nav = ["nav:", "  - Home: index.md"]
    for area in AREAS:
        nav.append(f"  - {title(area)}:")
        for t in TOPICS:
            nav.append(f"      - {title(t)}: {area}/{t}.md")
        nav.append("      - Advanced:")
        for t in TOPICS:
            nav.append(f"          - {area}/{t}-advanced.md")
        nav.append("      - FAQ:")
        for t in TOPICS:
            nav.append(f"          - {title(t)} FAQ: {area}/{t}-faq.md")
    nav += ["  - Roadmap: roadmap.md",  # an old problem: never written
            "  - Blog: https://blog.example.com/",
            "  - Status: /status/"]
    put(root, "docs/en/mkdocs.yml", "site_name: Acme Docs\n"
        "site_url: https://docs.example.com/\n"
        "theme:\n  name: material\n  language: en\n"
        "markdown_extensions:\n  - admonition\n  - toc:\n      permalink: true\n"
        "extra:\n  alternate:\n    - name: English\n      link: /\n"
        "    - name: Français\n      link: /fr/\n    - name: Español\n      link: /es/\n"
        + "\n".join(nav) + "\n")
    for lang, name in (("fr", "Acme Docs (FR)"), ("es", "Acme Docs (ES)")):
        put(root, f"docs/{lang}/mkdocs.yml",
            f"INHERIT: ../en/mkdocs.yml\nsite_name: {name}\ntheme:\n  language: {lang}\n")
    put(root, "docs/en/docs/index.md",
        "# Acme Docs\n\nStart with [installing](getting-started/install.md).\n")
    put(root, "docs/en/docs/img/overview.png", "png\n")
    for area in AREAS:
        for t in TOPICS:
            put(root, f"docs/en/docs/{area}/{t}.md",
                f"# {title(t)}\n\nHow to {t} with Acme, in {title(area).lower()}.\n\n"
                f"![Overview](../img/overview.png)\n\nBack to the [start](../index.md).\n")
            for variant in ("advanced", "faq"):
                extra = ""
                if area == "guides" and t == "monitor" and variant == "faq":
                    extra = "\nSee the [legacy dashboard](../legacy/dashboard.md).\n"
                put(root, f"docs/en/docs/{area}/{t}-{variant}.md",
                    f"# {title(t)} ({variant})\n\nRead the [basics]({t}.md) first.\n" + extra)
    # French: the getting-started basics; Spanish: the home page only.
    put(root, "docs/fr/docs/index.md",
        "# Documentation Acme\n\nCommencez par [l'installation](getting-started/install.md).\n")
    for t in TOPICS:
        put(root, f"docs/fr/docs/getting-started/{t}.md",
            f"# {title(t)}\n\nVoir aussi la [FAQ]({t}-faq.md).\n")
    put(root, "docs/es/docs/index.md", "# Documentación de Acme\n\nEmpiece por la [guía](guides/deploy.md).\n")
    put(root, "README.md", "# Acme Docs\n\nEach language is a site: `mkdocs serve -f docs/fr/mkdocs.yml`.\n")

    remove = "link deploy.md no longer resolves: these changes delete or move what it pointed at; update the link or remove it"
    return {
        "site_root": "docs/en",
        "append": ["docs/en/docs/index.md", "docs/en/docs/guides/deploy.md",
                   "docs/en/docs/guides/monitor-faq.md", "docs/en/docs/reference/scale-advanced.md"],
        "add": {
            "path": "docs/en/docs/guides/rotation.md",
            "content": "# Rotation\n\nSee [deploy](deploy.md).\n",
            "nav_file": "docs/en/mkdocs.yml",
            "nav_after": "      - Deploy: guides/deploy.md\n",
            "nav_insert": "      - Rotation: guides/rotation.md\n",
        },
        "break": [
            {"delete": "docs/en/docs/guides/deploy.md", "expect": [
                f"docs/en/docs/guides/deploy-advanced.md:LINE(docs/en/docs/guides/deploy-advanced.md,](deploy.md)): {remove}",
                f"docs/en/docs/guides/deploy-faq.md:LINE(docs/en/docs/guides/deploy-faq.md,](deploy.md)): {remove}",
                "docs/en/mkdocs.yml:NAV(guides/deploy.md): nav lists \"guides/deploy.md\" but docs/en/docs/guides/deploy.md does not exist",
            ]},
            {"edit": {"path": "docs/en/docs/concepts/scale-faq.md", "find": "](scale.md)",
                      "replace": "](scales.md)"},
             "expect": ["docs/en/docs/concepts/scale-faq.md:LINE(docs/en/docs/concepts/scale-faq.md,](scales.md)): link scales.md does not resolve to a page or file"]},
            {"edit": {"path": "docs/en/mkdocs.yml", "find": "      - Install: getting-started/install.md",
                      "replace": "      - Install: getting-started/instal.md"},
             "expect": ["docs/en/mkdocs.yml:NAV(getting-started/instal.md): nav lists \"getting-started/instal.md\" but docs/en/docs/getting-started/instal.md does not exist"]},
            {"edit": {"path": "docs/en/mkdocs.yml", "find": "  - Blog: https://blog.example.com/",
                      "replace": "  - Blog: /blog/"},
             "expect": []},
            # The French site builds the English pages it lacks: links to them resolve.
            {"site_root": "docs/fr",
             "edit": {"path": "docs/fr/docs/index.md", "find": "Commencez par",
                      "replace": "Lisez [le déploiement](guides/deploy.md). Commencez par"},
             "expect": []},
            {"site_root": "docs/fr",
             "edit": {"path": "docs/fr/docs/index.md", "find": "Commencez par",
                      "replace": "Lisez [le déploiement](guides/deploi.md). Commencez par"},
             "expect": ["docs/fr/docs/index.md:LINE(docs/fr/docs/index.md,guides/deploi.md): link guides/deploi.md does not resolve to a page or file"]},
        ],
    }


def main():
    root = os.path.join(HERE, NAME)
    shutil.rmtree(root, ignore_errors=True)
    manifest = site(root)
    with open(os.path.join(HERE, NAME + ".json"), "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
