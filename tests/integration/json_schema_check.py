#!/usr/bin/env python3
"""Checks kvbench's JSON documents against results-schema/kvbench-json.schema.json (Debian's
python3-jsonschema, Draft 2020-12).

  json_schema_check.py SCHEMA DEF FILE...   each FILE against $defs/DEF; a FILE ending in .html
                                            is a report page: every <script type="application/json">
                                            in it is checked against DEF (embedded_plot)
  json_schema_check.py SCHEMA --doc PAGE    every field the schema names is written `field` in PAGE

Prints one line per problem (file, JSON path, message) and exits 1 when there is any.
"""
import html.parser
import json
import re
import sys

import jsonschema


class Scripts(html.parser.HTMLParser):
    """The text of every <script type="application/json"> of a page."""

    def __init__(self):
        super().__init__()
        self.blocks, self._in = [], False

    def handle_starttag(self, tag, attrs):
        if tag == "script" and dict(attrs).get("type") == "application/json":
            self._in = True
            self.blocks.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in = False

    def handle_data(self, data):
        if self._in:
            self.blocks[-1] += data


def documents(path):
    if path.endswith(".html"):
        p = Scripts()
        with open(path, encoding="utf-8") as f:
            p.feed(f.read())
        return [("%s: plot %d" % (path, i + 1), json.loads(b)) for i, b in enumerate(p.blocks)]
    with open(path, encoding="utf-8") as f:
        return [(path, json.load(f))]


def names(node, out):
    """Every property name the schema defines (properties keys), recursively."""
    if isinstance(node, dict):
        for k, v in node.get("properties", {}).items():
            out.add(k)
        for v in node.values():
            names(v, out)
    elif isinstance(node, list):
        for v in node:
            names(v, out)
    return out


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    problems = 0
    if argv[2] == "--doc":
        with open(argv[3], encoding="utf-8") as f:
            page = f.read()
        for n in sorted(names(schema, set())):
            if not re.search(r"`%s`" % re.escape(n), page):
                print("%s: field `%s` of the schema is not documented" % (argv[3], n))
                problems += 1
        return 1 if problems else 0
    target = dict(schema)
    target.pop("anyOf", None)
    target["$ref"] = "#/$defs/" + argv[2]
    validator = jsonschema.Draft202012Validator(target)
    count = 0
    for path in argv[3:]:
        for name, doc in documents(path):
            count += 1
            for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
                where = "".join("[%r]" % p for p in e.absolute_path) or "(top)"
                print("%s %s: %s" % (name, where, e.message))
                problems += 1
    if count == 0:
        print("no document checked")
        return 1
    print("%d documents, %d problems" % (count, problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
