"""What the docs checks share: the headings of a Markdown file as GitHub anchors, and the
text files of the source tree (build directories and .git left out)."""
import os
import re


def slug(heading):
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces as '-'."""
    h = re.sub(r"`|\*\*|\*|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip())
    h = h.lower()
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def anchors(path):
    """The anchors of a Markdown file's headings (ATX, outside code blocks); a repeated heading gets -1, -2."""
    seen = {}
    out = set()
    fence = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fence = not fence
                continue
            m = None if fence else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                out.add(s if n == 0 else "%s-%d" % (s, n))
    return out


def source_files(root):
    """Every text file of the tree under root, as paths relative to it."""
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs[:] = [x for x in dirs if not (x.startswith(".git") or (rel == "." and x.startswith("build")))]
        for name in files:
            p = os.path.normpath(os.path.join(rel, name))
            try:
                with open(os.path.join(root, p), encoding="utf-8") as f:
                    yield p, f.read()
            except (UnicodeDecodeError, OSError):
                continue
