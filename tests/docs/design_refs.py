#!/usr/bin/env python3
"""Every design citation in the source tree names a heading of docs/design.md (issue 42).

A citation is `docs/design.md#SLUG` (SLUG: the heading's GitHub anchor; docs/design.md,
"Citing this document"). Fails on a citation whose SLUG is no heading, and on any citation
of the brief the design grew from ("DESIGN.md", "DESIGN §N", a bare "(§N"): the project
cannot point to a file it does not carry.
Usage: design_refs.py [SOURCE_DIR] (default: the working directory)."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mdlib  # noqa: E402

root = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("KVB_SOURCE_DIR", ".")
design = os.path.join(root, "docs", "design.md")
heads = mdlib.anchors(design)
cite = re.compile(r"design\.md#([A-Za-z0-9_-]+)")
# the brief's forms: its file name, "DESIGN §14", and a section sign alone in a comment, "(§14"
brief = re.compile(r"DESIGN\.md|DESIGN §|[(,;] ?§\d")
bad = []
ncite = 0
for path, text in mdlib.source_files(root):
    if path.startswith("tests/docs/"):
        continue  # these checks name the forms they refuse
    for no, line in enumerate(text.split("\n"), 1):
        for m in cite.finditer(line):
            if path == "docs/design.md" and m.group(1) == "SLUG":
                continue  # the explanation of the form
            ncite += 1
            if m.group(1) not in heads:
                bad.append("%s:%d: design.md#%s is no heading of docs/design.md" % (path, no, m.group(1)))
        if brief.search(line) and not re.search(r"RFC \d+ §|\d{4} §|Application\", §", line):
            bad.append("%s:%d: cites the brief, not docs/design.md: %s" % (path, no, line.strip()[:100]))
for b in bad:
    print(b)
print("%d citations of %d headings checked, %d bad" % (ncite, len(heads), len(bad)))
if ncite < 50:
    print("too few citations found (%d): is %s the source tree?" % (ncite, root))
    sys.exit(1)
sys.exit(1 if bad else 0)
