#!/usr/bin/env python3
"""Runs each documentation framework's own checker on the corpus of
tests/data/sites/ and writes what it says as golden verdicts,
tests/data/sites/<site>.oracle.json, for tests/docs_oracle_test.cc.

For each site whose framework's checker can run on this machine, the site is
copied to a temp dir and checked as committed ("before"), then after each case
of its manifest (<site>.json: "append" all at once, "add", each "break"), each
on a fresh copy ("after"). The checker's warnings about links, navigation and
anchors become normalized verdicts {file, line, kind, target}; "new" is after
minus before (a multiset on file, kind and target: lines move), what the case
made worse, which is what docwright's CheckChanges reports as problems.

Not part of the build or of `./dw test`: the test reads the committed goldens
only. Rerun it after changing a corpus site or its manifest:

  tools/docs-oracle/run.py                  # every site whose checker runs
  tools/docs-oracle/run.py mkdocs-material  # one site

Checkers (see docs/testing.md for installing them):
  MkDocs     `mkdocs build` (Debian's package `mkdocs`), with the default theme
             and without the plugins and Markdown extensions not installed.
  Mintlify   `mint broken-links` (npm package `mint`), with and without
             --check-anchors; MINT=/path/to/node_modules/.bin/mint.
  Docusaurus `docusaurus build` (npm @docusaurus/core, preset-classic, react);
             DOCUSAURUS_MODULES=/path/to/node_modules.
A site whose checker is not found is skipped and its golden left as it is.

A manifest's "site_root" (and a break's own) names the folder of the site a
case is built as, like docwright's Limits::site_root (MkDocs only: one
mkdocs.yml per language under docs/<lang>/); "before" is then checked once per
root, and a case built as another root than the manifest's records it.
"""

import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SITES = os.path.join(ROOT, "tests", "data", "sites")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def clean(text):
    return ANSI.sub("", text)


def verdict(file, kind, target, line=None):
    return {"file": file, "line": line, "kind": kind, "target": target}


def key(v):
    return (v["file"], v["kind"], v["target"])


def minus(after, before):
    """Verdicts of `after` not in `before`, as multisets on file, kind, target."""
    left = collections.Counter(key(v) for v in before)
    out = []
    for v in after:
        if left[key(v)] > 0:
            left[key(v)] -= 1
        else:
            out.append(v)
    return out


def ordered(verdicts):
    return sorted(verdicts, key=lambda v: (v["file"], v["kind"], v["target"], v["line"] or 0))


# ---- the manifest's cases, applied as tests/docs_corpus_test.cc applies them

def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def cases(manifest):
    """(name, edit, root) triples; edit(dir) changes the copy of the site in
    dir; root is the folder of the site the case is checked as (a break's own
    "site_root", else the manifest's, else the top: a repository holding
    several sites, like one per language, names the one it builds)."""
    top = manifest.get("site_root", "")
    def append(d):
        for p in manifest["append"]:
            write(os.path.join(d, p), read(os.path.join(d, p)) +
                  "\nOne more sentence for the readers.\n")

    def add(d):
        a = manifest["add"]
        write(os.path.join(d, a["path"]), a["content"])
        if isinstance(a.get("nav_file"), str):
            nav = read(os.path.join(d, a["nav_file"]))
            at = nav.index(a["nav_after"]) + len(a["nav_after"])
            write(os.path.join(d, a["nav_file"]), nav[:at] + a["nav_insert"] + nav[at:])

    def breakage(b):
        def apply(d):
            if "delete" in b:
                os.remove(os.path.join(d, b["delete"]))
                return
            e = b["edit"]
            text = read(os.path.join(d, e["path"]))
            at = text.index(e["find"])
            write(os.path.join(d, e["path"]),
                  text[:at] + e["replace"] + text[at + len(e["find"]):])
        return apply

    out = [("append", append, top), ("add", add, top)]
    for i, b in enumerate(manifest["break"]):
        out.append(("break%d" % i, breakage(b), b.get("site_root", top)))
    return out


def run(cmd, cwd, timeout, env=None):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout, env=env)
    return p.returncode, clean(p.stdout.decode("utf-8", "replace"))


# ---- MkDocs

# The Python MkDocs runs under (Debian's), which the config is adapted with.
MKDOCS_PYTHON = os.environ.get("MKDOCS_PYTHON", "/usr/bin/python3")

class MkDocs:
    name = "MkDocs"
    targets = "resolved"  # link targets are paths in the repository, without #anchor
    kinds = ["link", "nav", "anchor"]

    @staticmethod
    def serves(site):
        return os.path.exists(os.path.join(site, "mkdocs.yml"))

    def __init__(self):
        self.exe = shutil.which("mkdocs")
        self.adapted = []

    def available(self):
        if not self.exe:
            return "mkdocs is not installed (Debian: apt-get install mkdocs)"
        code, out = run([self.exe, "--version"], ".", 60)
        self.version = out.strip()
        m = re.search(r"version (\d+)\.(\d+)", out)
        if m and (int(m.group(1)), int(m.group(2))) < (1, 6):
            # Anchors are validated from MkDocs 1.6 on (validation.anchors).
            self.kinds = ["link", "nav"]
        return None

    def adapt(self, d):
        """The site's config, with what this machine's MkDocs cannot load taken
        out: another theme becomes the default one (themes render pages, they
        do not resolve links), a plugin or Markdown extension that is not
        installed is dropped. Each change is recorded in `adapted`."""
        code, out = run([MKDOCS_PYTHON, "-c", ADAPT,
                         os.path.join(d, "mkdocs.yml")], d, 120)
        if code != 0:
            raise RuntimeError("adapting mkdocs.yml: " + out)
        self.adapted = [l for l in out.splitlines() if l]

    def check(self, top, root=""):
        d = os.path.join(top, root) if root else top
        self.adapt(d)
        code, out = run([self.exe, "build", "-d", os.path.join(top, ".oracle-site")], d, 600)
        if "Documentation built" not in out:
            raise RuntimeError("mkdocs build failed:\n" + out)
        docs = "docs"
        m = re.search(r"^docs_dir:\s*(\S+)", read(os.path.join(d, "mkdocs.yml")), re.M)
        if m:
            docs = m.group(1).strip("'\"").rstrip("/")
        prefix = root + "/" if root else ""
        docs = prefix + docs
        found = []
        for l in out.splitlines():
            m = re.search(r"A (?:relative path|reference) to '(.+?)' is included in the 'nav' "
                          r"configuration, which is not found in the documentation files", l)
            if m:
                found.append(verdict(prefix + "mkdocs.yml", "nav", m.group(1)))
                continue
            m = re.search(r"Documentation file '(.+?)' contains a link to '(.+?)' which is not "
                          r"found in the documentation files", l)
            if m:
                found.append(verdict(docs + "/" + m.group(1), "link", docs + "/" + m.group(2)))
                continue
            m = re.search(r"Doc file '(.+?)' contains a (?:relative )?link '(.+?)', but the "
                          r"target '(.+?)' is not found among documentation files", l)
            if m:
                found.append(verdict(docs + "/" + m.group(1), "link", docs + "/" + m.group(3)))
                continue
            m = re.search(r"Doc file '(.+?)' contains a link '(.+?)', but the doc '(.+?)' does "
                          r"not contain an anchor '#(.+?)'", l)
            if m:
                found.append(verdict(docs + "/" + m.group(1), "anchor",
                                     docs + "/" + m.group(3) + "#" + m.group(4)))
        return found


# Runs under Debian's python3 (the one MkDocs is installed for): reads the
# config keeping its tags, drops what cannot load, writes it back, prints what
# it changed.
ADAPT = r'''
import importlib, importlib.metadata, sys, yaml
path = sys.argv[1]
class Tagged:
    def __init__(self, tag, value): self.tag, self.value = tag, value
class Loader(yaml.SafeLoader): pass
def construct(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode): value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode): value = loader.construct_sequence(node)
    else: value = loader.construct_mapping(node)
    return Tagged(suffix, value)
Loader.add_multi_constructor("!", construct)
Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda l, s, n: construct(l, "!!python/" + s, n))
class Dumper(yaml.SafeDumper): pass
def represent(dumper, t):
    tag = t.tag if t.tag.startswith("!!") else "!" + t.tag
    if tag.startswith("!!python/"): tag = "tag:yaml.org,2002:python/" + tag[len("!!python/"):]
    if isinstance(t.value, list): return dumper.represent_sequence(tag, t.value)
    if isinstance(t.value, dict): return dumper.represent_mapping(tag, t.value)
    return dumper.represent_scalar(tag, t.value)
Dumper.add_representer(Tagged, represent)
config = yaml.load(open(path, encoding="utf-8"), Loader=Loader)
def importable(module):
    try: importlib.import_module(module); return True
    except Exception: return False
def loads(value):
    # A !!python/name:module.attr value loads only when its module imports.
    if isinstance(value, Tagged) and value.tag.startswith("!!python/"):
        name = value.tag.split(":", 1)[1] if ":" in value.tag else ""
        return importable(name.rsplit(".", 1)[0]) if "." in name else True
    if isinstance(value, dict): return all(loads(v) for v in value.values())
    if isinstance(value, list): return all(loads(v) for v in value)
    return True
theme = config.get("theme")
name = theme.get("name") if isinstance(theme, dict) else theme
if name not in (None, "mkdocs"):
    config["theme"] = {"name": "mkdocs"}
    print("theme %s replaced by the default theme" % name)
installed = {e.name for e in importlib.metadata.entry_points(group="mkdocs.plugins")}
if config.get("plugins"):
    kept = []
    for p in config["plugins"]:
        n = p if isinstance(p, str) else next(iter(p))
        if n in installed: kept.append(p)
        else: print("plugin %s dropped: not installed" % n)
    config["plugins"] = kept
if config.get("markdown_extensions"):
    kept = []
    for e in config["markdown_extensions"]:
        n = e if isinstance(e, str) else next(iter(e))
        options = None if isinstance(e, str) else e[n]
        if not importable(n) and not importable("markdown.extensions." + n):
            print("markdown extension %s dropped: not installed" % n)
        elif not loads(options):
            print("markdown extension %s dropped: its options name code not installed" % n)
        else: kept.append(e)
    config["markdown_extensions"] = kept
yaml.dump(config, open(path, "w", encoding="utf-8"), Dumper=Dumper, sort_keys=False, allow_unicode=True)
'''


# ---- Mintlify

class Mintlify:
    name = "Mintlify"
    targets = "as written"  # link targets as the page writes them
    kinds = ["link", "anchor"]  # `mint validate` (navigation) needs the internet

    @staticmethod
    def serves(site):
        return any(os.path.exists(os.path.join(site, f)) for f in ("docs.json", "mint.json"))

    def __init__(self):
        self.exe = os.environ.get("MINT") or shutil.which("mint")
        self.adapted = []

    def available(self):
        if not self.exe or not os.path.exists(self.exe):
            return "mint is not installed (npm install mint; MINT=.../node_modules/.bin/mint)"
        code, out = run([self.exe, "--version"], ".", 60)
        self.version = "mint " + out.strip().splitlines()[-1] if out.strip() else "mint"
        return None

    def links(self, d, anchors):
        cmd = [self.exe, "broken-links", "--telemetry", "false"]
        if anchors:
            cmd.append("--check-anchors")
        code, out = run(cmd, d, 600)
        found, page = [], None
        for l in out.splitlines():
            s = l.strip()
            if not s or s.startswith("found ") or "checking for broken links" in s \
                    or s.startswith("Warning:"):
                continue
            if s.startswith("\u23bf"):  # "⎿  target" under its page
                if page:
                    found.append((page, s[1:].strip()))
            elif re.match(r"^[\w./@-]+\.mdx?$", s):
                page = s
        if "broken links" not in out and "no broken links" not in out.lower() and code != 0:
            raise RuntimeError("mint broken-links failed:\n" + out)
        return found

    def adapt(self, d):
        """mint.json as mint's schema for it (v1) validates it, with what the
        corpus leaves out that concerns no link filled in: `mint broken-links`
        reads the redirects only from a config that validates, and otherwise
        ignores them all without a word. Each change is recorded in `adapted`."""
        self.adapted = []
        path = os.path.join(d, "mint.json")
        if os.path.exists(os.path.join(d, "docs.json")) or not os.path.exists(path):
            return
        config = json.loads(read(path))
        if "favicon" not in config:
            config["favicon"] = "/favicon.svg"
            self.adapted.append("mint.json: favicon (required by the schema) set to /favicon.svg")
        for tab in config.get("tabs") or []:
            spec = tab.get("openapi")
            if isinstance(spec, str) and not spec.startswith(("/", "https://")):
                tab["openapi"] = "/" + spec
                self.adapted.append("mint.json: tab %s's openapi %s written /%s (the schema wants "
                                    "'/' or 'https://')" % (tab.get("name"), spec, spec))
        write(path, json.dumps(config, indent=2, ensure_ascii=False) + "\n")

    def check(self, d, root=""):
        if root:
            raise RuntimeError("a site_root is not supported for Mintlify")
        self.adapt(d)
        plain = collections.Counter(self.links(d, False))
        found = []
        for page, target in self.links(d, True):
            if plain[(page, target)] > 0:
                plain[(page, target)] -= 1
                found.append(verdict(page, "link", target))
            else:
                found.append(verdict(page, "anchor", target))
        return found


# ---- Docusaurus

class Docusaurus:
    """Only the sidebars: `docusaurus write-translations` loads every docs
    version as the build does and stops on sidebar ids of no doc. The build
    itself, which would check links and anchors, cannot finish on the corpus:
    its images are placeholder bytes that the image loader rejects, and it
    takes minutes per case on two cores."""
    name = "Docusaurus"
    targets = "as written"
    kinds = ["nav"]

    @staticmethod
    def serves(site):
        return any(os.path.exists(os.path.join(site, f))
                   for f in ("docusaurus.config.js", "docusaurus.config.ts"))

    def __init__(self):
        self.modules = os.environ.get("DOCUSAURUS_MODULES", "")
        self.adapted = []

    def available(self):
        exe = os.path.join(self.modules, ".bin", "docusaurus")
        if not self.modules or not os.path.exists(exe):
            return ("Docusaurus is not installed (npm install @docusaurus/core@3 "
                    "@docusaurus/preset-classic@3 react@18 react-dom@18; "
                    "DOCUSAURUS_MODULES=.../node_modules)")
        self.exe = exe
        code, out = run([exe, "--version"], ".", 60)
        self.version = "docusaurus " + out.strip().splitlines()[-1]
        return None

    def check(self, d, root=""):
        if root:
            raise RuntimeError("a site_root is not supported for Docusaurus")
        os.symlink(self.modules, os.path.join(d, "node_modules"))
        code, out = run([self.exe, "write-translations"], d, 600)
        found, sidebar, listing = [], None, False
        for l in out.splitlines():
            m = re.search(r'Invalid sidebar file at "(.+?)"', l)
            if m:
                sidebar = m.group(1)
            if "These sidebar document ids do not exist" in l:
                listing = True
            elif listing and re.match(r"^\s*- ", l):
                found.append(verdict(sidebar, "nav", l.strip()[2:]))
            elif listing:
                listing = False
        if code != 0 and not found:
            raise RuntimeError("docusaurus failed:\n" + out)
        return found


FRAMEWORKS = [MkDocs, Mintlify, Docusaurus]


def oracle(site):
    src = os.path.join(SITES, site)
    manifest = json.load(open(src + ".json", encoding="utf-8"))
    top = manifest.get("site_root", "")
    framework = next((f for f in FRAMEWORKS if f.serves(os.path.join(src, top))), None)
    if framework is None:
        return "no checker for this framework is known here"
    checker = framework()
    why = checker.available()
    if why:
        return why
    with tempfile.TemporaryDirectory(prefix="docs-oracle-") as tmp:
        def fresh(name):
            d = os.path.join(tmp, name)
            shutil.copytree(src, d)
            return d
        # The site as committed, once for each site root a case is checked as
        # (its verdicts name repository paths, so the roots' lists are joined).
        roots = [top] + sorted({r for _, _, r in cases(manifest)} - {top})
        before, adapted = {}, []
        for i, root in enumerate(roots):
            before[root] = checker.check(fresh("before%d" % i), root)
            adapted += [(root + ": " if root else "") + a for a in checker.adapted]
        out = {
            "site": site,
            "checker": checker.name,
            "version": checker.version,
            "kinds": checker.kinds,
            "targets": checker.targets,
            "adapted": adapted,
            "before": ordered([v for r in roots for v in before[r]]),
            "cases": [],
        }
        if top:
            out["site_root"] = top
        for name, edit, root in cases(manifest):
            d = fresh(name)
            edit(d)
            after = checker.check(d, root)
            case = {"case": name}
            if root != top:
                case["site_root"] = root
            case["new"] = ordered(minus(after, before[root]))
            case["gone"] = ordered(minus(before[root], after))
            out["cases"].append(case)
            print("%s %s: %d new" % (site, name, len(out["cases"][-1]["new"])), flush=True)
    with open(os.path.join(SITES, site + ".oracle.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    return None


def main(argv):
    names = argv or sorted(n[:-5] for n in os.listdir(SITES)
                           if n.endswith(".json") and not n.endswith(".oracle.json"))
    for site in names:
        why = oracle(site)
        print("%s: %s" % (site, why or "written"), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
