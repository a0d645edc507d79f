#!/usr/bin/env bash
# `kvbench show` in every format: json and csv carry the stored numbers at full precision
# (docs/report.md) while table and markdown round them for people; a cell of several
# lines stays one row of the table (the line break shown as \n), csv and json keep it raw;
# boots counted as diff counts them.
. "$(dirname "$0")/lib.sh"
printf '# warmup 0: the checks count the jobs of boards that boot each round\nconfig: {iterations: 2, max_retries: 0, warmup: 0}\nworkloads: [{name: hackbench, params: {groups: 1, fds: 2, loops: 10}}]\n' >"$T/a.yaml"
"$KVB" run "$T/a.yaml" -p local -d "$T/r.db" --no-diff >/dev/null 2>"$T/e0"; rc=$?
check "setup: a run on local (rc $rc)" test "$rc" -eq 0
"$KVB" show jobs -d "$T/r.db" --format json >"$T/jobs.json"
check "show jobs json: duration_s is the stored number, not rounded text" python3 - "$T/jobs.json" "$(q "$T/r.db" "select group_concat(duration_s, ' ') from (select duration_s from jobs order by seq)")" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
want = [float(x) for x in sys.argv[2].split()]
got = [r["duration_s"] for r in rows]
assert all(isinstance(x, float) for x in got), got
assert got == want, (got, want)
PY
"$KVB" show runs -d "$T/r.db" --format json >"$T/runs.json"
check "show runs json: duration_s is a number" python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['rows']; assert isinstance(r[0]['duration_s'], (int, float)), r" "$T/runs.json"
"$KVB" show jobs -d "$T/r.db" >"$T/jobs.txt"
check "show jobs table: durations rounded to 2 decimals" grep -qE '\| +[0-9]+\.[0-9]{2} \| [^|]*\| +\|$' "$T/jobs.txt"
"$KVB" show runs -d "$T/r.db" --format markdown >"$T/runs.md"
check "show runs markdown: duration rounded to 1 decimal" grep -qE '\| [0-9]+\.[0-9] \|$' "$T/runs.md"
# boots: on local (flash none) every round ran in the one boot, as diff says; a flasher that
# installs a kernel boots each round
"$KVB" show variants -d "$T/r.db" --format json >"$T/v.json"
check "setup: two rounds on local" test "$(q "$T/r.db" "select count(*) from boot where status = 'ok'")" = 2
check "show variants on local: 1 boot" python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['rows']; assert r[0]['boots'] == 1, r" "$T/v.json"
check "show jobs on local: every job in boot 1" python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['rows']; assert [j['boot'] for j in r] == [1, 1], r" "$T/jobs.json"
check "diff on local: 1 boot" grep -qE '^\| hackbench +\| time \(s\) +\| default +\| 2 \| +1 \|' <("$KVB" diff -d "$T/r.db")
mkdir -p "$T/okplat"
printf '#!/bin/sh\nexit 0\n' >"$T/okplat/flash" && chmod +x "$T/okplat/flash"
printf 'name: hooked\nconnection: {type: local}\nflash: {method: command, command: flash}\n' >"$T/okplat/platform.yaml"
"$KVB" run "$T/a.yaml" -p "$T/okplat" -d "$T/b.db" --rounds 2 --no-diff >/dev/null 2>&1
check "show variants with a flash each round: 2 boots" python3 -c "import json,sys; r=json.load(sys.stdin)['rows']; assert r[0]['boots'] == 2, r" < <("$KVB" show variants -d "$T/b.db" --format json)
check "show jobs with a flash each round: boots 1 and 2" python3 -c "import json,sys; r=json.load(sys.stdin)['rows']; assert sorted(j['boot'] for j in r) == [1, 2], r" < <("$KVB" show jobs -d "$T/b.db" --format json)

# an error of several lines (a flash hook's stderr): one table row, the line break shown as \n;
# csv and json keep the raw text, escaped their own way
mkdir -p "$T/plat"
printf '#!/bin/sh\necho "first line" >&2\nprintf "second\\tline\\033[31m\\302\\2332J" >&2\nexit 1\n' >"$T/plat/flash"
chmod +x "$T/plat/flash"
printf 'name: hooked\nconnection: {type: local}\nflash: {method: command, command: flash}\n' >"$T/plat/platform.yaml"
"$KVB" run "$T/a.yaml" -p "$T/plat" -d "$T/h.db" --no-diff >/dev/null 2>&1
check "setup: the error holds a line break" test "$(q "$T/h.db" "select count(*) from job where error like '%first line' || char(10) || 'second%'")" = 2
"$KVB" show jobs -d "$T/h.db" >"$T/h.txt"
check "table: every line is a rule or a row" sh -c "! grep -qvE '^[+|].*[+|]\$' '$T/h.txt'"
check "table: all lines of the box are equally wide" test "$(awk '{ print length }' "$T/h.txt" | sort -u | wc -l)" = 1
check "table: the line break, tab, escape and C1 CSI show as \\n \\t \\x1b \\u009b" grep -qF 'first line\nsecond\tline\x1b[31m\u009b2J |' "$T/h.txt"
"$KVB" show variants -d "$T/h.db" --format markdown >"$T/h.md"
check "markdown: one line per row, the line break shown" sh -c "[ \$(wc -l <'$T/h.md') -eq 3 ] && grep -qF 'first line\nsecond' '$T/h.md'"
"$KVB" show jobs -d "$T/h.db" --format json >"$T/h.json"
check "json: the raw text" python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['rows']; assert r[0]['error'].endswith(': first line\nsecond\tline\x1b[31m\u009b2J'), r" "$T/h.json"
"$KVB" show jobs -d "$T/h.db" --format csv >"$T/h.csv"
check "csv: the raw text in one quoted field" python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1], newline=''))); assert len(r) == 2 and r[0]['error'].endswith(': first line\nsecond\tline\x1b[31m\u009b2J'), r" "$T/h.csv"
# tsv (issue 29: a format is its registry line): a tab or line break in a field would split it, so
# they are escaped as PostgreSQL's COPY text format does, and undoing the escapes gives the raw text
"$KVB" show jobs -d "$T/h.db" --format tsv >"$T/h.tsv"
tsv_py=$(cat <<'PY'
import re, sys
L = open(sys.argv[1], encoding='utf-8').read().split('\n')
assert L[-1] == '' and len(L) == 4, L
n = L[0].count('\t')
assert n > 3 and all(l.count('\t') == n for l in L[:3]), L
r = dict(zip(L[0].split('\t'), L[1].split('\t')))
un = re.sub(r'\\(.)', lambda m: {'n': '\n', 't': '\t', 'r': '\r', '\\': '\\'}[m.group(1)], r['error'])
assert un.endswith(': first line\nsecond\tline\x1b[31m\u009b2J'), (r['error'], un)
PY
)
check "tsv: a header and one line per job, each with the header's fields; unescaped, the raw text" python3 -c "$tsv_py" "$T/h.tsv"
check "tsv: a bad format lists tsv" sh -c "'$KVB' show jobs -d '$T/h.db' --format xml 2>&1 | grep -q 'formats: table, markdown, csv, tsv, json, html'"
finish
