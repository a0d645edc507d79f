#!/usr/bin/env python3
"""Every relative link of README.md and docs/*.md names a file that exists and, with a
#fragment into a Markdown file, one of its headings, and README links every page of docs/
(issue 42). Links to other sites are not
followed. Usage: links.py [SOURCE_DIR] (default: the working directory)."""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mdlib  # noqa: E402

root = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("KVB_SOURCE_DIR", ".")
pages = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
link = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
bad = []
nlinks = 0
for page in pages:
    rel = os.path.relpath(page, root)
    fence = False
    with open(page, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for no, line in enumerate(lines, 1):
        if line.startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        text = re.sub(r"`[^`]*`", "", line)  # code spans are not links
        for m in link.finditer(text):
            target = m.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue  # https:, mailto: ...
            nlinks += 1
            path, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(dest):
                bad.append("%s:%d: %s: no such file" % (rel, no, target))
                continue
            if frag and dest.endswith(".md") and frag not in mdlib.anchors(dest):
                bad.append("%s:%d: %s: no heading '%s' in %s" % (rel, no, target, frag, os.path.relpath(dest, root)))
# the README is the manual's index: every page of docs/ is linked from it
readme = open(pages[0], encoding="utf-8").read()
for page in pages[1:]:
    name = "docs/" + os.path.basename(page)
    if not re.search(r"\]\(" + re.escape(name) + r"[)#]", readme):
        bad.append("README.md: %s is not linked from the manual's index" % name)
for b in bad:
    print(b)
print("%d links in %d pages checked, %d bad" % (nlinks, len(pages), len(bad)))
if nlinks < 20:
    print("too few links found: is %s the source tree?" % root)
    sys.exit(1)
sys.exit(1 if bad else 0)
