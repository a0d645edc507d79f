#!/usr/bin/env bash
# `kvbench show` in every format: json and csv carry the stored numbers at full precision
# (README, Output formats) while table and markdown round them for people.
. "$(dirname "$0")/lib.sh"
printf 'config: {iterations: 2, max_retries: 0}\nworkloads: [{name: hackbench, params: {groups: 1, fds: 2, loops: 10}}]\n' >"$T/a.yaml"
"$KVB" run "$T/a.yaml" -p local -d "$T/r.db" --no-diff >/dev/null 2>"$T/e0"; rc=$?
check "setup: a run on local (rc $rc)" test "$rc" -eq 0
"$KVB" show jobs -d "$T/r.db" --format json >"$T/jobs.json"
check "show jobs json: duration_s is the stored number, not rounded text" python3 - "$T/jobs.json" "$(q "$T/r.db" "select group_concat(duration_s, ' ') from (select duration_s from jobs order by seq)")" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
want = [float(x) for x in sys.argv[2].split()]
got = [r["duration_s"] for r in rows]
assert all(isinstance(x, float) for x in got), got
assert got == want, (got, want)
PY
"$KVB" show runs -d "$T/r.db" --format json >"$T/runs.json"
check "show runs json: duration_s is a number" python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert isinstance(r[0]['duration_s'], (int, float)), r" "$T/runs.json"
"$KVB" show jobs -d "$T/r.db" >"$T/jobs.txt"
check "show jobs table: durations rounded to 2 decimals" grep -qE '\| +[0-9]+\.[0-9]{2} \| +\|$' "$T/jobs.txt"
"$KVB" show runs -d "$T/r.db" --format markdown >"$T/runs.md"
check "show runs markdown: duration rounded to 1 decimal" grep -qE '\| [0-9]+\.[0-9] \|$' "$T/runs.md"
finish
